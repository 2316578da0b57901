//! The property-checked families (docs/traffic.md, "Property families"): colour by prefix,
//! bisection, balanced cut, k-means and heat map have many valid answers, so the working graph
//! is checked against the family's rules instead of against one expected graph. This module
//! holds what a check needs (resolved at generation), the check with its explanations, and
//! the native witness that becomes the card's expected graph.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use serde_json::Value;

use super::check::colour;
use super::family::{COLORS, PREFIX_MASK, Query, View, cidr, ip_number};
use super::kmeans;
use super::nemo_check::{self, Looser};
use crate::flows::graph::Graph;
use crate::malt::api::Py;

/// The heat-map ramp, coldest first; a palette of m colours takes the indexes ⌊i·5/(m−1)⌋.
pub const RAMP: [&str; 6] = ["#0000ff", "#00ffff", "#00ff00", "#ffff00", "#ff7f00", "#ff0000"];

/// The palette of `m` (3..6) colours.
pub fn palette(m: usize) -> Vec<String> {
    (0..m).map(|i| RAMP[i * 5 / (m - 1)].to_string()).collect()
}

/// The colour the witness gives the prefix of rank `i`: an odd multiplier is a bijection
/// modulo 2²⁴, so any number of prefixes get distinct colours.
pub fn prefix_colour(i: usize) -> String {
    format!("#{:06x}", (i as u64 * 40503) % (1 << 24))
}

/// What checking one property question needs, resolved from the base graph.
#[derive(Debug, Clone)]
pub struct Spec {
    pub query: Query,
    /// The view's (shared).
    pub ips: Arc<[String]>,
    pub labels: Arc<[Vec<String>]>,
    /// Each node's /16 prefix, as the rank of the prefix in address order.
    pub prefix: Vec<usize>,
    pub prefixes: Vec<String>,
    /// Each node's total byte weight.
    pub totals: Vec<i64>,
    pub edges: Vec<(usize, usize)>,
    /// The least within-cluster sum of squared deviations (k-means only, else 0).
    pub opt: f64,
    /// Where the optimum's clusters start and end in the sorted totals (k-means only, else
    /// empty): the witness's clusters, without solving the program again.
    pub cuts: Vec<usize>,
    /// Another reading that passes as well (NeMoEval's question 14: a balanced cut or a
    /// bisection); the verdict records which one held.
    pub alt: Option<Box<Spec>>,
    /// What one unit of `totals` weighs (the view's, `View::unit`), for the explanations.
    pub unit: f64,
    /// NeMoEval's looser reading of the question (`nemo_check`), replacing the family's rule.
    pub nemo: Option<Looser>,
}

/// A check's outcome: whether every rule holds, how many of the constraints do, and the
/// violations in words (the first few).
#[derive(Debug, Clone, PartialEq)]
pub struct Verdict {
    pub ok: bool,
    pub satisfied: usize,
    pub total: usize,
    pub problems: Vec<String>,
    /// The family whose reading held, when the spec has two readings.
    pub reading: Option<&'static str>,
}

/// Constraint bookkeeping while checking.
pub(super) struct Tally {
    satisfied: usize,
    total: usize,
    problems: Vec<String>,
    violated: usize,
}

impl Tally {
    pub(super) fn new() -> Tally {
        Tally { satisfied: 0, total: 0, problems: Vec::new(), violated: 0 }
    }
    /// One constraint: held, or broken for the reason `why` gives.
    pub(super) fn rule(&mut self, held: bool, why: impl FnOnce() -> String) {
        self.total += 1;
        if held {
            self.satisfied += 1;
        } else {
            self.violated += 1;
            if self.problems.len() < 8 {
                self.problems.push(why());
            }
        }
    }
    /// Takes in another tally's constraints (a reading chosen among several).
    pub(super) fn absorb(&mut self, other: Tally) {
        self.satisfied += other.satisfied;
        self.total += other.total;
        self.violated += other.violated;
        self.problems.extend(other.problems);
    }
    pub(super) fn satisfied(&self) -> usize {
        self.satisfied
    }
    pub(super) fn ok(&self) -> bool {
        self.violated == 0
    }
    pub(super) fn verdict(mut self) -> Verdict {
        if self.violated > self.problems.len() {
            self.problems.push(format!("… {} more", self.violated - self.problems.len()));
        }
        Verdict {
            ok: self.violated == 0,
            satisfied: self.satisfied,
            total: self.total,
            problems: self.problems,
            reading: None,
        }
    }
}

impl Spec {
    /// The spec of a property query on `v`, or why the graph cannot ask it.
    pub fn new(query: &Query, v: &View) -> Result<Spec, String> {
        // Prefixes as numbers, turned into text once each: a string per node was a tenth of
        // generating a k-means question at 10,000 nodes.
        let keys: Vec<u32> = v.ips.iter().map(|ip| ip_number(ip) & PREFIX_MASK).collect();
        let mut distinct_keys = keys.clone();
        distinct_keys.sort_unstable();
        distinct_keys.dedup();
        let totals = v.totals(0);
        let ordered = sorted(&totals);
        let distinct = ordered.len() - ordered.windows(2).filter(|w| w[0] == w[1]).count();
        let (opt, cuts) = match query {
            Query::Kmeans { k, .. } if distinct < (*k).max(2) => {
                return Err(format!("the nodes have {distinct} distinct total byte weights, fewer than {k}"));
            }
            Query::Heatmap { .. } if distinct < 2 => {
                return Err(
                    "every node has the same total byte weight: a heat map has no coldest and hottest".into(),
                );
            }
            Query::Kmeans { k, .. } => kmeans::optimal(&ordered, *k),
            _ => (0.0, Vec::new()),
        };
        Ok(Spec {
            query: query.clone(),
            ips: v.ips.clone(),
            labels: v.labels.clone(),
            prefix: keys.iter().map(|k| distinct_keys.partition_point(|d| d < k)).collect(),
            prefixes: distinct_keys.into_iter().map(|k| cidr(k, 16)).collect(),
            totals,
            edges: v.edges.keys().copied().collect(),
            opt,
            cuts,
            alt: None,
            unit: v.unit,
            nemo: None,
        })
    }

    /// This spec with a second reading that passes as well.
    pub fn or(mut self, alt: Spec) -> Spec {
        self.alt = Some(Box::new(alt));
        self
    }

    /// The family name of a spec's reading.
    fn reading(&self) -> &'static str {
        if let Some(n) = &self.nemo {
            return n.name();
        }
        match self.query {
            Query::Bisect { .. } => "bisect",
            Query::CutBalanced { .. } => "cut-balanced",
            Query::Kmeans { .. } => "kmeans",
            Query::Heatmap { .. } => "heatmap",
            _ => "color-prefix",
        }
    }

    /// The rule in words, for the card (both readings when there are two).
    pub fn rule(&self) -> String {
        match &self.alt {
            Some(alt) => format!("either {}; or {}", self.rule_one(), alt.rule_one()),
            None => self.rule_one(),
        }
    }

    fn rule_one(&self) -> String {
        if let Some(n) = &self.nemo {
            return n.rule(self);
        }
        match &self.query {
            Query::ColorPrefix => {
                "nodes of one /16 share a colour; different /16s have different colours".into()
            }
            Query::Bisect { c1, c2 } => {
                format!("every node {c1} or {c2}; the two counts differ by at most 1")
            }
            Query::CutBalanced { c1, c2, d } => format!(
                "every node {c1} or {c2}; edges with both ends {c1} and with both ends {c2} differ by at most {d}"
            ),
            Query::Kmeans { k, color } => format!(
                "one label cluster=i per node, i in 0..{}, each used, other labels kept; sum of squared deviations \
                 of the total byte weights at most the optimum {}{}",
                k - 1,
                self.opt * self.unit * self.unit,
                if *color { "; one distinct colour per cluster" } else { "" }
            ),
            Query::Heatmap { palette, .. } => format!(
                "colours from {}; a heavier node never colder; the lightest {}, the heaviest {}",
                palette.join(", "),
                palette[0],
                palette[palette.len() - 1]
            ),
            _ => String::new(),
        }
    }

    /// Checks the final graph (a node-link document) against the rule; with two readings,
    /// either passes and the verdict names the one that held (the first when both do).
    pub fn check(&self, graph: &Value) -> Verdict {
        let mine = self.check_one(graph);
        let Some(alt) = &self.alt else { return mine };
        if mine.ok {
            return Verdict { reading: Some(self.reading()), ..mine };
        }
        let other = alt.check_one(graph);
        if other.ok {
            return Verdict { reading: Some(alt.reading()), ..other };
        }
        let mut v = mine;
        if let Some(p) = other.problems.first() {
            v.problems.push(format!("nor as {}: {p}", alt.reading()));
        }
        v
    }

    fn check_one(&self, graph: &Value) -> Verdict {
        let by_id: BTreeMap<&str, &Value> = graph["nodes"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|n| Some((n["id"].as_str()?, n)))
            .collect();
        let mut t = Tally::new();
        // Every node must still be there to be assigned.
        let mut nodes: Vec<Option<&Value>> = Vec::with_capacity(self.ips.len());
        for ip in self.ips.iter() {
            let n = by_id.get(ip.as_str()).copied();
            if n.is_none() {
                t.rule(false, || format!("node {ip} is missing"));
            }
            nodes.push(n);
        }
        let colours: Vec<String> = nodes
            .iter()
            .map(|n| n.map_or(String::new(), |n| colour(n["color"].as_str().unwrap_or(""))))
            .collect();
        if let Some(n) = &self.nemo {
            let read = nemo_check::check(self, n, &nodes, &colours, &mut t);
            return Verdict { reading: read, ..t.verdict() };
        }
        match &self.query {
            Query::ColorPrefix => self.check_prefix(&colours, &mut t),
            Query::Bisect { c1, c2 } => self.check_bisect(&colours, [c1, c2], &mut t),
            Query::CutBalanced { c1, c2, d } => self.check_cut(&colours, [c1, c2], *d, &mut t),
            Query::Kmeans { k, color } => self.check_kmeans(&nodes, &colours, *k, *color, &mut t),
            Query::Heatmap { palette, .. } => self.check_heatmap(&colours, palette, &mut t),
            _ => {}
        }
        t.verdict()
    }

    fn check_prefix(&self, colours: &[String], t: &mut Tally) {
        let mut groups: Vec<BTreeMap<&str, usize>> = vec![BTreeMap::new(); self.prefixes.len()];
        for (u, c) in colours.iter().enumerate() {
            *groups[self.prefix[u]].entry(c).or_default() += 1;
        }
        // Each group's most common colour stands for it in the comparison between groups.
        let mut owners: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
        for (g, counts) in groups.iter().enumerate() {
            t.rule(counts.len() <= 1, || {
                let shown: Vec<String> = counts
                    .iter()
                    .map(|(c, n)| format!("{c} ({n} node{})", if *n == 1 { "" } else { "s" }))
                    .collect();
                format!("prefix {} has {} colours: {}", self.prefixes[g], counts.len(), shown.join(", "))
            });
            if let Some((c, _)) = counts.iter().max_by_key(|(c, n)| (**n, std::cmp::Reverse(**c))) {
                owners.entry(c).or_default().push(g);
            }
        }
        // One rule per group for its own colour: no other group's colour is the same.
        for gs in owners.values() {
            for _ in gs {
                t.rule(gs.len() == 1, || {
                    let names: Vec<&str> = gs.iter().take(4).map(|&i| self.prefixes[i].as_str()).collect();
                    format!("prefixes {} share one colour", names.join(", "))
                });
            }
        }
    }

    /// Each node's side (0 or 1) when its colour is one of the two, with a rule per node.
    fn sides(&self, colours: &[String], two: [&String; 2], t: &mut Tally) -> Vec<Option<usize>> {
        let want = [colour(two[0]), colour(two[1])];
        colours
            .iter()
            .enumerate()
            .map(|(u, c)| {
                let side = want.iter().position(|w| w == c);
                t.rule(side.is_some(), || {
                    format!("node {} is {c}, not {} or {}", self.ips[u], two[0], two[1])
                });
                side
            })
            .collect()
    }

    fn check_bisect(&self, colours: &[String], two: [&String; 2], t: &mut Tally) {
        let sides = self.sides(colours, two, t);
        let count = |s: usize| sides.iter().filter(|x| **x == Some(s)).count();
        let (a, b) = (count(0), count(1));
        t.rule(a.abs_diff(b) <= 1, || {
            format!(
                "{} has {a} nodes and {} {b}: the sizes differ by {}, at most 1",
                two[0],
                two[1],
                a.abs_diff(b)
            )
        });
    }

    fn check_cut(&self, colours: &[String], two: [&String; 2], d: i64, t: &mut Tally) {
        let sides = self.sides(colours, two, t);
        let inside = |s: usize| {
            self.edges.iter().filter(|(a, b)| sides[*a] == Some(s) && sides[*b] == Some(s)).count()
        };
        let (a, b) = (inside(0) as i64, inside(1) as i64);
        t.rule((a - b).abs() <= d, || {
            format!(
                "{a} edges have both ends {} and {b} both ends {}: the difference {} is more than {d}",
                two[0],
                two[1],
                (a - b).abs()
            )
        });
    }

    fn check_kmeans(&self, nodes: &[Option<&Value>], colours: &[String], k: usize, col: bool, t: &mut Tally) {
        let mut cluster: Vec<Option<usize>> = vec![None; self.ips.len()];
        for (u, n) in nodes.iter().enumerate() {
            let Some(n) = n else { continue };
            let labels: Vec<String> = n["labels"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|l| l.as_str().map(String::from))
                .collect();
            let (tags, rest): (Vec<&String>, Vec<&String>) =
                labels.iter().partition(|l| l.starts_with("cluster="));
            let ip = &self.ips[u];
            let parsed = match tags.as_slice() {
                [one] => one["cluster=".len()..].parse::<usize>().ok().filter(|i| *i < k),
                _ => None,
            };
            t.rule(parsed.is_some(), || match tags.as_slice() {
                [] => format!("node {ip} has no cluster label"),
                [one] => format!("node {ip} has {one}, not one of cluster=0 to cluster={}", k - 1),
                many => format!("node {ip} has {} cluster labels", many.len()),
            });
            cluster[u] = parsed;
            let kept: BTreeSet<&String> = rest.into_iter().collect();
            let base: BTreeSet<&String> = self.labels[u].iter().collect();
            t.rule(kept == base, || {
                let lost: Vec<&&String> = base.difference(&kept).collect();
                let added: Vec<&&String> = kept.difference(&base).collect();
                format!("node {ip}'s other labels changed: lost {lost:?}, gained {added:?}")
            });
        }
        let used: BTreeSet<usize> = cluster.iter().flatten().copied().collect();
        t.rule(used.len() == k, || {
            let unused: Vec<String> =
                (0..k).filter(|i| !used.contains(i)).map(|i| format!("cluster={i}")).collect();
            format!("no node has {}", unused.join(", "))
        });
        if cluster.iter().all(Option::is_some) {
            let mut groups = vec![Vec::new(); k];
            for (u, c) in cluster.iter().enumerate() {
                groups[c.unwrap_or(0)].push(self.totals[u]);
            }
            let sse: f64 = groups.iter().map(|g| kmeans::sse(g)).sum();
            let bound = self.opt * (1.0 + 1e-9) + 1e-9;
            t.rule(sse <= bound, || {
                format!(
                    "the clusters' sum of squared deviations of the total byte weights is {}, more than the optimum {}",
                    sse * self.unit * self.unit,
                    self.opt * self.unit * self.unit
                )
            });
        }
        if col {
            let mut per: BTreeMap<usize, BTreeSet<&str>> = BTreeMap::new();
            for (u, c) in cluster.iter().enumerate() {
                if let Some(c) = c {
                    per.entry(*c).or_default().insert(colours[u].as_str());
                }
            }
            for (c, cs) in &per {
                t.rule(cs.len() == 1, || format!("cluster={c} has {} colours: {:?}", cs.len(), cs));
            }
            let firsts: Vec<&str> = per.values().filter_map(|cs| cs.iter().next().copied()).collect();
            let distinct: BTreeSet<&str> = firsts.iter().copied().collect();
            t.rule(distinct.len() == firsts.len(), || "two clusters share a colour".to_string());
        }
    }

    fn check_heatmap(&self, colours: &[String], palette: &[String], t: &mut Tally) {
        let index: Vec<Option<usize>> =
            colours.iter().map(|c| palette.iter().position(|p| colour(p) == *c)).collect();
        for (u, i) in index.iter().enumerate() {
            t.rule(i.is_some(), || format!("node {} is {}, not a palette colour", self.ips[u], colours[u]));
        }
        // Nodes by total; between consecutive totals the colder side's hottest colour must
        // not pass the hotter side's coldest.
        let mut by_total: BTreeMap<i64, Vec<usize>> = BTreeMap::new();
        for (u, &x) in self.totals.iter().enumerate() {
            by_total.entry(x).or_default().push(u);
        }
        let levels: Vec<(&i64, &Vec<usize>)> = by_total.iter().collect();
        let extreme = |us: &[usize], max: bool| {
            let it = us.iter().filter_map(|&u| index[u].map(|i| (i, u)));
            if max { it.max() } else { it.min() }
        };
        for w in levels.windows(2) {
            let (lo, hi) = (extreme(w[0].1, true), extreme(w[1].1, false));
            let held = match (lo, hi) {
                (Some((a, _)), Some((b, _))) => a <= b,
                _ => true,
            };
            t.rule(held, || {
                let ((a, u), (b, v)) = (lo.unwrap_or_default(), hi.unwrap_or_default());
                format!(
                    "node {} (total {}) is {} (colour {} of {}) but the heavier node {} (total {}) is {} (colour {})",
                    self.ips[u],
                    w[0].0,
                    palette[a],
                    a + 1,
                    palette.len(),
                    self.ips[v],
                    w[1].0,
                    palette[b],
                    b + 1
                )
            });
        }
        let last = palette.len() - 1;
        for (name, want, group) in
            [("lightest", 0, levels.first().map(|l| l.1)), ("heaviest", last, levels.last().map(|l| l.1))]
        {
            let off: Vec<&str> = group
                .into_iter()
                .flatten()
                .filter(|&&u| index[u] != Some(want))
                .map(|&u| self.ips[u].as_str())
                .collect();
            t.rule(off.is_empty(), || {
                format!(
                    "the {name} nodes must be {}, and {} is not",
                    palette[want],
                    off.first().copied().unwrap_or("")
                )
            });
        }
    }

    /// The native witness: the change a reference answer makes, through the G API's native
    /// `set` and `add_label`.
    pub fn witness(&self, g: &mut Graph) {
        // The clusters once: the colours and the labels of a k-means witness both need them.
        let clusters = matches!(self.query, Query::Kmeans { .. }).then(|| self.clusters());
        let colours = self.witness_colours(clusters.as_deref());
        // Errors cannot arise (every node is there, colours are strings) and a call's would
        // be ignored, as a reference answer's unchecked calls are.
        for (u, c) in colours.into_iter().enumerate() {
            if let Some(c) = c {
                let _ = g.set(&self.ips[u], "color", Py::Str(c));
            }
        }
        let names: Vec<String> =
            (0..self.cuts.len().saturating_sub(1)).map(|c| format!("cluster={c}")).collect();
        for (u, c) in clusters.into_iter().flatten().enumerate() {
            let _ = g.add_label(&self.ips[u], names[c].clone());
        }
    }

    /// Node indexes in address order.
    fn by_ip(&self) -> Vec<usize> {
        super::family::by_ip(&self.ips)
    }

    /// Each node's optimal cluster, clusters numbered by ascending totals (a k-means spec).
    pub(super) fn clusters(&self) -> Vec<usize> {
        let mut order: Vec<usize> = (0..self.ips.len()).collect();
        // Cached keys: parsing two addresses per comparison was a k-means witness's main cost.
        order.sort_by_cached_key(|&u| (self.totals[u], ip_number(&self.ips[u])));
        // The totals in this order are the sorted totals the optimum was found on.
        let mut out = vec![0; self.ips.len()];
        for (c, w) in self.cuts.windows(2).enumerate() {
            for &u in &order[w[0]..w[1]] {
                out[u] = c;
            }
        }
        out
    }

    /// The colour the witness gives each node (`None`: left as it is); `clusters` are a
    /// k-means question's, from [`Spec::clusters`].
    fn witness_colours(&self, clusters: Option<&[usize]>) -> Vec<Option<String>> {
        let n = self.ips.len();
        match &self.query {
            Query::ColorPrefix => self.prefix.iter().map(|&p| Some(prefix_colour(p))).collect(),
            Query::Bisect { c1, c2 } => {
                let mut out = vec![None; n];
                for (i, u) in self.by_ip().into_iter().enumerate() {
                    out[u] = Some(if i < n.div_ceil(2) { c1 } else { c2 }.clone());
                }
                out
            }
            Query::CutBalanced { c1, c2, d } => {
                // Moving a node from c1 to c2 lowers E(c1) − E(c2) by its degree, from |E| down
                // to −|E|, so some point of the sweep lies within ⌊Δ/2⌋ of zero.
                let mut degree = vec![0i64; n];
                for &(a, b) in &self.edges {
                    degree[a] += 1;
                    degree[b] += 1;
                }
                let mut diff = self.edges.len() as i64;
                let mut out = vec![Some(c1.clone()); n];
                for u in self.by_ip() {
                    if diff.abs() <= *d {
                        break;
                    }
                    out[u] = Some(c2.clone());
                    diff -= degree[u];
                }
                out
            }
            Query::Kmeans { color: true, .. } => {
                clusters.unwrap_or_default().iter().map(|&c| Some(COLORS[c].to_string())).collect()
            }
            Query::Heatmap { palette, .. } => {
                let levels: Vec<i64> =
                    sorted(&self.totals).into_iter().collect::<BTreeSet<_>>().into_iter().collect();
                let top = levels.len().saturating_sub(1).max(1);
                self.totals
                    .iter()
                    .map(|x| {
                        let r = levels.binary_search(x).unwrap_or(0);
                        Some(palette[r * (palette.len() - 1) / top].clone())
                    })
                    .collect()
            }
            _ => vec![None; n],
        }
    }
}

fn sorted(xs: &[i64]) -> Vec<i64> {
    let mut v = xs.to_vec();
    v.sort_unstable();
    v
}
