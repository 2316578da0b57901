//! Single probes: one ping echo or one traceroute datagram, and what came back.

use std::net::Ipv4Addr;

use super::lookup::{Hop, LookupError, lookup, source_for};
use super::travel::journey;
use super::{Arrival, IcmpError, Kind, Packet};
use crate::route::net::route::IfId;
use crate::route::net::{Net, NodeId};

/// Base round-trip time of a probe and the time each link crossing adds (route.md §8:
/// 0.040 ms + 0.010 ms per hop, a hop being a link crossed each way).
const BASE_RTT_US: u64 = 40;
const LINK_US: u64 = 5;

/// How a probe is sent.
#[derive(Debug, Clone, Copy)]
pub struct ProbeSpec {
    pub node: NodeId,
    pub dst: Ipv4Addr,
    /// `-I IF`: the output interface.
    pub oif: Option<IfId>,
    /// `-I A`: the source address.
    pub src: Option<Ipv4Addr>,
    /// IP datagram size.
    pub size: u32,
    pub ttl: u8,
}

/// What came back for one probe.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    Reply { from: Ipv4Addr, ttl: u8, rtt_us: u64 },
    Error { from: Ipv4Addr, icmp: IcmpError, after_us: u64, send_refused: bool },
    Lost,
}

impl Outcome {
    /// When the answer arrived (for comparing with the wait), if one did.
    pub fn after_us(&self) -> Option<u64> {
        match *self {
            Outcome::Reply { rtt_us, .. } => Some(rtt_us),
            Outcome::Error { after_us, .. } => Some(after_us),
            Outcome::Lost => None,
        }
    }

    /// The outcome as seen by a sender waiting `wait_us`: later answers are lost.
    pub fn within(self, wait_us: u64) -> Self {
        match self.after_us() {
            Some(t) if t >= wait_us => Outcome::Lost,
            _ => self,
        }
    }
}

/// The route a probe takes and its source address, or the local routing error that stops it.
pub fn route(net: &Net, spec: &ProbeSpec) -> Result<(Hop, Ipv4Addr), LookupError> {
    let node = &net.nodes[spec.node];
    let hop = lookup(node, spec.dst, spec.src, spec.oif)?;
    Ok((hop, spec.src.or_else(|| source_for(node, spec.dst, hop)).unwrap_or(Ipv4Addr::UNSPECIFIED)))
}

/// Sends one probe (an echo request, or a UDP datagram for traceroute) and follows it.
pub fn send(net: &mut Net, spec: &ProbeSpec, kind: Kind) -> Result<Outcome, LookupError> {
    let (hop, src) = route(net, spec)?;
    let packet = Packet::new(src, spec.dst, kind, spec.size, spec.ttl);
    Ok(match journey(net, spec.node, packet, hop) {
        Arrival::At { node, packet, send_refused } if node == spec.node => match packet.kind {
            Kind::EchoReply if kind == Kind::EchoRequest => Outcome::Reply {
                from: packet.src,
                ttl: packet.ttl,
                rtt_us: BASE_RTT_US + LINK_US * u64::from(packet.links) + packet.delay_us,
            },
            Kind::Error(icmp) => Outcome::Error {
                from: packet.src,
                icmp,
                after_us: BASE_RTT_US + LINK_US * u64::from(packet.links) + packet.delay_us,
                send_refused,
            },
            _ => Outcome::Lost,
        },
        _ => Outcome::Lost,
    })
}
