//! The property checkers against exhaustive enumeration (docs/traffic.md, "Property
//! families"): on random graphs of at most eight nodes every assignment of colours (or cluster
//! labels) from a small domain is run through the checker, and the checker must accept exactly
//! the assignments a brute-force reading of the rule accepts. The brute force is written apart
//! from `prop.rs`: pairwise rules over all node pairs, and the k-means optimum found by trying
//! every clustering rather than by the dynamic program. It also shows that every question the
//! generator could ask on such a graph has a valid answer, and that the witness is one.

use std::collections::{BTreeMap, BTreeSet};

use netpress::traffic::check::colour;
use netpress::traffic::family::{Query, View};
use netpress::traffic::prop::{Spec, palette};
use proptest::prelude::*;
use serde_json::{Value, json};

/// A small graph: node i in the /16 `10.{prefix}` with a host part i + 1, byte weights 1..4
/// so that totals tie often.
#[derive(Debug, Clone)]
struct Small {
    prefixes: Vec<u8>,
    edges: Vec<(usize, usize, i64)>,
}

fn small() -> impl Strategy<Value = Small> {
    (2usize..=8, 1u8..=3).prop_flat_map(|(n, p)| {
        let pairs: Vec<(usize, usize)> = (0..n).flat_map(|a| (a + 1..n).map(move |b| (a, b))).collect();
        let m = pairs.len();
        (
            proptest::collection::vec(0..p, n),
            proptest::collection::vec(proptest::option::weighted(0.4, 1i64..=4), m),
        )
            .prop_map(move |(prefixes, ws)| {
                let edges = pairs.iter().zip(ws).filter_map(|(&(a, b), w)| Some((a, b, w?))).collect();
                Small { prefixes, edges }
            })
    })
}

impl Small {
    fn n(&self) -> usize {
        self.prefixes.len()
    }
    fn view(&self) -> View {
        let n = self.n();
        let mut adj = vec![BTreeSet::new(); n];
        let mut edges = BTreeMap::new();
        for &(a, b, w) in &self.edges {
            adj[a].insert(b);
            adj[b].insert(a);
            edges.insert((a, b), [w, 1, 1]);
        }
        let ips = (0..n).map(|i| format!("10.{}.0.{}", self.prefixes[i], i + 1)).collect();
        View { ips, labels: vec![vec!["type=VM".to_string()]; n].into(), adj, edges, unit: 1.0 }
    }
    fn totals(&self) -> Vec<i64> {
        let mut t = vec![0; self.n()];
        for &(a, b, w) in &self.edges {
            t[a] += w;
            t[b] += w;
        }
        t
    }
    fn degrees(&self) -> Vec<i64> {
        let mut d = vec![0; self.n()];
        for &(a, b, _) in &self.edges {
            d[a] += 1;
            d[b] += 1;
        }
        d
    }
}

/// Every assignment of `domain` values to `n` nodes, as index vectors (domain^n of them).
fn assignments(n: usize, domain: usize) -> impl Iterator<Item = Vec<usize>> {
    (0..domain.pow(n as u32)).map(move |mut code| {
        (0..n)
            .map(|_| {
                let d = code % domain;
                code /= domain;
                d
            })
            .collect()
    })
}

/// The final graph of an answer: the view's nodes with the given colours and label lists.
fn graph(v: &View, colours: &[&str], labels: &[Vec<String>]) -> Value {
    let nodes: Vec<Value> = v
        .ips
        .iter()
        .enumerate()
        .map(|(u, ip)| json!({"id": ip, "ip_address": ip, "color": colours[u], "size": 4, "labels": labels[u]}))
        .collect();
    json!({"nodes": nodes, "links": []})
}

/// Runs every colouring over `domain` through the checker and compares with `valid`; returns
/// how many were valid. Fails the case when the witness is not among them (`witness`: the
/// parameters are ones the generator draws, for which the witness is proven valid).
fn sweep_colours(
    g: &Small,
    q: &Query,
    domain: &[&str],
    valid: impl Fn(&[&str]) -> bool,
    witness: bool,
) -> Result<usize, TestCaseError> {
    let v = g.view();
    let spec = Spec::new(q, &v).map_err(TestCaseError::reject)?;
    let labels = v.labels.clone();
    let mut count = 0;
    let labels_of = labels.clone();
    for a in assignments(g.n(), domain.len()) {
        let colours: Vec<&str> = a.iter().map(|&i| domain[i]).collect();
        let want = valid(&colours);
        let got = spec.check(&graph(&v, &colours, &labels_of)).ok;
        prop_assert_eq!(got, want, "{:?} on {:?}: checker {} brute force {}", colours, g, got, want);
        count += usize::from(want);
    }
    let nodes: Vec<(String, Vec<String>)> = v.ips.iter().cloned().zip(labels.iter().cloned()).collect();
    let edges: Vec<(usize, usize, [i64; 3])> = v.edges.iter().map(|(&(a, b), &w)| (a, b, w)).collect();
    let mut answer = netpress::flows::graph::Graph::from_parts(&nodes, &edges);
    spec.witness(&mut answer);
    prop_assert!(!witness || spec.check(&answer.to_json()).ok, "the witness fails on {:?}", g);
    Ok(count)
}

fn same(a: &str, b: &str) -> bool {
    colour(a) == colour(b)
}

/// Sum of squared deviations of integer values, exactly as a fraction's value.
fn sse(xs: &[i64]) -> f64 {
    if xs.is_empty() {
        return 0.0;
    }
    let (n, s1, s2) = (
        xs.len() as i128,
        xs.iter().map(|&x| x as i128).sum::<i128>(),
        xs.iter().map(|&x| (x as i128) * (x as i128)).sum::<i128>(),
    );
    (s2 * n - s1 * s1) as f64 / n as f64
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 10, max_global_rejects: 10_000, ..ProptestConfig::default() })]

    /// Same /16 ⇔ same colour, over every pair of nodes; three colours for up to three prefixes.
    #[test]
    fn color_prefix_matches_brute_force(g in small()) {
        let pre = g.prefixes.clone();
        let valid = |c: &[&str]| {
            (0..c.len()).all(|u| (0..c.len()).all(|w| (pre[u] == pre[w]) == same(c[u], c[w])))
        };
        let count = sweep_colours(&g, &Query::ColorPrefix, &["red", "blue", "#00f0f0"], valid, true)?;
        let p = pre.iter().collect::<BTreeSet<_>>().len();
        // Injective maps of p prefixes into three colours: 3!/(3−p)!.
        prop_assert_eq!(count, (4 - p..=3).product::<usize>());
    }

    /// Two colours only (a third in the domain), sizes at most one apart.
    #[test]
    fn bisect_matches_brute_force(g in small()) {
        let q = Query::Bisect { c1: "red".into(), c2: "blue".into() };
        let valid = |c: &[&str]| {
            let a = c.iter().filter(|x| same(x, "red")).count();
            let b = c.iter().filter(|x| same(x, "blue")).count();
            a + b == c.len() && a.abs_diff(b) <= 1
        };
        prop_assert!(sweep_colours(&g, &q, &["red", "#0000FF", "green"], valid, true)? > 0);
    }

    /// Edges inside each colour counted pair by pair; D = ⌊Δ/2⌋ as generated always leaves a
    /// valid answer, and a tighter D (down to 0) is checked the same way.
    #[test]
    fn cut_balanced_matches_brute_force(g in small(), tighter in any::<bool>()) {
        let delta = g.degrees().into_iter().max().unwrap_or(0);
        let d = if tighter { 0 } else { delta / 2 };
        let q = Query::CutBalanced { c1: "red".into(), c2: "blue".into(), d };
        let edges = g.edges.clone();
        let valid = |c: &[&str]| {
            let two = c.iter().all(|x| same(x, "red") || same(x, "blue"));
            let inside = |k: &str| edges.iter().filter(|(a, b, _)| same(c[*a], k) && same(c[*b], k)).count() as i64;
            two && (inside("red") - inside("blue")).abs() <= d
        };
        let count = sweep_colours(&g, &q, &["red", "blue", "gray"], valid, !tighter)?;
        if !tighter {
            prop_assert!(count > 0);
        }
    }

    /// Palette colours only; for every pair a lighter node is never hotter; every lightest
    /// node the first colour and every heaviest the last.
    #[test]
    fn heatmap_matches_brute_force(g in small()) {
        let pal = palette(3);
        let q = Query::Heatmap { palette: pal.clone() };
        let t = g.totals();
        let (lo, hi) = (t.iter().min().copied().unwrap_or(0), t.iter().max().copied().unwrap_or(0));
        let valid = |c: &[&str]| {
            let idx: Vec<Option<usize>> = c.iter().map(|x| pal.iter().position(|p| same(p, x))).collect();
            let Some(idx) = idx.into_iter().collect::<Option<Vec<usize>>>() else { return false };
            let monotone = (0..c.len()).all(|u| (0..c.len()).all(|w| t[u] >= t[w] || idx[u] <= idx[w]));
            let ends = (0..c.len()).all(|u| (t[u] != lo || idx[u] == 0) && (t[u] != hi || idx[u] == pal.len() - 1));
            monotone && ends
        };
        let domain: Vec<&str> = pal.iter().map(String::as_str).collect();
        prop_assert!(sweep_colours(&g, &q, &domain, valid, true)? > 0);
    }

    /// Every labelling with one cluster label per node (k ∈ {2, 3}): valid when every cluster
    /// is used and the sum of squared deviations is the least over all such labellings.
    #[test]
    fn kmeans_matches_brute_force(g in small(), k in 2usize..=3) {
        let v = g.view();
        let q = Query::Kmeans { k, color: false };
        let spec = Spec::new(&q, &v).map_err(TestCaseError::reject)?;
        let t = g.totals();
        let cost = |a: &[usize]| -> Option<f64> {
            let groups: Vec<Vec<i64>> = (0..k).map(|c| (0..a.len()).filter(|&u| a[u] == c).map(|u| t[u]).collect()).collect();
            groups.iter().all(|x| !x.is_empty()).then(|| groups.iter().map(|x| sse(x)).sum())
        };
        let all: Vec<Vec<usize>> = assignments(g.n(), k).collect();
        let best = all.iter().filter_map(|a| cost(a)).fold(f64::INFINITY, f64::min);
        prop_assert!(best.is_finite());
        let colours = vec!["steelblue"; g.n()];
        let mut valid = 0;
        for a in &all {
            let labels: Vec<Vec<String>> = a.iter().map(|c| vec!["type=VM".to_string(), format!("cluster={c}")]).collect();
            let want = cost(a).is_some_and(|c| c <= best * (1.0 + 1e-9) + 1e-9);
            let got = spec.check(&graph(&v, &colours, &labels)).ok;
            prop_assert_eq!(got, want, "{:?} on {:?}", a, g);
            valid += usize::from(want);
        }
        prop_assert!(valid > 0);
        // A label list without the cluster label, or with a base label dropped, is refused.
        let mut labels: Vec<Vec<String>> = all[0].iter().map(|c| vec![format!("cluster={c}")]).collect();
        prop_assert!(!spec.check(&graph(&v, &colours, &labels)).ok);
        labels[0] = vec!["type=VM".into()];
        prop_assert!(!spec.check(&graph(&v, &colours, &labels)).ok);
    }
}
