//! One packet's journey and the answers it provokes (a send half and a receive half per hop), with
//! Linux's order of checks on a forwarder: route lookup (errors answered only when the
//! ingress forwards), local delivery, forwarding switch, TTL, MTU, then the FORWARD chain.

use std::net::Ipv4Addr;

use super::lookup::{Hop, LookupError, looks_up_local, lookup, source_for};
use super::trace::Footprint;
use super::{Arrival, History, IcmpError, Kind, Packet};
use crate::route::net::iptables::{ChainId, PacketView, Target};
use crate::route::net::route::IfId;
use crate::route::net::{MAX_NEIGH, Neigh, NeighState, Net, NodeId, addr};

/// Hops one journey may take before it is declared lost (loops in misrouted tables).
const HOP_GUARD: u32 = 256;

/// Ethernet header bytes counted by interface counters.
const ETH_HEADER: u32 = 14;

/// What happens next to the packet being followed.
enum Next {
    Send {
        node: NodeId,
        packet: Packet,
    },
    Recv {
        node: NodeId,
        iface: IfId,
        packet: Packet,
    },
    Arrive {
        node: NodeId,
        packet: Packet,
        send_refused: bool,
    },
    Lost,
    /// The packet goes on as `main` and `node` also sends `side` (an ICMP redirect).
    Fork {
        main: Box<Next>,
        node: NodeId,
        side: Packet,
    },
}

/// What journeys keep besides their arrivals, and whether they write the kernel's history.
#[derive(Debug)]
pub struct Trip {
    pub history: History,
    /// The nodes read since the footprint was last reset.
    pub footprint: Footprint,
    /// Packets sent on the side (redirects), with their senders.
    pub side: Vec<(NodeId, Packet)>,
}

impl Trip {
    pub fn new(history: History) -> Self {
        Trip { history, footprint: Footprint::default(), side: Vec::new() }
    }

    fn kept(&self) -> bool {
        self.history == History::Kept
    }

    /// Notes the addresses a packet carries in the footprint.
    fn carried(&mut self, packet: &Packet) {
        self.footprint.note(packet.src);
        self.footprint.note(packet.dst);
    }
}

/// Sends a locally generated packet from `node` whose route was already looked up (`hop`),
/// and follows it and every answer it provokes until an answer arrives somewhere or all is
/// lost, noting in `trip` the nodes it read and the packets sent on the side.
pub fn journey(net: &mut Net, node: NodeId, packet: Packet, hop: Hop, trip: &mut Trip) -> Arrival {
    trip.footprint.add(node);
    trip.carried(&packet);
    let mut next = output(net, node, packet, hop, trip);
    for _ in 0..HOP_GUARD {
        next = match next {
            Next::Send { node, packet } => {
                trip.carried(&packet);
                match lookup(&net.nodes[node], packet.dst, Some(packet.src), None) {
                    Ok(hop) => output(net, node, packet, hop, trip),
                    Err(_) => Next::Lost,
                }
            }
            Next::Recv { node, iface, packet } => {
                trip.footprint.port(node, iface);
                trip.carried(&packet);
                input(net, node, iface, packet, trip)
            }
            Next::Arrive { node, packet, send_refused } => return Arrival::At { node, packet, send_refused },
            Next::Lost => return Arrival::Lost,
            Next::Fork { main, node, side } => {
                trip.side.push((node, side));
                *main
            }
        };
    }
    Arrival::Lost
}

fn view<'a>(p: &Packet, iif: Option<&'a str>, oif: Option<&'a str>) -> PacketView<'a> {
    PacketView { src: p.src, dst: p.dst, proto: p.kind.proto(), iif, oif, size: p.wire }
}

/// Runs a chain and returns its verdict, counting the packet where history is kept.
fn filter(
    net: &mut Net,
    node: NodeId,
    chain: ChainId,
    p: &Packet,
    ports: (Option<IfId>, Option<IfId>),
    trip: &Trip,
) -> Target {
    let crate::route::net::Node { filter, ifaces, .. } = &*net.nodes[node];
    if filter.is_open() {
        return Target::Accept;
    }
    let name = |i: Option<IfId>| i.map(|i| &*ifaces[i].name);
    let (target, hit) = filter.verdict(chain, &view(p, name(ports.0), name(ports.1)));
    if trip.kept() {
        net.node_mut(node).filter.count(chain, hit, p.wire);
    }
    target
}

/// Local output: OUTPUT chain, then loopback delivery or the wire.
fn output(net: &mut Net, node: NodeId, packet: Packet, hop: Hop, trip: &mut Trip) -> Next {
    match hop {
        Hop::Local => {
            match filter(net, node, ChainId::Output, &packet, (None, Some(0)), trip) {
                Target::Accept => {}
                _ => return Next::Lost,
            }
            match filter(net, node, ChainId::Input, &packet, (Some(0), None), trip) {
                Target::Accept => deliver(net, node, packet, trip),
                Target::Drop => Next::Lost,
                Target::Reject(with) => error_for(net, node, &packet, reject_error(with), true, trip),
            }
        }
        Hop::Broadcast => Next::Lost,
        Hop::Out { dev, gw, .. } => {
            match filter(net, node, ChainId::Output, &packet, (None, Some(dev)), trip) {
                Target::Accept => {
                    let mut packet = packet;
                    trip.footprint.port(node, dev);
                    let mtu = net.nodes[node].ifaces[dev].mtu;
                    if packet.wire > mtu {
                        packet.wire = mtu;
                        packet.df = false;
                    }
                    transmit(net, node, dev, gw, packet, true, trip)
                }
                Target::Drop => Next::Lost,
                Target::Reject(with) => {
                    let refused = error_for(net, node, &packet, reject_error(with), false, trip);
                    match refused {
                        Next::Send { node: n, packet: e } if n == node && net.nodes[node].is_local(e.dst) => {
                            Next::Arrive { node, packet: e, send_refused: true }
                        }
                        other => other,
                    }
                }
            }
        }
    }
}

fn reject_error(with: crate::route::net::iptables::RejectWith) -> IcmpError {
    use crate::route::net::iptables::RejectWith;
    match with {
        RejectWith::Port => IcmpError::PortUnreachable,
        RejectWith::Host => IcmpError::HostUnreachable,
        RejectWith::Net => IcmpError::NetUnreachable,
    }
}

/// A packet arriving on `iface` of `node`.
fn input(net: &mut Net, node: NodeId, iface: IfId, packet: Packet, trip: &mut Trip) -> Next {
    let n = &net.nodes[node];
    let i = &n.ifaces[iface];
    if !i.up || packet.wire > i.mtu + 4 {
        return Next::Lost;
    }
    if trip.kept() {
        net.node_mut(node).ifaces[iface].rx.count(packet.wire + ETH_HEADER);
    }
    let n = &net.nodes[node];
    if addr::is_martian(packet.src) || addr::is_loopback(packet.src) || n.is_local(packet.src) {
        return Next::Lost;
    }
    let forwards = n.ifaces[iface].forwarding != 0;
    let hop = match lookup(n, packet.dst, Some(packet.src), None) {
        Ok(hop) => hop,
        Err(_) if !forwards => return Next::Lost,
        Err(e) => return route_error(net, node, &packet, e, trip),
    };
    match hop {
        Hop::Local => match filter(net, node, ChainId::Input, &packet, (Some(iface), None), trip) {
            Target::Accept => deliver(net, node, packet, trip),
            Target::Drop => Next::Lost,
            Target::Reject(with) => error_for(net, node, &packet, reject_error(with), true, trip),
        },
        Hop::Broadcast => Next::Lost,
        Hop::Out { .. } if !forwards => Next::Lost,
        Hop::Out { dev, gw, .. } => forward(net, node, iface, dev, gw, packet, trip),
    }
}

fn route_error(net: &Net, node: NodeId, packet: &Packet, e: LookupError, trip: &mut Trip) -> Next {
    let icmp = match e {
        LookupError::NoRoute => IcmpError::NetUnreachable,
        LookupError::Unreachable => IcmpError::HostUnreachable,
        LookupError::Prohibit => IcmpError::Filtered,
        LookupError::Blackhole => return Next::Lost,
    };
    error_for(net, node, packet, icmp, false, trip)
}

fn forward(
    net: &mut Net,
    node: NodeId,
    iif: IfId,
    dev: IfId,
    gw: Option<Ipv4Addr>,
    mut packet: Packet,
    trip: &mut Trip,
) -> Next {
    if packet.ttl <= 1 {
        return error_for(net, node, &packet, IcmpError::TimeExceeded, false, trip);
    }
    trip.footprint.port(node, dev);
    let mtu = net.nodes[node].ifaces[dev].mtu;
    if packet.wire > mtu {
        if packet.df {
            return error_for(net, node, &packet, IcmpError::FragNeeded(mtu), false, trip);
        }
        packet.wire = mtu;
    }
    match filter(net, node, ChainId::Forward, &packet, (Some(iif), Some(dev)), trip) {
        Target::Accept => {}
        Target::Drop => return Next::Lost,
        Target::Reject(with) => return error_for(net, node, &packet, reject_error(with), false, trip),
    }
    packet.ttl -= 1;
    let redirect = (dev == iif && !matches!(packet.kind, Kind::Error(_) | Kind::Redirect(_)))
        .then(|| redirect_for(net, node, &packet, gw.unwrap_or(packet.dst)))
        .flatten();
    let main = transmit(net, node, dev, gw, packet, false, trip);
    match redirect {
        Some(side) => Next::Fork { main: Box::new(main), node, side },
        None => main,
    }
}

/// The ICMP redirect a router sends when it forwards a packet back out of the interface it
/// came in by (`send_redirects`, shared media): "use `gw` directly".
fn redirect_for(net: &Net, node: NodeId, packet: &Packet, gw: Ipv4Addr) -> Option<Packet> {
    let n = &net.nodes[node];
    let src = lookup(n, packet.src, None, None).ok().and_then(|hop| source_for(n, packet.src, hop))?;
    let mut r = Packet::new(src, packet.src, Kind::Redirect(gw), 28 + packet.size.min(548), 64);
    r.delay_us = packet.delay_us;
    r.links = packet.links;
    Some(r)
}

/// Puts a packet on `dev`'s segment toward `gw` (or its destination).
fn transmit(
    net: &mut Net,
    node: NodeId,
    dev: IfId,
    gw: Option<Ipv4Addr>,
    mut packet: Packet,
    local: bool,
    trip: &mut Trip,
) -> Next {
    trip.footprint.port(node, dev);
    let iface = &net.nodes[node].ifaces[dev];
    if !iface.running() || iface.segment.is_none() {
        return Next::Lost;
    }
    if let Some(q) = iface.qdisc {
        if q.drops() {
            return Next::Lost;
        }
        packet.delay_us += q.delay_us;
    }
    let next_hop = gw.unwrap_or(packet.dst);
    trip.footprint.note(next_hop);
    let n = &net.nodes[node];
    let arp_src = if n.is_local(packet.src) {
        packet.src
    } else {
        // The source the node would give a packet of its own to the next hop.
        let toward = Hop::Out { dev, gw: None, src: None };
        trip.footprint.source(node, n, toward);
        source_for(n, next_hop, toward).unwrap_or(Ipv4Addr::UNSPECIFIED)
    };
    let resolved = resolve(net, node, dev, next_hop, arp_src, trip);
    if trip.kept() {
        count_frame(net, node, dev, packet.wire, resolved);
    }
    let Some((peer, peer_if)) = resolved else {
        remember(net, node, dev, next_hop, None, trip);
        if local {
            let mut err = Packet::new(packet.src, packet.src, Kind::Error(IcmpError::HostUnreachable), 0, 64);
            err.delay_us = packet.delay_us;
            err.links = packet.links;
            err.arp = true;
            return Next::Arrive { node, packet: err, send_refused: false };
        }
        return match error_for(net, node, &packet, IcmpError::HostUnreachable, false, trip) {
            Next::Send { node, mut packet } => {
                packet.arp = true;
                Next::Send { node, packet }
            }
            other => other,
        };
    };
    let mac = net.nodes[peer].ifaces[peer_if].mac;
    // A node holding the neighbour's address already sends without asking again.
    let asked = !net.nodes[node].neigh.iter().any(|e| e.ip == next_hop && e.dev == dev && e.mac.is_some());
    remember(net, node, dev, next_hop, Some(mac), trip);
    if trip.kept() && asked && !arp_src.is_unspecified() {
        let asker = net.nodes[node].ifaces[dev].mac;
        learn(net, peer, peer_if, arp_src, asker);
    }
    packet.links += 1;
    Next::Recv { node: peer, iface: peer_if, packet }
}

/// Counts a frame of `wire` IP bytes sent on `dev` toward `to`. A veth hands a frame to its
/// peer only if the peer is up and the frame fits the peer's MTU (plus the Ethernet header
/// and a VLAN tag); otherwise the peer counts it as dropped on receipt and the sending veth
/// as dropped on transmit, not as sent. On a switch the sender's veth feeds the bridge, which
/// takes the frame, and the bridge's port into the peer drops it: the sender counts it sent.
fn count_frame(net: &mut Net, node: NodeId, dev: IfId, wire: u32, to: Option<(NodeId, IfId)>) {
    let too_long = to.filter(|&(peer, peer_if)| wire > net.nodes[peer].ifaces[peer_if].mtu + 4);
    let on_switch = net.nodes[node].ifaces[dev].segment.is_some_and(|s| net.segments[s].switch);
    if let Some((peer, peer_if)) = too_long {
        net.node_mut(peer).ifaces[peer_if].rx.dropped += 1;
    }
    let tx = &mut net.node_mut(node).ifaces[dev].tx;
    if too_long.is_some() && !on_switch {
        tx.dropped += 1;
    } else {
        tx.count(wire + ETH_HEADER);
    }
}

/// Neighbour resolution with a cold cache: the first other node on the segment, with the
/// port up, that owns `ip` and whose lookup of it (from the asker's address) is local.
fn resolve(
    net: &Net,
    node: NodeId,
    dev: IfId,
    ip: Ipv4Addr,
    arp_src: Ipv4Addr,
    trip: &mut Trip,
) -> Option<(NodeId, IfId)> {
    let seg = net.nodes[node].ifaces[dev].segment?;
    net.segments[seg].ports.iter().copied().find(|&(n, i)| {
        trip.footprint.port(n, i);
        let peer = &net.nodes[n];
        n != node && peer.ifaces[i].up && peer.is_local(ip) && looks_up_local(peer, ip, Some(arp_src))
    })
}

/// Notes a resolution's result in the neighbour table, where history is kept. A stale
/// entry with the same address is used as it is, without asking, and starts its delay.
fn remember(net: &mut Net, node: NodeId, dev: IfId, ip: Ipv4Addr, mac: Option<[u8; 6]>, trip: &Trip) {
    if !trip.kept() {
        return;
    }
    let state = |old: Option<&Neigh>| match (mac, old) {
        (None, _) => NeighState::Failed,
        (Some(m), Some(e))
            if e.mac == Some(m) && matches!(e.state, NeighState::Stale | NeighState::Delay) =>
        {
            NeighState::Delay
        }
        _ => NeighState::Reachable,
    };
    update(net, node, Neigh { ip, dev, mac, state: NeighState::Failed }, state);
}

/// What the node answering an ARP request learns: its sender, as a stale entry, unless it
/// already holds that address there (the kernel keeps a valid entry's state then).
fn learn(net: &mut Net, node: NodeId, dev: IfId, ip: Ipv4Addr, mac: [u8; 6]) {
    let state = |old: Option<&Neigh>| match old {
        Some(e) if e.mac == Some(mac) => e.state,
        _ => NeighState::Stale,
    };
    update(net, node, Neigh { ip, dev, mac: Some(mac), state: NeighState::Stale }, state);
}

/// Writes `entry` with the state `state` gives from the entry it replaces, if any.
fn update(net: &mut Net, node: NodeId, mut entry: Neigh, state: impl Fn(Option<&Neigh>) -> NeighState) {
    let table = &mut net.node_mut(node).neigh;
    match table.iter_mut().find(|e| e.ip == entry.ip && e.dev == entry.dev) {
        Some(e) => {
            entry.state = state(Some(e));
            *e = entry;
        }
        None => {
            entry.state = state(None);
            if table.len() >= MAX_NEIGH {
                table.remove(0);
            }
            table.push(entry);
        }
    }
}

/// Local delivery: echo requests are answered, probes get Port Unreachable, answers arrive.
fn deliver(net: &Net, node: NodeId, packet: Packet, trip: &mut Trip) -> Next {
    match packet.kind {
        Kind::EchoRequest => {
            if net.nodes[node].icmp_echo_ignore_all != 0 {
                return Next::Lost;
            }
            let mut reply = Packet::new(packet.dst, packet.src, Kind::EchoReply, packet.size, 64);
            reply.delay_us = packet.delay_us;
            reply.links = packet.links;
            Next::Send { node, packet: reply }
        }
        Kind::Udp => error_for(net, node, &packet, IcmpError::PortUnreachable, true, trip),
        Kind::EchoReply | Kind::Error(_) | Kind::Redirect(_) => {
            Next::Arrive { node, packet, send_refused: false }
        }
    }
}

/// The ICMP error `node` sends about `packet` (never about an error). Its source is the
/// packet's destination when that was local, else the address the node would use toward
/// the packet's source.
fn error_for(
    net: &Net,
    node: NodeId,
    packet: &Packet,
    icmp: IcmpError,
    was_local: bool,
    trip: &mut Trip,
) -> Next {
    if matches!(packet.kind, Kind::Error(_) | Kind::Redirect(_)) {
        return Next::Lost;
    }
    let n = &net.nodes[node];
    let src = if was_local {
        Some(packet.dst)
    } else {
        lookup(n, packet.src, None, None).ok().and_then(|hop| {
            trip.footprint.source(node, n, hop);
            source_for(n, packet.src, hop)
        })
    };
    let Some(src) = src else { return Next::Lost };
    let mut err = Packet::new(src, packet.src, Kind::Error(icmp), 28 + packet.size.min(548), 64);
    err.delay_us = packet.delay_us;
    err.links = packet.links;
    Next::Send { node, packet: err }
}
