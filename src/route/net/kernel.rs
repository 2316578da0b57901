//! State changes with the kernel's side effects, as measured on Linux 6.1 (docs/route.md, "Fidelity against real Linux").
//!
//! - Adding an address: refused if the same address/length exists; secondary if another
//!   address of the same subnet and length exists; primaries keep insertion order, secondaries
//!   go last; on an up interface a primary brings its connected route (appended after equals).
//! - Deleting a primary deletes its secondaries (no promotion) and its connected route;
//!   removing an interface's last address, or taking the link down, deletes every main route
//!   through it, static ones included, for good. Link up re-creates the connected routes.
//! - Route additions check the device and gateway as `fib_check_nh` does.

use std::net::Ipv4Addr;

use ipnet::Ipv4Net;

use super::route::{AddMode, IfId, LocalRoute, Proto, Route, RouteType, TableError, sort_local};
use super::rule::RuleAction;
use super::{Addr, Node, addr};

/// A kernel refusal; the tool decides how to print it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KernelError {
    AddrExists,
    AddrNotFound,
    /// EEXIST.
    Exists,
    /// ESRCH.
    NoSuchProcess,
    /// ENOENT.
    NotFound,
    /// ENODEV.
    NoDevice,
    /// ENETDOWN without a message.
    NetDown,
    /// "Nexthop has invalid gateway" (EINVAL or ENETUNREACH for ioctl callers).
    InvalidGateway {
        unreachable: bool,
    },
    /// "Device for nexthop is not up".
    DeviceDown,
    /// "Nexthop device is not up" (onlink).
    OnlinkDeviceDown,
    /// A table of the lab is full.
    Full,
}

impl From<TableError> for KernelError {
    fn from(e: TableError) -> Self {
        match e {
            TableError::Exists => KernelError::Exists,
            TableError::NotFound => KernelError::NotFound,
            TableError::NoSuchProcess => KernelError::NoSuchProcess,
            TableError::Full => KernelError::Full,
        }
    }
}

/// Addresses one interface may hold (docs/route.md, "What the agent has": state is bounded).
pub const MAX_ADDRS: usize = 1024;

impl Node {
    /// `ip addr add`.
    pub fn add_addr(&mut self, dev: IfId, net: Ipv4Net, brd: Option<Ipv4Addr>) -> Result<(), KernelError> {
        let iface = &mut self.ifaces[dev];
        let mut secondary = false;
        for a in &iface.addrs {
            if a.len() == net.prefix_len() && a.prefix() == net.trunc() {
                if a.ip() == net.addr() {
                    return Err(KernelError::AddrExists);
                }
                secondary = true;
            }
        }
        if iface.addrs.len() >= MAX_ADDRS {
            return Err(KernelError::Full);
        }
        let seq = self.clock + 1;
        self.clock = seq;
        let iface = &mut self.ifaces[dev];
        let new = Addr { net, brd, secondary, seq };
        let at = if secondary {
            iface.addrs.len()
        } else {
            iface.addrs.iter().rposition(|a| !a.secondary).map_or(0, |i| i + 1)
        };
        iface.addrs.insert(at, new);
        self.reindex();
        if self.ifaces[dev].up && !secondary {
            self.add_connected(dev, &new);
        }
        Ok(())
    }

    /// The connected route of a primary address, when the kernel makes one.
    fn add_connected(&mut self, dev: IfId, a: &Addr) {
        let prefix = a.prefix();
        let zeronet = prefix.addr().octets()[0] == 0;
        if self.ifaces[dev].is_loopback() || zeronet || (prefix.addr() == a.ip() && a.len() == 32) {
            return;
        }
        // A duplicate is silently kept once, as fib_magic's EEXIST is ignored.
        let _ = self.main.insert(Route::connected(prefix, dev, a.ip()), AddMode::Append);
    }

    /// `ip addr del A[/P]`: `len` `None` is the wildcard form (any length).
    pub fn del_addr(&mut self, dev: IfId, ip: Ipv4Addr, len: Option<u8>) -> Result<(), KernelError> {
        let iface = &self.ifaces[dev];
        let hit = iface.addrs.iter().position(|a| {
            a.ip() == ip
                && len.is_none_or(|l| {
                    l == a.len() && Ipv4Net::new(ip, l).is_ok_and(|n| n.trunc() == a.prefix())
                })
        });
        let hit = hit.ok_or(KernelError::AddrNotFound)?;
        self.remove_addr_at(dev, hit);
        Ok(())
    }

    /// Removes one address with its side effects.
    fn remove_addr_at(&mut self, dev: IfId, index: usize) {
        let gone = self.ifaces[dev].addrs.remove(index);
        let mut removed = vec![gone];
        if !gone.secondary {
            let iface = &mut self.ifaces[dev];
            iface.addrs.retain(|a| {
                let follows = a.secondary && a.len() == gone.len() && a.prefix() == gone.prefix();
                if follows {
                    removed.push(*a);
                }
                !follows
            });
            let prefix = gone.prefix();
            let _ = self.main.delete_first(|r| {
                r.proto == Proto::Kernel && r.dst == prefix && r.dev == Some(dev) && r.src == Some(gone.ip())
            });
        }
        if self.ifaces[dev].addrs.is_empty() {
            self.main.remove_where(|r| r.dev == Some(dev));
        }
        for a in removed {
            if !self.ifaces.iter().any(|i| i.has(a.ip())) {
                self.main.remove_where(|r| r.src == Some(a.ip()));
            }
        }
        self.reindex();
    }

    /// SIOCSIFADDR (ifconfig): replaces the interface's first address, with the classful
    /// length and its broadcast; the same address is left as it is.
    pub fn ioctl_set_addr(&mut self, dev: IfId, ip: Ipv4Addr) -> Result<(), KernelError> {
        if self.ifaces[dev].addrs.first().is_some_and(|a| a.ip() == ip) {
            return Ok(());
        }
        if !self.ifaces[dev].addrs.is_empty() {
            self.remove_addr_at(dev, 0);
        }
        let len = addr::classful_len(ip);
        let net = Ipv4Net::new(ip, len).expect("valid length");
        self.add_addr(dev, net, (len < 31).then(|| net.broadcast()))
    }

    /// SIOCSIFNETMASK: a new length for the first address; a broadcast that matched the old
    /// mask follows the new one.
    pub fn ioctl_set_netmask(&mut self, dev: IfId, len: u8) -> Result<(), KernelError> {
        let a = *self.ifaces[dev].addrs.first().ok_or(KernelError::AddrNotFound)?;
        if a.len() == len {
            return Ok(());
        }
        self.remove_addr_at(dev, 0);
        let net = Ipv4Net::new(a.ip(), len).expect("valid length");
        let brd = if len < 31 && a.brd == Some(a.net.broadcast()) { Some(net.broadcast()) } else { a.brd };
        self.add_addr(dev, net, brd)
    }

    /// SIOCSIFBRDADDR: a new broadcast for the first address.
    pub fn ioctl_set_broadcast(&mut self, dev: IfId, brd: Ipv4Addr) -> Result<(), KernelError> {
        let a = *self.ifaces[dev].addrs.first().ok_or(KernelError::AddrNotFound)?;
        if a.brd == Some(brd) {
            return Ok(());
        }
        self.remove_addr_at(dev, 0);
        self.add_addr(dev, a.net, Some(brd))
    }

    /// `ip addr flush dev X`: every address goes, then every route through X.
    pub fn flush_addrs(&mut self, dev: IfId) {
        while !self.ifaces[dev].addrs.is_empty() {
            self.remove_addr_at(dev, 0);
        }
    }

    /// `ip link set X up|down`.
    pub fn set_link(&mut self, dev: IfId, up: bool) {
        if self.ifaces[dev].up == up {
            return;
        }
        self.ifaces[dev].up = up;
        self.reindex();
        if up {
            self.ifaces[dev].up_seq = self.tick();
            let primaries: Vec<Addr> = self.ifaces[dev].primaries().copied().collect();
            for a in primaries {
                self.add_connected(dev, &a);
            }
        } else {
            self.main.remove_where(|r| r.dev == Some(dev));
            self.neigh.retain(|n| n.dev != dev);
        }
    }

    /// Adds a route after the kernel's nexthop checks; `route.dev` may be filled from the
    /// gateway's route.
    pub fn add_route(&mut self, mut route: Route, mode: AddMode) -> Result<(), KernelError> {
        if route.rtype == RouteType::Unicast {
            route.dev = Some(self.check_nexthop(&route)?);
        }
        Ok(self.main.insert(route, mode)?)
    }

    /// `fib_check_nh`: the device a unicast route leaves by.
    fn check_nexthop(&self, route: &Route) -> Result<IfId, KernelError> {
        let Some(gw) = route.via else {
            let dev = route.dev.ok_or(KernelError::NoDevice)?;
            return if self.ifaces[dev].up { Ok(dev) } else { Err(KernelError::DeviceDown) };
        };
        if route.onlink {
            let dev = route.dev.ok_or(KernelError::NoDevice)?;
            if !self.ifaces[dev].up {
                return Err(KernelError::OnlinkDeviceDown);
            }
            if self.is_local(gw) || addr::is_martian(gw) {
                return Err(KernelError::InvalidGateway { unreachable: false });
            }
            return Ok(dev);
        }
        let linked = self.main.best(gw, |r| {
            r.rtype == RouteType::Unicast && r.via.is_none() && route.dev.is_none_or(|d| r.dev == Some(d))
        });
        if let Some(r) = linked {
            return r.dev.ok_or(KernelError::NoDevice);
        }
        match self.local_owner_for_gateway(gw) {
            Some(dev) if route.dev.is_none_or(|d| d == dev) => {
                if self.ifaces[dev].up {
                    Ok(dev)
                } else {
                    Err(KernelError::NetDown)
                }
            }
            _ => Err(KernelError::InvalidGateway { unreachable: true }),
        }
    }

    /// The full policy lookup of a gateway: only a local hit can make it valid here.
    fn local_owner_for_gateway(&self, gw: Ipv4Addr) -> Option<IfId> {
        for rule in self.rules.iter() {
            if !rule.matches(gw, None) {
                continue;
            }
            match rule.action {
                RuleAction::Lookup(super::rule::TableId::Local) => {
                    if let Some(dev) = self.local_dev(gw) {
                        return Some(dev);
                    }
                }
                RuleAction::Lookup(_) => {}
                _ => return None,
            }
        }
        None
    }

    /// The derived local table in display order: `local` per address, `broadcast` per
    /// explicit or network broadcast of an up interface, and `lo`'s own prefix.
    pub fn local_routes(&self) -> Vec<LocalRoute> {
        let mut out = Vec::new();
        for (dev, iface) in self.ifaces.iter().enumerate() {
            for a in &iface.addrs {
                let prim = if a.secondary {
                    iface.primaries().find(|p| p.len() == a.len() && p.prefix() == a.prefix()).unwrap_or(a)
                } else {
                    a
                };
                let src = prim.ip();
                let host = |ip: Ipv4Addr| Ipv4Net::new(ip, 32).expect("valid");
                out.push(LocalRoute { broadcast: false, dst: host(a.ip()), dev, src, seq: a.seq });
                if !iface.up {
                    continue;
                }
                let seq = a.seq.max(iface.up_seq);
                if let Some(b) = a.brd.filter(|b| *b != Ipv4Addr::BROADCAST) {
                    out.push(LocalRoute { broadcast: true, dst: host(b), dev, src, seq });
                }
                let prefix = a.prefix();
                if a.secondary || prefix.addr().octets()[0] == 0 {
                    continue;
                }
                if iface.is_loopback() && (prefix.addr() != a.ip() || a.len() < 32) {
                    out.push(LocalRoute { broadcast: false, dst: prefix, dev, src, seq });
                }
                if a.len() < 31 {
                    out.push(LocalRoute { broadcast: true, dst: host(prefix.broadcast()), dev, src, seq });
                }
            }
        }
        sort_local(&mut out);
        out
    }

    /// The device of `ip`'s local-table entry: its owner, or `lo` for loopback prefixes.
    pub fn local_dev(&self, ip: Ipv4Addr) -> Option<IfId> {
        self.owner(ip).or_else(|| self.ifaces[0].addrs.iter().any(|a| a.net.contains(&ip)).then_some(0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::route::net::{Difference, Iface};

    fn node() -> Node {
        let mut n = Node::new("r0", true);
        for name in ["r0-eth1", "r0-eth2"] {
            n.ifaces.push(Iface {
                name: name.into(),
                segment: Some(0),
                up: true,
                mtu: 1500,
                ..Iface::loopback(0)
            });
            let last = n.ifaces.len() - 1;
            n.ifaces[last].addrs.clear();
        }
        n
    }

    fn net(s: &str) -> Ipv4Net {
        s.parse().unwrap()
    }

    fn routes(n: &Node) -> Vec<String> {
        n.main.routes().iter().map(|r| format!("{} {:?}", r.dst, r.dev)).collect()
    }

    #[test]
    fn secondaries_follow_their_primary() {
        let mut n = node();
        n.add_addr(1, net("192.168.1.1/24"), None).unwrap();
        assert_eq!(n.add_addr(1, net("192.168.1.1/24"), None), Err(KernelError::AddrExists));
        n.add_addr(1, net("192.168.1.5/24"), None).unwrap();
        n.add_addr(1, net("10.1.1.1/16"), None).unwrap();
        let order: Vec<String> =
            n.ifaces[1].addrs.iter().map(|a| format!("{}{}", a.net, a.secondary)).collect();
        assert_eq!(order, ["192.168.1.1/24false", "10.1.1.1/16false", "192.168.1.5/24true"]);
        n.del_addr(1, "192.168.1.1".parse().unwrap(), Some(24)).unwrap();
        assert_eq!(n.ifaces[1].addrs.len(), 1);
        assert_eq!(routes(&n), ["10.1.0.0/16 Some(1)"]);
        assert_eq!(n.del_addr(1, "10.1.1.1".parse().unwrap(), Some(24)), Err(KernelError::AddrNotFound));
        n.del_addr(1, "10.1.1.1".parse().unwrap(), None).unwrap();
    }

    #[test]
    fn last_address_and_link_down_take_static_routes() {
        let mut n = node();
        n.add_addr(1, net("192.168.1.1/24"), None).unwrap();
        n.add_route(
            Route::user(
                RouteType::Unicast,
                net("10.9.0.0/16"),
                Some("192.168.1.100".parse().unwrap()),
                None,
                0,
            ),
            AddMode::Exclusive,
        )
        .unwrap();
        assert_eq!(n.main.routes().len(), 2);
        n.set_link(1, false);
        assert!(n.main.routes().is_empty());
        n.set_link(1, true);
        assert_eq!(routes(&n), ["192.168.1.0/24 Some(1)"]);
    }

    #[test]
    fn gateway_checks() {
        let mut n = node();
        n.add_addr(1, net("192.168.1.1/24"), None).unwrap();
        n.add_addr(2, net("192.168.2.1/24"), None).unwrap();
        let via = |g: &str, dev| {
            Route::user(RouteType::Unicast, net("10.0.0.0/8"), Some(g.parse().unwrap()), dev, 0)
        };
        assert_eq!(
            n.add_route(via("10.255.255.254", None), AddMode::Exclusive),
            Err(KernelError::InvalidGateway { unreachable: true })
        );
        assert_eq!(
            n.add_route(via("192.168.1.100", Some(2)), AddMode::Exclusive),
            Err(KernelError::InvalidGateway { unreachable: true })
        );
        n.add_route(via("192.168.2.1", None), AddMode::Exclusive).unwrap();
        assert_eq!(n.main.routes()[0].dev, Some(2));
        n.set_link(2, false);
        assert_eq!(n.add_route(via("192.168.2.1", None), AddMode::Exclusive), Err(KernelError::NetDown));
        let dev_only = Route::user(RouteType::Unicast, net("10.0.0.0/8"), None, Some(2), 0);
        assert_eq!(n.add_route(dev_only, AddMode::Exclusive), Err(KernelError::DeviceDown));
    }

    /// A connected route deleted and put back by hand (`ip route add P dev X`: `proto boot`, no
    /// `src`) sends from the address the kernel's names, unless another primary of the device
    /// meets the prefix first.
    #[test]
    fn connected_routes_put_back_by_hand_are_alike() {
        let by_hand = |n: &Node, prefix: &str| {
            let mut n = n.clone();
            n.main.remove_where(|r| r.dst == net(prefix));
            let route = Route::user(RouteType::Unicast, net(prefix), None, Some(1), 0);
            n.add_route(route, AddMode::Exclusive).unwrap();
            n
        };
        let mut n = node();
        n.add_addr(1, net("192.168.1.1/24"), None).unwrap();
        assert!(by_hand(&n, "192.168.1.0/24").alike(&n));
        let mut src = by_hand(&n, "192.168.1.0/24");
        src.main.remove_where(|_| true);
        let mut other_src = Route::connected(net("192.168.1.0/24"), 1, "192.168.1.9".parse().unwrap());
        other_src.proto = Proto::Boot;
        src.main.insert(other_src, AddMode::Exclusive).unwrap();
        assert!(!src.alike(&n), "an explicit src the device would not choose");
        let mut n = node();
        n.add_addr(1, net("192.168.0.1/16"), None).unwrap();
        n.add_addr(1, net("192.168.1.1/24"), None).unwrap();
        assert!(!by_hand(&n, "192.168.1.0/24").alike(&n), "192.168.0.1/16 comes first and holds it");
    }

    /// A node differs for packets carrying an address of the routes it lost; at a port, whose
    /// addresses count too when its local-table entries change (link state) and not for a
    /// state only the port's own packets read (MTU); and as a whole for a sysctl or a renamed
    /// port.
    #[test]
    fn differences_name_ports_and_prefixes() {
        let mut n = node();
        n.add_addr(1, net("192.168.1.1/24"), None).unwrap();
        let mut gone = n.clone();
        gone.main.remove_where(|_| true);
        let only_route = Difference::Partly { ports: vec![], prefixes: vec![net("192.168.1.0/24")] };
        assert_eq!(gone.difference(&n), only_route);
        let mut small = gone.clone();
        small.ifaces[1].mtu = 68;
        let mtu = Difference::Partly { ports: vec![1], prefixes: vec![net("192.168.1.0/24")] };
        assert_eq!(small.difference(&n), mtu, "the route only");
        gone.set_link(1, false);
        let down = Difference::Partly { ports: vec![1], prefixes: vec![net("192.168.1.0/24"); 3] };
        assert_eq!(gone.difference(&n), down, "the port's subnet, before and after, and the route");
        let mut forwarding = gone.clone();
        forwarding.ip_forward = 1 - forwarding.ip_forward;
        assert_eq!(forwarding.difference(&n), Difference::Whole);
        let mut renamed = n.clone();
        renamed.ifaces[2].name = "r0-eth9".into();
        assert_eq!(renamed.difference(&n), Difference::Whole);
    }
}
