//! `head`, `tail` and `wc`: the tools that count lines.

use super::{FileError, Files, Io, input, invalid_option};

/// GNU head and tail's "cannot open" line.
fn cannot_open(io: &mut Io, tool: &str, f: &str, e: FileError) {
    let msg = match e {
        FileError::NotFound => format!("{tool}: cannot open '{f}' for reading: {}", e.text()),
        FileError::IsDirectory => format!("{tool}: error reading '{f}': {}", e.text()),
    };
    io.errln(&msg);
}

/// The line count of `-n N`, `-nN`, `-N`, `--lines=N` and `--lines N`, with its sign.
struct Count {
    sign: Option<char>,
    n: usize,
}

/// Reads head and tail's options: the count and the file operands, or the exit status.
fn head_tail_args<'a>(tool: &str, args: &'a [String], io: &mut Io) -> Result<(Count, Vec<&'a str>), i32> {
    let mut spec = "10".to_string();
    let mut operands = Vec::new();
    let mut i = 0;
    while let Some(a) = args.get(i) {
        i += 1;
        if a == "-n" || a == "--lines" {
            let Some(v) = args.get(i) else {
                let msg = format!(
                    "{tool}: option requires an argument -- 'n'\nTry '{tool} --help' for more information."
                );
                return Err(io.fail(1, &msg));
            };
            spec = v.clone();
            i += 1;
        } else if let Some(v) = a.strip_prefix("--lines=").or_else(|| a.strip_prefix("-n")) {
            spec = v.to_string();
        } else if a.len() > 1 && a.starts_with('-') && a[1..].bytes().all(|b| b.is_ascii_digit()) {
            spec = a[1..].to_string();
        } else if a.len() > 1 && a.starts_with('-') {
            let flag = a[1..].chars().next().unwrap_or('-');
            return Err(invalid_option(io, tool, flag, 1));
        } else {
            operands.push(a.as_str());
        }
    }
    let (sign, digits) = match spec.chars().next() {
        Some(c @ ('+' | '-')) => (Some(c), &spec[1..]),
        _ => (None, spec.as_str()),
    };
    match digits.parse::<usize>() {
        Ok(n) => Ok((Count { sign, n }, operands)),
        Err(_) => Err(io.fail(1, &format!("{tool}: invalid number of lines: ‘{spec}’"))),
    }
}

/// `head`/`tail [-n [+-]N] [FILE]...`: head `-n -N` drops the last N lines, tail `-n +N`
/// starts at line N; several files get `==> NAME <==` headers.
pub(super) fn head_tail(args: &[String], stdin: &str, files: Files<'_>, io: &mut Io, head: bool) -> i32 {
    let tool = if head { "head" } else { "tail" };
    let (count, mut operands) = match head_tail_args(tool, args, io) {
        Ok(x) => x,
        Err(status) => return status,
    };
    if operands.is_empty() {
        operands.push("-");
    }
    let headers = operands.len() > 1;
    let mut status = 0;
    for (k, f) in operands.iter().enumerate() {
        let text = match input(f, stdin, files) {
            Ok(t) => t,
            Err(e) => {
                cannot_open(io, tool, f, e);
                status = 1;
                continue;
            }
        };
        if headers {
            let name = if *f == "-" { "standard input" } else { f };
            io.out(&format!("{}==> {name} <==\n", if k > 0 { "\n" } else { "" }));
        }
        let lines: Vec<&str> = text.split_inclusive('\n').collect();
        let (len, n) = (lines.len(), count.n);
        let range = match (head, count.sign) {
            (true, Some('-')) => 0..len.saturating_sub(n),
            (true, _) => 0..n.min(len),
            (false, Some('+')) => n.saturating_sub(1).min(len)..len,
            (false, _) => len.saturating_sub(n)..len,
        };
        for line in &lines[range] {
            io.out(line);
            if io.full() {
                return status;
            }
        }
    }
    status
}

/// `wc [-lwmc] [FILE]...`: lines, words, characters, bytes in that order; all but
/// characters when no option is given.
pub(super) fn wc(args: &[String], stdin: &str, files: Files<'_>, io: &mut Io) -> i32 {
    let mut which = [false; 4];
    let mut operands = Vec::new();
    for a in args {
        let long = match a.as_str() {
            "--lines" => Some(0),
            "--words" => Some(1),
            "--chars" => Some(2),
            "--bytes" => Some(3),
            _ => None,
        };
        if let Some(k) = long {
            which[k] = true;
            continue;
        }
        let Some(flags) = a.strip_prefix('-').filter(|f| !f.is_empty()) else {
            operands.push(a.as_str());
            continue;
        };
        for f in flags.chars() {
            match f {
                'l' => which[0] = true,
                'w' => which[1] = true,
                'm' => which[2] = true,
                'c' => which[3] = true,
                other => return invalid_option(io, "wc", other, 1),
            }
        }
    }
    if which == [false; 4] {
        which = [true, true, false, true];
    }
    let named = !operands.is_empty();
    if !named {
        operands.push("-");
    }
    let mut status = 0;
    let mut total = [0usize; 4];
    let mut rows = 0;
    for f in &operands {
        let text = match input(f, stdin, files) {
            Ok(t) => t,
            Err(e) => {
                status = io.fail(1, &format!("wc: {f}: {}", e.text()));
                continue;
            }
        };
        let counts =
            [text.matches('\n').count(), text.split_whitespace().count(), text.chars().count(), text.len()];
        for (t, c) in total.iter_mut().zip(counts) {
            *t += c;
        }
        rows += 1;
        wc_row(io, &counts, which, named.then_some(*f));
    }
    if rows > 1 {
        wc_row(io, &total, which, Some("total"));
    }
    status
}

/// One count line: a single count bare, several in columns of seven, then the name.
fn wc_row(io: &mut Io, counts: &[usize; 4], which: [bool; 4], name: Option<&str>) {
    let shown: Vec<usize> = counts.iter().zip(which).filter(|(_, w)| *w).map(|(c, _)| *c).collect();
    let mut line = if shown.len() == 1 {
        shown[0].to_string()
    } else {
        shown.iter().map(|c| format!("{c:>7}")).collect::<Vec<_>>().join(" ")
    };
    if let Some(name) = name {
        line.push(' ');
        line.push_str(name);
    }
    io.outln(&line);
}
