//! The ping matrix: every ordered pair of distinct machines, one echo each with a 0.1 s wait,
//! neighbour caches cold (docs/route.md, "What the agent has"), printed in the reference's `pingall` format.

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
        let mut pairs = Vec::with_capacity(self.n * self.n);
        pairs.extend(self.pairs().filter(|&(s, d)| !self.get(s, d)));
        pairs.extend(self.pairs().filter(|&(s, d)| self.get(s, d)));
        pairs
    }

    /// The reference text: `h1 -> h2 X r0 ` lines and the results line. The names, each with
    /// its space, are laid end to end once, so a run of answered pairs is copied as one slice
    /// (a large matrix is tens of kilobytes, built for every task card and episode step).
    pub fn render(&self, machines: &[Machine]) -> String {
        let mut names = String::new();
        let mut ends = vec![0];
        for m in machines.iter().take(self.n) {
            names.push_str(&m.name);
            names.push(' ');
            ends.push(names.len());
        }
        let mut out = String::with_capacity(self.n * (names.len() + 8) + 48);
        for s in 0..self.n {
            out.push_str(&names[ends[s]..ends[s + 1] - 1]);
            out.push_str(" -> ");
            let mut run = None;
            for d in 0..self.n {
                let answered = d != s && self.get(s, d);
                match run {
                    None if answered => run = Some(d),
                    Some(start) if !answered => {
                        out.push_str(&names[ends[start]..ends[d]]);
                        run = None;
                    }
                    _ => {}
                }
                if d != s && !answered {
                    out.push_str("X ");
                }
            }
            if let Some(start) = run {
                out.push_str(&names[ends[start]..]);
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
    let spec = ProbeSpec { node, dst: target, oif: None, src: None, size: 84, ttl: 64, pmtu: None };
    trip.footprint = Footprint::default();
    let sent = send_tracing(net, &spec, Kind::EchoRequest, trip);
    (matches!(sent.map(|(o, _)| o.within(MATRIX_WAIT_US)), Ok(Outcome::Reply { .. })), trip.footprint)
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    /// Renders entry by entry, as the reference text is defined.
    fn plainly(m: &Matrix, machines: &[Machine]) -> String {
        let rows = (0..m.n).map(|s| {
            let cells: String = (0..m.n)
                .filter(|&d| d != s)
                .map(|d| format!("{} ", if m.get(s, d) { machines[d].name.as_str() } else { "X" }))
                .collect();
            format!("{} -> {cells}\n", machines[s].name)
        });
        let (sent, lost) = (m.sent(), m.lost());
        let pct = (lost * 100).checked_div(sent).unwrap_or(0);
        format!("{}*** Results: {pct}% dropped ({}/{sent} received)", rows.collect::<String>(), sent - lost)
    }

    proptest! {
        #[test]
        fn render_reads_like_the_plain_layout(n in 1usize..9, bits in any::<u64>()) {
            let machines: Vec<Machine> = (0..n)
                .map(|i| Machine { name: format!("h{}", i * 7), node: i, target: Ipv4Addr::new(10, 0, 0, i as u8) })
                .collect();
            let ok = (0..n * n).map(|i| i / n != i % n && bits >> (i % 64) & 1 == 1).collect();
            let m = Matrix { n, ok };
            prop_assert_eq!(m.render(&machines), plainly(&m, &machines));
        }
    }
}
