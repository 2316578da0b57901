//! `ip neigh`: what the last evaluation resolved (show, flush).

use super::{Args, device, garbage, matches};
use crate::route::cmd::{Ctx, Io, unsupported};
use crate::route::net::iface::mac_text;
use crate::route::net::route::IfId;

pub fn run(ctx: &mut Ctx<'_>, args: &[String], io: &mut Io) -> i32 {
    let (cmd, rest) = match args.first() {
        Some(c) => (c.as_str(), &args[1..]),
        None => ("show", args),
    };
    let flush = matches(cmd, "flush");
    if !flush && !matches(cmd, "show") && !matches(cmd, "list") && !matches(cmd, "lst") {
        if ["add", "change", "replace", "delete", "get"].iter().any(|c| matches(cmd, c)) {
            return unsupported(io, &format!("ip neigh {cmd}"));
        }
        return io.fail(255, &format!("Command \"{cmd}\" is unknown, try \"ip neigh help\"."));
    }
    let mut a = Args::new(rest);
    let mut dev: Option<IfId> = None;
    let mut all = false;
    while let Some(w) = a.next() {
        match w {
            "all" => all = true,
            "dev" => match a.value(io).and_then(|v| device(ctx, io, v)) {
                Ok(d) => dev = Some(d),
                Err(s) => return s,
            },
            _ if dev.is_none() && !w.starts_with(|c: char| c.is_ascii_digit()) => match device(ctx, io, w) {
                Ok(d) => dev = Some(d),
                Err(s) => return s,
            },
            _ => return garbage(io, "dev", w),
        }
    }
    if flush {
        if dev.is_none() && !all {
            return io.fail(1, "Flush requires arguments.");
        }
        ctx.node_mut().neigh.retain(|n| dev.is_some_and(|d| n.dev != d));
        return 0;
    }
    let node = ctx.node();
    let mut out = String::new();
    for n in node.neigh.iter().filter(|n| dev.is_none_or(|d| n.dev == d)) {
        let on = if dev.is_some() { String::new() } else { format!(" dev {}", node.ifaces[n.dev].name) };
        match n.mac {
            Some(m) => out.push_str(&format!("{}{on} lladdr {} {} \n", n.ip, mac_text(m), n.state.name())),
            None => out.push_str(&format!("{}{on} {} \n", n.ip, n.state.name())),
        }
    }
    io.out(&out);
    0
}
