//! `jq [-rcnsjS] [--arg N V] [--argjson N J] FILTER [FILE...]`, for the JSON the BGP tools print
//! (RIPEstat answers, traceroutes). The language is the jaq crates' (`jaq-core`, `jaq-std`,
//! `jaq-json`): a maintained jq interpreter, pure Rust, no clock or randomness, so a filter
//! means what it means in jq rather than what a hand-written subset guessed.
//!
//! What is ours is the frame around it, because an agent's filter runs inside a benchmark that
//! must never hang, exhaust memory or abort: a filter is parsed, then walked, and only a
//! bounded language runs (paths, iteration, pipes, `,` (at most [`MAX_COMMAS`]), `//`,
//! comparisons, `and`/`or`, `if`, `try`, `as $x`, literals, array and object construction,
//! string interpolation, `@text`/`@json`/`@sh`, arithmetic without `*`, and the builtins in [`BUILTINS`]). Anything
//! else (definitions, `reduce`/`foreach`, `range`, `recurse(f)`, `until`, `while`, `repeat`,
//! `walk`, `*`, assignments, `label`, `input`, `env`, `now`, regular expressions, dates) is
//! refused before it runs with `jq: error: unsupported filter in this lab: <construct>` (3):
//! each can loop without end or grow its output exponentially, and none is needed to read a
//! RIPEstat answer. Messages and statuses are jq 1.7's where jq has one (docs/shell.md,
//! "jq").

use jaq_core::load::parse::{BinaryOp, Pattern, Term};
use jaq_core::load::{Arena, File, Loader, lex::StrPart};
use jaq_core::ops::Math;
use jaq_core::path::{Part, Path};
use jaq_core::{Compiler, Ctx, Vars, data, native};
use jaq_json::Val;

use super::{Files, input};
use crate::shell::Io;

/// The builtins a filter may call, as `name/arity`: each runs in time and space linear in its
/// input (up to a sort).
pub const BUILTINS: &[&str] = &[
    "add/0",
    "all/0",
    "all/1",
    "any/0",
    "any/1",
    "arrays/0",
    "ascii_downcase/0",
    "ascii_upcase/0",
    "booleans/0",
    "contains/1",
    "del/1",
    "empty/0",
    "endswith/1",
    "error/0",
    "error/1",
    "first/0",
    "first/1",
    "flatten/0",
    "flatten/1",
    "from_entries/0",
    "getpath/1",
    "group_by/1",
    "has/1",
    "in/1",
    "index/1",
    "indices/1",
    "inside/1",
    "isempty/1",
    "iterables/0",
    "join/1",
    "keys/0",
    "keys_unsorted/0",
    "last/0",
    "last/1",
    "length/0",
    "limit/2",
    "ltrimstr/1",
    "map/1",
    "map_values/1",
    "max/0",
    "max_by/1",
    "min/0",
    "min_by/1",
    "not/0",
    "nth/1",
    "nth/2",
    "nulls/0",
    "numbers/0",
    "objects/0",
    "paths/0",
    "recurse/0",
    "reverse/0",
    "rindex/1",
    "rtrimstr/1",
    "scalars/0",
    "select/1",
    "sort/0",
    "sort_by/1",
    "split/1",
    "startswith/1",
    "strings/0",
    "to_entries/0",
    "tojson/0",
    "fromjson/0",
    "tonumber/0",
    "tostring/0",
    "type/0",
    "unique/0",
    "unique_by/1",
    "utf8bytelength/0",
    "values/0",
    "with_entries/1",
];

/// jq 1.7's builtins that are not in [`BUILTINS`]: refused by name. A call to any other name
/// is left to the compiler, which says jq's `NAME/N is not defined` unless jaq has it (then it
/// is refused as well).
const REFUSED: &[&str] = &[
    "range",
    "recurse",
    "until",
    "while",
    "repeat",
    "walk",
    "test",
    "match",
    "capture",
    "scan",
    "splits",
    "split",
    "sub",
    "gsub",
    "ascii",
    "implode",
    "explode",
    "now",
    "env",
    "input",
    "inputs",
    "debug",
    "stderr",
    "input_filename",
    "input_line_number",
    "halt",
    "halt_error",
    "todate",
    "fromdate",
    "mktime",
    "gmtime",
    "localtime",
    "strftime",
    "strptime",
    "strflocaltime",
    "dateadd",
    "datesub",
    "date",
    "todateiso8601",
    "fromdateiso8601",
    "dateiso8601",
    "tostream",
    "fromstream",
    "truncate_stream",
    "setpath",
    "delpaths",
    "fromjson",
    "pow",
    "log",
    "exp",
    "floor",
    "ceil",
    "round",
    "sqrt",
    "fabs",
    "infinite",
    "nan",
    "isinfinite",
    "isnan",
    "isnormal",
    "combinations",
    "transpose",
    "reduce",
    "foreach",
    "limit",
    "first",
    "last",
    "nth",
    "getpath",
    "paths",
    "leaf_paths",
    "any",
    "all",
    "flatten",
    "add",
    "min_by",
    "max_by",
    "ltrimstr",
    "rtrimstr",
    "tojson",
    "builtins",
    "significand",
    "gamma",
    "frexp",
    "modf",
    "ldexp",
    "IN",
    "INDEX",
    "group_by",
    "unique_by",
    "sort_by",
    "error",
    "to_entries",
    "from_entries",
    "with_entries",
    "abs",
    "toarray",
    "have_decnum",
    "trim",
    "ltrim",
    "rtrim",
    "pick",
    "ascii_downcase",
    "ascii_upcase",
    "@base32d",
];

/// The `@format`s a string may use.
const FORMATS: &[&str] = &["@text", "@json", "@sh"];

/// At most this many `,` in a filter: with array construction each can double what the rest
/// of the filter sees, so the bound caps the growth at 2^8 of the input.
pub const MAX_COMMAS: usize = 8;

/// Deepest bracket nesting read, in a filter and in JSON input (jq's own input limit is
/// 10,000; this one keeps the recursive parsers far from the stack's end).
const MAX_DEPTH: usize = 256;

/// The natives the standard definitions name but that this build leaves out (mathematics,
/// regular expressions, dates, encodings, logging): present so the definitions compile, and
/// failing if reached, which the walk above prevents.
const ABSENT: &[(&str, usize)] = &[
    ("stderr_empty", 0),
    ("debug_empty", 0),
    ("ilogb", 0),
    ("scalbln", 2),
    ("pow", 2),
    ("remainder", 2),
    ("copysign", 2),
    ("nextafter", 2),
    ("tgamma", 0),
    ("matches", 2),
    ("split_", 2),
    ("split_matches", 2),
    ("todateiso8601", 0),
    ("fromdateiso8601", 0),
    ("escape_html", 0),
    ("unescape_html", 0),
    ("encode_uri", 0),
    ("decode_uri", 0),
    ("encode_base64", 0),
    ("decode_base64", 0),
];

type D = data::JustLut<Val>;

/// Options of one call.
#[derive(Default)]
struct Opts {
    raw: bool,
    compact: bool,
    null_input: bool,
    slurp: bool,
    join: bool,
    sort_keys: bool,
    vars: Vec<(String, Val)>,
    filter: Option<String>,
    files: Vec<String>,
}

/// What went wrong, as jq words it, and its status.
struct Fail(i32, String);

/// Runs `jq`.
pub(crate) fn run(args: &[String], stdin: &str, files: Files<'_>, io: &mut Io) -> i32 {
    match jq(args, stdin, files, io) {
        Ok(status) => status,
        Err(Fail(status, text)) => io.fail(status, &text),
    }
}

fn jq(args: &[String], stdin: &str, files: Files<'_>, io: &mut Io) -> Result<i32, Fail> {
    let o = options(args)?;
    let code = o.filter.clone().unwrap_or_else(|| ".".into());
    let filter = compile(&code, &o)?;
    let (text, name) = if o.files.is_empty() {
        (stdin.to_string(), "<stdin>".to_string())
    } else {
        let mut all = String::new();
        for f in &o.files {
            let t = input(f, stdin, files)
                .map_err(|e| Fail(2, format!("jq: error: Could not open {f}: {}", e.text())))?;
            all.push_str(&t);
        }
        (all, o.files.last().cloned().unwrap_or_default())
    };
    let inputs = read_inputs(&text, &o)?;
    let at =
        if o.null_input { "<unknown>".to_string() } else { format!("{name}:{}", text.matches('\n').count()) };
    for value in inputs {
        let vars = Vars::new(o.vars.iter().map(|(_, v)| v.clone()));
        let ctx = Ctx::<D>::new(&filter.lut, vars);
        for out in filter.id.run((ctx, value)) {
            let v = out.map_err(|e| match e.get_err() {
                Ok(err) => Fail(5, runtime_error(&at, err.into_val())),
                Err(_) => Fail(5, format!("jq: error (at {at}): halt is not supported in this lab")),
            })?;
            io.out(&print(&v, &o));
            if io.full() {
                return Ok(0);
            }
        }
    }
    Ok(0)
}

fn runtime_error(at: &str, v: Val) -> String {
    match &v {
        Val::TStr(s) => format!("jq: error (at {at}): {}", String::from_utf8_lossy(s)),
        other => format!("jq: error (at {at}) (not a string): {other}"),
    }
}

fn unknown_option(flag: &str) -> Fail {
    Fail(
        2,
        format!(
            "jq: Unknown option: {flag}\nUse jq --help for help with command-line options,\nor see the jq manpage, or online docs  at https://jqlang.github.io/jq"
        ),
    )
}

fn options(args: &[String]) -> Result<Opts, Fail> {
    let mut o = Opts::default();
    let mut it = args.iter();
    let mut operands_only = false;
    while let Some(a) = it.next() {
        if operands_only || a == "-" || !a.starts_with('-') {
            if o.filter.is_none() {
                o.filter = Some(a.clone())
            } else {
                o.files.push(a.clone())
            }
            continue;
        }
        match a.as_str() {
            "--" => operands_only = true,
            "--raw-output" => o.raw = true,
            "--compact-output" => o.compact = true,
            "--null-input" => o.null_input = true,
            "--slurp" => o.slurp = true,
            "--join-output" => (o.raw, o.join) = (true, true),
            "--sort-keys" => o.sort_keys = true,
            "--arg" | "--argjson" => {
                let (Some(name), Some(value)) = (it.next(), it.next()) else {
                    return Err(Fail(
                        2,
                        format!("jq: error: {a} takes two parameters (e.g. {a} varname value)"),
                    ));
                };
                let v = if a == "--arg" {
                    Val::utf8_str(value.clone().into_bytes())
                } else {
                    jaq_json::read::parse_single(value.as_bytes())
                        .map_err(|_| Fail(2, "jq: Invalid JSON text passed to --argjson".to_string()))?
                };
                o.vars.push((format!("${name}"), v));
            }
            long if long.starts_with("--") => return Err(unknown_option(long)),
            short => {
                for c in short[1..].chars() {
                    match c {
                        'r' => o.raw = true,
                        'c' => o.compact = true,
                        'n' => o.null_input = true,
                        's' => o.slurp = true,
                        'j' => (o.raw, o.join) = (true, true),
                        'S' => o.sort_keys = true,
                        _ => return Err(unknown_option(short)),
                    }
                }
            }
        }
    }
    Ok(o)
}

/// Parses, checks and compiles `code`.
fn compile(code: &str, o: &Opts) -> Result<jaq_core::compile::Filter<jaq_core::Native<D>>, Fail> {
    let compile_error = |what: String| {
        Fail(3, format!("jq: error: {what} at <top-level>, line 1:\n{code}\njq: 1 compile error"))
    };
    if depth(code) > MAX_DEPTH {
        return Err(refuse("nesting deeper than 256"));
    }
    let defs = jaq_core::defs().chain(jaq_std::defs()).chain(jaq_json::defs());
    let loader = Loader::new(defs);
    let arena = Arena::default();
    let modules = loader.load(&arena, File { code, path: () }).map_err(|errs| {
        let found = errs.iter().find_map(|(_, e)| syntax_near(e)).unwrap_or_else(|| "end of file".into());
        compile_error(format!("syntax error, unexpected {found}"))
    })?;
    let term =
        jaq_core::load::parse(code, |p| p.term()).ok_or_else(|| compile_error("syntax error".into()))?;
    let mut walk = Walk::default();
    walk.term(&term)?;
    if walk.commas > MAX_COMMAS {
        return Err(refuse("more than 8 commas"));
    }
    let absent = ABSENT.iter().map(|&(name, arity)| -> native::Fun<D> {
        native::run((name, native::v(arity), |_| {
            native::bome(Err(jaq_core::Error::str("unsupported filter in this lab")))
        }))
    });
    let funs = jaq_core::funs().chain(jaq_std::base_funs()).chain(jaq_json::funs()).chain(absent);
    let filter = Compiler::default()
        .with_funs(funs)
        .with_global_vars(o.vars.iter().map(|(n, _)| n.as_str()))
        .compile(modules)
        .map_err(|errs| {
            let what = errs
                .iter()
                .flat_map(|(_, es)| es.iter())
                .map(|(name, undefined)| match undefined {
                    jaq_core::compile::Undefined::Filter(arity) => format!("{name}/{arity} is not defined"),
                    _ => format!("{name} is not defined"),
                })
                .next()
                .unwrap_or_else(|| "compile error".into());
            compile_error(what)
        })?;
    match walk.stranger {
        Some(sig) => Err(refuse(&sig)),
        None => Ok(filter),
    }
}

/// The text a syntax error was found at.
fn syntax_near(e: &jaq_core::load::Error<&str>) -> Option<String> {
    use jaq_core::load::Error;
    let at = match e {
        Error::Lex(es) => es.first().map(|(_, s)| *s),
        Error::Parse(es) => es.first().map(|(_, s)| *s),
        _ => None,
    }?;
    let tok: String = at.chars().take(12).collect();
    Some(if tok.is_empty() { "end of file".into() } else { format!("'{tok}'") })
}

fn refuse(what: &str) -> Fail {
    Fail(3, format!("jq: error: unsupported filter in this lab: {what}"))
}

/// Bracket nesting of a filter (strings included: an over-estimate is harmless).
fn depth(code: &str) -> usize {
    let (mut d, mut max) = (0usize, 0);
    for c in code.bytes() {
        match c {
            b'(' | b'[' | b'{' => {
                d += 1;
                max = max.max(d);
            }
            b')' | b']' | b'}' => d = d.saturating_sub(1),
            _ => {}
        }
    }
    max
}

/// A walk over a parsed filter that refuses what may not run (module docs).
#[derive(Default)]
struct Walk {
    commas: usize,
    /// The first call to a name jq does not have, for the compiler to judge.
    stranger: Option<String>,
}

impl Walk {
    fn term(&mut self, t: &Term<&str>) -> Result<(), Fail> {
        match t {
            Term::Id | Term::Recurse | Term::Num(_) | Term::Var(_) => Ok(()),
            Term::Str(fmt, parts) => {
                if let Some(f) = fmt
                    && !FORMATS.contains(f)
                {
                    return Err(refuse(f));
                }
                parts.iter().try_for_each(|p| match p {
                    StrPart::Term(t) => self.term(t),
                    _ => Ok(()),
                })
            }
            Term::Arr(inner) => self.opt(inner.as_deref()),
            Term::Obj(pairs) => pairs.iter().try_for_each(|(k, v)| {
                self.term(k)?;
                self.opt(v.as_ref())
            }),
            Term::Neg(t) => self.term(t),
            Term::BinOp(l, op, r) => {
                self.op(op)?;
                self.term(l)?;
                self.term(r)
            }
            Term::Label(..) | Term::Break(_) => Err(refuse("label")),
            Term::Fold(kind, ..) => Err(refuse(kind)),
            Term::Def(..) => Err(refuse("def")),
            Term::TryCatch(t, c) => {
                self.term(t)?;
                self.opt(c.as_deref())
            }
            Term::IfThenElse(branches, otherwise) => {
                for (cond, then) in branches {
                    self.term(cond)?;
                    self.term(then)?;
                }
                self.opt(otherwise.as_deref())
            }
            Term::Call(name, args) => {
                self.call(name, args.len())?;
                args.iter().try_for_each(|a| self.term(a))
            }
            Term::Path(t, Path(parts)) => {
                self.term(t)?;
                parts.iter().try_for_each(|(part, _)| match part {
                    Part::Index(i) => self.term(i),
                    Part::Range(a, b) => {
                        self.opt(a.as_ref())?;
                        self.opt(b.as_ref())
                    }
                })
            }
        }
    }

    fn opt(&mut self, t: Option<&Term<&str>>) -> Result<(), Fail> {
        t.map_or(Ok(()), |t| self.term(t))
    }

    fn op(&mut self, op: &BinaryOp<&str>) -> Result<(), Fail> {
        match op {
            BinaryOp::Pipe(Some(p)) => self.pattern(p),
            BinaryOp::Comma => {
                self.commas += 1;
                Ok(())
            }
            BinaryOp::Pipe(None) | BinaryOp::Alt | BinaryOp::Or | BinaryOp::And | BinaryOp::Cmp(_) => Ok(()),
            BinaryOp::Math(Math::Mul) => Err(refuse("*")),
            BinaryOp::Math(_) => Ok(()),
            _ => Err(refuse("assignment")),
        }
    }

    fn call(&mut self, name: &str, arity: usize) -> Result<(), Fail> {
        if name.starts_with('@') {
            return if FORMATS.contains(&name) { Ok(()) } else { Err(refuse(name)) };
        }
        let sig = format!("{name}/{arity}");
        if BUILTINS.contains(&sig.as_str()) {
            Ok(())
        } else if REFUSED.contains(&name) {
            Err(refuse(&sig))
        } else {
            self.stranger.get_or_insert(sig);
            Ok(())
        }
    }

    fn pattern(&mut self, p: &Pattern<&str>) -> Result<(), Fail> {
        match p {
            Pattern::Var(_) => Ok(()),
            Pattern::Arr(ps) => ps.iter().try_for_each(|p| self.pattern(p)),
            Pattern::Obj(kvs) => kvs.iter().try_for_each(|(k, p)| {
                self.term(k)?;
                self.pattern(p)
            }),
        }
    }
}

/// The values to run the filter on: `null` (`-n`), all of them in one array (`-s`), or each.
fn read_inputs(text: &str, o: &Opts) -> Result<Vec<Val>, Fail> {
    if o.null_input {
        return Ok(vec![Val::Null]);
    }
    if depth_json(text) > MAX_DEPTH {
        let line = text.matches('\n').count().max(1);
        return Err(Fail(2, format!("jq: error (at <stdin>:{line}): Exceeds depth limit for parsing")));
    }
    let mut values = Vec::new();
    for v in jaq_json::read::parse_many(text.as_bytes()) {
        values.push(v.map_err(|e| Fail(2, parse_error(text, &e.to_string())))?);
    }
    Ok(if o.slurp { vec![Val::from_iter(values)] } else { values })
}

/// Nesting of JSON text, outside strings.
fn depth_json(text: &str) -> usize {
    let (mut d, mut max, mut in_str, mut esc) = (0usize, 0, false, false);
    for c in text.bytes() {
        if in_str {
            match (esc, c) {
                (true, _) => esc = false,
                (false, b'\\') => esc = true,
                (false, b'"') => in_str = false,
                _ => {}
            }
            continue;
        }
        match c {
            b'"' => in_str = true,
            b'[' | b'{' => {
                d += 1;
                max = max.max(d);
            }
            b']' | b'}' => d = d.saturating_sub(1),
            _ => {}
        }
    }
    max
}

/// jq's `parse error: … at line L, column C` from the reader's `byte offset N: …`.
fn parse_error(text: &str, msg: &str) -> String {
    let (offset, what) = msg
        .strip_prefix("byte offset ")
        .and_then(|r| r.split_once(": "))
        .and_then(|(n, w)| Some((n.parse::<usize>().ok()?, w)))
        .unwrap_or((text.len(), msg));
    let before = text.get(..offset.min(text.len())).unwrap_or(text);
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, str::len);
    format!("jq: parse error: {what} at line {line}, column {column}")
}

/// One output value as jq prints it: indented by two spaces, or `-c` on one line; `-r` prints
/// strings bare; `-j` adds no newline.
fn print(v: &Val, o: &Opts) -> String {
    let mut s = match v {
        Val::TStr(b) if o.raw => String::from_utf8_lossy(b).into_owned(),
        _ => {
            let pp = jaq_json::write::Pp {
                indent: (!o.compact).then(|| "  ".to_string()),
                sort_keys: o.sort_keys,
                sep_space: !o.compact,
                ..Default::default()
            };
            let mut buf = Vec::new();
            // Writing to a Vec cannot fail.
            let _ = jaq_json::write::write(&mut buf, &pp, 0, v);
            String::from_utf8_lossy(&buf).into_owned()
        }
    };
    if !o.join {
        s.push('\n');
    }
    s
}

#[cfg(test)]
mod tests;
