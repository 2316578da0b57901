//! `sysctl` (procps-ng 4.0): read, write (`-w` or `KEY=V`), list (`-a`).

use super::{Ctx, Io, unsupported};
use crate::route::net::sysctl::{self, SysctlError, normalize};

#[derive(Debug, Default)]
struct Opts {
    values_only: bool,
    quiet: bool,
    write: bool,
    all: bool,
    load: bool,
    ignore: bool,
}

pub fn run(ctx: &mut Ctx<'_>, args: &[String], io: &mut Io) -> i32 {
    let mut o = Opts::default();
    let mut items = Vec::new();
    for a in args {
        match a.as_str() {
            "--all" => o.all = true,
            "--values" => o.values_only = true,
            "--quiet" => o.quiet = true,
            "--write" => o.write = true,
            "--load" => o.load = true,
            s if s.starts_with('-') && s.len() > 1 && !s.starts_with("--") => {
                for f in s[1..].chars() {
                    match f {
                        'n' => o.values_only = true,
                        'q' => o.quiet = true,
                        'w' => o.write = true,
                        'a' | 'A' | 'X' => o.all = true,
                        'p' => o.load = true,
                        'e' => o.ignore = true,
                        'N' | 'r' | 'o' | 'x' | 'b' => return unsupported(io, &format!("sysctl -{f}")),
                        _ => {
                            return io.fail(1, &format!("sysctl: invalid option -- '{f}'\nUsage:\n sysctl [options] [variable[=value] ...]"));
                        }
                    }
                }
            }
            _ => items.push(a.as_str()),
        }
    }
    if o.load {
        return 0;
    }
    if o.all {
        let text: String = sysctl::all(ctx.node()).iter().map(|(k, v)| line(&o, k, v)).collect();
        io.out(&text);
        return 0;
    }
    if items.is_empty() {
        return io.fail(1, "sysctl: no variables specified\nTry `sysctl --help' for more information.");
    }
    let mut status = 0;
    for item in items {
        let r = match item.split_once('=') {
            Some((k, v)) => write(ctx, &o, k.trim(), v.trim(), io),
            None if o.write => Err(io.fail(1, "sysctl: command line(0): invalid syntax, continuing...")),
            None => read(ctx, &o, item, io),
        };
        if let Err(s) = r {
            status = s;
        }
    }
    status
}

fn line(o: &Opts, key: &str, value: &str) -> String {
    if o.values_only { format!("{value}\n") } else { format!("{key} = {value}\n") }
}

fn missing(io: &mut Io, o: &Opts, key: &str) -> i32 {
    if o.ignore {
        return 0;
    }
    io.fail(
        1,
        &format!(
            "sysctl: cannot stat /proc/sys/{}: No such file or directory",
            normalize(key).replace('.', "/")
        ),
    )
}

fn read(ctx: &Ctx<'_>, o: &Opts, key: &str, io: &mut Io) -> Result<(), i32> {
    let found = sysctl::matching(ctx.node(), key);
    if found.is_empty() {
        return Err(missing(io, o, key));
    }
    let text: String = found.iter().map(|(k, v)| line(o, k, v)).collect();
    io.out(&text);
    Ok(())
}

fn write(ctx: &mut Ctx<'_>, o: &Opts, key: &str, value: &str, io: &mut Io) -> Result<(), i32> {
    let shown = normalize(key);
    match sysctl::write(ctx.node_mut(), key, value) {
        Ok(()) => {
            if !o.quiet {
                io.out(&line(o, &shown, value));
            }
            Ok(())
        }
        Err(SysctlError::Missing) => Err(missing(io, o, key)),
        Err(SysctlError::Invalid) => {
            Err(io.fail(1, &format!("sysctl: setting key \"{shown}\": Invalid argument")))
        }
        Err(SysctlError::ReadOnly) => Err(unsupported(io, &format!("sysctl -w {shown}"))),
    }
}
