//! `ip` (iproute2 6.1): global options, object and command abbreviations, and the error
//! texts shared by its objects.

mod addr;
mod link;
mod neigh;
mod route;
mod rule;

use super::{Ctx, Io, unsupported};
use crate::route::net::route::IfId;

/// Global options that shape output.
#[derive(Debug, Clone, Copy, Default)]
pub struct Opts {
    pub brief: bool,
    pub oneline: bool,
    pub stats: u8,
    pub inet_only: bool,
}

/// iproute2's `matches(arg, name)`: `arg` is a non-empty prefix of `name`.
pub fn matches(arg: &str, name: &str) -> bool {
    !arg.is_empty() && name.starts_with(arg)
}

/// A cursor over arguments.
pub struct Args<'a> {
    items: &'a [String],
    at: usize,
}

impl<'a> Args<'a> {
    pub fn new(items: &'a [String]) -> Self {
        Args { items, at: 0 }
    }

    pub fn next(&mut self) -> Option<&'a str> {
        let item = self.items.get(self.at)?;
        self.at += 1;
        Some(item)
    }

    /// The value after a keyword, or iproute2's "not complete" error.
    pub fn value(&mut self, io: &mut Io) -> Result<&'a str, i32> {
        self.next().ok_or_else(|| io.fail(255, "Command line is not complete. Try option \"help\""))
    }
}

pub fn garbage(io: &mut Io, key: &str, word: &str) -> i32 {
    io.fail(255, &format!("Error: either \"{key}\" is duplicate, or \"{word}\" is a garbage."))
}

/// iproute2's `invarg`; some of its messages end in their own newline (a blank line follows).
pub fn invarg(io: &mut Io, arg: &str, msg: &str) -> i32 {
    io.fail(255, &format!("Error: argument \"{arg}\" is wrong: {msg}"))
}

pub fn bad_prefix(io: &mut Io, word: &str) -> i32 {
    io.fail(1, &format!("Error: any valid prefix is expected rather than \"{word}\"."))
}

pub fn rtnl(io: &mut Io, what: &str) -> i32 {
    io.fail(2, &format!("RTNETLINK answers: {what}"))
}

pub fn extack(io: &mut Io, what: &str) -> i32 {
    io.fail(2, &format!("Error: {what}"))
}

/// A device for a change (`Cannot find device`).
pub fn device(ctx: &Ctx<'_>, io: &mut Io, name: &str) -> Result<IfId, i32> {
    ctx.node().iface(name).ok_or_else(|| io.fail(1, &format!("Cannot find device \"{name}\"")))
}

/// A device for a listing (`Device … does not exist.`).
pub fn shown_device(ctx: &Ctx<'_>, io: &mut Io, name: &str) -> Result<IfId, i32> {
    ctx.node().iface(name).ok_or_else(|| io.fail(1, &format!("Device \"{name}\" does not exist.")))
}

const OBJECTS: [&str; 6] = ["address", "route", "rule", "neighbor", "neighbour", "link"];
const OTHER_OBJECTS: [&str; 9] =
    ["addrlabel", "maddress", "ntable", "tunnel", "tuntap", "netns", "monitor", "xfrm", "nexthop"];

pub fn run(ctx: &mut Ctx<'_>, args: &[String], io: &mut Io) -> i32 {
    let mut opts = Opts::default();
    let mut i = 0;
    while let Some(a) = args.get(i).filter(|a| a.starts_with('-') && a.len() > 1) {
        let flag = a.trim_start_matches('-');
        match flag {
            "4" => opts.inet_only = true,
            "6" => return unsupported(io, "ip -6 (IPv6)"),
            f if matches(f, "brief") => opts.brief = true,
            f if matches(f, "oneline") => opts.oneline = true,
            f if matches(f, "stats") || matches(f, "statistics") => opts.stats += 1,
            f if matches(f, "netns") || matches(f, "json") || matches(f, "details") => {
                return unsupported(io, &format!("ip {a}"));
            }
            "c" | "color" | "p" | "pretty" => {}
            _ => return io.fail(255, &format!("Option \"{a}\" is unknown, try \"ip -help\".")),
        }
        i += 1;
    }
    let rest = &args[i..];
    let Some(object) = rest.first() else {
        io.errln(USAGE);
        return 255;
    };
    let found = OBJECTS.iter().chain(OTHER_OBJECTS.iter()).find(|o| matches(object, o)).copied();
    let sub = &rest[1..];
    match found {
        Some("address") => addr::run(ctx, sub, io, opts),
        Some("route") => route::run(ctx, sub, io),
        Some("rule") => rule::run(ctx, sub, io),
        Some("neighbor" | "neighbour") => neigh::run(ctx, sub, io),
        Some("link") => link::run(ctx, sub, io, opts),
        Some(other) => unsupported(io, &format!("ip {other}")),
        None if object == "help" => {
            io.errln(USAGE);
            255
        }
        None => io.fail(1, &format!("Object \"{object}\" is unknown, try \"ip help\".")),
    }
}

const USAGE: &str = "Usage: ip [ OPTIONS ] OBJECT { COMMAND | help }
       ip [ -force ] -batch filename
where  OBJECT := { address | addrlabel | amt | fou | help | ila | ioam | l2tp | link |
                   macsec | maddress | monitor | mptcp | mroute | mrule |
                   neighbor | neighbour | netconf | netns | nexthop | ntable |
                   ntbl | route | rule | sr | tap | tcpmetrics |
                   token | tunnel | tuntap | vrf | xfrm }
       OPTIONS := { -V[ersion] | -s[tatistics] | -d[etails] | -r[esolve] |
                    -h[uman-readable] | -iec | -j[son] | -p[retty] |
                    -f[amily] { inet | inet6 | mpls | bridge | link } |
                    -4 | -6 | -M | -B | -0 |
                    -l[oops] { maximum-addr-flush-attempts } | -br[ief] |
                    -o[neline] | -t[imestamp] | -ts[hort] | -b[atch] [filename] |
                    -rc[vbuf] [size] | -n[etns] name | -N[umeric] | -a[ll] |
                    -c[olor]}";

/// The `<…>` flags of an interface.
pub fn flags(iface: &crate::route::net::Iface) -> String {
    let mut f: Vec<&str> = Vec::new();
    if iface.up && !iface.carrier {
        f.push("NO-CARRIER");
    }
    f.extend(if iface.is_loopback() {
        ["LOOPBACK"].as_slice()
    } else {
        ["BROADCAST", "MULTICAST"].as_slice()
    });
    if iface.promisc {
        f.push("PROMISC");
    }
    if iface.up {
        f.push("UP");
    }
    if iface.running() {
        f.push("LOWER_UP");
    }
    f.join(",")
}

/// `state UP|DOWN|UNKNOWN` (a veth whose peer is down is DOWN too).
pub fn state(iface: &crate::route::net::Iface) -> &'static str {
    match (iface.is_loopback(), iface.running()) {
        (true, _) if iface.up => "UNKNOWN",
        (_, false) => "DOWN",
        (_, true) => "UP",
    }
}

/// `name@ifN` (plain `lo`).
pub fn label(iface: &crate::route::net::Iface) -> String {
    if iface.is_loopback() {
        iface.name.to_string()
    } else {
        format!("{}@if{}", iface.name, iface.peer_index)
    }
}

/// The first line of an interface in `ip addr` (`mode` adds `mode DEFAULT` for `ip link`).
pub fn header(id: IfId, iface: &crate::route::net::Iface, mode: bool) -> String {
    let qdisc = if iface.qdisc.is_some() { "netem" } else { "noqueue" };
    format!(
        "{}: {}: <{}> mtu {} qdisc {qdisc} state {}{} group default qlen 1000",
        id + 1,
        label(iface),
        flags(iface),
        iface.mtu,
        state(iface),
        if mode { " mode DEFAULT" } else { "" },
    )
}

/// The `link/…` line.
pub fn link_line(iface: &crate::route::net::Iface) -> String {
    if iface.is_loopback() {
        "    link/loopback 00:00:00:00:00:00 brd 00:00:00:00:00:00".into()
    } else {
        format!("    link/ether {} brd ff:ff:ff:ff:ff:ff link-netnsid 0", iface.mac_text())
    }
}

/// The `-s` statistics block (one or two levels).
pub fn stats_block(iface: &crate::route::net::Iface, level: u8) -> String {
    let mut s = format!(
        "    RX:  bytes packets errors dropped  missed   mcast           \n    {:>10} {:>7} {:>6} {:>7} {:>7} {:>7} \n",
        iface.rx.bytes, iface.rx.packets, 0, iface.rx.dropped, 0, 0
    );
    if level > 1 {
        s.push_str("    RX errors:  length    crc   frame    fifo overrun\n                     0      0       0       0       0 \n");
    }
    s.push_str(&format!(
        "    TX:  bytes packets errors dropped carrier collsns           \n    {:>10} {:>7} {:>6} {:>7} {:>7} {:>7} \n",
        iface.tx.bytes, iface.tx.packets, 0, iface.tx.dropped, 0, 0
    ));
    if level > 1 {
        s.push_str("    TX errors: aborted   fifo  window heartbt transns\n                     0      0       0       0       0 \n");
    }
    s
}
