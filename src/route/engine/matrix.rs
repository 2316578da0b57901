//! The ping matrix: every ordered pair of distinct machines, one echo each with a 0.1 s wait,
//! neighbour caches cold (route.md §5), printed in the reference's `pingall` format.

use std::net::Ipv4Addr;

use serde::{Deserialize, Serialize};

use super::probe::{Outcome, ProbeSpec, send_tracing};
use super::trace::Footprint;
use super::{History, Kind, Trip};
use crate::route::net::{Net, NodeId};

/// The matrix's wait for each reply.
pub const MATRIX_WAIT_US: u64 = 100_000;

/// A machine of the matrix: hosts first, then routers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Machine {
    pub name: String,
    #[serde(skip)]
    pub node: NodeId,
    /// The address pinged: the healthy address of its first interface.
    pub target: Ipv4Addr,
}

/// Which ordered pairs answered. `ok[s * n + d]`; the diagonal is unused (false).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Matrix {
    pub n: usize,
    pub ok: Vec<bool>,
}

impl Matrix {
    /// Every ordered pair, row by row.
    pub fn pairs(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        let n = self.n;
        (0..n).flat_map(move |s| (0..n).filter(move |&d| d != s).map(move |d| (s, d)))
    }

    pub fn get(&self, s: usize, d: usize) -> bool {
        self.ok[s * self.n + d]
    }

    pub fn sent(&self) -> usize {
        self.n * self.n.saturating_sub(1)
    }

    pub fn received(&self) -> usize {
        self.pairs().filter(|&(s, d)| self.get(s, d)).count()
    }

    pub fn lost(&self) -> usize {
        self.sent() - self.received()
    }

    /// The failing pairs.
    pub fn failing(&self) -> Vec<(usize, usize)> {
        self.pairs().filter(|&(s, d)| !self.get(s, d)).collect()
    }

    /// Every ordered pair, the failing ones first (each group row by row).
    pub fn failing_first(&self) -> Vec<(usize, usize)> {
        let (failing, answering): (Vec<_>, Vec<_>) = self.pairs().partition(|&(s, d)| !self.get(s, d));
        [failing, answering].concat()
    }

    /// The reference text: `h1 -> h2 X r0 ` lines and the results line.
    pub fn render(&self, machines: &[Machine]) -> String {
        let mut out = String::with_capacity(self.n * (self.n * 4 + 8) + 48);
        for s in 0..self.n {
            out.push_str(&machines[s].name);
            out.push_str(" -> ");
            for d in (0..self.n).filter(|&d| d != s) {
                out.push_str(if self.get(s, d) { &machines[d].name } else { "X" });
                out.push(' ');
            }
            out.push('\n');
        }
        let sent = self.sent();
        let lost = self.lost();
        let pct = (lost * 100).checked_div(sent).unwrap_or(0);
        out.push_str(&format!("*** Results: {pct}% dropped ({}/{sent} received)", sent - lost));
        out
    }
}

/// Pings every ordered pair. Neighbour tables start empty and keep what this evaluation
/// resolved (what `ip neigh` shows afterwards).
pub fn compute(net: &mut Net, machines: &[Machine]) -> Matrix {
    cool(net);
    let n = machines.len();
    let mut ok = vec![false; n * n];
    let mut trip = Trip::new(History::Kept);
    for (s, src) in machines.iter().enumerate() {
        for (d, dst) in machines.iter().enumerate() {
            if s != d {
                ok[s * n + d] = answers(net, src.node, dst.target, &mut trip).0;
            }
        }
    }
    Matrix { n, ok }
}

/// Empties the neighbour caches: every matrix starts cold. Empty ones are left alone, so a
/// node shared with a clone stays shared.
fn cool(net: &mut Net) {
    for id in 0..net.nodes.len() {
        if !net.nodes[id].neigh.is_empty() {
            net.node_mut(id).neigh.clear();
        }
    }
}

/// One probe of a matrix whose probes share `trip`: whether it was answered, and the nodes
/// it read.
pub fn answers(net: &mut Net, node: NodeId, target: Ipv4Addr, trip: &mut Trip) -> (bool, Footprint) {
    let spec = ProbeSpec { node, dst: target, oif: None, src: None, size: 84, ttl: 64 };
    trip.footprint = Footprint::default();
    let sent = send_tracing(net, &spec, Kind::EchoRequest, trip);
    (matches!(sent.map(|(o, _)| o.within(MATRIX_WAIT_US)), Ok(Outcome::Reply { .. })), trip.footprint)
}
