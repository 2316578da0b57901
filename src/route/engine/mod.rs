//! The packet engine: route lookup, packets moving hop by hop, and the probes built on them
//! (ping, traceroute, the ping matrix). Pure functions of the [`Net`](super::net::Net) state,
//! which they update only through counters and neighbour tables (see [`History`]).

pub mod lookup;
pub mod matrix;
pub mod probe;
pub mod trace;
mod travel;

use std::net::Ipv4Addr;

pub use lookup::{Hop, LookupError, lookup, source_for};
pub use travel::Trip;

/// Whether packets leave the kernel's history behind them: interface and iptables counters,
/// neighbour entries. Episodes keep it (`ip -s link`, `iptables -L -v` and `ip neigh` show
/// it). The generator's checks skip it: they read only which pairs answer, which no history
/// decides, and a probe that writes nothing leaves a network's nodes shared with the clones
/// they came from ([`Net::node_mut`](super::net::Net::node_mut)).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum History {
    Kept,
    Skipped,
}

/// ICMP errors the engine produces.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IcmpError {
    NetUnreachable,
    HostUnreachable,
    PortUnreachable,
    /// Administratively filtered (a `prohibit` route or rule).
    Filtered,
    FragNeeded(u32),
    TimeExceeded,
}

impl IcmpError {
    /// How ping prints it after `From A icmp_seq=N `.
    pub fn ping_text(self) -> String {
        match self {
            IcmpError::NetUnreachable => "Destination Net Unreachable".into(),
            IcmpError::HostUnreachable => "Destination Host Unreachable".into(),
            IcmpError::PortUnreachable => "Destination Port Unreachable".into(),
            IcmpError::Filtered => "Packet filtered".into(),
            IcmpError::FragNeeded(mtu) => format!("Frag needed and DF set (mtu = {mtu})"),
            IcmpError::TimeExceeded => "Time to live exceeded".into(),
        }
    }
}

/// What a packet carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    EchoRequest,
    EchoReply,
    /// A traceroute probe.
    Udp,
    /// An ICMP error about an earlier packet.
    Error(IcmpError),
    /// An ICMP redirect naming a better next hop.
    Redirect(Ipv4Addr),
}

impl Kind {
    /// The IP protocol number iptables matches.
    pub fn proto(self) -> u8 {
        match self {
            Kind::Udp => 17,
            _ => 1,
        }
    }
}

/// One packet in flight.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Packet {
    pub src: Ipv4Addr,
    pub dst: Ipv4Addr,
    pub kind: Kind,
    /// IP datagram size as sent (84 for a default ping).
    pub size: u32,
    /// Largest fragment on the wire so far (≤ `size`).
    pub wire: u32,
    /// Don't Fragment: echo requests are sent with DF (iputils' default path-MTU discovery).
    pub df: bool,
    pub ttl: u8,
    /// Queueing delay gathered from netem, in microseconds.
    pub delay_us: u64,
    /// Links crossed so far (request and answer together).
    pub links: u32,
    /// An error caused by a failed neighbour resolution: it comes when the resolution
    /// gives up, which the sender's timeline works out (see [`ARP_TIMEOUT_US`]).
    pub arp: bool,
}

impl Packet {
    pub fn new(src: Ipv4Addr, dst: Ipv4Addr, kind: Kind, size: u32, ttl: u8) -> Self {
        Packet {
            src,
            dst,
            kind,
            size,
            wire: size,
            df: kind == Kind::EchoRequest,
            ttl,
            delay_us: 0,
            links: 0,
            arp: false,
        }
    }
}

/// Where a packet's journey ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arrival {
    /// An answer (echo reply or ICMP error) reached `node`.
    At {
        node: usize,
        packet: Packet,
        send_refused: bool,
    },
    Lost,
}

/// Time an unanswered neighbour solicitation takes before "Host Unreachable" (3 probes, 1 s).
pub const ARP_TIMEOUT_US: u64 = 3_000_000;
