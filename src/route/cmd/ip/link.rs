//! `ip link`: show and set (up/down, mtu, promisc).

use super::{
    Args, Opts, device, garbage, header, invarg, label, link_line, matches, shown_device, state, stats_block,
};
use crate::route::cmd::{Ctx, Io, unsupported};
use crate::route::net::iface::{MAX_MTU, MIN_MTU};

pub fn run(ctx: &mut Ctx<'_>, args: &[String], io: &mut Io, opts: Opts) -> i32 {
    let Some(cmd) = args.first() else { return show(ctx, &[], io, opts) };
    let rest = &args[1..];
    if matches(cmd, "add") || matches(cmd, "delete") || matches(cmd, "replace") {
        unsupported(io, &format!("ip link {cmd}"))
    } else if matches(cmd, "set") || matches(cmd, "change") {
        set(ctx, rest, io)
    } else if matches(cmd, "show") || matches(cmd, "lst") || matches(cmd, "list") {
        show(ctx, rest, io, opts)
    } else {
        io.fail(255, &format!("Command \"{cmd}\" is unknown, try \"ip link help\"."))
    }
}

/// The changes one `ip link set` asks for.
#[derive(Debug, Default)]
struct Change {
    up: Option<bool>,
    mtu: Option<u32>,
    promisc: Option<bool>,
}

fn set(ctx: &mut Ctx<'_>, args: &[String], io: &mut Io) -> i32 {
    let mut a = Args::new(args);
    let mut dev: Option<&str> = None;
    let mut change = Change::default();
    while let Some(w) = a.next() {
        let result = match w {
            "up" => {
                change.up = Some(true);
                Ok(())
            }
            "down" => {
                change.up = Some(false);
                Ok(())
            }
            "mtu" => a.value(io).and_then(|v| match v.parse::<u32>() {
                Ok(m) => {
                    change.mtu = Some(m);
                    Ok(())
                }
                Err(_) => Err(invarg(io, v, "Invalid \"mtu\" value\n")),
            }),
            "promisc" => a.value(io).and_then(|v| match v {
                "on" => {
                    change.promisc = Some(true);
                    Ok(())
                }
                "off" => {
                    change.promisc = Some(false);
                    Ok(())
                }
                _ => Err(invarg(io, v, "\"promisc\" must be \"on\" or \"off\"")),
            }),
            "dev" => a.value(io).map(|v| dev = Some(v)),
            "name" | "netns" | "master" | "nomaster" | "type" | "address" | "arp" | "multicast"
            | "allmulticast" | "txqueuelen" | "qlen" | "alias" | "group" | "vf" | "state" | "mode"
            | "link-netns" | "link-netnsid" | "broadcast" | "protodown" | "addrgenmode" | "dynamic"
            | "trailers" | "index" | "xdp" => {
                return unsupported(io, &format!("ip link set ... {w}"));
            }
            _ if dev.is_none() => {
                dev = Some(w);
                Ok(())
            }
            _ => return garbage(io, "dev", w),
        };
        if let Err(status) = result {
            return status;
        }
    }
    let Some(dev) = dev else {
        return io.fail(255, "Not enough information: \"dev\" argument is required.");
    };
    let dev = match device(ctx, io, dev) {
        Ok(d) => d,
        Err(s) => return s,
    };
    if let Some(mtu) = change.mtu {
        let loopback = ctx.node().ifaces[dev].is_loopback();
        if mtu < MIN_MTU {
            return super::extack(io, "mtu less than device minimum.");
        }
        if mtu > MAX_MTU && !loopback {
            return super::extack(io, "mtu greater than device maximum.");
        }
        ctx.node_mut().ifaces[dev].mtu = mtu;
    }
    if let Some(p) = change.promisc {
        ctx.node_mut().ifaces[dev].promisc = p;
    }
    if let Some(up) = change.up {
        ctx.node_mut().set_link(dev, up);
    }
    0
}

fn show(ctx: &mut Ctx<'_>, args: &[String], io: &mut Io, opts: Opts) -> i32 {
    let mut a = Args::new(args);
    let mut dev = None;
    let mut up = false;
    while let Some(w) = a.next() {
        match w {
            "up" => up = true,
            "dev" => match a.value(io).and_then(|v| shown_device(ctx, io, v)) {
                Ok(d) => dev = Some(d),
                Err(s) => return s,
            },
            "type" | "master" | "group" | "vrf" => return unsupported(io, &format!("ip link show ... {w}")),
            _ if dev.is_none() => match shown_device(ctx, io, w) {
                Ok(d) => dev = Some(d),
                Err(s) => return s,
            },
            _ => return garbage(io, "dev", w),
        }
    }
    let mut out = String::new();
    for (id, iface) in ctx.node().ifaces.iter().enumerate() {
        if dev.is_some_and(|d| d != id) || (up && !iface.up) {
            continue;
        }
        if opts.brief {
            out.push_str(&format!(
                "{:<16} {:<14} {} <{}> \n",
                label(iface),
                state(iface),
                iface.mac_text(),
                super::flags(iface)
            ));
            continue;
        }
        let head = header(id, iface, true);
        let link = link_line(iface);
        if opts.oneline {
            out.push_str(&format!("{head}\\{link}\n"));
        } else {
            out.push_str(&format!("{head}\n{link}\n"));
            if opts.stats > 0 {
                out.push_str(&stats_block(iface, opts.stats));
            }
        }
    }
    io.out(&out);
    0
}
