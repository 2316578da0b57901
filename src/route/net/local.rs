//! The local table's answers, kept beside the interfaces they derive from.
//!
//! A packet asks at every hop whether an address is the node's own (route lookup, martian
//! source, neighbour resolution) and whether it is a broadcast address; scanning every
//! interface's addresses for that was most of a route lookup. So each [`Node`] keeps the
//! answers in flat lists, rebuilt wherever addresses or link state change
//! ([`Node::reindex`]; a new interface has neither) and shared between clones until then.
//! Debug builds check every answer against the scan.
//!
//! [`Node`]: super::Node
//! [`Node::reindex`]: super::Node::reindex

use std::net::Ipv4Addr;

use ipnet::Ipv4Net;

use super::addr::covers;
use super::{Addr, IfId, Iface};

/// What the derived local table holds, flattened.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct LocalIndex {
    /// One bit per address of `addrs` and `broadcasts` ([`bit`]): most questions are about
    /// other machines' addresses, and a clear bit answers them without a scan.
    seen: u128,
    /// Every address of every interface, up or down.
    addrs: Vec<Ipv4Addr>,
    /// The prefixes of `lo`'s addresses, local as a whole.
    lo_nets: Vec<Ipv4Net>,
    /// The broadcast addresses of up interfaces.
    broadcasts: Vec<Ipv4Addr>,
}

impl LocalIndex {
    pub fn of(ifaces: &[Iface]) -> Self {
        let mut index = LocalIndex::default();
        for (dev, iface) in ifaces.iter().enumerate() {
            for a in &iface.addrs {
                index.addrs.push(a.ip());
                if dev == 0 {
                    index.lo_nets.push(a.net);
                }
                if iface.up {
                    index.broadcasts.extend(a.brd);
                    if derives_broadcast(a) {
                        index.broadcasts.push(a.net.broadcast());
                    }
                }
            }
        }
        index.seen = index.addrs.iter().chain(&index.broadcasts).fold(0, |seen, &ip| seen | bit(ip));
        index
    }

    /// Whether `ip` is one of the addresses or inside a prefix of `lo`.
    pub fn is_local(&self, ip: Ipv4Addr) -> bool {
        (self.seen & bit(ip) != 0 && self.addrs.contains(&ip)) || self.lo_nets.iter().any(|n| covers(n, ip))
    }

    /// Whether `ip` is a broadcast address of an up interface's subnet.
    pub fn is_broadcast(&self, ip: Ipv4Addr) -> bool {
        self.seen & bit(ip) != 0 && self.broadcasts.contains(&ip)
    }
}

/// The bit of [`LocalIndex::seen`] that stands for `ip`: Fibonacci hashing spreads the lab's
/// addresses, which differ in one or two octets, over the 128 bits.
fn bit(ip: Ipv4Addr) -> u128 {
    1 << (u32::from(ip).wrapping_mul(0x9E37_79B9) >> 25)
}

/// Whether address `a` of interface `dev` puts `ip` in the local table: `ip` is the address,
/// or lies inside a prefix of `lo` (interface 0). The definition the index is checked against.
fn makes_local(dev: IfId, a: &Addr, ip: Ipv4Addr) -> bool {
    a.ip() == ip || (dev == 0 && a.net.contains(&ip))
}

/// Whether a primary address brings its subnet's broadcast address into the local table
/// (besides an explicit `brd`): not for /31, /32 or a zero network.
fn derives_broadcast(a: &Addr) -> bool {
    !a.secondary && a.len() < 31 && a.prefix().addr().octets()[0] != 0
}

/// The scan the index replaces: (local, broadcast) for `ip`.
pub fn scan(ifaces: &[Iface], ip: Ipv4Addr) -> (bool, bool) {
    let mut broadcast = false;
    for (dev, iface) in ifaces.iter().enumerate() {
        for a in &iface.addrs {
            if makes_local(dev, a, ip) {
                return (true, false);
            }
            broadcast |= iface.up && (a.brd == Some(ip) || (a.net.broadcast() == ip && derives_broadcast(a)));
        }
    }
    (false, broadcast)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn iface(up: bool, addrs: &[(&str, Option<&str>, bool)]) -> Iface {
        let mut i = Iface { up, segment: Some(0), ..Iface::loopback(0) };
        i.addrs = addrs
            .iter()
            .map(|&(net, brd, secondary)| Addr {
                net: net.parse().unwrap(),
                brd: brd.map(|b| b.parse().unwrap()),
                secondary,
                seq: 0,
            })
            .collect();
        i
    }

    /// The index answers as the scan does for every address the interfaces mention and their
    /// neighbours, on up and down interfaces, primaries and secondaries, /31 and /32.
    #[test]
    fn answers_like_the_scan() {
        let ifaces = vec![
            Iface::loopback(0),
            iface(true, &[("192.168.1.1/24", None, false), ("192.168.1.7/24", Some("192.168.1.200"), true)]),
            iface(false, &[("10.0.0.1/30", Some("10.0.0.3"), false)]),
            iface(true, &[("10.1.0.0/31", None, false), ("10.2.0.9/32", None, false)]),
            iface(true, &[("0.0.0.5/8", None, false)]),
        ];
        let index = LocalIndex::of(&ifaces);
        let probes = [
            "127.3.4.5",
            "192.168.1.255",
            "192.168.1.200",
            "10.0.0.3",
            "10.0.0.1",
            "10.1.0.1",
            "0.255.255.255",
        ];
        for ip in probes.iter().map(|p| p.parse::<Ipv4Addr>().unwrap()) {
            for ip in [
                ip,
                Ipv4Addr::from(u32::from(ip).wrapping_add(1)),
                Ipv4Addr::from(u32::from(ip).wrapping_sub(1)),
            ] {
                let (local, broadcast) = scan(&ifaces, ip);
                assert_eq!(
                    (index.is_local(ip), !local && index.is_broadcast(ip)),
                    (local, broadcast),
                    "{ip}"
                );
            }
        }
    }
}
