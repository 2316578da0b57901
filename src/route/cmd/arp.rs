//! `arp` (net-tools): the neighbour table the last evaluation left.

use super::{Ctx, Io, unsupported};
use crate::route::net::iface::mac_text;

pub fn run(ctx: &mut Ctx<'_>, args: &[String], io: &mut Io) -> i32 {
    let mut bsd = false;
    let mut only: Option<usize> = None;
    let mut i = 0;
    while i < args.len() {
        let a = args[i].as_str();
        i += 1;
        match a {
            "-n" | "--numeric" | "-v" => {}
            "-a" | "--all" => bsd = true,
            "-e" => bsd = false,
            "-i" | "--device" => {
                let Some(name) = args.get(i) else {
                    return io.fail(255, "arp: option requires an argument -- 'i'");
                };
                i += 1;
                match ctx.node().iface(name) {
                    Some(d) => only = Some(d),
                    None => {
                        return io.fail(
                            255,
                            &format!("arp: in 0 entries no match found.\n{name}: No such device"),
                        );
                    }
                }
            }
            _ => return unsupported(io, &format!("arp {a}")),
        }
    }
    let node = ctx.node();
    let mut out = String::new();
    let entries: Vec<_> = node.neigh.iter().filter(|n| only.is_none_or(|d| n.dev == d)).collect();
    if !bsd && !entries.is_empty() {
        out.push_str("Address                  HWtype  HWaddress           Flags Mask            Iface\n");
    }
    for n in entries {
        let dev = &node.ifaces[n.dev].name;
        match (bsd, n.mac) {
            (false, Some(m)) => out.push_str(&format!(
                "{:<25}{:<8}{:<20}{:<6}{:<16}{dev}\n",
                n.ip.to_string(),
                "ether",
                mac_text(m),
                "C",
                ""
            )),
            (false, None) => out.push_str(&format!(
                "{:<25}{:<8}{:<20}{:<6}{:<16}{dev}\n",
                n.ip.to_string(),
                "",
                "(incomplete)",
                "",
                ""
            )),
            (true, Some(m)) => out.push_str(&format!("? ({}) at {} [ether] on {dev}\n", n.ip, mac_text(m))),
            (true, None) => out.push_str(&format!("? ({}) at <incomplete> on {dev}\n", n.ip)),
        }
    }
    io.out(&out);
    0
}
