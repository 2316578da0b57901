//! Ping matrices that remember what each probe read, so that the matrix of a network changed
//! at a few nodes is worked out by probing only the pairs a change can reach.
//!
//! A probe is a function of the state of the nodes it reads: the ones its packets visit and
//! the neighbours it tries to resolve (counters and neighbour caches are history, never
//! read). If a network is alike another on every node a pair's probe read there, the probe
//! reads the same states step by step and answers the same. The generator checks each draw on
//! several networks that differ from the healthy one, and from each other, at one to three
//! routers; with several routers, the pairs that never pass a changed one need no probe.
//!
//! Routes and filter rules are read only through the addresses packets carry: a lookup asks
//! for a destination (or a packet's source, to answer it), neighbour resolution for a next
//! hop, a rule tests source and destination. So a changed route or rule that selects a prefix
//! changes only probes whose packets carried an address in it: a fault on one subnet's route
//! or filter re-probes the pairs to and from that subnet, not every pair through its router.
//! Likewise an interface's state (link, MTU, queue, addresses) is read by the packets that
//! pass it or try it while resolving a neighbour, by a source choice made on it or falling
//! back on every interface, and, through the local table, by lookups of its addresses: a
//! fault on one port re-probes the pairs whose packets used it.
//!
//! These probes skip history ([`History::Skipped`]): they leave every node as it was, shared
//! with the network it was cloned from.

use std::net::Ipv4Addr;
use std::sync::Arc;

use ipnet::Ipv4Net;

use super::lookup::Hop;
use super::matrix::{Machine, Matrix, answers};
use super::{History, Trip};
use crate::route::net::addr::covers;
use crate::route::net::{Difference, IfId, Net, Node, NodeId};

/// What a probe read: the nodes whose state it read, as a set of node ids (ids past 127 stand
/// for every node); the ports (interfaces) whose state it read, as bits of a hash of node and
/// port ([`Footprint::port`]; all of them once it read every port of a node, which is rare);
/// and the addresses its packets carried as source, destination or next hop (past [`ADDRS`]
/// of them, every address). A probe reads only the nodes its packets visit and the neighbours
/// it tries to resolve, of their interfaces only the ones it passes (but for a source chosen
/// among all), and of their routes, filter rules and local tables only what those addresses
/// select: so two networks alike on its nodes, or differing there only at ports it did not
/// read and for prefixes none of its addresses is in, answer it alike ([`Footprint::meets`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Footprint {
    nodes: u128,
    ports: u64,
    /// The first `count` are the addresses, in the order first seen.
    addrs: [u32; ADDRS],
    /// Past `ADDRS`: every address.
    count: u8,
}

/// Addresses a footprint lists one by one: a ping through a chain of four routers carries its
/// two ends and a next hop per hop.
pub const ADDRS: usize = 8;

impl Default for Footprint {
    fn default() -> Self {
        Footprint { nodes: 0, ports: 0, addrs: [0; ADDRS], count: 0 }
    }
}

impl Footprint {
    /// Every node and address.
    pub fn all() -> Footprint {
        Footprint { nodes: u128::MAX, ports: u64::MAX, count: ADDRS as u8 + 1, ..Footprint::default() }
    }

    pub fn add(&mut self, node: NodeId) {
        self.nodes |= node_bit(node);
    }

    /// Notes a port whose state was read (a packet passed it, or asked for a neighbour there).
    pub fn port(&mut self, node: NodeId, port: IfId) {
        self.add(node);
        self.ports |= port_bit(node, port);
    }

    /// Notes what choosing a source address for `hop` reads ([`source_for`]): the egress
    /// port, and every port of the node when that one has no primary address (noted as every
    /// port of every node: rare, and a `u64` has no room to say which node).
    ///
    /// [`source_for`]: super::lookup::source_for
    pub fn source(&mut self, id: NodeId, node: &Node, hop: Hop) {
        if let Hop::Out { dev, src: None, .. } = hop {
            self.port(id, dev);
            if node.ifaces[dev].primaries().next().is_none() {
                self.ports = u64::MAX;
            }
        }
    }

    /// Notes an address a packet carried or resolved.
    pub fn note(&mut self, ip: Ipv4Addr) {
        let ip = u32::from(ip);
        let n = usize::from(self.count);
        if n > ADDRS || self.addrs[..n].contains(&ip) {
            return;
        }
        if n < ADDRS {
            self.addrs[n] = ip;
        }
        self.count += 1;
    }

    /// Whether the probe may answer otherwise on a network that differs as `changes` says.
    pub fn meets(&self, changes: &Changes) -> bool {
        self.nodes & changes.whole != 0 || changes.partly.iter().any(|part| self.meets_part(part))
    }

    fn meets_part(&self, part: &Part) -> bool {
        self.nodes & node_bit(part.node) != 0
            && (self.ports & part.ports != 0 || self.carries(&part.prefixes))
    }

    /// Whether some address noted lies in one of `prefixes`.
    fn carries(&self, prefixes: &[Ipv4Net]) -> bool {
        let n = usize::from(self.count);
        n > ADDRS || self.addrs[..n].iter().any(|&ip| prefixes.iter().any(|p| covers(p, Ipv4Addr::from(ip))))
    }
}

fn node_bit(node: NodeId) -> u128 {
    if node < 128 { 1 << node } else { u128::MAX }
}

/// The bit standing for a port in [`Footprint`]s: a hash of node and interface, since a lab
/// has more ports than a `u64` has bits. Ports sharing a bit only cost probes.
fn port_bit(node: NodeId, port: IfId) -> u64 {
    let key = (node as u64) << 32 | port as u64;
    1 << (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 58)
}

/// Where two networks of one topology differ ([`changed`]): nodes that differ as a whole, and
/// nodes that differ only at some ports and for packets carrying an address of some prefixes
/// ([`Difference::Partly`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Changes {
    whole: u128,
    partly: Vec<Part>,
}

/// A node that differs only partly: its ports that differ (as [`port_bit`]s) and the
/// prefixes whose addresses it treats otherwise.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Part {
    node: NodeId,
    ports: u64,
    prefixes: Vec<Ipv4Net>,
}

impl Changes {
    /// Every node, as a whole.
    pub fn everything() -> Changes {
        Changes { whole: u128::MAX, partly: Vec::new() }
    }

    /// Whether the networks are alike at every node.
    pub fn is_empty(&self) -> bool {
        self.whole == 0 && self.partly.is_empty()
    }
}

/// A matrix with the footprint of each pair's probe (`footprints[s * n + d]`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Traced {
    pub matrix: Matrix,
    pub footprints: Vec<Footprint>,
}

impl Traced {
    /// Probes every pair of `net`.
    pub fn of(net: &mut Net, machines: &[Machine]) -> Traced {
        let n = machines.len();
        let every = Traced {
            matrix: Matrix { n, ok: vec![false; n * n] },
            footprints: vec![Footprint::all(); n * n],
        };
        Traced::after(net, machines, &every, &Changes::everything())
    }

    /// The matrix of `net`, given that it is alike the network `known` was traced on except
    /// at the nodes in `changed`: pairs whose footprint misses them are copied, the others
    /// probed.
    pub fn after(net: &mut Net, machines: &[Machine], known: &Traced, changed: &Changes) -> Traced {
        let mut traced = known.clone();
        let mut trip = Trip::new(History::Skipped);
        for (s, d) in known.matrix.pairs() {
            let at = s * known.matrix.n + d;
            if known.footprints[at].meets(changed) {
                (traced.matrix.ok[at], traced.footprints[at]) =
                    answers(net, machines[s].node, machines[d].target, &mut trip);
            }
        }
        traced
    }

    /// Whether `net`, alike the network this was traced on except at `changed`, answers some
    /// pair of `pairs` otherwise, probing in that order and stopping at the first difference.
    /// Callers put the likeliest pairs first.
    pub fn differs(
        &self,
        net: &mut Net,
        machines: &[Machine],
        pairs: &[(usize, usize)],
        changed: &Changes,
    ) -> bool {
        let n = self.matrix.n;
        let mut trip = Trip::new(History::Skipped);
        pairs.iter().any(|&(s, d)| {
            self.footprints[s * n + d].meets(changed)
                && answers(net, machines[s].node, machines[d].target, &mut trip).0 != self.matrix.get(s, d)
        })
    }
}

/// Where two networks of one topology differ, node by node ([`Node::difference`]); every
/// node when their segments differ. Nodes the two share are alike without a look.
///
/// [`Node::difference`]: crate::route::net::Node::difference
pub fn changed(a: &Net, b: &Net) -> Changes {
    if a.segments != b.segments || a.nodes.len() != b.nodes.len() {
        return Changes::everything();
    }
    let mut changes = Changes::default();
    for (id, (x, y)) in a.nodes.iter().zip(&b.nodes).enumerate() {
        if Arc::ptr_eq(x, y) {
            continue;
        }
        match x.difference(y) {
            Difference::None => {}
            Difference::Partly { ports, prefixes } => {
                let node = id as NodeId;
                let ports = ports.into_iter().fold(0, |bits, port| bits | port_bit(node, port));
                changes.partly.push(Part { node, ports, prefixes });
            }
            Difference::Whole => changes.whole |= node_bit(id as NodeId),
        }
    }
    changes
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::route::shell;
    use crate::route::topology::{Shape, Topology};

    fn run(net: &mut Net, node: &str, lines: &[&str]) {
        let id = net.node(node).expect("exists");
        for line in lines {
            assert_eq!(shell::run(net, id, line).status, 0, "{line}");
        }
    }

    /// A port without an address sends from the node's first global address, so a packet
    /// leaving by it reads ports it never passes: one gaining an address earlier in order
    /// changes its source (and here nothing else it reads).
    #[test]
    fn a_source_chosen_among_every_port_reads_them_all() {
        let topo = Topology { n: 3, m: 1, r: 1, shape: Shape::Single };
        let machines = topo.machines();
        let mut before = topo.build();
        run(
            &mut before,
            "r0",
            &[
                "ip addr flush dev r0-eth1",
                "ip addr flush dev r0-eth2",
                "ip route add 192.168.1.0/24 dev r0-eth1",
            ],
        );
        let mut after = before.clone();
        run(&mut after, "r0", &["ip addr add 192.168.2.1/24 dev r0-eth2"]);
        let known = Traced::of(&mut before.clone(), &machines);
        let changes = changed(&before, &after);
        assert_eq!(changes.whole, 0, "r0 differs at a port");
        let retraced = Traced::after(&mut after.clone(), &machines, &known, &changes);
        assert_eq!(retraced, Traced::of(&mut after.clone(), &machines));
    }
}
