//! `ifconfig` (net-tools 2.10): listing, and the ioctls it issues in argument order.

use super::{Ctx, Io, unsupported};
use crate::route::net::addr::{len_mask, mask_len, parse_aton};
use crate::route::net::iface::{MAX_MTU, MIN_MTU};
use crate::route::net::route::IfId;
use crate::route::net::{Iface, Node};
use crate::route::text::human_bytes;

use std::cmp::Ordering;

pub fn run(ctx: &mut Ctx<'_>, args: &[String], io: &mut Io) -> i32 {
    let all = args.first().is_some_and(|a| a == "-a");
    let args = if all { &args[1..] } else { args };
    let Some(name) = args.first() else {
        let node = ctx.node();
        let mut listed: Vec<&Iface> = node.ifaces.iter().filter(|i| all || i.up).collect();
        listed.sort_by(|a, b| name_order(&a.name, &b.name));
        let text: String = listed.into_iter().map(render).collect();
        io.out(&text);
        return 0;
    };
    let dev = ctx.node().iface(name);
    if args.len() == 1 {
        return match dev {
            Some(d) => {
                let text = render(&ctx.node().ifaces[d]);
                io.out(&text);
                0
            }
            None => io.fail(1, &format!("{name}: error fetching interface information: Device not found")),
        };
    }
    configure(ctx.node_mut(), name, dev, &args[1..], io)
}

/// The order net-tools lists interfaces in: by name, where the digits a name ends with count
/// as a number (`eth9` before `eth10`) and an `:N` alias suffix sorts after the bare name.
/// The stems before the trailing digits are compared byte by byte over the shorter stem's
/// length; if they agree there, the shorter stem comes first, then the smaller number, then
/// the whole names, then the alias (none before any). So `h1-eth0` lists before `lo`, and
/// `lo` before `r0-eth1`.
pub fn name_order(a: &str, b: &str) -> Ordering {
    let (a, a_alias) = split_alias(a);
    let (b, b_alias) = split_alias(b);
    let (a_stem, a_num) = split_number(a);
    let (b_stem, b_num) = split_number(b);
    let common = a_stem.len().min(b_stem.len());
    a_stem.as_bytes()[..common]
        .cmp(&b_stem.as_bytes()[..common])
        .then(a_stem.len().cmp(&b_stem.len()))
        .then_with(|| number_order(a_num, b_num))
        .then_with(|| a.cmp(b))
        .then_with(|| a_alias.map(number_value).cmp(&b_alias.map(number_value)))
}

/// A name and its `:N` alias number, when it ends in one.
fn split_alias(name: &str) -> (&str, Option<&str>) {
    match name.rsplit_once(':') {
        Some((base, n)) if !n.is_empty() && n.bytes().all(|c| c.is_ascii_digit()) => (base, Some(n)),
        _ => (name, None),
    }
}

/// A name's stem and the digits it ends with (possibly none).
fn split_number(name: &str) -> (&str, &str) {
    let stem = name.trim_end_matches(|c: char| c.is_ascii_digit());
    (stem, &name[stem.len()..])
}

/// Digit strings by value (an empty one is 0), however long they are.
fn number_order(a: &str, b: &str) -> Ordering {
    number_value(a).cmp(&number_value(b))
}

/// A digit string as a comparable value: its significant digits' count, then the digits.
fn number_value(digits: &str) -> (usize, &str) {
    let significant = digits.trim_start_matches('0');
    (significant.len(), significant)
}

/// Applies `ifconfig IF ARGS…` one ioctl at a time, as net-tools does.
fn configure(node: &mut Node, name: &str, dev: Option<IfId>, args: &[String], io: &mut Io) -> i32 {
    let mut status = 0;
    let mut late_len = None;
    let flags_error =
        |io: &mut Io| io.fail(255, &format!("{name}: ERROR while getting interface flags: No such device"));
    let mut i = 0;
    while i < args.len() {
        let word = args[i].as_str();
        i += 1;
        match word {
            "up" | "down" => match dev {
                Some(d) => node.set_link(d, word == "up"),
                None => return flags_error(io),
            },
            "promisc" | "-promisc" => match dev {
                Some(d) => node.ifaces[d].promisc = word == "promisc",
                None => return flags_error(io),
            },
            "mtu" | "netmask" | "broadcast" => {
                let Some(value) = args.get(i) else { return usage(io) };
                i += 1;
                status = status.max(ioctl(node, dev, word, value, io));
            }
            "arp" | "-arp" | "txqueuelen" | "hw" | "add" | "del" | "pointopoint" | "-pointopoint"
            | "dstaddr" | "multicast" | "allmulti" | "-allmulti" | "metric" | "mem_start" | "io_addr"
            | "irq" | "media" | "tunnel" | "outfill" | "keepalive" | "-broadcast" | "trailers"
            | "-trailers" | "dynamic" => {
                return unsupported(io, &format!("ifconfig ... {word}"));
            }
            _ => {
                let (addr_text, len_text) = match word.split_once('/') {
                    Some((a, l)) => (a, Some(l)),
                    None => (word, None),
                };
                let Some(ip) = parse_aton(addr_text) else {
                    let why = if addr_text.bytes().all(|b| b.is_ascii_digit() || b == b'.') {
                        "Unknown host"
                    } else {
                        "Host name lookup failure"
                    };
                    return io
                        .fail(1, &format!("{word}: {why}\nifconfig: `--help' gives usage information."));
                };
                if let Some(l) = len_text {
                    match l.parse::<u8>() {
                        Ok(l) if l <= 32 => late_len = Some(l),
                        _ => {
                            return io.fail(
                                1,
                                &format!("{word}: Unknown host\nifconfig: `--help' gives usage information."),
                            );
                        }
                    }
                }
                let Some(d) = dev else {
                    io.errln("SIOCSIFADDR: No such device");
                    return flags_error(io);
                };
                if node.ioctl_set_addr(d, ip).is_err() {
                    status = io.fail(1, "SIOCSIFADDR: File exists");
                }
                node.set_link(d, true);
            }
        }
    }
    if let (Some(len), Some(d)) = (late_len, dev)
        && node.ioctl_set_netmask(d, len).is_err()
    {
        status = io.fail(1, "SIOCSIFNETMASK: Cannot assign requested address");
    }
    status
}

/// `mtu N`, `netmask M`, `broadcast B`.
fn ioctl(node: &mut Node, dev: Option<IfId>, what: &str, value: &str, io: &mut Io) -> i32 {
    let call = match what {
        "mtu" => "SIOCSIFMTU",
        "netmask" => "SIOCSIFNETMASK",
        _ => "SIOCSIFBRDADDR",
    };
    let Some(d) = dev else { return io.fail(1, &format!("{call}: No such device")) };
    let result = match what {
        "mtu" => match value.parse::<u32>() {
            Ok(m) if (MIN_MTU..=MAX_MTU).contains(&m) || (node.ifaces[d].is_loopback() && m >= MIN_MTU) => {
                node.ifaces[d].mtu = m;
                Ok(())
            }
            _ => return io.fail(1, "SIOCSIFMTU: Invalid argument"),
        },
        "netmask" => match parse_aton(value).and_then(mask_len) {
            Some(len) => node.ioctl_set_netmask(d, len),
            None => {
                return io
                    .fail(1, &format!("{value}: Unknown host\nifconfig: `--help' gives usage information."));
            }
        },
        _ => match parse_aton(value) {
            Some(b) => node.ioctl_set_broadcast(d, b),
            None => {
                return io
                    .fail(1, &format!("{value}: Unknown host\nifconfig: `--help' gives usage information."));
            }
        },
    };
    match result {
        Ok(()) => 0,
        Err(_) => io.fail(1, &format!("{call}: Cannot assign requested address")),
    }
}

fn usage(io: &mut Io) -> i32 {
    io.fail(1, "ifconfig: `--help' gives usage information.")
}

/// The `flags=N<…>` field.
fn flags(iface: &Iface) -> String {
    let mut value = 0u32;
    let mut names = Vec::new();
    let mut set = |on: bool, bit: u32, name: &'static str| {
        if on {
            value |= bit;
            names.push(name);
        }
    };
    set(iface.up, 0x1, "UP");
    set(!iface.is_loopback(), 0x2, "BROADCAST");
    set(iface.is_loopback(), 0x8, "LOOPBACK");
    set(iface.running(), 0x40, "RUNNING");
    set(iface.promisc, 0x100, "PROMISC");
    set(!iface.is_loopback(), 0x1000, "MULTICAST");
    format!("flags={value}<{}>", names.join(","))
}

/// One interface block, blank line included.
pub fn render(iface: &Iface) -> String {
    let mut s = format!("{}: {}  mtu {}\n", iface.name, flags(iface), iface.mtu);
    if let Some(a) = iface.addrs.first() {
        let mask = len_mask(a.len());
        if iface.is_loopback() {
            s.push_str(&format!("        inet {}  netmask {mask}\n", a.ip()));
        } else {
            let brd = a.brd.unwrap_or(std::net::Ipv4Addr::UNSPECIFIED);
            s.push_str(&format!("        inet {}  netmask {mask}  broadcast {brd}\n", a.ip()));
        }
    }
    if iface.is_loopback() {
        s.push_str("        loop  txqueuelen 1000  (Local Loopback)\n");
    } else {
        s.push_str(&format!("        ether {}  txqueuelen 1000  (Ethernet)\n", iface.mac_text()));
    }
    s.push_str(&format!(
        "        RX packets {}  bytes {} ({})\n        RX errors 0  dropped {}  overruns 0  frame 0\n",
        iface.rx.packets,
        iface.rx.bytes,
        human_bytes(iface.rx.bytes),
        iface.rx.dropped
    ));
    s.push_str(&format!(
        "        TX packets {}  bytes {} ({})\n        TX errors 0  dropped {} overruns 0  carrier 0  collisions 0\n\n",
        iface.tx.packets,
        iface.tx.bytes,
        human_bytes(iface.tx.bytes),
        iface.tx.dropped
    ));
    s
}
