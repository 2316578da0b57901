//! The text tools every application's shell has, with GNU coreutils' options, messages and
//! exit statuses for what agents pipe command output into: `cat`, `echo`, `grep` (also
//! `egrep`, `fgrep`), `head`, `tail`, `wc`, `sort`, `uniq`, `cut`, `sed` (line addresses
//! only), `true`, `false` and `sleep` (which returns at once: time does not pass in an
//! emulated lab). File operands are read through the application
//! ([`super::Commands::read`]); an application without files reports them missing, as a
//! machine without them would.
//!
//! `jq` (a bounded jq language, [`jq`]) is here but not in that list: an application whose
//! tools print JSON registers it among its own commands. The jq interpreter is about a third of
//! a shell bundle, so the bundles of applications that never print JSON leave it out.

mod columns;
mod grep;
mod jq;
mod lines;
mod sed;

use super::{FileError, Io};

/// How a tool reads a file operand.
pub(crate) type Files<'a> = &'a dyn Fn(&str) -> Result<String, FileError>;

/// Runs the tool `name`, or `None` when there is no such tool.
pub(crate) fn run(name: &str, args: &[String], stdin: &str, files: Files<'_>, io: &mut Io) -> Option<i32> {
    Some(match name {
        "cat" => cat(args, stdin, files, io),
        "echo" => echo(args, io),
        "grep" => grep::run(args, stdin, files, io, grep::Dialect::Basic),
        "egrep" => grep::run(args, stdin, files, io, grep::Dialect::Extended),
        "fgrep" => grep::run(args, stdin, files, io, grep::Dialect::Fixed),
        "head" => lines::head_tail(args, stdin, files, io, true),
        "tail" => lines::head_tail(args, stdin, files, io, false),
        "wc" => lines::wc(args, stdin, files, io),
        "sort" => columns::sort(args, stdin, files, io),
        "uniq" => columns::uniq(args, stdin, files, io),
        "cut" => columns::cut(args, stdin, files, io),
        "sed" => sed::sed(args, stdin, files, io),
        "true" | "sleep" => 0,
        "false" => 1,
        _ => return None,
    })
}

/// `jq` over standard input or file operands, for the applications that register it.
pub(crate) fn jq(args: &[String], stdin: &str, files: Files<'_>, io: &mut Io) -> i32 {
    jq::run(args, stdin, files, io)
}

/// The message GNU tools print for an unknown short option, and its status.
fn invalid_option(io: &mut Io, tool: &str, flag: char, status: i32) -> i32 {
    io.fail(status, &format!("{tool}: invalid option -- '{flag}'\nTry '{tool} --help' for more information."))
}

/// One input of a tool: standard input for `-` or no operand, else a file.
fn input(operand: &str, stdin: &str, files: Files<'_>) -> Result<String, FileError> {
    if operand == "-" { Ok(stdin.to_string()) } else { files(operand) }
}

/// `cat [-nu] [FILE]...`: standard input for `-` or no operand; `-n` numbers lines.
fn cat(args: &[String], stdin: &str, files: Files<'_>, io: &mut Io) -> i32 {
    let mut number = false;
    let mut operands = Vec::new();
    for a in args {
        match a.strip_prefix('-').filter(|f| !f.is_empty()) {
            Some(flags) => {
                for f in flags.chars() {
                    match f {
                        'n' => number = true,
                        'u' => {}
                        other => return invalid_option(io, "cat", other, 1),
                    }
                }
            }
            None => operands.push(a.as_str()),
        }
    }
    if operands.is_empty() {
        operands.push("-");
    }
    let mut status = 0;
    let mut n = 0;
    for f in operands {
        match input(f, stdin, files) {
            Ok(text) if number => {
                for line in text.split_inclusive('\n') {
                    n += 1;
                    io.out(&format!("{n:>6}\t{line}"));
                    if io.full() {
                        break;
                    }
                }
            }
            Ok(text) => io.out(&text),
            Err(e) => status = io.fail(1, &format!("cat: {f}: {}", e.text())),
        }
        if io.full() {
            break;
        }
    }
    status
}

/// bash's builtin `echo [-neE] [ARG]...`.
fn echo(args: &[String], io: &mut Io) -> i32 {
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
        newline &= !stop;
    }
    if newline {
        text.push('\n');
    }
    io.out(&text);
    0
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
        let Some(e) = chars.next() else {
            out.push('\\');
            break;
        };
        if let Some(c) = super::syntax::control_escape(e) {
            out.push(c);
            continue;
        }
        let (radix, max) = match e {
            'c' => return (out, true),
            '0' => (8, 3),
            'x' => (16, 2),
            other => {
                out.push('\\');
                out.push(other);
                continue;
            }
        };
        let mut v = 0u32;
        let mut n = 0;
        while n < max {
            let Some(d) = chars.peek().and_then(|d| d.to_digit(radix)) else { break };
            v = v * radix + d;
            chars.next();
            n += 1;
        }
        if n == 0 && e == 'x' {
            out.push_str("\\x");
        } else {
            out.push(char::from_u32(v).unwrap_or('\u{fffd}'));
        }
    }
    (out, false)
}

#[cfg(test)]
mod tests;
