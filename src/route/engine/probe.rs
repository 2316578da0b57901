//! Single probes: one ping echo or one traceroute datagram, and what came back.

use std::net::Ipv4Addr;

use super::lookup::{Hop, LookupError, lookup, source_for};
use super::trace::Footprint;
use super::travel::{Trip, journey};
use super::{ARP_TIMEOUT_US, Arrival, History, IcmpError, Kind, Packet};
use crate::route::net::route::IfId;
use crate::route::net::{Net, NodeId};

/// Base round-trip time of a probe and the time each link crossing adds (docs/route.md, "What the agent has":
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
    /// A path MTU the sender learned from a "Frag needed" answer: larger probes leave in
    /// fragments of this size, without DF.
    pub pmtu: Option<u32>,
}

/// What came back for one probe.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    Reply {
        from: Ipv4Addr,
        ttl: u8,
        rtt_us: u64,
    },
    /// `arp`: a neighbour resolution failed; the error comes when it gives up, which
    /// [`arrivals`] works out for a series of probes.
    Error {
        from: Ipv4Addr,
        icmp: IcmpError,
        after_us: u64,
        send_refused: bool,
        arp: bool,
    },
    Lost,
}

impl Outcome {
    /// When the answer arrives after a lone probe's send, if one does.
    pub fn after_us(&self) -> Option<u64> {
        match *self {
            Outcome::Reply { rtt_us, .. } => Some(rtt_us),
            Outcome::Error { after_us, arp, .. } => Some(after_us + if arp { ARP_TIMEOUT_US } else { 0 }),
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

/// When each answer of a series of probes (send time, outcome) arrives. Probes whose
/// neighbour resolution fails share it: the first starts a resolution that gives up after
/// [`ARP_TIMEOUT_US`], failing every probe queued before then at once; a probe sent at or
/// after that moment starts a new one (measured with iputils ping on Linux 6.1).
pub fn arrivals(probes: &[(u64, Outcome)]) -> Vec<Option<u64>> {
    let mut resolution_end: Option<u64> = None;
    probes
        .iter()
        .map(|&(sent, outcome)| match outcome {
            Outcome::Error { arp: true, after_us, .. } => {
                let end = match resolution_end {
                    Some(e) if sent < e => e,
                    _ => sent + ARP_TIMEOUT_US,
                };
                resolution_end = Some(end);
                Some(end + after_us)
            }
            o => o.after_us().map(|a| sent + a),
        })
        .collect()
}

/// The route a probe takes and its source address, or the local routing error that stops it.
/// Like the kernel's `ip_route_connect`, an unbound socket looks up twice: once to choose a
/// source address, then again from that address (so `from` rules apply).
pub fn route(net: &Net, spec: &ProbeSpec) -> Result<(Hop, Ipv4Addr), LookupError> {
    route_reading(net, spec, &mut Footprint::default())
}

/// [`route`], noting the ports its source choice reads in `footprint`.
fn route_reading(
    net: &Net,
    spec: &ProbeSpec,
    footprint: &mut Footprint,
) -> Result<(Hop, Ipv4Addr), LookupError> {
    let node = &net.nodes[spec.node];
    let hop = lookup(node, spec.dst, spec.src, spec.oif)?;
    if spec.src.is_none() {
        footprint.source(spec.node, node, hop);
    }
    let Some(src) = spec.src.or_else(|| source_for(node, spec.dst, hop)) else {
        return Ok((hop, Ipv4Addr::UNSPECIFIED));
    };
    // Without a `from` rule the source cannot change the answer: the second look is the first.
    let from_rules = node.rules.iter().any(|r| r.from.is_some());
    let hop =
        if spec.src.is_none() && from_rules { lookup(node, spec.dst, Some(src), spec.oif)? } else { hop };
    Ok((hop, src))
}

/// An ICMP redirect a probe provoked, as it reached the prober.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Redirect {
    pub from: Ipv4Addr,
    pub gateway: Ipv4Addr,
    pub after_us: u64,
}

fn elapsed(p: &Packet) -> u64 {
    BASE_RTT_US + LINK_US * u64::from(p.links) + p.delay_us
}

/// Sends one probe (an echo request, or a UDP datagram for traceroute) and follows it.
pub fn send(net: &mut Net, spec: &ProbeSpec, kind: Kind) -> Result<Outcome, LookupError> {
    send_noting(net, spec, kind).map(|(o, _)| o)
}

/// [`send`], also returning the redirects that reached the prober.
pub fn send_noting(
    net: &mut Net,
    spec: &ProbeSpec,
    kind: Kind,
) -> Result<(Outcome, Vec<Redirect>), LookupError> {
    send_tracing(net, spec, kind, &mut Trip::new(History::Kept))
}

/// [`send_noting`], keeping history as `trip` says and adding the nodes the probe read to
/// its footprint (the redirects' journeys, which change nothing but counters and neighbour
/// caches, are not part of it).
pub fn send_tracing(
    net: &mut Net,
    spec: &ProbeSpec,
    kind: Kind,
    trip: &mut Trip,
) -> Result<(Outcome, Vec<Redirect>), LookupError> {
    trip.footprint.add(spec.node);
    trip.footprint.note(spec.dst);
    let (hop, src) = route_reading(net, spec, &mut trip.footprint)?;
    let mut packet = Packet::new(src, spec.dst, kind, spec.size, spec.ttl);
    if let Some(mtu) = spec.pmtu.filter(|&m| m < packet.wire) {
        packet.wire = mtu;
        packet.df = false;
    }
    let outcome = match journey(net, spec.node, packet, hop, trip) {
        Arrival::At { node, packet, send_refused } if node == spec.node => match packet.kind {
            Kind::EchoReply if kind == Kind::EchoRequest => {
                Outcome::Reply { from: packet.src, ttl: packet.ttl, rtt_us: elapsed(&packet) }
            }
            Kind::Error(icmp) => Outcome::Error {
                from: packet.src,
                icmp,
                after_us: elapsed(&packet),
                send_refused,
                arp: packet.arp,
            },
            _ => Outcome::Lost,
        },
        _ => Outcome::Lost,
    };
    let mut redirects = Vec::new();
    for (node, r) in std::mem::take(&mut trip.side) {
        let Ok(hop) = lookup(&net.nodes[node], r.dst, Some(r.src), None) else { continue };
        if let Arrival::At { node, packet, .. } = journey(net, node, r, hop, &mut Trip::new(trip.history))
            && let (true, Kind::Redirect(gateway)) = (node == spec.node, packet.kind)
        {
            redirects.push(Redirect { from: packet.src, gateway, after_us: elapsed(&packet) });
        }
    }
    Ok((outcome, redirects))
}
