//! Shell utilities for reading output: grep, head, tail, wc, cat, echo, true, false,
//! hostname, ls and sleep (a no-op: time does not pass in the lab).

use regex_lite::{Regex, RegexBuilder};

use super::{Ctx, Io};
use crate::route::net::sysctl;

pub fn handler(name: &str) -> Option<super::Handler> {
    Some(match name {
        "grep" | "egrep" | "fgrep" => match name {
            "egrep" => egrep,
            "fgrep" => fgrep,
            _ => grep,
        },
        "head" => head,
        "tail" => tail,
        "wc" => wc,
        "cat" => cat,
        "echo" => echo,
        "true" | "sleep" => |_, _, _| 0,
        "false" => |_, _, _| 1,
        "hostname" => hostname,
        "ls" => ls,
        _ => return None,
    })
}

/// Pattern dialects.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Dialect {
    Basic,
    Extended,
    Fixed,
}

#[derive(Debug, Default)]
struct GrepOpts {
    invert: bool,
    ignore_case: bool,
    word: bool,
    count: bool,
    only: bool,
    numbers: bool,
    quiet: bool,
    after: usize,
    before: usize,
}

fn grep(ctx: &mut Ctx<'_>, args: &[String], io: &mut Io) -> i32 {
    grep_with(ctx, args, io, Dialect::Basic)
}

fn egrep(ctx: &mut Ctx<'_>, args: &[String], io: &mut Io) -> i32 {
    grep_with(ctx, args, io, Dialect::Extended)
}

fn fgrep(ctx: &mut Ctx<'_>, args: &[String], io: &mut Io) -> i32 {
    grep_with(ctx, args, io, Dialect::Fixed)
}

fn grep_with(ctx: &mut Ctx<'_>, args: &[String], io: &mut Io, mut dialect: Dialect) -> i32 {
    let mut o = GrepOpts::default();
    let mut patterns: Vec<String> = Vec::new();
    let mut operands: Vec<&str> = Vec::new();
    let mut i = 0;
    let mut options_done = false;
    while i < args.len() {
        let a = args[i].as_str();
        i += 1;
        if options_done || !a.starts_with('-') || a == "-" {
            operands.push(a);
            continue;
        }
        if a == "--" {
            options_done = true;
            continue;
        }
        let flags: Vec<char> = a[1..].chars().collect();
        let mut k = 0;
        while k < flags.len() {
            let f = flags[k];
            k += 1;
            match f {
                'i' => o.ignore_case = true,
                'v' => o.invert = true,
                'w' => o.word = true,
                'c' => o.count = true,
                'o' => o.only = true,
                'n' => o.numbers = true,
                'q' => o.quiet = true,
                'E' => dialect = Dialect::Extended,
                'F' => dialect = Dialect::Fixed,
                'G' => dialect = Dialect::Basic,
                'A' | 'B' | 'C' | 'e' => {
                    let value: String = if k < flags.len() {
                        let v = flags[k..].iter().collect();
                        k = flags.len();
                        v
                    } else if i < args.len() {
                        i += 1;
                        args[i - 1].clone()
                    } else {
                        return io.fail(2, &format!("grep: option requires an argument -- '{f}'\nUsage: grep [OPTION]... PATTERNS [FILE]...\nTry 'grep --help' for more information."));
                    };
                    if f == 'e' {
                        patterns.push(value);
                        continue;
                    }
                    let Ok(n) = value.parse::<usize>() else {
                        return io.fail(2, &format!("grep: {value}: invalid context length argument"));
                    };
                    if f != 'B' {
                        o.after = n;
                    }
                    if f != 'A' {
                        o.before = n;
                    }
                }
                _ => {
                    return io.fail(2, &format!("grep: invalid option -- '{f}'\nUsage: grep [OPTION]... PATTERNS [FILE]...\nTry 'grep --help' for more information."));
                }
            }
        }
    }
    if patterns.is_empty() {
        if operands.is_empty() {
            return io.fail(
                2,
                "Usage: grep [OPTION]... PATTERNS [FILE]...\nTry 'grep --help' for more information.",
            );
        }
        patterns.push(operands.remove(0).to_string());
    }
    let regex = match build_regex(&patterns, dialect, &o) {
        Some(r) => r,
        None => return io.fail(2, "grep: Invalid regular expression"),
    };
    let mut input = String::new();
    let mut status_error = false;
    if operands.is_empty() {
        input.push_str(ctx.stdin);
    }
    for f in &operands {
        match read_file(ctx, f) {
            Ok(text) => input.push_str(&text),
            Err(msg) => {
                io.errln(&format!("grep: {msg}"));
                status_error = true;
            }
        }
    }
    let found = if o.quiet {
        input.lines().any(|l| regex.is_match(l) != o.invert)
    } else {
        select(&input, &regex, &o, io)
    };
    if status_error {
        2
    } else if found {
        0
    } else {
        1
    }
}

fn build_regex(patterns: &[String], dialect: Dialect, o: &GrepOpts) -> Option<Regex> {
    let parts: Vec<String> = patterns
        .iter()
        .flat_map(|p| p.split('\n'))
        .map(|p| match dialect {
            Dialect::Fixed => regex_lite::escape(p),
            Dialect::Extended => p.to_string(),
            Dialect::Basic => basic_to_extended(p),
        })
        .map(|p| if o.word { format!(r"\b(?:{p})\b") } else { format!("(?:{p})") })
        .collect();
    RegexBuilder::new(&parts.join("|")).case_insensitive(o.ignore_case).size_limit(1 << 20).build().ok()
}

/// POSIX basic regular expressions in extended syntax: `\( \) \{ \} \| \+ \?` are operators,
/// their bare forms literals; a leading `*` is literal.
fn basic_to_extended(p: &str) -> String {
    let mut out = String::with_capacity(p.len() + 8);
    let mut chars = p.chars().peekable();
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

/// Prints the selected lines with context; returns whether any line was selected.
fn select(input: &str, regex: &Regex, o: &GrepOpts, io: &mut Io) -> bool {
    let lines: Vec<&str> = input.lines().collect();
    let hits: Vec<bool> = lines.iter().map(|l| regex.is_match(l) != o.invert).collect();
    let count = hits.iter().filter(|&&h| h).count();
    if o.count {
        io.outln(&count.to_string());
        return count > 0;
    }
    let mut last_printed: Option<usize> = None;
    let mut after_left = 0;
    for (n, line) in lines.iter().enumerate() {
        let context_before = (n + 1..=(n + o.before).min(lines.len().saturating_sub(1))).any(|k| hits[k]);
        let show = hits[n] || after_left > 0 || (o.before > 0 && context_before);
        after_left = if hits[n] { o.after } else { after_left.saturating_sub(1) };
        if !show || (o.only && !hits[n]) {
            continue;
        }
        if (o.after > 0 || o.before > 0) && last_printed.is_some_and(|p| p + 1 < n) {
            io.outln("--");
        }
        last_printed = Some(n);
        let sep = if hits[n] { ':' } else { '-' };
        let prefix = if o.numbers { format!("{}{sep}", n + 1) } else { String::new() };
        if o.only && !o.invert {
            for m in regex.find_iter(line).filter(|m| !m.as_str().is_empty()) {
                io.outln(&format!("{prefix}{}", m.as_str()));
            }
        } else {
            io.outln(&format!("{prefix}{line}"));
        }
    }
    count > 0
}

/// The contents of a readable file: a `/proc/sys` value or `-` (standard input).
fn read_file(ctx: &Ctx<'_>, path: &str) -> Result<String, String> {
    if path == "-" {
        return Ok(ctx.stdin.to_string());
    }
    if let Some(key) = sysctl::path_key(path) {
        let found = sysctl::matching(ctx.node(), &key);
        if found.len() == 1 && found[0].0 == key {
            return Ok(format!("{}\n", found[0].1));
        }
        if !found.is_empty() || key == "net" {
            return Err(format!("{path}: Is a directory"));
        }
    }
    Err(format!("{path}: No such file or directory"))
}

/// `-n N`, `-nN`, `-N` and `--lines=N` of head and tail.
fn line_count(name: &str, args: &[String], io: &mut Io) -> Result<(usize, Vec<String>), i32> {
    let mut n = 10;
    let mut files = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let a = &args[i];
        i += 1;
        let value = if a == "-n" {
            i += 1;
            args.get(i - 1).cloned()
        } else if let Some(v) = a.strip_prefix("-n").or_else(|| a.strip_prefix("--lines=")) {
            Some(v.to_string())
        } else if a.len() > 1 && a.starts_with('-') && a[1..].bytes().all(|b| b.is_ascii_digit()) {
            Some(a[1..].to_string())
        } else if a.starts_with('-') && a != "-" {
            return Err(io.fail(
                1,
                &format!(
                    "{name}: invalid option -- '{}'\nTry '{name} --help' for more information.",
                    &a[1..]
                ),
            ));
        } else {
            files.push(a.clone());
            continue;
        };
        match value.as_deref().map(|v| v.trim_start_matches(['+', '-']).parse::<usize>()) {
            Some(Ok(v)) => n = v,
            _ => {
                let v = value.unwrap_or_default();
                return Err(io.fail(1, &format!("{name}: invalid number of lines: ‘{v}’")));
            }
        }
    }
    Ok((n, files))
}

fn gather(ctx: &Ctx<'_>, name: &str, files: &[String], io: &mut Io) -> (String, bool) {
    if files.is_empty() {
        return (ctx.stdin.to_string(), true);
    }
    let mut text = String::new();
    let mut ok = true;
    for f in files {
        match read_file(ctx, f) {
            Ok(t) => text.push_str(&t),
            Err(msg) => {
                io.errln(&format!(
                    "{name}: cannot open '{}' for reading: {}",
                    f,
                    msg.rsplit(": ").next().unwrap_or("")
                ));
                ok = false;
            }
        }
    }
    (text, ok)
}

fn head(ctx: &mut Ctx<'_>, args: &[String], io: &mut Io) -> i32 {
    let Ok((n, files)) = line_count("head", args, io) else { return 1 };
    let (text, ok) = gather(ctx, "head", &files, io);
    for line in text.split_inclusive('\n').take(n) {
        io.out(line);
    }
    i32::from(!ok)
}

fn tail(ctx: &mut Ctx<'_>, args: &[String], io: &mut Io) -> i32 {
    let Ok((n, files)) = line_count("tail", args, io) else { return 1 };
    let (text, ok) = gather(ctx, "tail", &files, io);
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    for line in &lines[lines.len().saturating_sub(n)..] {
        io.out(line);
    }
    i32::from(!ok)
}

fn wc(ctx: &mut Ctx<'_>, args: &[String], io: &mut Io) -> i32 {
    let mut which = [false; 3];
    let mut files = Vec::new();
    for a in args {
        match a.strip_prefix('-').filter(|f| !f.is_empty()) {
            Some(flags) => {
                for f in flags.chars() {
                    match f {
                        'l' => which[0] = true,
                        'w' => which[1] = true,
                        'c' | 'm' => which[2] = true,
                        _ => {
                            return io.fail(
                                1,
                                &format!(
                                    "wc: invalid option -- '{f}'\nTry 'wc --help' for more information."
                                ),
                            );
                        }
                    }
                }
            }
            None => files.push(a.clone()),
        }
    }
    if which == [false; 3] {
        which = [true; 3];
    }
    let (text, ok) = gather(ctx, "wc", &files, io);
    let counts = [text.matches('\n').count(), text.split_whitespace().count(), text.len()];
    let shown: Vec<usize> = counts.iter().zip(which).filter(|(_, w)| *w).map(|(c, _)| *c).collect();
    let line = if shown.len() == 1 {
        shown[0].to_string()
    } else {
        shown.iter().map(|c| format!("{c:>7}")).collect::<Vec<_>>().join(" ")
    };
    io.outln(&line);
    i32::from(!ok)
}

fn cat(ctx: &mut Ctx<'_>, args: &[String], io: &mut Io) -> i32 {
    if args.is_empty() {
        io.out(ctx.stdin);
        return 0;
    }
    let mut status = 0;
    for f in args {
        match read_file(ctx, f) {
            Ok(t) => io.out(&t),
            Err(msg) => status = io.fail(1, &format!("cat: {msg}")),
        }
    }
    status
}

fn echo(_: &mut Ctx<'_>, args: &[String], io: &mut Io) -> i32 {
    let (newline, words) = match args.first().map(String::as_str) {
        Some("-n") => (false, &args[1..]),
        _ => (true, args),
    };
    io.out(&words.join(" "));
    if newline {
        io.out("\n");
    }
    0
}

fn hostname(ctx: &mut Ctx<'_>, _: &[String], io: &mut Io) -> i32 {
    let name = ctx.node().name.clone();
    io.outln(&name);
    0
}

/// `ls` of the lab's only directories, under /proc/sys/net.
fn ls(ctx: &mut Ctx<'_>, args: &[String], io: &mut Io) -> i32 {
    let paths: Vec<&String> = args.iter().filter(|a| !a.starts_with('-')).collect();
    let mut status = 0;
    for path in paths {
        let Some(key) = sysctl::path_key(path).filter(|k| k == "net" || k.starts_with("net.")) else {
            status = io.fail(2, &format!("ls: cannot access '{path}': No such file or directory"));
            continue;
        };
        let entries = sysctl::matching(ctx.node(), &key);
        if entries.len() == 1 && entries[0].0 == key {
            io.outln(path);
            continue;
        }
        let mut names: Vec<String> = entries
            .iter()
            .filter_map(|(k, _)| {
                k.strip_prefix(&format!("{key}.")).map(|r| r.split('.').next().unwrap_or(r).to_string())
            })
            .collect();
        names.dedup();
        if names.is_empty() {
            status = io.fail(2, &format!("ls: cannot access '{path}': No such file or directory"));
        }
        for n in names {
            io.outln(&n);
        }
    }
    status
}

#[cfg(test)]
mod tests {
    use super::super::{Ctx, Io, Stream};
    use crate::route::net::Net;
    use crate::route::shell;
    use crate::route::topology::{Shape, Topology};

    fn lab() -> Net {
        Topology { n: 2, m: 1, r: 1, shape: Shape::Single }.build()
    }

    fn sh(line: &str) -> (String, i32) {
        let o = shell::run(&mut lab(), 0, line);
        (o.output, o.status)
    }

    /// Runs one builtin with `stdin`; returns (stdout + stderr in order, status).
    fn with_stdin(line: &str, stdin: &str) -> (String, i32) {
        let mut net = lab();
        let words: Vec<String> = line.split(' ').map(String::from).collect();
        let mut ctx = Ctx { net: &mut net, node: 0, stdin };
        let mut io = Io::default();
        let status = super::super::run(&mut ctx, &words, &mut io);
        let text: String = io.into_chunks().into_iter().map(|(_, t): (Stream, String)| t).collect();
        (text, status)
    }

    #[test]
    fn grep_flags() {
        assert_eq!(with_stdin("grep -i b", "a\nB\nc\n"), ("B\n".into(), 0));
        assert_eq!(with_stdin("grep -vn o", "one\ntwo\nthree\n"), ("3:three\n".into(), 0));
        assert_eq!(with_stdin("grep -c x", "x1\ny\nx2\n"), ("2\n".into(), 0));
        assert_eq!(with_stdin("grep -o ab", "ab ab\n"), ("ab\nab\n".into(), 0));
        assert_eq!(with_stdin("grep a|b", "a|b\na\n"), ("a|b\n".into(), 0));
        assert_eq!(with_stdin("grep -E a|b", "c\na\n"), ("a\n".into(), 0));
        assert_eq!(with_stdin("grep -F .", "ab\na.b\n"), ("a.b\n".into(), 0));
        assert_eq!(with_stdin("grep -ow eth1", "eth10 eth1\n"), ("eth1\n".into(), 0));
        let six = "1\n2\n3\n4\n5\n6\n";
        assert_eq!(with_stdin("grep -A1 -B1 -e 2 -e 6", six), ("1\n2\n3\n--\n5\n6\n".into(), 0));
        assert_eq!(with_stdin("grep y", "x\n").1, 1);
        assert_eq!(with_stdin("grep (", "(\n"), ("(\n".into(), 0));
        assert_eq!(with_stdin("grep -E (", "x\n"), ("grep: Invalid regular expression\n".into(), 2));
        assert_eq!(with_stdin("grep -q x", "x\n"), (String::new(), 0));
        assert_eq!(with_stdin("grep -Z x", "x\n").1, 2);
        assert_eq!(sh("sysctl -a | grep -c forwarding").0, "25\n");
    }

    #[test]
    fn text_tools() {
        assert_eq!(with_stdin("head -n 2", "a\nb\nc\n"), ("a\nb\n".into(), 0));
        assert_eq!(with_stdin("tail -1", "a\nb\nc\n"), ("c\n".into(), 0));
        assert_eq!(with_stdin("wc", "a b\nc\n"), ("      2       3       6\n".into(), 0));
        assert_eq!(with_stdin("wc -l", "a b\nc\n"), ("2\n".into(), 0));
        assert_eq!(sh("echo -n hi; echo"), ("hi\n".into(), 0));
        assert_eq!(sh("echo 'a\\nb'"), ("a\\nb\n".into(), 0));
        assert_eq!(sh("hostname"), ("r0\n".into(), 0));
        assert_eq!(sh("cat /etc/passwd"), ("cat: /etc/passwd: No such file or directory\n".into(), 1));
        assert_eq!(sh("cat /proc/sys/net/ipv4/ip_forward"), ("1\n".into(), 0));
        assert_eq!(sh("ls /proc/sys/net"), ("ipv4\nipv6\n".into(), 0));
        assert_eq!(sh("ls /proc/sys/net/ipv4/conf").0, "all\ndefault\nlo\nr0-eth1\nr0-eth2\n");
        assert_eq!(sh("sleep 5; true"), (String::new(), 0));
        assert_eq!(sh("false"), (String::new(), 1));
    }
}
