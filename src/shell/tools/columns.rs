//! `sort`, `uniq` and `cut`: the tools that reorder, collapse and slice lines, with GNU
//! coreutils' options, messages and exit statuses for the subset agents use on command output.
//!
//! Hand-written rather than taken from a crate: the uutils implementations pull in locale,
//! clap and file-system layers that cannot build for the page, and what is needed here is a few
//! dozen lines each over text the shell already holds. Comparison is bytewise, as GNU's in the
//! C locale.

use std::cmp::Ordering;

use super::{Files, Io, input, invalid_option};

/// Reads a tool's operands as one text (standard input when there are none), or reports the
/// first unreadable one with `missing(name, reason)` and returns `Err(status)`.
fn gather(
    operands: &[String],
    stdin: &str,
    files: Files<'_>,
    io: &mut Io,
    status: i32,
    missing: impl Fn(&str, &str) -> String,
) -> Result<String, i32> {
    if operands.is_empty() {
        return Ok(stdin.to_string());
    }
    let mut text = String::new();
    for f in operands {
        match input(f, stdin, files) {
            Ok(t) => {
                text.push_str(&t);
                if !t.is_empty() && !t.ends_with('\n') {
                    text.push('\n');
                }
            }
            Err(e) => return Err(io.fail(status, &missing(f, e.text()))),
        }
    }
    Ok(text)
}

/// GNU's "option requires an argument" for `tool -flag`.
fn needs_argument(io: &mut Io, tool: &str, flag: char, status: i32) -> i32 {
    let msg =
        format!("{tool}: option requires an argument -- '{flag}'\nTry '{tool} --help' for more information.");
    io.fail(status, &msg)
}

/// Parsed options: each flag with its value (empty for a switch), then the operands.
type Parsed = (Vec<(char, String)>, Vec<String>);

/// Splits `-abc` style flag clusters; an option taking a value consumes the rest of its word or
/// the next word. `with_value` lists those options. Returns (flag, value) pairs and operands.
fn options(
    tool: &str,
    args: &[String],
    with_value: &str,
    known: &str,
    status: i32,
    io: &mut Io,
) -> Result<Parsed, i32> {
    let mut flags = Vec::new();
    let mut operands = Vec::new();
    let mut i = 0;
    while let Some(a) = args.get(i) {
        i += 1;
        if a == "--" {
            operands.extend(args[i..].iter().cloned());
            break;
        }
        let Some(cluster) = a.strip_prefix('-').filter(|c| !c.is_empty() && !a.starts_with("--")) else {
            if a.starts_with("--") {
                let msg =
                    format!("{tool}: unrecognized option '{a}'\nTry '{tool} --help' for more information.");
                return Err(io.fail(status, &msg));
            }
            operands.push(a.clone());
            continue;
        };
        for (k, c) in cluster.char_indices() {
            if with_value.contains(c) {
                let rest = &cluster[k + c.len_utf8()..];
                let value = if rest.is_empty() {
                    let Some(v) = args.get(i) else { return Err(needs_argument(io, tool, c, status)) };
                    i += 1;
                    v.clone()
                } else {
                    rest.to_string()
                };
                flags.push((c, value));
                break;
            }
            if !known.contains(c) {
                return Err(invalid_option(io, tool, c, status));
            }
            flags.push((c, String::new()));
        }
    }
    Ok((flags, operands))
}

/// A `sort` key: fields `start..=end` (1-based; `end` none = to the end of the line).
#[derive(Debug, Clone, Copy)]
struct Key {
    start: usize,
    end: Option<usize>,
}

/// `sort [-nru] [-k N[,M]] [-t C] [FILE]...`: exit 0, or 2 on a bad option or file.
pub(super) fn sort(args: &[String], stdin: &str, files: Files<'_>, io: &mut Io) -> i32 {
    let (flags, operands) = match options("sort", args, "kt", "nru", 2, io) {
        Ok(x) => x,
        Err(s) => return s,
    };
    let (mut numeric, mut reverse, mut unique) = (false, false, false);
    let mut key = None;
    let mut tab = None;
    for (f, v) in flags {
        match f {
            'n' => numeric = true,
            'r' => reverse = true,
            'u' => unique = true,
            'k' => match parse_key(&v) {
                Ok(k) => key = Some(k),
                Err(msg) => return io.fail(2, &format!("sort: {msg}")),
            },
            _ => {
                let mut chars = v.chars();
                match (chars.next(), chars.next()) {
                    (Some(c), None) => tab = Some(c),
                    (None, _) => return io.fail(2, "sort: empty tab"),
                    _ => return io.fail(2, &format!("sort: multi-character tab '{v}'")),
                }
            }
        }
    }
    let text = match gather(&operands, stdin, files, io, 2, |f, e| format!("sort: cannot read: {f}: {e}")) {
        Ok(t) => t,
        Err(s) => return s,
    };
    let mut lines: Vec<&str> = text.lines().collect();
    let by_key = |a: &&str, b: &&str| {
        let (x, y) = (sort_key(a, key, tab), sort_key(b, key, tab));
        if numeric { number(x).partial_cmp(&number(y)).unwrap_or(Ordering::Equal) } else { x.cmp(y) }
    };
    lines.sort_by(|a, b| {
        let o = by_key(a, b).then_with(|| if unique { Ordering::Equal } else { a.cmp(b) });
        if reverse { o.reverse() } else { o }
    });
    if unique {
        lines.dedup_by(|b, a| by_key(a, b) == Ordering::Equal);
    }
    for l in lines {
        io.outln(l);
        if io.full() {
            break;
        }
    }
    0
}

/// The part of `line` that `key` compares (the whole line without a key).
fn sort_key(line: &str, key: Option<Key>, tab: Option<char>) -> &str {
    key.map_or(line, |k| key_text(line, k, tab))
}

/// `N` or `N,M`. GNU's `.C` character offsets and per-key ordering letters are not supported
/// here and report an invalid number.
fn parse_key(spec: &str) -> Result<Key, String> {
    let field = |s: &str, what: &str| -> Result<usize, String> {
        let digits: String = s.chars().take_while(char::is_ascii_digit).collect();
        if digits.is_empty() || digits.len() != s.len() {
            return Err(format!("invalid number {what}: invalid count at start of '{s}'"));
        }
        match digits.parse::<usize>() {
            Ok(0) => Err(format!("field number is zero: invalid field specification '{spec}'")),
            Ok(n) => Ok(n),
            Err(_) => Err(format!("invalid number {what}: invalid count at start of '{s}'")),
        }
    };
    let (a, b) = match spec.split_once(',') {
        Some((a, b)) => (a, Some(b)),
        None => (spec, None),
    };
    let start = field(a, "at field start")?;
    let end = b.map(|b| field(b, "after ','")).transpose()?;
    Ok(Key { start, end })
}

/// The text of key `k` in `line`: with a tab character, fields between tabs; without, GNU's
/// blank-separated fields, each keeping the blanks before it.
fn key_text(line: &str, k: Key, tab: Option<char>) -> &str {
    let bounds: Vec<(usize, usize)> = match tab {
        Some(t) => {
            let mut out = Vec::new();
            let mut from = 0;
            for (i, c) in line.char_indices().filter(|&(_, c)| c == t) {
                out.push((from, i));
                from = i + c.len_utf8();
            }
            out.push((from, line.len()));
            out
        }
        None => blank_fields(line),
    };
    let Some(&(s, _)) = bounds.get(k.start - 1) else { return "" };
    let e = k.end.and_then(|e| bounds.get(e - 1)).map_or(line.len(), |&(_, e)| e);
    if k.end.is_some_and(|e| e < k.start) { "" } else { &line[s..e.max(s)] }
}

/// Blank-separated fields, each starting at the blanks before it (GNU sort's default).
fn blank_fields(line: &str) -> Vec<(usize, usize)> {
    let b = line.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let start = i;
        while i < b.len() && (b[i] == b' ' || b[i] == b'\t') {
            i += 1;
        }
        while i < b.len() && b[i] != b' ' && b[i] != b'\t' {
            i += 1;
        }
        out.push((start, i));
    }
    out
}

/// GNU `-n`'s value of a key: leading blanks, an optional `-`, digits and one decimal point;
/// anything else (or nothing) is zero.
fn number(s: &str) -> f64 {
    let t = s.trim_start_matches([' ', '\t']);
    let mut end = 0;
    let mut dot = false;
    for (i, c) in t.char_indices() {
        match c {
            '-' if i == 0 => {}
            '0'..='9' => {}
            '.' if !dot => dot = true,
            _ => break,
        }
        end = i + c.len_utf8();
    }
    t[..end].parse().unwrap_or(0.0)
}

/// `uniq [-c] [-d] [-u] [-i] [INPUT]`: collapses adjacent equal lines; exit 0, or 1.
pub(super) fn uniq(args: &[String], stdin: &str, files: Files<'_>, io: &mut Io) -> i32 {
    let (flags, operands) = match options("uniq", args, "", "cdui", 1, io) {
        Ok(x) => x,
        Err(s) => return s,
    };
    let has = |c: char| flags.iter().any(|f| f.0 == c);
    if operands.len() > 1 {
        return io.fail(1, "uniq: writing to an output file is not supported in this lab");
    }
    let text = match gather(&operands, stdin, files, io, 1, |f, e| format!("uniq: {f}: {e}")) {
        Ok(t) => t,
        Err(s) => return s,
    };
    let same = |a: &str, b: &str| if has('i') { a.eq_ignore_ascii_case(b) } else { a == b };
    let mut groups: Vec<(&str, usize)> = Vec::new();
    for l in text.lines() {
        match groups.last_mut() {
            Some((first, n)) if same(first, l) => *n += 1,
            _ => groups.push((l, 1)),
        }
    }
    for (l, n) in groups {
        if (has('d') && n < 2) || (has('u') && n > 1) {
            continue;
        }
        if has('c') {
            io.outln(&format!("{n:>7} {l}"));
        } else {
            io.outln(l);
        }
        if io.full() {
            break;
        }
    }
    0
}

/// `cut -f LIST [-d C] [-s] [FILE]...` or `cut -c LIST`/`-b LIST`: exit 0, or 1.
pub(super) fn cut(args: &[String], stdin: &str, files: Files<'_>, io: &mut Io) -> i32 {
    let (flags, operands) = match options("cut", args, "fcbd", "s", 1, io) {
        Ok(x) => x,
        Err(s) => return s,
    };
    let mut list: Option<(char, String)> = None;
    let mut delim = '\t';
    let mut only_delimited = false;
    for (f, v) in flags {
        match f {
            'd' => {
                let mut chars = v.chars();
                match (chars.next(), chars.next()) {
                    (Some(c), None) => delim = c,
                    _ => return usage(io, "the delimiter must be a single character"),
                }
            }
            's' => only_delimited = true,
            _ if list.is_some() => return usage(io, "only one list may be specified"),
            _ => list = Some((f, v)),
        }
    }
    let Some((mode, spec)) = list else {
        return usage(io, "you must specify a list of bytes, characters, or fields");
    };
    let ranges = match parse_list(&spec) {
        Ok(r) => r,
        Err(msg) => return usage(io, &msg),
    };
    let text = match gather(&operands, stdin, files, io, 1, |f, e| format!("cut: {f}: {e}")) {
        Ok(t) => t,
        Err(s) => return s,
    };
    let wanted = |i: usize| ranges.iter().any(|&(a, b)| a <= i && i <= b);
    for line in text.lines() {
        let out = if mode == 'f' {
            if !line.contains(delim) {
                if only_delimited {
                    continue;
                }
                line.to_string()
            } else {
                let kept: Vec<&str> =
                    line.split(delim).enumerate().filter(|(i, _)| wanted(i + 1)).map(|(_, f)| f).collect();
                kept.join(&delim.to_string())
            }
        } else if mode == 'c' {
            line.chars().enumerate().filter(|(i, _)| wanted(i + 1)).map(|(_, c)| c).collect()
        } else {
            let bytes: Vec<u8> =
                line.bytes().enumerate().filter(|(i, _)| wanted(i + 1)).map(|(_, b)| b).collect();
            String::from_utf8_lossy(&bytes).into_owned()
        };
        io.outln(&out);
        if io.full() {
            break;
        }
    }
    0
}

fn usage(io: &mut Io, msg: &str) -> i32 {
    io.fail(1, &format!("cut: {msg}\nTry 'cut --help' for more information."))
}

/// `N`, `N-M`, `N-`, `-M`, comma-separated, 1-based and inclusive.
fn parse_list(spec: &str) -> Result<Vec<(usize, usize)>, String> {
    let bad = || format!("invalid field value '{spec}'");
    let num = |s: &str| -> Result<usize, String> {
        match s.parse::<usize>() {
            Ok(0) => Err("fields are numbered from 1".into()),
            Ok(n) if s.bytes().all(|b| b.is_ascii_digit()) => Ok(n),
            _ => Err(bad()),
        }
    };
    let mut out = Vec::new();
    for part in spec.split(',') {
        let range = match part.split_once('-') {
            None => (num(part)?, num(part)?),
            Some(("", "")) => return Err("invalid range with no endpoint: -".into()),
            Some(("", b)) => (1, num(b)?),
            Some((a, "")) => (num(a)?, usize::MAX),
            Some((a, b)) => (num(a)?, num(b)?),
        };
        if range.0 > range.1 {
            return Err("invalid decreasing range".into());
        }
        out.push(range);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::super::tests::t;

    #[test]
    fn sort_orders_bytewise_numerically_by_key_and_uniquely() {
        assert_eq!(t("sort", "", "b\nB\na\n"), ("B\na\nb\n".into(), 0));
        assert_eq!(t("sort", "-r", "b\na\nc\n"), ("c\nb\na\n".into(), 0));
        assert_eq!(t("sort", "-n", "10\n9\n-1\nx\n"), ("-1\nx\n9\n10\n".into(), 0));
        assert_eq!(t("sort", "-nr", "10\n9\n100\n"), ("100\n10\n9\n".into(), 0));
        assert_eq!(t("sort", "-u", "b\na\nb\n"), ("a\nb\n".into(), 0));
        assert_eq!(t("sort", "-k 2 -n", "a 3\nb 1\nc 2\n"), ("b 1\nc 2\na 3\n".into(), 0));
        assert_eq!(t("sort", "-t| -k2,2", "x|b|1\ny|a|2\n"), ("y|a|2\nx|b|1\n".into(), 0));
        assert_eq!(
            t("sort", "-k2 -u", "a x\nb x\nc y\n"),
            ("a x\nc y\n".into(), 0),
            "-u keeps the first of equal keys"
        );
        assert_eq!(t("sort", "/f", ""), ("f1\nf2\n".into(), 0));
    }

    #[test]
    fn sort_errors_are_gnus() {
        assert_eq!(t("sort", "-x", "").1, 2);
        assert!(t("sort", "-x", "").0.starts_with("sort: invalid option -- 'x'\n"));
        assert_eq!(
            t("sort", "-k 0", ""),
            ("sort: field number is zero: invalid field specification '0'\n".into(), 2)
        );
        assert_eq!(
            t("sort", "-k x", ""),
            ("sort: invalid number at field start: invalid count at start of 'x'\n".into(), 2)
        );
        assert_eq!(t("sort", "-t ab", ""), ("sort: multi-character tab 'ab'\n".into(), 2));
        assert_eq!(
            t("sort", "/nope", ""),
            ("sort: cannot read: /nope: No such file or directory\n".into(), 2)
        );
        assert!(t("sort", "-k", "").0.starts_with("sort: option requires an argument -- 'k'\n"));
    }

    #[test]
    fn uniq_counts_and_filters_adjacent_lines() {
        assert_eq!(t("uniq", "", "a\na\nb\na\n"), ("a\nb\na\n".into(), 0));
        assert_eq!(t("uniq", "-c", "a\na\nb\n"), ("      2 a\n      1 b\n".into(), 0));
        assert_eq!(t("uniq", "-d", "a\na\nb\n"), ("a\n".into(), 0));
        assert_eq!(t("uniq", "-u", "a\na\nb\n"), ("b\n".into(), 0));
        assert_eq!(t("uniq", "-ic", "A\na\n"), ("      2 A\n".into(), 0));
        assert_eq!(t("uniq", "/nope", ""), ("uniq: /nope: No such file or directory\n".into(), 1));
        assert_eq!(t("uniq", "-z", "").1, 1);
    }

    #[test]
    fn cut_selects_fields_characters_and_bytes() {
        let rows = "a|b|c\nno delimiter\n";
        assert_eq!(t("cut", "-d| -f2", rows), ("b\nno delimiter\n".into(), 0));
        assert_eq!(t("cut", "-d| -f1,3", rows), ("a|c\nno delimiter\n".into(), 0));
        assert_eq!(t("cut", "-d| -f2- -s", rows), ("b|c\n".into(), 0));
        assert_eq!(t("cut", "-f2", "x\ty\n"), ("y\n".into(), 0));
        assert_eq!(t("cut", "-c -3", "abcdef\n"), ("abc\n".into(), 0));
        assert_eq!(t("cut", "-b2-3", "abcdef\n"), ("bc\n".into(), 0));
        assert_eq!(t("cut", "-d| -f9", rows), ("\nno delimiter\n".into(), 0));
    }

    #[test]
    fn cut_errors_are_gnus() {
        let no_list = "cut: you must specify a list of bytes, characters, or fields\nTry 'cut --help' for more information.\n";
        assert_eq!(t("cut", "", "x\n"), (no_list.into(), 1));
        assert!(t("cut", "-d ab -f1", "").0.starts_with("cut: the delimiter must be a single character\n"));
        assert!(t("cut", "-f0", "").0.starts_with("cut: fields are numbered from 1\n"));
        assert!(t("cut", "-f3-1", "").0.starts_with("cut: invalid decreasing range\n"));
        assert!(t("cut", "-fx", "").0.starts_with("cut: invalid field value 'x'\n"));
        assert_eq!(t("cut", "-f1 /nope", ""), ("cut: /nope: No such file or directory\n".into(), 1));
    }
}
