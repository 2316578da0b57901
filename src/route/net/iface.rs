//! Interfaces and their IPv4 addresses.

use std::net::Ipv4Addr;
use std::sync::Arc;

use ipnet::Ipv4Net;

use super::addr::covers;
use super::qdisc::Netem;

/// One address of an interface: `net.addr()` is the local address, `net.prefix_len()` its
/// length (host bits kept, as the kernel stores them).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Addr {
    pub net: Ipv4Net,
    /// Set only by `brd +`/`broadcast B`/ifconfig, as in the kernel.
    pub brd: Option<Ipv4Addr>,
    pub secondary: bool,
    /// When it was added (the node's change clock), which orders equal local-table keys.
    pub seq: u64,
}

impl Addr {
    pub fn ip(&self) -> Ipv4Addr {
        self.net.addr()
    }

    /// The prefix length (a property of the address, not a collection's size).
    #[allow(clippy::len_without_is_empty)]
    pub fn len(&self) -> u8 {
        self.net.prefix_len()
    }

    /// The subnet with host bits cleared.
    pub fn prefix(&self) -> Ipv4Net {
        self.net.trunc()
    }
}

/// Packet and byte counters of one direction, and the frames dropped there.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Counter {
    pub packets: u64,
    pub bytes: u64,
    pub dropped: u64,
}

impl Counter {
    pub fn count(&mut self, bytes: u32) {
        self.packets += 1;
        self.bytes += u64::from(bytes);
    }
}

/// The smallest and largest MTU the lab's Ethernet (veth) interfaces accept.
pub const MIN_MTU: u32 = 68;
pub const MAX_MTU: u32 = 65535;

/// One network interface.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Iface {
    pub name: Arc<str>,
    pub mac: [u8; 6],
    /// The L2 segment (switch or transit link) it is plugged into; `None` for `lo`.
    pub segment: Option<usize>,
    /// The peer's ifindex shown as `@ifN` (0 for `lo`).
    pub peer_index: u32,
    pub up: bool,
    /// When the link last came up (the node's change clock).
    pub up_seq: u64,
    /// The link partner is up (a switch port always is; a transit link's is the other end).
    pub carrier: bool,
    pub mtu: u32,
    pub promisc: bool,
    pub addrs: Vec<Addr>,
    pub qdisc: Option<Netem>,
    /// `net.ipv4.conf.<name>.forwarding`.
    pub forwarding: i32,
    pub rx: Counter,
    pub tx: Counter,
}

impl Iface {
    pub fn is_loopback(&self) -> bool {
        self.segment.is_none()
    }

    /// Up with a carrier: what `LOWER_UP`/`RUNNING` show and what moves packets.
    pub fn running(&self) -> bool {
        self.up && self.carrier
    }

    /// The loopback interface every node starts with.
    pub fn loopback(forwarding: i32) -> Self {
        Iface {
            name: "lo".into(),
            mac: [0; 6],
            segment: None,
            peer_index: 0,
            up: true,
            up_seq: 0,
            carrier: true,
            mtu: 65536,
            promisc: false,
            addrs: vec![Addr {
                net: Ipv4Net::new(Ipv4Addr::LOCALHOST, 8).expect("valid"),
                brd: None,
                secondary: false,
                seq: 0,
            }],
            qdisc: None,
            forwarding,
            rx: Counter::default(),
            tx: Counter::default(),
        }
    }

    /// Whether two interfaces are the same port: name, MAC, segment and peer. Filters match
    /// names and neighbours answer with MACs wherever a packet goes, so a node whose ports
    /// differ differs as a whole ([`Node::difference`](super::Node::difference)).
    pub fn same_port(&self, other: &Iface) -> bool {
        (&self.name, self.mac, self.segment, self.peer_index)
            == (&other.name, other.mac, other.segment, other.peer_index)
    }

    /// Whether two interfaces of one port are in the same state up to history (counters, when
    /// the link came up) besides their local-table entries ([`Iface::same_local_entries`]):
    /// carrier, MTU, queue, forwarding. Only packets that pass the port or try it while
    /// resolving a neighbour read these.
    pub fn same_port_state(&self, other: &Iface) -> bool {
        let Iface {
            // Compared by `same_port`.
            name: _,
            mac: _,
            segment: _,
            peer_index: _,
            // Compared by `same_local_entries`.
            up: _,
            addrs: _,
            up_seq: _,
            carrier,
            mtu,
            promisc,
            qdisc,
            forwarding,
            rx: _,
            tx: _,
        } = self;
        (carrier, mtu, promisc, qdisc, forwarding)
            == (&other.carrier, &other.mtu, &other.promisc, &other.qdisc, &other.forwarding)
    }

    /// Whether the interface puts the same entries in the node's local table: the same
    /// addresses, and up or down alike (only an up interface's broadcasts count). Besides the
    /// packets that pass the port, those that pick their source on it or among every port, or
    /// carry an address those entries decide ([`Iface::address_prefixes`]), read these.
    pub fn same_local_entries(&self, other: &Iface) -> bool {
        self.up == other.up
            && self.addrs.len() == other.addrs.len()
            && self
                .addrs
                .iter()
                .zip(&other.addrs)
                .all(|(a, b)| (a.net, a.brd, a.secondary) == (b.net, b.brd, b.secondary))
    }

    /// The prefixes holding every entry the interface puts in the node's local table: each
    /// address's subnet (the address, its network and its computed broadcast), and each
    /// explicit broadcast address. Whether an address outside them is local or broadcast does
    /// not depend on this interface.
    pub fn address_prefixes(&self) -> impl Iterator<Item = Ipv4Net> + '_ {
        self.addrs.iter().flat_map(|a| {
            let brd = a.brd.map(|b| Ipv4Net::new(b, 32).expect("a /32 is valid"));
            std::iter::once(a.prefix()).chain(brd)
        })
    }

    pub fn primaries(&self) -> impl Iterator<Item = &Addr> {
        self.addrs.iter().filter(|a| !a.secondary)
    }

    /// The kernel's `inet_select_addr` for a destination on this interface: the first primary
    /// whose subnet holds `near`, else the first primary.
    pub fn select_src(&self, near: Ipv4Addr) -> Option<Ipv4Addr> {
        let mut first = None;
        for a in self.primaries() {
            if covers(&a.net, near) {
                return Some(a.ip());
            }
            first.get_or_insert(a.ip());
        }
        first
    }

    /// Whether the interface holds the address (any length).
    pub fn has(&self, ip: Ipv4Addr) -> bool {
        self.addrs.iter().any(|a| a.ip() == ip)
    }

    /// The MAC as `aa:bb:cc:dd:ee:ff`.
    pub fn mac_text(&self) -> String {
        mac_text(self.mac)
    }
}

/// A MAC as `aa:bb:cc:dd:ee:ff`.
pub fn mac_text(m: [u8; 6]) -> String {
    format!("{:02x}:{:02x}:{:02x}:{:02x}:{:02x}:{:02x}", m[0], m[1], m[2], m[3], m[4], m[5])
}
