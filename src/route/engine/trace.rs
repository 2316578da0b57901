//! Ping matrices that remember which nodes each probe read, so that the matrix of a network
//! changed at a few nodes is worked out by probing only the pairs a change can reach.
//!
//! A probe is a function of the state of the nodes it reads: the ones its packets visit and
//! the neighbours it tries to resolve (counters and neighbour caches are history, never
//! read). If a network is alike another on every node a pair's probe read there, the probe
//! reads the same states step by step and answers the same. The generator checks each draw on
//! several networks that differ from the healthy one, and from each other, at one to three
//! routers; with several routers, the pairs that never pass a changed one need no probe.
//!
//! These probes skip history ([`History::Skipped`]): they leave every node as it was, shared
//! with the network it was cloned from.

use std::sync::Arc;

use super::matrix::{Machine, Matrix, answers};
use super::{History, Trip};
use crate::route::net::{Net, NodeId};

/// The nodes whose state a probe read, as a set of node ids (ids past 127 stand for every
/// node). A probe reads only the nodes its packets visit and the neighbours it tries to
/// resolve, so two networks alike on its footprint answer it alike: the generator probes a
/// changed network only where a change meets a footprint.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Footprint(u128);

impl Footprint {
    /// Every node.
    pub fn all() -> Footprint {
        Footprint(u128::MAX)
    }

    pub fn add(&mut self, node: NodeId) {
        self.0 |= if node < 128 { 1 << node } else { u128::MAX };
    }

    /// Whether no node is in the set.
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Whether the two sets share a node.
    pub fn meets(self, other: Footprint) -> bool {
        self.0 & other.0 != 0
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
        Traced::after(net, machines, &every, Footprint::all())
    }

    /// The matrix of `net`, given that it is alike the network `known` was traced on except
    /// at the nodes in `changed`: pairs whose footprint misses them are copied, the others
    /// probed.
    pub fn after(net: &mut Net, machines: &[Machine], known: &Traced, changed: Footprint) -> Traced {
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
        changed: Footprint,
    ) -> bool {
        let n = self.matrix.n;
        let mut trip = Trip::new(History::Skipped);
        pairs.iter().any(|&(s, d)| {
            self.footprints[s * n + d].meets(changed)
                && answers(net, machines[s].node, machines[d].target, &mut trip).0 != self.matrix.get(s, d)
        })
    }
}

/// The nodes at which two networks of one topology are not alike ([`Node::alike`]); every
/// node when their segments differ. Nodes the two share are alike without a look.
///
/// [`Node::alike`]: crate::route::net::Node::alike
pub fn changed(a: &Net, b: &Net) -> Footprint {
    if a.segments != b.segments || a.nodes.len() != b.nodes.len() {
        return Footprint::all();
    }
    let mut changed = Footprint::default();
    for (id, (x, y)) in a.nodes.iter().zip(&b.nodes).enumerate() {
        if !Arc::ptr_eq(x, y) && !x.alike(y) {
            changed.add(id as NodeId);
        }
    }
    changed
}
