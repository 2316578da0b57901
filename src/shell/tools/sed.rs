//! `sed`: the line-selecting subset agents use to page through long output (`sed -n '5,20p'`,
//! `sed '3q'`, `sed '/^#/d'`... without the regex addresses).
//!
//! Supported: `-n`, `-e SCRIPT`, scripts of commands separated by `;` or newlines, each an
//! optional address (`N`, `$`) or range (`A,B`), an optional `!`, and one of `p` (print), `d`
//! (delete), `q` (print and quit), `=` (print the line number). GNU's range rule holds: a range
//! whose end is a line number at or before its start selects only the start line. Anything else
//! in a script (`s`, `y`, regex addresses, `a`/`i`/`c`, hold space) is refused with a message
//! naming the command and exit 1, as GNU does for a command it does not know; a missing file is
//! GNU's `can't read` (exit 2).

use super::{Files, Io, input, invalid_option};

#[derive(Debug, Clone, Copy, PartialEq)]
enum Addr {
    Line(usize),
    Last,
}

#[derive(Debug, Clone, Copy)]
struct Command {
    from: Option<Addr>,
    to: Option<Addr>,
    negate: bool,
    op: char,
}

/// `sed [-n] [-e SCRIPT | SCRIPT] [FILE]...`.
pub(super) fn sed(args: &[String], stdin: &str, files: Files<'_>, io: &mut Io) -> i32 {
    let mut quiet = false;
    let mut scripts: Vec<String> = Vec::new();
    let mut operands = Vec::new();
    let mut i = 0;
    while let Some(a) = args.get(i) {
        i += 1;
        match a.as_str() {
            "-n" | "--quiet" | "--silent" => quiet = true,
            "-e" | "--expression" => match args.get(i) {
                Some(v) => {
                    scripts.push(v.clone());
                    i += 1;
                }
                None => {
                    let msg = "sed: option requires an argument -- 'e'\nUsage: sed [OPTION]... {script-only-if-no-other-script} [input-file]...";
                    return io.fail(1, msg);
                }
            },
            f if f.len() > 1 && f.starts_with('-') => {
                return invalid_option(io, "sed", f[1..].chars().next().unwrap_or('-'), 1);
            }
            _ => operands.push(a.clone()),
        }
    }
    if scripts.is_empty() {
        if operands.is_empty() {
            return io.fail(1, "Usage: sed [OPTION]... {script-only-if-no-other-script} [input-file]...");
        }
        scripts.push(operands.remove(0));
    }
    let mut program = Vec::new();
    for (k, text) in scripts.iter().enumerate() {
        match parse(text) {
            Ok(cmds) => program.extend(cmds),
            Err((pos, msg)) => {
                return io.fail(1, &format!("sed: -e expression #{}, char {pos}: {msg}", k + 1));
            }
        }
    }
    let mut text = String::new();
    if operands.is_empty() {
        text.push_str(stdin);
    }
    for f in &operands {
        match input(f, stdin, files) {
            Ok(t) => text.push_str(&t),
            Err(e) => return io.fail(2, &format!("sed: can't read {f}: {}", e.text())),
        }
    }
    run(&program, &text, quiet, io);
    0
}

/// Parses a script into commands, or (1-based character position, GNU-style message).
fn parse(script: &str) -> Result<Vec<Command>, (usize, String)> {
    let chars: Vec<char> = script.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    loop {
        while i < chars.len() && (chars[i].is_whitespace() || chars[i] == ';') {
            i += 1;
        }
        if i >= chars.len() {
            return Ok(out);
        }
        let from = address(&chars, &mut i);
        let mut to = None;
        if from.is_some() && chars.get(i) == Some(&',') {
            i += 1;
            to = address(&chars, &mut i);
            if to.is_none() {
                return Err((i + 1, "unexpected `,'".into()));
            }
        }
        while chars.get(i) == Some(&' ') {
            i += 1;
        }
        let negate = chars.get(i) == Some(&'!');
        if negate {
            i += 1;
        }
        let Some(&op) = chars.get(i) else { return Err((i, "missing command".into())) };
        i += 1;
        match op {
            'p' | 'd' | 'q' | '=' => out.push(Command { from, to, negate, op }),
            's' | 'y' | 'a' | 'i' | 'c' | 'h' | 'H' | 'g' | 'G' | 'x' | 'n' | 'N' | 'D' | 'P' | 'b' | 't'
            | '/' | '\\' | '{' | '}' | 'l' | 'r' | 'w' => {
                return Err((
                    i,
                    format!("unsupported in this lab: `{op}' (only p, d, q and = with line addresses)"),
                ));
            }
            other => return Err((i, format!("unknown command: `{other}'"))),
        }
        while chars.get(i) == Some(&' ') {
            i += 1;
        }
        if let Some(&c) = chars.get(i)
            && c != ';'
            && c != '\n'
        {
            return Err((i + 1, "extra characters after command".into()));
        }
    }
}

fn address(chars: &[char], i: &mut usize) -> Option<Addr> {
    if chars.get(*i) == Some(&'$') {
        *i += 1;
        return Some(Addr::Last);
    }
    let start = *i;
    while chars.get(*i).is_some_and(char::is_ascii_digit) {
        *i += 1;
    }
    let digits: String = chars[start..*i].iter().collect();
    // A number too large for a line count can never match; saturating keeps that meaning.
    (!digits.is_empty()).then(|| Addr::Line(digits.parse().unwrap_or(usize::MAX)))
}

fn run(program: &[Command], text: &str, quiet: bool, io: &mut Io) {
    let lines: Vec<&str> = text.lines().collect();
    let last = lines.len();
    let mut active = vec![false; program.len()];
    for (k, line) in lines.iter().enumerate() {
        let n = k + 1;
        let mut deleted = false;
        let mut quit = false;
        for (c, cmd) in program.iter().enumerate() {
            if !selects(cmd, &mut active[c], n, last) {
                continue;
            }
            match cmd.op {
                'p' => io.outln(line),
                '=' => io.outln(&n.to_string()),
                'd' => {
                    deleted = true;
                    break;
                }
                _ => {
                    quit = true;
                    break;
                }
            }
        }
        if !quiet && !deleted {
            io.outln(line);
        }
        if quit || io.full() {
            break;
        }
    }
}

/// Whether `cmd` applies to line `n` of `last`, updating its range state.
fn selects(cmd: &Command, active: &mut bool, n: usize, last: usize) -> bool {
    let hits = |a: Addr| match a {
        Addr::Line(k) => k == n,
        Addr::Last => n == last,
    };
    let on = match (cmd.from, cmd.to) {
        (None, _) => true,
        (Some(a), None) => hits(a),
        (Some(a), Some(b)) => {
            if *active {
                let end = match b {
                    Addr::Line(k) => n >= k,
                    Addr::Last => n == last,
                };
                *active = !end;
                true
            } else if hits(a) {
                *active = match b {
                    Addr::Line(k) => k > n,
                    Addr::Last => n != last,
                };
                true
            } else {
                false
            }
        }
    };
    on != cmd.negate
}

#[cfg(test)]
mod tests {
    use super::super::tests::t;

    #[test]
    fn sed_pages_and_selects_lines() {
        let five = "1\n2\n3\n4\n5\n";
        assert_eq!(t("sed", "-n 2,4p", five), ("2\n3\n4\n".into(), 0));
        assert_eq!(t("sed", "-n 4,2p", five), ("4\n".into(), 0), "a backward range is one line");
        assert_eq!(t("sed", "-n $p", five), ("5\n".into(), 0));
        assert_eq!(t("sed", "-n 3,$p", five), ("3\n4\n5\n".into(), 0));
        assert_eq!(t("sed", "2q", five), ("1\n2\n".into(), 0));
        assert_eq!(t("sed", "2,4d", five), ("1\n5\n".into(), 0));
        assert_eq!(t("sed", "-n 2!p", "a\nb\nc\n"), ("a\nc\n".into(), 0));
        assert_eq!(t("sed", "-n $=", five), ("5\n".into(), 0));
        assert_eq!(t("sed", "-n -e 1p -e 3p", five), ("1\n3\n".into(), 0));
        assert_eq!(t("sed", "-n 1p;3p", five), ("1\n3\n".into(), 0));
        assert_eq!(t("sed", "p", "a\n"), ("a\na\n".into(), 0));
        assert_eq!(t("sed", "-n 1p /f", ""), ("f1\n".into(), 0));
        assert_eq!(t("sed", "-n 99999999999999999999999p", five), ("".into(), 0));
    }

    #[test]
    fn sed_errors() {
        assert_eq!(
            t("sed", "-n 1k", "a\n"),
            ("sed: -e expression #1, char 2: unknown command: `k'\n".into(), 1)
        );
        assert!(
            t("sed", "s/a/b/", "a\n")
                .0
                .starts_with("sed: -e expression #1, char 1: unsupported in this lab: `s'")
        );
        assert_eq!(
            t("sed", "1p /nope", ""),
            ("sed: can't read /nope: No such file or directory\n".into(), 2)
        );
        assert_eq!(t("sed", "-n 1,p", "a\n").1, 1);
        assert_eq!(
            t("sed", "-n 1pq", "a\n"),
            ("sed: -e expression #1, char 3: extra characters after command\n".into(), 1)
        );
        assert_eq!(t("sed", "", "").1, 1);
        assert_eq!(t("sed", "-x 1p", "").1, 1);
    }
}
