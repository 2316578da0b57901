//! `route` (net-tools 2.10): the kernel routing table through the old ioctl interface.

use std::net::Ipv4Addr;

use ipnet::Ipv4Net;

use super::{Ctx, Io, unsupported};
use crate::route::net::Node;
use crate::route::net::addr::{classful_len, len_mask, mask_len, parse_aton};
use crate::route::net::kernel::KernelError;
use crate::route::net::route::{AddMode, Route, RouteType};

pub const TITLE: &str = "Kernel IP routing table";

/// The fields net-tools prints for one route: destination, gateway, mask, flags, iface.
pub struct Row {
    pub dst: String,
    pub gw: String,
    pub mask: String,
    pub flags: &'static str,
    pub reject: bool,
    pub metric: u32,
    pub iface: String,
}

/// The main table as net-tools sees it (`numeric` false prints 0.0.0.0 as `default`).
pub fn rows(node: &Node, numeric: bool) -> Vec<Row> {
    node.main
        .routes()
        .iter()
        .map(|r| {
            let reject = matches!(r.rtype, RouteType::Prohibit | RouteType::Unreachable);
            let dst =
                if !numeric && r.dst.prefix_len() == 0 { "default".into() } else { r.dst.addr().to_string() };
            let flags = match (reject, r.via.is_some(), r.dst.prefix_len() == 32) {
                (true, ..) => "!",
                (_, true, true) => "UGH",
                (_, true, false) => "UG",
                (_, false, true) => "UH",
                _ => "U",
            };
            let iface = match (reject, r.dev) {
                (true, _) => "-".into(),
                (_, Some(d)) => node.ifaces[d].name.clone(),
                (_, None) => "*".into(),
            };
            Row {
                dst,
                gw: if reject { "-".into() } else { r.via.unwrap_or(Ipv4Addr::UNSPECIFIED).to_string() },
                mask: len_mask(r.dst.prefix_len()).to_string(),
                flags,
                reject,
                metric: r.metric,
                iface: iface.to_string(),
            }
        })
        .collect()
}

pub fn run(ctx: &mut Ctx<'_>, args: &[String], io: &mut Io) -> i32 {
    let mut numeric = false;
    let mut rest = Vec::new();
    for a in args {
        match a.as_str() {
            "-n" | "--numeric" => numeric = true,
            "-e" | "-ee" | "-v" | "-F" | "--fib" | "-4" | "-A" | "inet" => {}
            "-C" | "--cache" | "-6" => return unsupported(io, &format!("route {a}")),
            _ => rest.push(a.as_str()),
        }
    }
    match rest.first() {
        None => {
            let mut out = format!(
                "{TITLE}\nDestination     Gateway         Genmask         Flags Metric Ref    Use Iface\n"
            );
            for r in rows(ctx.node(), numeric) {
                let reference = if r.reject { "-" } else { "0" };
                out.push_str(&format!(
                    "{:<15} {:<15} {:<15} {:<5} {:<6} {:<2} {:>7} {}\n",
                    r.dst, r.gw, r.mask, r.flags, r.metric, reference, 0, r.iface
                ));
            }
            io.out(&out);
            0
        }
        Some(&"add") => change(ctx.node_mut(), &rest[1..], io, true),
        Some(&"del") => change(ctx.node_mut(), &rest[1..], io, false),
        Some(&"flush") => unsupported(io, "route flush"),
        Some(_) => io.fail(3, USAGE),
    }
}

fn change(node: &mut Node, args: &[&str], io: &mut Io, add: bool) -> i32 {
    let mut host = false;
    let mut target: Option<&str> = None;
    let mut mask: Option<&str> = None;
    let mut gw: Option<&str> = None;
    let mut metric = 0u32;
    let mut dev: Option<&str> = None;
    let mut i = 0;
    let value = |i: &mut usize| {
        *i += 1;
        args.get(*i - 1).copied()
    };
    while i < args.len() {
        let w = args[i];
        i += 1;
        match w {
            "-net" => host = false,
            "-host" => host = true,
            "netmask" | "genmask" => mask = value(&mut i),
            "gw" | "gateway" => gw = value(&mut i),
            "metric" => match value(&mut i).and_then(|m| m.parse().ok()) {
                Some(m) => metric = m,
                None => return io.fail(3, ROUTE_USAGE),
            },
            "dev" => dev = value(&mut i),
            "mss" | "window" | "irtt" | "reject" | "mod" | "dyn" | "reinstate" => {
                return unsupported(io, &format!("route {} ... {w}", if add { "add" } else { "del" }));
            }
            _ if target.is_none() => target = Some(w),
            _ if dev.is_none() => dev = Some(w),
            _ => return io.fail(3, ROUTE_USAGE),
        }
    }
    let Some(target) = target else { return io.fail(0, ROUTE_USAGE) };
    let call = if add { "SIOCADDRT" } else { "SIOCDELRT" };
    let (addr_text, len_text) = match target.split_once('/') {
        Some((a, l)) => (a, Some(l)),
        None => (target, None),
    };
    let addr = if addr_text == "default" { Some(Ipv4Addr::UNSPECIFIED) } else { parse_aton(addr_text) };
    let Some(addr) = addr else { return io.fail(2, &format!("{addr_text}: Unknown host")) };
    let len = if host {
        32
    } else if let Some(m) = mask {
        match parse_aton(m).and_then(mask_len) {
            Some(l) => l,
            None => return io.fail(3, &format!("route: bogus netmask {m}")),
        }
    } else if let Some(l) = len_text {
        match l.parse::<u8>() {
            Ok(l) if l <= 32 => l,
            _ => return io.fail(3, &format!("route: bogus netmask {l}")),
        }
    } else if addr_text == "default" {
        0
    } else {
        classful_len(addr)
    };
    let dst = Ipv4Net::new(addr, len).expect("valid length");
    if dst.trunc() != dst {
        return io.fail(3, &format!("route: netmask doesn't match route address\n{ROUTE_USAGE}"));
    }
    let via = match gw.map(|g| parse_aton(g).ok_or(g)) {
        Some(Ok(g)) => Some(g),
        Some(Err(g)) => return io.fail(2, &format!("{g}: Unknown host")),
        None => None,
    };
    let dev = match dev.map(|d| node.iface(d).ok_or(d)) {
        Some(Ok(d)) => Some(d),
        Some(Err(_)) => return io.fail(7, &format!("{call}: No such device")),
        None => None,
    };
    if !add {
        let found = node.main.delete_first(|r| {
            r.dst == dst
                && r.rtype == RouteType::Unicast
                && (metric == 0 || r.metric == metric)
                && dev.is_none_or(|d| r.dev == Some(d))
                && via.is_none_or(|g| r.via == Some(g))
        });
        return if found.is_ok() { 0 } else { io.fail(7, &format!("{call}: No such process")) };
    }
    let route = Route::user(RouteType::Unicast, dst, via, dev, metric);
    match node.add_route(route, AddMode::Prepend) {
        Ok(()) => 0,
        Err(e) => {
            let why = match e {
                KernelError::Exists => "File exists",
                KernelError::InvalidGateway { unreachable: true } => "Network is unreachable",
                KernelError::InvalidGateway { unreachable: false } => "Invalid argument",
                KernelError::NoDevice => "No such device",
                KernelError::DeviceDown | KernelError::OnlinkDeviceDown | KernelError::NetDown => {
                    "Network is down"
                }
                _ => return io.fail(7, "netpress: table full"),
            };
            io.fail(7, &format!("{call}: {why}"))
        }
    }
}

const ROUTE_USAGE: &str =
    "Usage: inet_route [-vF] del {-host|-net} Target[/prefix] [gw Gw] [metric M] [[dev] If]
       inet_route [-vF] add {-host|-net} Target[/prefix] [gw Gw] [metric M]
                              [netmask N] [mss Mss] [window W] [irtt I]
                              [mod] [dyn] [reinstate] [[dev] If]
       inet_route [-vF] add {-host|-net} Target[/prefix] [metric M] reject
       inet_route [-FC] flush      NOT supported";

const USAGE: &str = "Usage: route [-nNvee] [-FC] [<AF>]           List kernel routing tables
       route [-v] [-FC] {add|del|flush} ...  Modify routing table for AF.

       route {-h|--help} [<AF>]              Detailed usage syntax for specified AF.
       route {-V|--version}                  Display version/author and exit.

        -v, --verbose            be verbose
        -n, --numeric            don't resolve names
        -e, --extend             display other/more information
        -F, --fib                display Forwarding Information Base (default)
        -C, --cache              display routing cache instead of FIB

  <AF>=Use -4, -6, '-A <af>' or '--<af>'; default: inet
  List of possible address families (which support routing):
    inet (DARPA Internet) inet6 (IPv6) ax25 (AMPR AX.25) 
    netrom (AMPR NET/ROM) rose (AMPR ROSE) ipx (Novell IPX) 
    ddp (Appletalk DDP) x25 (CCITT X.25) ";
