//! `tc qdisc` (iproute2 6.1): show, and add/replace/change/del of a root netem qdisc.

use super::ip::matches;
use super::{Ctx, Io, unsupported};
use crate::route::net::qdisc::{Netem, parse_percent_milli, parse_time_us};
use crate::route::net::route::IfId;

pub fn run(ctx: &mut Ctx<'_>, args: &[String], io: &mut Io) -> i32 {
    let Some(object) = args.first() else {
        return io.fail(0, "Usage: tc [ OPTIONS ] OBJECT { COMMAND | help }");
    };
    if !matches(object, "qdisc") {
        return unsupported(io, &format!("tc {object}"));
    }
    let rest = &args[1..];
    let cmd = rest.first().map_or("show", String::as_str);
    let rest = if rest.is_empty() { rest } else { &rest[1..] };
    if matches(cmd, "show") || matches(cmd, "list") || cmd == "ls" {
        show(ctx, rest, io)
    } else if ["add", "replace", "change", "delete"].iter().any(|c| matches(cmd, c)) {
        modify(ctx, cmd, rest, io)
    } else {
        io.fail(255, &format!("Command \"{cmd}\" is unknown, try \"tc qdisc help\"."))
    }
}

fn device(ctx: &Ctx<'_>, io: &mut Io, name: &str) -> Result<IfId, i32> {
    ctx.node().iface(name).ok_or_else(|| io.fail(1, &format!("Cannot find device \"{name}\"")))
}

fn show(ctx: &Ctx<'_>, args: &[String], io: &mut Io) -> i32 {
    let dev = match args {
        [] => None,
        [d, name] if d == "dev" => match device(ctx, io, name) {
            Ok(d) => Some(d),
            Err(s) => return s,
        },
        [name] => match device(ctx, io, name) {
            Ok(d) => Some(d),
            Err(s) => return s,
        },
        _ => return unsupported(io, &format!("tc qdisc show {}", args.join(" "))),
    };
    let mut out = String::new();
    for (id, iface) in ctx.node().ifaces.iter().enumerate() {
        if dev.is_some_and(|d| d != id) {
            continue;
        }
        let on = if dev.is_some() { String::new() } else { format!("dev {} ", iface.name) };
        match &iface.qdisc {
            Some(q) => {
                out.push_str(&format!("qdisc netem {:x}: {on}root refcnt 2 {} \n", q.handle, q.options()))
            }
            None => out.push_str(&format!("qdisc noqueue 0: {on}root refcnt 2 \n")),
        }
    }
    io.out(&out);
    0
}

fn modify(ctx: &mut Ctx<'_>, cmd: &str, args: &[String], io: &mut Io) -> i32 {
    let mut dev = None;
    let mut root = false;
    let mut kind: Option<&str> = None;
    let mut q = Netem { handle: 0, delay_us: 0, loss_milli: 0, corrupt_milli: 0 };
    let mut i = 0;
    let next = |i: &mut usize| {
        *i += 1;
        args.get(*i - 1).map(String::as_str)
    };
    while i < args.len() {
        let w = args[i].as_str();
        i += 1;
        match (w, kind) {
            ("dev", None) => match next(&mut i) {
                Some(name) => dev = Some(name),
                None => return io.fail(255, "Command line is not complete. Try option \"help\""),
            },
            ("root", None) => root = true,
            ("netem", None) => kind = Some("netem"),
            ("delay", Some(_)) => match next(&mut i).and_then(parse_time_us) {
                Some(us) => q.delay_us = us,
                None => return io.fail(1, "Illegal \"latency\""),
            },
            ("loss", Some(_)) => {
                let v = match next(&mut i) {
                    Some("random") => next(&mut i),
                    other => other,
                };
                match v.and_then(parse_percent_milli) {
                    Some(p) => q.loss_milli = p,
                    None => return io.fail(1, "Illegal \"loss percent\""),
                }
            }
            ("corrupt", Some(_)) => match next(&mut i).and_then(parse_percent_milli) {
                Some(p) => q.corrupt_milli = p,
                None => return io.fail(1, "Illegal \"corruption\""),
            },
            (_, None) if ["parent", "handle", "ingress", "clsact", "estimator", "stab"].contains(&w) => {
                return unsupported(io, &format!("tc qdisc {cmd} ... {w}"));
            }
            (_, None) => return unsupported(io, &format!("tc qdisc {cmd} ... {w} (only root netem qdiscs)")),
            (_, Some(_)) => return unsupported(io, &format!("netem option {w}")),
        }
    }
    let Some(name) = dev else { return unsupported(io, &format!("tc qdisc {cmd} without dev")) };
    let dev = match device(ctx, io, name) {
        Ok(d) => d,
        Err(s) => return s,
    };
    if !root {
        return unsupported(io, &format!("tc qdisc {cmd} without root"));
    }
    let node = ctx.node_mut();
    let current = node.ifaces[dev].qdisc;
    if matches(cmd, "delete") {
        return match current {
            Some(_) => {
                node.ifaces[dev].qdisc = None;
                0
            }
            None => io.fail(2, "Error: Cannot delete qdisc with handle of zero."),
        };
    }
    if kind.is_none() {
        return io.fail(1, "Error: Qdisc kind is required.\nUsage: tc qdisc [ add | del | replace | change | show ] dev STRING");
    }
    match (cmd, current) {
        (c, Some(_)) if matches(c, "add") => io.fail(2, "Error: Exclusivity flag on, cannot modify."),
        (c, None) if matches(c, "change") => io.fail(2, "Error: Specified qdisc not found."),
        (_, Some(old)) => {
            q.handle = old.handle;
            node.ifaces[dev].qdisc = Some(q);
            0
        }
        (_, None) => {
            q.handle = node.next_handle;
            node.next_handle += 1;
            node.ifaces[dev].qdisc = Some(q);
            0
        }
    }
}
