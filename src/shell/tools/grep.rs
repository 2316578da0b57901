//! `grep`: POSIX basic, extended and fixed-string patterns over standard input or files,
//! with GNU grep's options, messages and exit statuses (0 selected, 1 none, 2 trouble).
//!
//! Patterns compile to `regex_lite` (docs/shell.md says why this crate): a basic expression
//! is rewritten to extended syntax first, and `-w` is checked around each match as GNU grep
//! does (a match that is not a whole word is retried further on) rather than with `\b`,
//! which would see a word inside `eth1-x` differently.

use regex_lite::{Regex, RegexBuilder};

use super::{Files, Io, input};

/// Pattern dialects.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Dialect {
    Basic,
    Extended,
    Fixed,
}

#[derive(Debug)]
struct Opts {
    dialect: Dialect,
    invert: bool,
    ignore_case: bool,
    word: bool,
    line: bool,
    count: bool,
    only: bool,
    numbers: bool,
    quiet: bool,
    /// `Some(true)` for `-H`, `Some(false)` for `-h`, else by the number of files.
    names: Option<bool>,
    after: usize,
    before: usize,
    patterns: Vec<String>,
}

const USAGE: &str = "Usage: grep [OPTION]... PATTERNS [FILE]...\nTry 'grep --help' for more information.";

fn usage(io: &mut Io, msg: &str) -> i32 {
    io.fail(2, &format!("{msg}{USAGE}"))
}

fn context(io: &mut Io, v: &str) -> Result<usize, i32> {
    v.parse::<usize>().map_err(|_| io.fail(2, &format!("grep: {v}: invalid context length argument")))
}

/// Long options without a value, by their short letter.
const LONG: [(&str, char); 14] = [
    ("ignore-case", 'i'),
    ("invert-match", 'v'),
    ("word-regexp", 'w'),
    ("line-regexp", 'x'),
    ("count", 'c'),
    ("line-number", 'n'),
    ("only-matching", 'o'),
    ("quiet", 'q'),
    ("silent", 'q'),
    ("no-messages", 's'),
    ("with-filename", 'H'),
    ("no-filename", 'h'),
    ("extended-regexp", 'E'),
    ("fixed-strings", 'F'),
];

/// Sets the switch of the short option `c`; false when `c` is not a switch.
fn switch(o: &mut Opts, c: char) -> bool {
    match c {
        'i' | 'y' => o.ignore_case = true,
        'v' => o.invert = true,
        'w' => o.word = true,
        'x' => o.line = true,
        'c' => o.count = true,
        'o' => o.only = true,
        'n' => o.numbers = true,
        'q' => o.quiet = true,
        // `-s` silences messages about files; they are few here and stay.
        's' => {}
        'H' => o.names = Some(true),
        'h' => o.names = Some(false),
        'E' => o.dialect = Dialect::Extended,
        'F' => o.dialect = Dialect::Fixed,
        'G' => o.dialect = Dialect::Basic,
        _ => return false,
    }
    true
}

/// A long option; `Err` carries the exit status of a refusal.
fn long(o: &mut Opts, a: &str, args: &[String], i: &mut usize, io: &mut Io) -> Result<(), i32> {
    let body = &a[2..];
    let (name, val) = body.split_once('=').map_or((body, None), |(n, v)| (n, Some(v.to_string())));
    let mut value = |i: &mut usize| {
        val.clone()
            .or_else(|| args.get(*i).cloned().inspect(|_| *i += 1))
            .ok_or_else(|| usage(io, &format!("grep: option '--{name}' requires an argument\n")))
    };
    if let Some(&(_, c)) = LONG.iter().find(|(n, _)| *n == name) {
        switch(o, c);
        return Ok(());
    }
    match name {
        "regexp" => {
            let v = value(i)?;
            o.patterns.push(v);
        }
        "after-context" | "before-context" | "context" => {
            let v = value(i)?;
            let n = context(io, &v)?;
            if name != "before-context" {
                o.after = n;
            }
            if name != "after-context" {
                o.before = n;
            }
        }
        _ => return Err(usage(io, &format!("grep: unrecognized option '{a}'\n"))),
    }
    Ok(())
}

/// Reads the options; returns them with the dialect and the file operands.
fn parse(args: &[String], dialect: Dialect, io: &mut Io) -> Result<(Opts, Vec<String>), i32> {
    let mut o = Opts {
        dialect,
        invert: false,
        ignore_case: false,
        word: false,
        line: false,
        count: false,
        only: false,
        numbers: false,
        quiet: false,
        names: None,
        after: 0,
        before: 0,
        patterns: Vec::new(),
    };
    let mut operands = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let a = &args[i];
        i += 1;
        if a == "--" {
            operands.extend(args[i..].iter().cloned());
            break;
        }
        if a.starts_with("--") {
            long(&mut o, a, args, &mut i, io)?;
            continue;
        }
        let Some(flags) = a.strip_prefix('-').filter(|f| !f.is_empty()) else {
            operands.push(a.clone());
            continue;
        };
        let chars: Vec<char> = flags.chars().collect();
        let mut k = 0;
        while k < chars.len() {
            let c = chars[k];
            k += 1;
            match c {
                c if switch(&mut o, c) => {}
                'A' | 'B' | 'C' | 'e' => {
                    let rest: String = chars[k..].iter().collect();
                    k = chars.len();
                    let v = if !rest.is_empty() {
                        rest
                    } else if let Some(v) = args.get(i) {
                        i += 1;
                        v.clone()
                    } else {
                        return Err(usage(io, &format!("grep: option requires an argument -- '{c}'\n")));
                    };
                    if c == 'e' {
                        o.patterns.push(v);
                        continue;
                    }
                    let n = context(io, &v)?;
                    if c != 'B' {
                        o.after = n;
                    }
                    if c != 'A' {
                        o.before = n;
                    }
                }
                d if d.is_ascii_digit() => {
                    let digits: String = std::iter::once(d)
                        .chain(chars[k..].iter().copied().take_while(char::is_ascii_digit))
                        .collect();
                    k += digits.len() - 1;
                    let n = context(io, &digits)?;
                    (o.after, o.before) = (n, n);
                }
                other => return Err(usage(io, &format!("grep: invalid option -- '{other}'\n"))),
            }
        }
    }
    if o.patterns.is_empty() {
        if operands.is_empty() {
            return Err(usage(io, ""));
        }
        o.patterns.push(operands.remove(0));
    }
    Ok((o, operands))
}

/// Runs grep.
pub(super) fn run(args: &[String], stdin: &str, files: Files<'_>, io: &mut Io, dialect: Dialect) -> i32 {
    let (o, mut operands) = match parse(args, dialect, io) {
        Ok(x) => x,
        Err(status) => return status,
    };
    let Some(re) = compile(&o) else {
        return io.fail(2, "grep: Invalid regular expression");
    };
    if operands.is_empty() {
        operands.push("-".into());
    }
    let names = o.names.unwrap_or(operands.len() > 1);
    let (mut selected, mut trouble) = (false, false);
    for f in &operands {
        match input(f, stdin, files) {
            Ok(text) => {
                let name = if f == "-" { "(standard input)" } else { f.as_str() };
                selected |= select(&text, &re, &o, names.then_some(name), io);
            }
            Err(e) => {
                io.errln(&format!("grep: {f}: {}", e.text()));
                trouble = true;
            }
        }
        if o.quiet && selected {
            return 0;
        }
    }
    if trouble { 2 } else { i32::from(!selected) }
}

fn compile(o: &Opts) -> Option<Regex> {
    let parts: Vec<String> = o
        .patterns
        .iter()
        .flat_map(|p| p.split('\n'))
        .map(|p| match o.dialect {
            Dialect::Fixed => regex_lite::escape(p),
            Dialect::Extended => p.to_string(),
            Dialect::Basic => basic_to_extended(p),
        })
        .map(|p| if o.line { format!("^(?:{p})$") } else { format!("(?:{p})") })
        .collect();
    RegexBuilder::new(&parts.join("|")).case_insensitive(o.ignore_case).size_limit(1 << 20).build().ok()
}

/// POSIX basic regular expressions in extended syntax: `\( \) \{ \} \| \+ \?` are operators,
/// their bare forms literals; a leading `*` (or one after a leading `^`) is literal.
fn basic_to_extended(p: &str) -> String {
    let mut out = String::with_capacity(p.len() + 8);
    let mut chars = p.chars();
    let mut at_start = true;
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some(n @ ('(' | ')' | '{' | '}' | '|' | '+' | '?')) => out.push(n),
                Some(n) => {
                    out.push('\\');
                    out.push(n);
                }
                None => out.push_str(r"\\"),
            },
            '(' | ')' | '{' | '}' | '|' | '+' | '?' => {
                out.push('\\');
                out.push(c);
            }
            '*' if at_start => out.push_str(r"\*"),
            _ => out.push(c),
        }
        at_start = c == '^' && out.len() == 1;
    }
    out
}

fn is_word(c: Option<char>) -> bool {
    c.is_some_and(|c| c.is_alphanumeric() || c == '_')
}

/// Matches of `re` in `line` as byte ranges (whole-word ones only with `-w`).
fn matches(re: &Regex, line: &str, word: bool) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start = 0;
    while start <= line.len() {
        let Some(m) = re.find_at(line, start) else { break };
        let ok = !word
            || (!is_word(line[..m.start()].chars().next_back()) && !is_word(line[m.end()..].chars().next()));
        if ok && (m.end() > m.start() || !word) {
            out.push((m.start(), m.end()));
            start = if m.end() > m.start() { m.end() } else { m.end() + 1 };
        } else {
            start = m.start() + line[m.start()..].chars().next().map_or(1, char::len_utf8);
        }
        while start < line.len() && !line.is_char_boundary(start) {
            start += 1;
        }
    }
    out
}

/// Prints the selected lines of one input with their context; returns whether any was selected.
fn select(text: &str, re: &Regex, o: &Opts, name: Option<&str>, io: &mut Io) -> bool {
    let lines: Vec<&str> = text.lines().collect();
    let hits: Vec<Vec<(usize, usize)>> = lines.iter().map(|l| matches(re, l, o.word)).collect();
    let selected: Vec<bool> = hits.iter().map(|h| h.is_empty() == o.invert).collect();
    let count = selected.iter().filter(|s| **s).count();
    if o.quiet {
        return count > 0;
    }
    let prefix = |i: usize, sep: char| {
        let mut p = name.map_or(String::new(), |n| format!("{n}{sep}"));
        if o.numbers {
            p.push_str(&format!("{}{sep}", i + 1));
        }
        p
    };
    if o.count {
        let head = name.map_or(String::new(), |n| format!("{n}:"));
        io.outln(&format!("{head}{count}"));
        return count > 0;
    }
    if o.only {
        for (i, l) in lines.iter().enumerate().filter(|(i, _)| selected[*i] && !o.invert) {
            for (s, e) in hits[i].iter().filter(|(s, e)| e > s) {
                io.outln(&format!("{}{}", prefix(i, ':'), &l[*s..*e]));
            }
        }
        return count > 0;
    }
    let mut last_printed: Option<usize> = None;
    for (i, l) in lines.iter().enumerate() {
        if !selected[i] {
            continue;
        }
        let from = i.saturating_sub(o.before);
        let first_new = last_printed.map_or(from, |p| from.max(p + 1));
        if (o.before > 0 || o.after > 0) && last_printed.is_some_and(|p| first_new > p + 1) {
            io.outln("--");
        }
        for (j, ctx) in lines.iter().enumerate().take(i).skip(first_new) {
            io.outln(&format!("{}{ctx}", prefix(j, if selected[j] { ':' } else { '-' })));
        }
        io.outln(&format!("{}{l}", prefix(i, ':')));
        last_printed = Some(i);
        let mut j = i + 1;
        while j < lines.len() && j <= i + o.after && !selected[j] {
            io.outln(&format!("{}{}", prefix(j, '-'), lines[j]));
            last_printed = Some(j);
            j += 1;
        }
        if io.full() {
            break;
        }
    }
    count > 0
}
