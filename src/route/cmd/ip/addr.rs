//! `ip address`: show, add, del, replace, flush.

use std::net::Ipv4Addr;

use super::{
    Args, Opts, bad_prefix, device, garbage, header, label, link_line, matches, shown_device, state,
    stats_block,
};
use crate::route::cmd::{Ctx, Io, unsupported};
use crate::route::net::addr::{parse_iproute, parse_iproute_prefix};
use crate::route::net::kernel::KernelError;
use crate::route::net::route::IfId;
use crate::route::net::{Addr, Iface};

pub fn run(ctx: &mut Ctx<'_>, args: &[String], io: &mut Io, opts: Opts) -> i32 {
    let Some(cmd) = args.first() else { return show(ctx, &[], io, opts) };
    let rest = &args[1..];
    if matches(cmd, "add") {
        modify(ctx, rest, io, Mode::Add)
    } else if matches(cmd, "change") || matches(cmd, "replace") {
        modify(ctx, rest, io, Mode::Replace)
    } else if matches(cmd, "delete") {
        modify(ctx, rest, io, Mode::Delete)
    } else if matches(cmd, "list") || matches(cmd, "show") || matches(cmd, "lst") {
        show(ctx, rest, io, opts)
    } else if matches(cmd, "flush") {
        flush(ctx, rest, io)
    } else {
        io.fail(255, &format!("Command \"{cmd}\" is unknown, try \"ip address help\"."))
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Add,
    Replace,
    Delete,
}

/// What `brd` asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Brd {
    None,
    Plus,
    Minus,
    Addr(Ipv4Addr),
}

fn modify(ctx: &mut Ctx<'_>, args: &[String], io: &mut Io, mode: Mode) -> i32 {
    let mut a = Args::new(args);
    let mut local: Option<&str> = None;
    let mut dev: Option<&str> = None;
    let mut brd = Brd::None;
    while let Some(w) = a.next() {
        match w {
            "dev" => match a.value(io) {
                Ok(v) => dev = Some(v),
                Err(s) => return s,
            },
            "broadcast" | "brd" => {
                let v = match a.value(io) {
                    Ok(v) => v,
                    Err(s) => return s,
                };
                brd = match v {
                    "+" => Brd::Plus,
                    "-" => Brd::Minus,
                    _ => match parse_iproute(v) {
                        Some(b) => Brd::Addr(b),
                        None => return super::invarg(io, v, "invalid broadcast"),
                    },
                };
            }
            "local" => match a.value(io) {
                Ok(v) => local = Some(v),
                Err(s) => return s,
            },
            "peer" | "remote" | "anycast" | "label" | "scope" | "metric" | "valid_lft" | "preferred_lft"
            | "noprefixroute" | "home" | "nodad" => return unsupported(io, &format!("ip address ... {w}")),
            _ if local.is_none() => local = Some(w),
            _ => return garbage(io, "local", w),
        }
    }
    let Some(dev) = dev else {
        return io.fail(1, "Not enough information: \"dev\" argument is required.");
    };
    let dev = match device(ctx, io, dev) {
        Ok(d) => d,
        Err(s) => return s,
    };
    let Some(text) = local else {
        return io.fail(2, "RTNETLINK answers: Invalid argument");
    };
    let Some(net) = parse_iproute_prefix(text).filter(|_| text != "default") else {
        return bad_prefix(io, text);
    };
    if mode == Mode::Delete {
        let len = text.contains('/').then_some(net.prefix_len());
        if len.is_none() {
            io.errln(&format!(
                "Warning: Executing wildcard deletion to stay compatible with old scripts.\n         Explicitly specify the prefix length ({}/32) to avoid this warning.\n         This special behaviour is likely to disappear in further releases,\n         fix your scripts!",
                net.addr()
            ));
        }
        return report(io, ctx.node_mut().del_addr(dev, net.addr(), len));
    }
    let brd = match brd {
        Brd::None => None,
        Brd::Plus => (net.prefix_len() <= 30).then(|| net.broadcast()),
        Brd::Minus => (net.prefix_len() <= 30).then(|| net.network()),
        Brd::Addr(b) => Some(b),
    };
    let node = ctx.node_mut();
    if mode == Mode::Replace
        && let Some(a) = node.ifaces[dev].addrs.iter_mut().find(|a| a.net == net)
    {
        a.brd = brd;
        node.reindex();
        return 0;
    }
    report(io, node.add_addr(dev, net, brd))
}

fn report(io: &mut Io, r: Result<(), KernelError>) -> i32 {
    match r {
        Ok(()) => 0,
        Err(KernelError::AddrExists) => super::extack(io, "ipv4: Address already assigned."),
        Err(KernelError::AddrNotFound) => super::extack(io, "ipv4: Address not found."),
        Err(_) => io.fail(2, "netpress: table full"),
    }
}

/// `dev X`, a bare `X` and `up`; the selectors iproute2 shares between show and flush.
fn select(ctx: &Ctx<'_>, args: &[String], io: &mut Io) -> Result<(Option<IfId>, bool), i32> {
    let mut a = Args::new(args);
    let mut dev = None;
    let mut up = false;
    while let Some(w) = a.next() {
        match w {
            "up" => up = true,
            "dev" => {
                let v = a.value(io)?;
                dev = Some(shown_device(ctx, io, v)?);
            }
            "to" | "scope" | "label" | "primary" | "secondary" | "permanent" | "dynamic" | "tentative"
            | "deprecated" | "dadfailed" | "temporary" | "master" | "type" | "vrf" => {
                return Err(unsupported(io, &format!("ip address show ... {w}")));
            }
            _ if dev.is_none() => dev = Some(shown_device(ctx, io, w)?),
            _ => return Err(garbage(io, "dev", w)),
        }
    }
    Ok((dev, up))
}

fn show(ctx: &mut Ctx<'_>, args: &[String], io: &mut Io, opts: Opts) -> i32 {
    let (dev, up) = match select(ctx, args, io) {
        Ok(s) => s,
        Err(s) => return s,
    };
    let node = ctx.node();
    let mut out = String::new();
    for (id, iface) in node.ifaces.iter().enumerate() {
        if dev.is_some_and(|d| d != id) || (up && !iface.up) {
            continue;
        }
        if (opts.inet_only || opts.oneline) && iface.addrs.is_empty() {
            continue;
        }
        out.push_str(&render(id, iface, opts));
    }
    io.out(&out);
    0
}

/// One interface in `ip addr` form under the given options.
pub fn render(id: IfId, iface: &Iface, opts: Opts) -> String {
    if opts.brief {
        let addrs: String = iface.addrs.iter().map(|a| format!("{}/{} ", a.ip(), a.len())).collect();
        return format!("{:<16} {:<14} {addrs}\n", label(iface), state(iface));
    }
    if opts.oneline {
        return iface
            .addrs
            .iter()
            .map(|a| {
                format!(
                    "{}: {}    {}\\       valid_lft forever preferred_lft forever\n",
                    id + 1,
                    iface.name,
                    inet(iface, a)
                )
            })
            .collect();
    }
    let mut s = header(id, iface, false);
    if opts.inet_only {
        if !iface.is_loopback() {
            s.push_str(" link-netnsid 0");
        }
        s.push('\n');
    } else {
        s.push('\n');
        s.push_str(&link_line(iface));
        s.push('\n');
    }
    for a in &iface.addrs {
        s.push_str(&format!("    {}\n       valid_lft forever preferred_lft forever\n", inet(iface, a)));
    }
    if opts.stats > 0 {
        s.push_str(&stats_block(iface, opts.stats));
    }
    s
}

/// `inet A/P [brd B] scope S [secondary] LABEL`.
fn inet(iface: &Iface, a: &Addr) -> String {
    let brd = a.brd.map(|b| format!(" brd {b}")).unwrap_or_default();
    let scope = if a.ip().octets()[0] == 127 { "host" } else { "global" };
    let secondary = if a.secondary { " secondary" } else { "" };
    format!("inet {}/{}{brd} scope {scope}{secondary} {}", a.ip(), a.len(), iface.name)
}

fn flush(ctx: &mut Ctx<'_>, args: &[String], io: &mut Io) -> i32 {
    if args.is_empty() {
        return io.fail(1, "Flush requires arguments.");
    }
    let (dev, up) = match select(ctx, args, io) {
        Ok(s) => s,
        Err(s) => return s,
    };
    let node = ctx.node_mut();
    let targets: Vec<IfId> = (0..node.ifaces.len())
        .filter(|&i| dev.is_none_or(|d| d == i) && (!up || node.ifaces[i].up))
        .collect();
    for i in targets {
        node.flush_addrs(i);
    }
    0
}
