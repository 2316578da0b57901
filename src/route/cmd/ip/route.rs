//! `ip route`: show, add/del/replace/change/append/prepend, flush, get.

use std::net::Ipv4Addr;

use ipnet::Ipv4Net;

use super::{Args, bad_prefix, device, garbage, invarg, matches, rtnl};
use crate::route::cmd::{Ctx, Io, unsupported};
use crate::route::engine::{Hop, lookup, source_for};
use crate::route::net::addr::{parse_iproute, parse_iproute_prefix, show_prefix};
use crate::route::net::kernel::KernelError;
use crate::route::net::route::{AddMode, IfId, Proto, Route, RouteType, Scope};
use crate::route::net::{Node, rule::TableId};

pub fn run(ctx: &mut Ctx<'_>, args: &[String], io: &mut Io) -> i32 {
    let Some(cmd) = args.first() else { return show(ctx, &[], io) };
    let rest = &args[1..];
    let mode = if matches(cmd, "add") {
        Some(AddMode::Exclusive)
    } else if matches(cmd, "change") || cmd == "chg" {
        Some(AddMode::Change)
    } else if matches(cmd, "replace") {
        Some(AddMode::Replace)
    } else if matches(cmd, "prepend") {
        Some(AddMode::Prepend)
    } else if matches(cmd, "append") {
        Some(AddMode::Append)
    } else {
        None
    };
    if let Some(mode) = mode {
        return modify(ctx, rest, io, Some(mode));
    }
    if matches(cmd, "delete") {
        modify(ctx, rest, io, None)
    } else if matches(cmd, "list") || matches(cmd, "show") || matches(cmd, "lst") {
        show(ctx, rest, io)
    } else if matches(cmd, "get") {
        get(ctx, rest, io)
    } else if matches(cmd, "flush") {
        flush(ctx, rest, io)
    } else if ["test", "showdump", "save", "restore"].iter().any(|c| matches(cmd, c)) {
        unsupported(io, &format!("ip route {cmd}"))
    } else if cmd == "help" {
        io.fail(255, USAGE)
    } else {
        io.fail(255, &format!("Command \"{cmd}\" is unknown, try \"ip route help\"."))
    }
}

/// A route as given on the command line; every field optional for deletion.
#[derive(Debug, Default)]
struct Spec {
    rtype: Option<RouteType>,
    dst: Option<Ipv4Net>,
    /// The destination as typed, for prefix errors.
    dst_text: String,
    via: Option<Ipv4Addr>,
    dev: Option<IfId>,
    metric: Option<u32>,
    onlink: bool,
}

fn parse(ctx: &Ctx<'_>, args: &[String], io: &mut Io) -> Result<Spec, i32> {
    let mut a = Args::new(args);
    let mut s = Spec::default();
    let mut dev_name = None;
    while let Some(w) = a.next() {
        match w {
            "via" => {
                let v = a.value(io)?;
                let v = if v == "inet" { a.value(io)? } else { v };
                let g = parse_iproute(v).ok_or_else(|| {
                    io.fail(1, &format!("Error: inet address is expected rather than \"{v}\"."))
                })?;
                s.via = Some(g);
            }
            "metric" | "priority" | "preference" => {
                let v = a.value(io)?;
                s.metric = Some(v.parse().map_err(|_| invarg(io, v, "\"metric\" value is invalid\n"))?);
            }
            "dev" | "oif" => dev_name = Some(a.value(io)?),
            "onlink" => s.onlink = true,
            "table" => {
                let v = a.value(io)?;
                if TableId::parse(v) != Some(TableId::Main) {
                    return Err(unsupported(
                        io,
                        &format!("ip route ... table {v} (only the main table is editable)"),
                    ));
                }
            }
            "proto" => {
                a.value(io)?;
            }
            "scope" => {
                a.value(io)?;
            }
            "src" | "from" | "tos" | "dsfield" | "mtu" | "advmss" | "hoplimit" | "nexthop" | "nhid"
            | "encap" | "realms" | "rtt" | "rttvar" | "window" | "cwnd" | "initcwnd" | "ssthresh"
            | "expires" | "pref" | "as" | "weight" | "pervasive" | "congctl" | "features" | "quickack"
            | "fastopen_no_cookie" | "ttl-propagate" => {
                return Err(unsupported(io, &format!("ip route ... {w}")));
            }
            "local" | "broadcast" | "multicast" | "throw" | "nat" | "anycast" | "xresolve"
                if s.dst.is_none() =>
            {
                return Err(unsupported(io, &format!("ip route ... {w} routes")));
            }
            _ if s.dst.is_none() && s.rtype.is_none() && RouteType::parse(w).is_some() => {
                s.rtype = RouteType::parse(w);
            }
            _ if s.dst.is_some() => return Err(garbage(io, "to", w)),
            _ => {
                let text = if w == "to" { a.value(io)? } else { w };
                s.dst = Some(parse_iproute_prefix(text).ok_or_else(|| bad_prefix(io, text))?);
                s.dst_text = text.to_string();
            }
        }
    }
    if let Some(name) = dev_name {
        s.dev = Some(device(ctx, io, name)?);
    }
    Ok(s)
}

/// add/change/replace/append/prepend (`mode`) or delete (`None`).
fn modify(ctx: &mut Ctx<'_>, args: &[String], io: &mut Io, mode: Option<AddMode>) -> i32 {
    let s = match parse(ctx, args, io) {
        Ok(s) => s,
        Err(status) => return status,
    };
    let Some(dst) = s.dst else { return io.fail(255, USAGE) };
    if dst.trunc() != dst {
        return super::extack(io, "Invalid prefix for given prefix length.");
    }
    let node = ctx.node_mut();
    let Some(mode) = mode else {
        let found = node.main.delete_first(|r| {
            r.dst == dst
                && s.metric.is_none_or(|m| r.metric == m)
                && s.dev.is_none_or(|d| r.dev == Some(d))
                && s.via.is_none_or(|g| r.via == Some(g))
                && s.rtype.is_none_or(|t| r.rtype == t)
        });
        return if found.is_ok() { 0 } else { rtnl(io, "No such process") };
    };
    let rtype = s.rtype.unwrap_or(RouteType::Unicast);
    let mut route = Route::user(rtype, dst, s.via, s.dev, s.metric.unwrap_or(0));
    if rtype != RouteType::Unicast {
        route.via = None;
        route.dev = None;
    }
    route.onlink = s.onlink && rtype == RouteType::Unicast;
    match node.add_route(route, mode) {
        Ok(()) => 0,
        Err(e) => report(io, e),
    }
}

fn report(io: &mut Io, e: KernelError) -> i32 {
    match e {
        KernelError::Exists => rtnl(io, "File exists"),
        KernelError::NotFound => rtnl(io, "No such file or directory"),
        KernelError::NoSuchProcess => rtnl(io, "No such process"),
        KernelError::NoDevice => rtnl(io, "No such device"),
        KernelError::NetDown => rtnl(io, "Network is down"),
        KernelError::InvalidGateway { .. } => super::extack(io, "Nexthop has invalid gateway."),
        KernelError::DeviceDown => super::extack(io, "Device for nexthop is not up."),
        KernelError::OnlinkDeviceDown => super::extack(io, "Nexthop device is not up."),
        KernelError::AddrExists | KernelError::AddrNotFound | KernelError::Full => {
            io.fail(2, "netpress: table full")
        }
    }
}

/// Which routes a listing or flush selects.
#[derive(Debug, Default)]
struct Filter {
    main: bool,
    local: bool,
    dev: Option<IfId>,
    /// (prefix, how): `exact`, `root` (not shorter) or `match` (not longer, containing).
    prefix: Option<(Ipv4Net, &'static str)>,
}

impl Filter {
    fn keeps(&self, dst: Ipv4Net, dev: Option<IfId>) -> bool {
        let dev_ok = self.dev.is_none_or(|d| dev == Some(d));
        let prefix_ok = self.prefix.is_none_or(|(p, how)| match how {
            "root" => dst.prefix_len() >= p.prefix_len() && p.contains(&dst.addr()),
            "match" => dst.prefix_len() <= p.prefix_len() && dst.contains(&p.addr()),
            _ => dst == p,
        });
        dev_ok && prefix_ok
    }
}

fn parse_filter(ctx: &Ctx<'_>, args: &[String], io: &mut Io) -> Result<Filter, i32> {
    let mut a = Args::new(args);
    let mut f = Filter { main: true, ..Filter::default() };
    while let Some(w) = a.next() {
        match w {
            "table" => {
                let v = a.value(io)?;
                (f.main, f.local) = match (v, TableId::parse(v)) {
                    ("all", _) => (true, true),
                    (_, Some(TableId::Main)) => (true, false),
                    (_, Some(TableId::Local)) => (false, true),
                    (_, Some(TableId::Default)) => (false, false),
                    _ => return Err(unsupported(io, &format!("ip route ... table {v}"))),
                };
            }
            "dev" | "oif" => {
                let v = a.value(io)?;
                f.dev = Some(device(ctx, io, v)?);
            }
            "root" | "match" | "exact" | "to" => {
                let v = a.value(io)?;
                let p = parse_iproute_prefix(v).ok_or_else(|| bad_prefix(io, v))?;
                let how = match w {
                    "root" => "root",
                    "match" => "match",
                    _ => "exact",
                };
                f.prefix = Some((p.trunc(), how));
            }
            "cache" => {}
            "proto" | "scope" | "type" | "src" | "from" | "via" | "vrf" | "realms" | "tos" | "metric" => {
                return Err(unsupported(io, &format!("ip route show ... {w}")));
            }
            _ if f.prefix.is_some() => return Err(garbage(io, "to", w)),
            _ => {
                let p = parse_iproute_prefix(w).ok_or_else(|| bad_prefix(io, w))?;
                f.prefix = Some((p.trunc(), "exact"));
            }
        }
    }
    Ok(f)
}

fn show(ctx: &mut Ctx<'_>, args: &[String], io: &mut Io) -> i32 {
    let f = match parse_filter(ctx, args, io) {
        Ok(f) => f,
        Err(s) => return s,
    };
    let node = ctx.node();
    let mut out = String::new();
    if f.main {
        for r in node.main.routes().iter().filter(|r| f.keeps(r.dst, r.dev)) {
            out.push_str(&route_line(node, r, f.dev.is_some()));
        }
    }
    if f.local {
        for l in node.local_routes().iter().filter(|l| f.keeps(l.dst, Some(l.dev))) {
            let kind = if l.broadcast { "broadcast" } else { "local" };
            let dev =
                if f.dev.is_some() { String::new() } else { format!(" dev {}", node.ifaces[l.dev].name) };
            let table = if f.main { " table local" } else { "" };
            let scope = if l.broadcast { "link" } else { "host" };
            let down = if l.broadcast && !node.ifaces[l.dev].carrier { " linkdown" } else { "" };
            out.push_str(&format!(
                "{kind} {}{dev}{table} proto kernel scope {scope} src {}{down} \n",
                show_prefix(l.dst),
                l.src
            ));
        }
    }
    io.out(&out);
    0
}

/// One main-table route as iproute2 prints it (`omit_dev` under a `dev` filter).
pub fn route_line(node: &Node, r: &Route, omit_dev: bool) -> String {
    let mut s = String::new();
    if r.rtype != RouteType::Unicast {
        s.push_str(r.rtype.keyword());
        s.push(' ');
    }
    s.push_str(&if r.dst.prefix_len() == 0 { "default".to_string() } else { show_prefix(r.dst) });
    if let Some(g) = r.via {
        s.push_str(&format!(" via {g}"));
    }
    if let (Some(d), false) = (r.dev, omit_dev) {
        s.push_str(&format!(" dev {}", node.ifaces[d].name));
    }
    if r.proto == Proto::Kernel {
        s.push_str(" proto kernel");
    }
    if r.scope == Scope::Link {
        s.push_str(" scope link");
    }
    if let Some(src) = r.src {
        s.push_str(&format!(" src {src}"));
    }
    if r.metric != 0 {
        s.push_str(&format!(" metric {}", r.metric));
    }
    if r.onlink {
        s.push_str(" onlink");
    }
    if r.dev.is_some_and(|d| !node.ifaces[d].carrier) {
        s.push_str(" linkdown");
    }
    s.push_str(" \n");
    s
}

fn flush(ctx: &mut Ctx<'_>, args: &[String], io: &mut Io) -> i32 {
    if args.is_empty() {
        return io.fail(255, "\"ip route flush\" requires arguments.");
    }
    if args.iter().any(|a| a == "cache") {
        return 0;
    }
    let f = match parse_filter(ctx, args, io) {
        Ok(f) => f,
        Err(s) => return s,
    };
    if f.local {
        return unsupported(io, "ip route flush table local");
    }
    ctx.node_mut().main.remove_where(|r| f.keeps(r.dst, r.dev));
    0
}

fn get(ctx: &mut Ctx<'_>, args: &[String], io: &mut Io) -> i32 {
    let mut a = Args::new(args);
    let mut dst = None;
    let mut from = None;
    let mut oif = None;
    while let Some(w) = a.next() {
        let r: Result<(), i32> = match w {
            "from" => a.value(io).and_then(|v| {
                let p = parse_iproute_prefix(v).ok_or_else(|| bad_prefix(io, v))?;
                from = Some(p.addr());
                Ok(())
            }),
            "oif" | "dev" => a.value(io).and_then(|v| device(ctx, io, v)).map(|d| oif = Some(d)),
            "fibmatch" | "iif" | "tos" | "dsfield" | "mark" | "vrf" | "uid" | "ipproto" | "sport"
            | "dport" | "connected" => return unsupported(io, &format!("ip route get ... {w}")),
            _ if dst.is_some() => return garbage(io, "to", w),
            _ => {
                let text = if w == "to" { a.value(io).unwrap_or(w) } else { w };
                match parse_iproute_prefix(text) {
                    Some(p) => {
                        dst = Some(p.addr());
                        Ok(())
                    }
                    None => return bad_prefix(io, text),
                }
            }
        };
        if let Err(s) = r {
            return s;
        }
    }
    let Some(dst) = dst else { return io.fail(1, "need at least a destination address") };
    let node = ctx.node();
    let hop = match lookup(node, dst, from, oif) {
        Ok(h) => h,
        Err(e) => return rtnl(io, e.strerror()),
    };
    let src = from.or_else(|| source_for(node, dst, hop)).unwrap_or(Ipv4Addr::UNSPECIFIED);
    let line = match hop {
        Hop::Local => format!("local {dst} dev lo src {src} uid 0 \n    cache <local> \n"),
        Hop::Broadcast => {
            let dev = node
                .ifaces
                .iter()
                .find(|i| i.up && i.addrs.iter().any(|a| a.brd == Some(dst) || a.net.broadcast() == dst));
            let name = dev.map_or("lo", |i| &*i.name);
            let src = dev.and_then(|i| i.primaries().next()).map_or(src, |a| a.ip());
            format!("broadcast {dst} dev {name} src {src} uid 0 \n    cache <local,brd> \n")
        }
        Hop::Out { dev, gw, .. } => {
            let via = gw.map(|g| format!(" via {g}")).unwrap_or_default();
            format!("{dst}{via} dev {} src {src} uid 0 \n    cache \n", node.ifaces[dev].name)
        }
    };
    io.out(&line);
    0
}

const USAGE: &str = "Usage: ip route { list | flush } SELECTOR
       ip route save SELECTOR
       ip route restore
       ip route showdump
       ip route get [ ROUTE_GET_FLAGS ] ADDRESS
                            [ from ADDRESS iif STRING ]
                            [ oif STRING ] [ tos TOS ]
                            [ mark NUMBER ] [ vrf NAME ]
                            [ uid NUMBER ] [ ipproto PROTOCOL ]
                            [ sport NUMBER ] [ dport NUMBER ]
       ip route { add | del | change | append | replace } ROUTE
SELECTOR := [ root PREFIX ] [ match PREFIX ] [ exact PREFIX ]
            [ table TABLE_ID ] [ vrf NAME ] [ proto RTPROTO ]
            [ type TYPE ] [ scope SCOPE ]
ROUTE := NODE_SPEC [ INFO_SPEC ]
NODE_SPEC := [ TYPE ] PREFIX [ tos TOS ]
             [ table TABLE_ID ] [ proto RTPROTO ]
             [ scope SCOPE ] [ metric METRIC ]
             [ ttl-propagate { enabled | disabled } ]
INFO_SPEC := { NH | nhid ID } OPTIONS FLAGS [ nexthop NH ]...
NH := [ encap ENCAPTYPE ENCAPHDR ] [ via [ FAMILY ] ADDRESS ]
      [ dev STRING ] [ weight NUMBER ] NHFLAGS
FAMILY := [ inet | inet6 | mpls | bridge | link ]
OPTIONS := FLAGS [ mtu NUMBER ] [ advmss NUMBER ] [ as [ to ] ADDRESS ]
           [ rtt TIME ] [ rttvar TIME ] [ reordering NUMBER ]
           [ window NUMBER ] [ cwnd NUMBER ] [ initcwnd NUMBER ]
           [ ssthresh NUMBER ] [ realms REALM ] [ src ADDRESS ]
           [ rto_min TIME ] [ hoplimit NUMBER ] [ initrwnd NUMBER ]
           [ features FEATURES ] [ quickack BOOL ] [ congctl NAME ]
           [ pref PREF ] [ expires TIME ] [ fastopen_no_cookie BOOL ]
TYPE := { unicast | local | broadcast | multicast | throw |
          unreachable | prohibit | blackhole | nat }
TABLE_ID := [ local | main | default | all | NUMBER ]
SCOPE := [ host | link | global | NUMBER ]
NHFLAGS := [ onlink | pervasive ]
RTPROTO := [ kernel | boot | static | NUMBER ]
PREF := [ low | medium | high ]
TIME := NUMBER[s|ms]
BOOL := [1|0]
FEATURES := ecn
ENCAPTYPE := [ mpls | ip | ip6 | seg6 | seg6local | rpl | ioam6 | xfrm ]
ENCAPHDR := [ MPLSLABEL | SEG6HDR | SEG6LOCAL | IOAM6HDR | XFRMINFO ]
SEG6HDR := [ mode SEGMODE ] segs ADDR1,ADDRi,ADDRn [hmac HMACKEYID] [cleanup]
SEGMODE := [ encap | encap.red | inline | l2encap | l2encap.red ]
SEG6LOCAL := action ACTION [ OPTIONS ] [ count ]
ACTION := { End | End.X | End.T | End.DX2 | End.DX6 | End.DX4 |
            End.DT6 | End.DT4 | End.DT46 | End.B6 | End.B6.Encaps |
            End.BM | End.S | End.AS | End.AM | End.BPF }
OPTIONS := OPTION [ OPTIONS ]
OPTION := { flavors FLAVORS | srh SEG6HDR | nh4 ADDR | nh6 ADDR | iif DEV | oif DEV |
            table TABLEID | vrftable TABLEID | endpoint PROGNAME }
FLAVORS := { FLAVOR[,FLAVOR] }
FLAVOR := { psp | usp | usd | next-csid }
IOAM6HDR := trace prealloc type IOAM6_TRACE_TYPE ns IOAM6_NAMESPACE size IOAM6_TRACE_SIZE
XFRMINFO := if_id IF_ID [ link_dev LINK ]
ROUTE_GET_FLAGS := [ fibmatch ]";
