//! The text tools of the shell: `cat`, `echo`, `grep`, `head`, `tail`, `wc`, `true`,
//! `false`, with GNU coreutils' options and messages for what agents pipe kubectl into.
//! There is no file system, so file operands are reported missing.

use regex::{Regex, RegexBuilder};

use crate::k8s::output::Output;

/// Runs a tool, or `None` when `name` is not one.
pub fn run(name: &str, args: &[String], stdin: &str) -> Option<Output> {
    Some(match name {
        "cat" => cat(args, stdin),
        "echo" => echo(args),
        "grep" => grep(args, stdin),
        "head" => head_tail(args, stdin, true),
        "tail" => head_tail(args, stdin, false),
        "wc" => wc(args, stdin),
        "true" => Output::default(),
        "false" => Output { status: 1, ..Output::default() },
        _ => return None,
    })
}

fn no_file(tool: &str, f: &str, status: i32) -> Output {
    let mut o = Output::default();
    o.err(format!("{tool}: {f}: No such file or directory\n"));
    o.status = status;
    o
}

fn cat(args: &[String], stdin: &str) -> Output {
    let mut o = Output::default();
    for a in args {
        if a != "-" && !a.starts_with('-') {
            return no_file("cat", a, 1);
        }
    }
    o.out(stdin);
    o
}

fn echo(args: &[String]) -> Output {
    let mut newline = true;
    let mut escapes = false;
    let mut i = 0;
    while let Some(a) = args.get(i) {
        let flags = a.strip_prefix('-').filter(|f| !f.is_empty() && f.chars().all(|c| "neE".contains(c)));
        let Some(flags) = flags else { break };
        for c in flags.chars() {
            match c {
                'n' => newline = false,
                'e' => escapes = true,
                _ => escapes = false,
            }
        }
        i += 1;
    }
    let mut text = args[i..].join(" ");
    if escapes {
        let (t, stop) = unescape(&text);
        text = t;
        if stop {
            newline = false;
        }
    }
    if newline {
        text.push('\n');
    }
    let mut o = Output::default();
    o.out(text);
    o
}

/// `echo -e` escapes; the flag says `\c` stopped the output.
fn unescape(s: &str) -> (String, bool) {
    let mut out = String::new();
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('r') => out.push('\r'),
            Some('\\') => out.push('\\'),
            Some('a') => out.push('\u{7}'),
            Some('b') => out.push('\u{8}'),
            Some('e') => out.push('\u{1b}'),
            Some('f') => out.push('\u{c}'),
            Some('v') => out.push('\u{b}'),
            Some('c') => return (out, true),
            Some('0') => {
                let mut v = 0u32;
                for _ in 0..3 {
                    match chars.peek().and_then(|d| d.to_digit(8)) {
                        Some(d) => {
                            v = v * 8 + d;
                            chars.next();
                        }
                        None => break,
                    }
                }
                out.push(char::from_u32(v).unwrap_or('\u{fffd}'));
            }
            Some('x') => {
                let mut v = 0u32;
                let mut n = 0;
                while n < 2 {
                    match chars.peek().and_then(|d| d.to_digit(16)) {
                        Some(d) => {
                            v = v * 16 + d;
                            chars.next();
                            n += 1;
                        }
                        None => break,
                    }
                }
                if n == 0 {
                    out.push_str("\\x");
                } else {
                    out.push(char::from_u32(v).unwrap_or('\u{fffd}'));
                }
            }
            Some(other) => {
                out.push('\\');
                out.push(other);
            }
            None => out.push('\\'),
        }
    }
    (out, false)
}

#[derive(Default)]
struct GrepOpts {
    ignore_case: bool,
    invert: bool,
    extended: bool,
    fixed: bool,
    count: bool,
    number: bool,
    word: bool,
    only: bool,
    before: usize,
    after: usize,
    patterns: Vec<String>,
}

const GREP_USAGE: &str =
    "Usage: grep [OPTION]... PATTERNS [FILE]...\nTry 'grep --help' for more information.\n";

fn grep_usage(msg: &str) -> Output {
    let mut o = Output::default();
    o.err(format!("{msg}{GREP_USAGE}"));
    o.status = 2;
    o
}

fn parse_grep(args: &[String]) -> Result<(GrepOpts, Vec<String>), Output> {
    let mut o = GrepOpts::default();
    let mut operands = Vec::new();
    let mut i = 0;
    let number = |s: &str| {
        s.parse::<usize>().map_err(|_| grep_usage(&format!("grep: {s}: invalid context length argument\n")))
    };
    while i < args.len() {
        let a = &args[i];
        i += 1;
        if a == "--" {
            operands.extend(args[i..].iter().cloned());
            break;
        }
        if let Some(long) = a.strip_prefix("--") {
            let (name, val) = long.split_once('=').map_or((long, None), |(n, v)| (n, Some(v.to_string())));
            match name {
                "ignore-case" => o.ignore_case = true,
                "invert-match" => o.invert = true,
                "extended-regexp" => o.extended = true,
                "fixed-strings" => o.fixed = true,
                "count" => o.count = true,
                "line-number" => o.number = true,
                "word-regexp" => o.word = true,
                "only-matching" => o.only = true,
                "regexp" => o
                    .patterns
                    .push(val.or_else(|| args.get(i).cloned().inspect(|_| i += 1)).unwrap_or_default()),
                "after-context" | "before-context" | "context" => {
                    let v = val.or_else(|| args.get(i).cloned().inspect(|_| i += 1)).unwrap_or_default();
                    let n = number(&v)?;
                    if name != "before-context" {
                        o.after = n;
                    }
                    if name != "after-context" {
                        o.before = n;
                    }
                }
                _ => return Err(grep_usage(&format!("grep: unrecognized option '{a}'\n"))),
            }
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
                'i' | 'y' => o.ignore_case = true,
                'v' => o.invert = true,
                'E' => o.extended = true,
                'F' => o.fixed = true,
                'G' => o.extended = false,
                'c' => o.count = true,
                'n' => o.number = true,
                'w' => o.word = true,
                'o' => o.only = true,
                'A' | 'B' | 'C' | 'e' => {
                    let rest: String = chars[k..].iter().collect();
                    k = chars.len();
                    let v = if rest.is_empty() {
                        let v = args.get(i).cloned().ok_or_else(|| {
                            grep_usage(&format!("grep: option requires an argument -- '{c}'\n"))
                        })?;
                        i += 1;
                        v
                    } else {
                        rest
                    };
                    match c {
                        'e' => o.patterns.push(v),
                        'A' => o.after = number(&v)?,
                        'B' => o.before = number(&v)?,
                        _ => {
                            let n = number(&v)?;
                            o.after = n;
                            o.before = n;
                        }
                    }
                }
                d if d.is_ascii_digit() => {
                    let digits: String = std::iter::once(d)
                        .chain(chars[k..].iter().copied().take_while(char::is_ascii_digit))
                        .collect();
                    k += digits.len() - 1;
                    let n = number(&digits)?;
                    o.after = n;
                    o.before = n;
                }
                other => return Err(grep_usage(&format!("grep: invalid option -- '{other}'\n"))),
            }
        }
    }
    if o.patterns.is_empty() {
        if operands.is_empty() {
            return Err(grep_usage(""));
        }
        o.patterns.push(operands.remove(0));
    }
    Ok((o, operands))
}

/// A POSIX basic regular expression in the `regex` crate's syntax: in BRE, `\(` `\)` `\{`
/// `\}` `\|` `\+` `\?` are operators and the bare characters are literals.
fn bre_to_regex(p: &str) -> String {
    let mut out = String::new();
    let mut chars = p.chars().peekable();
    while let Some(c) = chars.next() {
        let at_start = out.is_empty();
        match c {
            '\\' => match chars.next() {
                Some(o @ ('(' | ')' | '{' | '}' | '|' | '+' | '?')) => out.push(o),
                Some(other) => {
                    out.push('\\');
                    out.push(other);
                }
                None => out.push_str("\\\\"),
            },
            '(' | ')' | '{' | '}' | '|' | '+' | '?' => {
                out.push('\\');
                out.push(c);
            }
            '*' if at_start => out.push_str("\\*"),
            c => out.push(c),
        }
    }
    out
}

fn compile(o: &GrepOpts) -> Result<Regex, String> {
    let parts: Vec<String> = o
        .patterns
        .iter()
        .flat_map(|p| p.split('\n').map(str::to_string).collect::<Vec<_>>())
        .map(|p| {
            if o.fixed {
                regex::escape(&p)
            } else if o.extended {
                p
            } else {
                bre_to_regex(&p)
            }
        })
        .collect();
    let pattern = parts.iter().map(|p| format!("(?:{p})")).collect::<Vec<_>>().join("|");
    RegexBuilder::new(&pattern)
        .case_insensitive(o.ignore_case)
        .size_limit(1 << 20)
        .dfa_size_limit(1 << 20)
        .build()
        .map_err(|e| e.to_string().lines().last().unwrap_or("invalid regular expression").trim().to_string())
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

fn grep(args: &[String], stdin: &str) -> Output {
    let (opts, files) = match parse_grep(args) {
        Ok(x) => x,
        Err(o) => return o,
    };
    if let Some(f) = files.iter().find(|f| *f != "-") {
        return no_file("grep", f, 2);
    }
    let re = match compile(&opts) {
        Ok(r) => r,
        Err(e) => {
            let mut o = Output::default();
            o.err(format!("grep: {e}\n"));
            o.status = 2;
            return o;
        }
    };
    let lines: Vec<&str> = stdin.lines().collect();
    let hits: Vec<Vec<(usize, usize)>> = lines.iter().map(|l| matches(&re, l, opts.word)).collect();
    let selected: Vec<bool> = hits.iter().map(|h| h.is_empty() == opts.invert).collect();
    let count = selected.iter().filter(|s| **s).count();
    let mut o = Output { status: if count > 0 { 0 } else { 1 }, ..Output::default() };
    if opts.count {
        o.out(format!("{count}\n"));
        return o;
    }
    let prefix = |i: usize, sep: char| if opts.number { format!("{}{sep}", i + 1) } else { String::new() };
    if opts.only {
        for (i, l) in lines.iter().enumerate() {
            if selected[i] && !opts.invert {
                for (s, e) in &hits[i] {
                    o.out(format!("{}{}\n", prefix(i, ':'), &l[*s..*e]));
                }
            }
        }
        return o;
    }
    let mut last_printed: Option<usize> = None;
    for (i, l) in lines.iter().enumerate() {
        if !selected[i] {
            continue;
        }
        let from = i.saturating_sub(opts.before);
        let first_new = last_printed.map_or(from, |p| from.max(p + 1));
        if (opts.before > 0 || opts.after > 0) && last_printed.is_some_and(|p| first_new > p + 1) {
            o.out("--\n");
        }
        for (j, ctx) in lines.iter().enumerate().take(i).skip(first_new) {
            o.out(format!("{}{ctx}\n", prefix(j, if selected[j] { ':' } else { '-' })));
        }
        o.out(format!("{}{l}\n", prefix(i, ':')));
        last_printed = Some(i);
        let mut j = i + 1;
        while j < lines.len() && j <= i + opts.after && !selected[j] {
            o.out(format!("{}{}\n", prefix(j, '-'), lines[j]));
            last_printed = Some(j);
            j += 1;
        }
    }
    o
}

/// `-n N`, `-N`, `-nN`, `--lines=N` (head: `-n -N` drops the last N; tail: `-n +N` starts at N).
fn head_tail(args: &[String], stdin: &str, head: bool) -> Output {
    let tool = if head { "head" } else { "tail" };
    let mut spec = "10".to_string();
    let mut i = 0;
    while let Some(a) = args.get(i) {
        i += 1;
        if a == "-n" || a == "--lines" {
            match args.get(i) {
                Some(v) => spec = v.clone(),
                None => {
                    let mut o = Output::default();
                    o.err(format!("{tool}: option requires an argument -- 'n'\nTry '{tool} --help' for more information.\n"));
                    o.status = 1;
                    return o;
                }
            }
            i += 1;
        } else if let Some(v) = a.strip_prefix("--lines=").or_else(|| a.strip_prefix("-n")) {
            spec = v.to_string();
        } else if a.len() > 1 && a.starts_with('-') && a[1..].chars().all(|c| c.is_ascii_digit()) {
            spec = a[1..].to_string();
        } else if a != "-" {
            return no_file(tool, a, 1);
        }
    }
    let (sign, digits) = match spec.chars().next() {
        Some(c @ ('+' | '-')) => (Some(c), &spec[1..]),
        _ => (None, spec.as_str()),
    };
    let Ok(n) = digits.parse::<usize>() else {
        let mut o = Output::default();
        o.err(format!("{tool}: invalid number of lines: '{spec}'\n"));
        o.status = 1;
        return o;
    };
    let lines: Vec<&str> = stdin.split_inclusive('\n').collect();
    let len = lines.len();
    let range = match (head, sign) {
        (true, Some('-')) => 0..len.saturating_sub(n),
        (true, _) => 0..n.min(len),
        (false, Some('+')) => n.saturating_sub(1).min(len)..len,
        (false, _) => len.saturating_sub(n)..len,
    };
    let mut o = Output::default();
    o.out(lines[range].concat());
    o
}

fn wc(args: &[String], stdin: &str) -> Output {
    let (mut l, mut w, mut c) = (false, false, false);
    for a in args {
        match a.strip_prefix('-') {
            Some(flags) if !flags.is_empty() && flags.chars().all(|f| "lwcm".contains(f)) => {
                l |= flags.contains('l');
                w |= flags.contains('w');
                c |= flags.contains('c') || flags.contains('m');
            }
            Some("") | None if a == "-" => {}
            _ => return no_file("wc", a, 1),
        }
    }
    if !(l || w || c) {
        (l, w, c) = (true, true, true);
    }
    let counts: Vec<usize> =
        [(l, stdin.matches('\n').count()), (w, stdin.split_whitespace().count()), (c, stdin.len())]
            .iter()
            .filter(|(on, _)| *on)
            .map(|(_, n)| *n)
            .collect();
    let text = if counts.len() == 1 {
        counts[0].to_string()
    } else {
        counts.iter().map(|n| format!("{n:>7}")).collect::<Vec<_>>().join(" ")
    };
    let mut o = Output::default();
    o.out(format!("{text}\n"));
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(name: &str, args: &str, stdin: &str) -> (String, i32) {
        let argv: Vec<String> = args.split_whitespace().map(str::to_string).collect();
        let o = run(name, &argv, stdin).unwrap();
        (o.text(), o.status)
    }

    #[test]
    fn grep_options() {
        let input = "alpha\nBeta\ngamma\ndelta beta\n";
        assert_eq!(t("grep", "-i beta", input), ("Beta\ndelta beta\n".into(), 0));
        assert_eq!(t("grep", "-c a", input), ("4\n".into(), 0));
        assert_eq!(t("grep", "-v a", input), ("".into(), 1));
        assert_eq!(t("grep", "-n gamma", input), ("3:gamma\n".into(), 0));
        assert_eq!(t("grep", "-o -E [ab]et?a", input), ("beta\n".into(), 0));
        assert_eq!(t("grep", "-w -i beta", "betas\nx beta y\n"), ("x beta y\n".into(), 0));
        assert_eq!(t("grep", "-A1 alpha", input), ("alpha\nBeta\n".into(), 0));
        assert_eq!(t("grep", "-C1 -n gamma", input), ("2-Beta\n3:gamma\n4-delta beta\n".into(), 0));
        assert_eq!(t("grep", "a\\|B", input).1, 0);
        assert_eq!(t("grep", "-F a.b", "a.b\naxb\n"), ("a.b\n".into(), 0));
        assert_eq!(t("grep", "x(y", "x(y\n"), ("x(y\n".into(), 0), "BRE parentheses are literal");
        assert_eq!(t("grep", "-z x", "").1, 2);
        assert_eq!(t("grep", "", "").1, 2);
        assert_eq!(t("grep", "x file", "").0, "grep: file: No such file or directory\n");
    }

    #[test]
    fn grep_context_separators() {
        let input = "a\nx\nx\nx\na\n";
        assert_eq!(t("grep", "-A1 a", input).0, "a\nx\n--\na\n");
    }

    #[test]
    fn head_tail_wc_echo() {
        let input = "1\n2\n3\n4\n";
        assert_eq!(t("head", "-n 2", input).0, "1\n2\n");
        assert_eq!(t("head", "-3", input).0, "1\n2\n3\n");
        assert_eq!(t("head", "-n -1", input).0, "1\n2\n3\n");
        assert_eq!(t("tail", "-n1", input).0, "4\n");
        assert_eq!(t("tail", "-n +3", input).0, "3\n4\n");
        assert_eq!(t("wc", "-l", input).0, "4\n");
        assert_eq!(t("wc", "", "a b\n").0, "      1       2       4\n");
        assert_eq!(t("echo", "-n a b", "").0, "a b");
        assert_eq!(t("echo", "-e a\\tb", "").0, "a\tb\n");
        assert_eq!(t("false", "", "").1, 1);
        assert!(run("ls", &[], "").is_none());
    }
}
