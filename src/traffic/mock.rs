//! The seeded mock communication graph (docs/traffic.md, "The mock graph"): VMs in a few /16
//! prefixes with application and tier labels, and a uniform random edge set with traffic
//! weights, drawn in a fixed order from the graph's own stream so every index of a seed
//! asks about the same graph.

use rustc_hash::FxHashSet;

use crate::error::{Error, Result};
use crate::flows::graph::Graph;
use crate::seed::{Stream, Width};

/// The graph knobs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MockKnobs {
    /// Nodes, 10..=100,000.
    pub n: usize,
    /// Distinct /16 prefixes, 1..=64.
    pub p: usize,
    /// Edge density in ‰ of all node pairs, 1..=1000.
    pub e: u64,
}

impl MockKnobs {
    /// The density that gives a mean degree of about six.
    pub fn default_density(n: usize) -> u64 {
        (6000u64.div_ceil(n.saturating_sub(1).max(1) as u64)).clamp(1, 1000)
    }

    pub fn check(&self) -> Result<()> {
        let bad = |m: String| Err(Error::Invalid(m));
        if !(10..=100_000).contains(&self.n) {
            return bad(format!("knob n must be 10..100000, got {}", self.n));
        }
        if !(1..=64).contains(&self.p) {
            return bad(format!("knob p must be 1..64, got {}", self.p));
        }
        if !(1..=1000).contains(&self.e) {
            return bad(format!("knob e must be 1..1000, got {}", self.e));
        }
        Ok(())
    }
}

/// The /16 prefixes a mock draws from, in this order: 10.1–10.254, 172.16–172.31, 192.168.
fn prefixes() -> Vec<(u8, u8)> {
    let mut v: Vec<(u8, u8)> = (1..=254).map(|b| (10, b)).collect();
    v.extend((16..=31).map(|b| (172, b)));
    v.push((192, 168));
    v
}

const APP_LABELS: [&str; 3] = ["app:prod", "app:test", "app:dev"];
const TIERS: [&str; 3] = ["tier:web", "tier:api", "tier:db"];

/// A drawn mock: nodes (dotted address, labels) and edges (node indexes, weights
/// `[byte, connection, packet]`), before it becomes a [`Graph`].
#[derive(Debug, Clone, PartialEq)]
pub struct Mock {
    pub nodes: Vec<(String, Vec<String>)>,
    pub edges: Vec<(usize, usize, [i64; 3])>,
}

impl Mock {
    pub fn graph(&self) -> Graph {
        Graph::from_parts(&self.nodes, &self.edges)
    }
}

/// Draws the mock of `material` (the graph's seed material) with the given knobs.
pub fn mock(material: &str, k: MockKnobs) -> Result<Mock> {
    // Checked first: the edge count below needs n ≥ 1.
    k.check()?;
    mock_with_edges(material, k, (k.e as u128 * (k.n * (k.n - 1)) as u128 / 2000) as usize)
}

/// The same draw with `m` edges rather than the `e` knob's share of all pairs. The knob counts
/// in ‰, so at n = 100,000 its least value is 5 million edges; the generator's speed target
/// at that size names 300,000 (a mean degree of six), which only this entry can ask for
/// (`benches/traffic.rs`, docs/traffic.md "Speed"). `k.e` is checked but otherwise unused.
pub fn mock_with_edges(material: &str, k: MockKnobs, m: usize) -> Result<Mock> {
    k.check()?;
    if k.n > 65_534 * k.p {
        return Err(Error::Invalid(format!("{} nodes do not fit {} /16 prefixes", k.n, k.p)));
    }
    if m > k.n * (k.n - 1) / 2 {
        return Err(Error::Invalid(format!("{m} edges do not fit {} nodes", k.n)));
    }
    let mut s = Stream::new(material, Width::W64);
    let all = prefixes();
    let chosen: Vec<(u8, u8)> = s.subset(all.len(), k.p).into_iter().map(|i| all[i]).collect();
    let app: Vec<Option<&str>> = (0..k.p).map(|_| APP_LABELS.get(s.index(4)).copied()).collect();
    // Membership only (never iterated), so a hash set: a large mock draws 100,000 addresses.
    // Sized up front: growing it rehashes every address drawn so far.
    let mut taken = FxHashSet::with_capacity_and_hasher(k.n, Default::default());
    let mut nodes = Vec::with_capacity(k.n);
    for _ in 0..k.n {
        let p = s.index(k.p);
        let suffix = loop {
            let x = 1 + s.below(65_534) as u16;
            if taken.insert((p, x)) {
                break x;
            }
        };
        // Room for all three labels, so adding the others never moves the list.
        let mut labels = Vec::with_capacity(3);
        labels.push("type=VM".to_string());
        let keeps = s.below(10) != 0;
        if let (Some(l), true) = (app[p], keeps) {
            labels.push(l.to_string());
        }
        if s.chance(1, 2) {
            labels.push(s.choose(&TIERS).to_string());
        }
        let (a, b) = chosen[p];
        nodes.push((format!("{a}.{b}.{}.{}", suffix >> 8, suffix & 255), labels));
    }
    let edges = edges(&mut s, k.n, m);
    Ok(Mock { nodes, edges })
}

/// `m` distinct undirected edges over `n` nodes, G(n, M): pairs redrawn on a self-loop or a
/// repeat; when `m` is over half the pairs the non-edges are drawn instead. Weights follow,
/// edge by edge in (smaller, larger) order.
fn edges(s: &mut Stream, n: usize, m: usize) -> Vec<(usize, usize, [i64; 3])> {
    let pairs = n * (n - 1) / 2;
    let complement = m > pairs / 2;
    let want = if complement { pairs - m } else { m };
    // The drawn pairs in a hash set for the repeat test and a list sorted once at the end,
    // rather than an ordered set searched on every draw (a large mock draws millions).
    let mut set = FxHashSet::with_capacity_and_hasher(want, Default::default());
    let mut drawn = Vec::with_capacity(want);
    while drawn.len() < want {
        let (u, v) = (s.index(n), s.index(n));
        if u != v && set.insert((u.min(v), u.max(v))) {
            drawn.push((u.min(v), u.max(v)));
        }
    }
    let chosen: Vec<(usize, usize)> = if complement {
        (0..n).flat_map(|u| (u + 1..n).map(move |v| (u, v))).filter(|p| !set.contains(p)).collect()
    } else {
        drawn.sort_unstable();
        drawn
    };
    chosen
        .into_iter()
        .map(|(u, v)| {
            let conn = 1 + s.below(50) as i64;
            let pkts = conn * (3 + s.below(198) as i64);
            let bytes = pkts * (60 + s.below(1441) as i64);
            (u, v, [bytes, conn, pkts])
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;

    #[test]
    fn draws_are_seeded_distinct_and_sized() {
        let k = MockKnobs { n: 60, p: 4, e: MockKnobs::default_density(60) };
        let a = mock("m", k).unwrap();
        assert_eq!(a, mock("m", k).unwrap());
        assert_ne!(a, mock("m2", k).unwrap());
        assert_eq!(a.edges.len(), (102 * 60 * 59 / 2000) as usize);
        let ips: BTreeSet<&String> = a.nodes.iter().map(|n| &n.0).collect();
        assert_eq!(ips.len(), 60);
        let dense = mock("m", MockKnobs { n: 10, p: 1, e: 1000 }).unwrap();
        assert_eq!(dense.edges.len(), 45);
        assert!(mock("m", MockKnobs { n: 5, p: 1, e: 1 }).is_err());
    }

    #[test]
    fn an_edge_count_draws_the_knobs_draw_with_that_many_edges() {
        let k = MockKnobs { n: 60, p: 4, e: MockKnobs::default_density(60) };
        let by_knob = mock("m", k).unwrap();
        assert_eq!(mock_with_edges("m", k, by_knob.edges.len()).unwrap(), by_knob);
        let sparse = mock_with_edges("m", k, 90).unwrap();
        assert_eq!((sparse.nodes, sparse.edges.len()), (by_knob.nodes, 90));
        assert!(mock_with_edges("m", k, 60 * 59 / 2).is_ok());
        assert!(mock_with_edges("m", k, 60 * 59 / 2 + 1).is_err());
    }
}
