//! NeMoEval's own mock graph, seeded (docs/traffic.md, "NeMoEval-compatible modes"): the
//! generator behind its `node10.json`/`node50.json`, redrawn from the graph's stream so the
//! same id gives the same graph. Every node is a VM in one of the three /16s NeMoEval's
//! questions name (149.196, 15.76, 10.55); every ordered pair of nodes is joined with a fixed
//! chance and draws exponential byte, connection and packet weights, and the two directions
//! of a pair add up into one undirected edge, as NeMoEval consolidates its directed rows.

use std::collections::{BTreeMap, BTreeSet};

use rand::RngCore;

use crate::error::{Error, Result};
use crate::flows::graph::Graph;
use crate::seed::{Stream, Width};

/// The /16s a node is drawn from, uniformly, in this order.
pub const PREFIXES: [(u8, u8); 3] = [(149, 196), (15, 76), (10, 55)];
/// Nodes when the id has no `n` knob: NeMoEval's larger graph, `node50.json`.
pub const DEFAULT_NODES: usize = 50;
/// The most nodes: the pair loop is quadratic (4 million chance draws at 2,000).
pub const MAX_NODES: usize = 2_000;
/// The chance in ‰ of each ordered pair when the id has no `e` knob: two directions at 5 %
/// each give an undirected density of 9.75 %, near `node50.json`'s 9.3 %.
pub const DEFAULT_DENSITY: u64 = 50;
/// The exponential scales of the byte, connection and packet weights, in that draw order.
const SCALES: [f64; 3] = [0.5, 1.0, 1.5];

/// The nemo mock's knobs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NemoKnobs {
    /// Nodes, 10..=2,000.
    pub n: usize,
    /// The chance in ‰ that an ordered pair draws weights, 1..=1000.
    pub e: u64,
}

impl NemoKnobs {
    pub fn check(&self) -> Result<()> {
        if !(10..=MAX_NODES).contains(&self.n) {
            return Err(Error::Invalid(format!(
                "knob n must be 10..{MAX_NODES} with m=nemo, got {}",
                self.n
            )));
        }
        if !(1..=1000).contains(&self.e) {
            return Err(Error::Invalid(format!("knob e must be 1..1000, got {}", self.e)));
        }
        Ok(())
    }
}

/// A drawn nemo mock: node addresses in draw order, and undirected edges `(i, j)` with
/// `i < j` (draw positions) in that order, weights `[byte, connection, packet]`.
#[derive(Debug, Clone, PartialEq)]
pub struct NemoMock {
    pub ips: Vec<String>,
    pub edges: Vec<(usize, usize, [f64; 3])>,
}

impl NemoMock {
    /// The graph: every node labelled `type=VM` only, default colour and size.
    pub fn graph(&self) -> Graph {
        let nodes: Vec<(String, Vec<String>)> =
            self.ips.iter().map(|ip| (ip.clone(), vec!["type=VM".to_string()])).collect();
        Graph::from_float_parts(&nodes, &self.edges)
    }
}

/// A raw 64-bit word as a uniform float in [0, 1): its top 53 bits times 2⁻⁵³, so every
/// value is exact and 1 is never reached.
pub fn unit_of(word: u64) -> f64 {
    (word >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

/// An exponential draw of mean `scale` by inversion, −scale·ln(1 − U): 1 − U lies in (0, 1],
/// so the logarithm is finite. `libm`, not `f64::ln`, so wasm and native print the same bytes.
fn exponential(s: &mut Stream, scale: f64) -> f64 {
    -scale * libm::log(1.0 - unit_of(s.rng().next_u64()))
}

/// Draws the nemo mock of `material` (the graph's seed material). Draw order: per node its
/// /16 (uniform over [`PREFIXES`]) then its host part 1..65,535, redrawn until the address is
/// new; then for every ordered pair (i, j), i ≠ j, i outer, a `chance(e, 1000)` and, when it
/// hits, the byte, connection and packet weights.
pub fn nemo_mock(material: &str, k: NemoKnobs) -> Result<NemoMock> {
    k.check()?;
    let mut s = Stream::new(material, Width::W64);
    let mut taken = BTreeSet::new();
    let mut ips = Vec::with_capacity(k.n);
    for _ in 0..k.n {
        let (a, b) = PREFIXES[s.index(PREFIXES.len())];
        let host = loop {
            let x = 1 + s.below(65_535) as u32;
            if taken.insert((a, b, x)) {
                break x;
            }
        };
        ips.push(format!("{a}.{b}.{}.{}", host >> 8, host & 255));
    }
    let mut sums: BTreeMap<(usize, usize), [f64; 3]> = BTreeMap::new();
    for i in 0..k.n {
        for j in (0..k.n).filter(|&j| j != i) {
            if !s.chance(k.e, 1000) {
                continue;
            }
            let w = SCALES.map(|scale| exponential(&mut s, scale));
            let sum = sums.entry((i.min(j), i.max(j))).or_insert([0.0; 3]);
            sum.iter_mut().zip(w).for_each(|(x, y)| *x += y);
        }
    }
    Ok(NemoMock { ips, edges: sums.into_iter().map(|((i, j), w)| (i, j, w)).collect() })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn draw(material: &str, n: usize, e: u64) -> NemoMock {
        nemo_mock(material, NemoKnobs { n, e }).unwrap()
    }

    #[test]
    fn unit_covers_zero_to_just_below_one() {
        assert_eq!(unit_of(0), 0.0);
        assert_eq!(unit_of(u64::MAX), 1.0 - f64::EPSILON / 2.0);
        assert_eq!(unit_of(1 << 63), 0.5);
    }

    #[test]
    fn draws_are_seeded_with_unique_addresses_in_the_three_prefixes() {
        let a = draw("m", DEFAULT_NODES, DEFAULT_DENSITY);
        assert_eq!(a, draw("m", DEFAULT_NODES, DEFAULT_DENSITY));
        assert_ne!(a, draw("m2", DEFAULT_NODES, DEFAULT_DENSITY));
        assert_eq!(a.ips.iter().collect::<BTreeSet<_>>().len(), DEFAULT_NODES);
        let prefixes: BTreeSet<String> =
            a.ips.iter().map(|ip| ip.split('.').take(2).collect::<Vec<_>>().join(".")).collect();
        let allowed: BTreeSet<String> = PREFIXES.iter().map(|(x, y)| format!("{x}.{y}")).collect();
        assert!(prefixes.is_subset(&allowed), "{prefixes:?}");
        // Fifty nodes over three prefixes: each is all but certain to be used.
        assert_eq!(prefixes.len(), 3);
        for ip in &a.ips {
            let host: Vec<u32> = ip.split('.').skip(2).map(|x| x.parse().unwrap()).collect();
            assert!((1..=65_535).contains(&(host[0] * 256 + host[1])), "{ip}");
        }
    }

    #[test]
    fn density_is_the_chance_of_either_direction() {
        // 200 nodes: 19,900 pairs, each an edge with chance 1 − (1 − 0.05)² = 0.0975
        // (standard deviation 0.0021).
        let m = draw("density", 200, 50);
        let density = m.edges.len() as f64 / 19_900.0;
        assert!((density - 0.0975).abs() < 0.01, "{density}");
        assert_eq!(draw("full", 10, 1000).edges.len(), 45);
        let sparse = draw("sparse", 100, 1).edges.len() as f64 / 4_950.0;
        assert!(sparse < 0.006, "{sparse}");
    }

    #[test]
    fn weights_are_positive_exponentials_in_byte_connection_packet_order() {
        let m = draw("weights", 200, 50);
        assert!(m.edges.iter().all(|(i, j, w)| i < j && w.iter().all(|&x| x > 0.0 && x.is_finite())));
        let mean = |k: usize| m.edges.iter().map(|e| e.2[k]).sum::<f64>() / m.edges.len() as f64;
        // The scales are 0.5, 1 and 1.5 per direction; both directions scale alike, so the
        // means stand as 1 : 2 : 3 (about 1,900 edges: a few percent of noise).
        let (b, c, p) = (mean(0), mean(1), mean(2));
        assert!((c / b - 2.0).abs() < 0.3, "{b} {c}");
        assert!((p / b - 3.0).abs() < 0.45, "{b} {p}");
        // An edge is one direction or both: its byte mean lies between 0.5 and 1.
        assert!((0.45..0.6).contains(&b), "{b}");
    }

    #[test]
    fn node_link_export_is_nemoevals_schema() {
        let m = draw("export", DEFAULT_NODES, DEFAULT_DENSITY);
        let doc = m.graph().to_json();
        let nodes = doc["nodes"].as_array().unwrap();
        let links = doc["links"].as_array().unwrap();
        assert_eq!((nodes.len(), links.len()), (DEFAULT_NODES, m.edges.len()));
        for n in nodes {
            let keys: Vec<&str> = n.as_object().unwrap().keys().map(String::as_str).collect();
            assert_eq!(keys.len(), 5, "{n}");
            assert_eq!(n["id"], n["ip_address"]);
            assert_eq!(n["labels"], serde_json::json!(["type=VM"]));
            assert_eq!((n["color"].as_str(), n["size"].as_i64()), (Some("steelblue"), Some(4)));
        }
        let number = |v: &serde_json::Value| -> u32 {
            v.as_str().unwrap().parse::<std::net::Ipv4Addr>().unwrap().into()
        };
        for l in links {
            assert!(number(&l["source"]) < number(&l["target"]), "{l}");
            assert_eq!((&l["source"], &l["target"]), (&l["source_ip_address"], &l["target_ip_address"]));
            for w in crate::flows::graph::WEIGHTS {
                assert!(l[w].as_f64().is_some_and(|x| x > 0.0), "{l}");
            }
        }
        // Each link carries its pair's drawn sums, and prints them shortest round-trip:
        // parsing the text gives the same floats back.
        let drawn: BTreeMap<(u32, u32), [f64; 3]> = m
            .edges
            .iter()
            .map(|&(i, j, w)| {
                let (a, b) = (number(&m.ips[i].clone().into()), number(&m.ips[j].clone().into()));
                ((a.min(b), a.max(b)), w)
            })
            .collect();
        let text = serde_json::to_string(&doc).unwrap();
        let back: serde_json::Value = serde_json::from_str(&text).unwrap();
        for l in back["links"].as_array().unwrap() {
            let w = crate::flows::graph::WEIGHTS.map(|k| l[k].as_f64().unwrap());
            assert_eq!(drawn[&(number(&l["source"]), number(&l["target"]))], w, "{l}");
        }
    }

    #[test]
    fn bad_knobs_are_refused() {
        for (n, e) in [(9, 50), (2_001, 50), (50, 0), (50, 1001)] {
            assert!(nemo_mock("m", NemoKnobs { n, e }).is_err(), "{n} {e}");
        }
    }
}
