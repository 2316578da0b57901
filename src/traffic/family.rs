//! The query families (docs/traffic.md, "Families"): what each asks, its parameters drawn
//! from the query's stream, its two wordings, the native truth and the reference Python.
//!
//! The reference code (`code`) is what the oracle submits and what the baseline emits once it
//! has read a question's parameters back, so both go through the sandbox like any agent.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use serde::Serialize;
use serde_json::{Value, json};

use super::flowq::{FlowQuery, Logs};
use crate::seed::Stream;

pub use super::wording::question;

/// A family, by its label.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Family {
    Count,
    DegreeStat,
    LabelPrefix,
    LabelRemove,
    LabelTable,
    ColorLabel,
    PrefixCount,
    EdgeStat,
    TopDegree,
    ColorExtreme,
    NbrCount,
    NbrColor,
    EdgeFilter,
    LabelGraph,
    PrefixGraph,
    TopTalkers,
    TimeSeries,
    ColorPrefix,
    Bisect,
    CutBalanced,
    MinCut,
    Kmeans,
    Heatmap,
    Cliques,
    PortScan,
    HeavyHitters,
    Compose,
    FlowGraph,
}

// In the order of the family table (docs/traffic.md): an index's family is its position here.
const L1: [Family; 8] = [
    Family::Count,
    Family::DegreeStat,
    Family::LabelPrefix,
    Family::LabelRemove,
    Family::LabelTable,
    Family::ColorLabel,
    Family::PrefixCount,
    Family::EdgeStat,
];
const L2: [Family; 9] = [
    Family::TopDegree,
    Family::ColorExtreme,
    Family::NbrCount,
    Family::NbrColor,
    Family::EdgeFilter,
    Family::LabelGraph,
    Family::PrefixGraph,
    Family::TopTalkers,
    Family::TimeSeries,
];
const L3: [Family; 9] = [
    Family::ColorPrefix,
    Family::Bisect,
    Family::CutBalanced,
    Family::MinCut,
    Family::Kmeans,
    Family::Heatmap,
    Family::Cliques,
    Family::PortScan,
    Family::HeavyHitters,
];
const L4: [Family; 2] = [Family::Compose, Family::FlowGraph];

impl Family {
    pub fn of_level(level: u8) -> &'static [Family] {
        match level {
            1 => &L1,
            2 => &L2,
            3 => &L3,
            _ => &L4,
        }
    }

    /// The family of an id's index: the index modulo the level's family count.
    pub fn of_index(level: u8, index: u64) -> Family {
        let families = Family::of_level(level);
        families[(index % families.len() as u64) as usize]
    }

    /// Whether the family reads the flow logs (`process_flows(F, G)` on a tenant).
    pub fn is_flow(self) -> bool {
        matches!(
            self,
            Family::TopTalkers
                | Family::TimeSeries
                | Family::PortScan
                | Family::HeavyHitters
                | Family::FlowGraph
        )
    }

    /// Whether several answers are valid, so the final graph is checked against the family's
    /// rules (`prop`) rather than against one expected graph.
    pub fn is_property(self) -> bool {
        matches!(
            self,
            Family::ColorPrefix | Family::Bisect | Family::CutBalanced | Family::Kmeans | Family::Heatmap
        )
    }

    pub fn id(self) -> &'static str {
        match self {
            Family::Count => "count",
            Family::DegreeStat => "degree-stat",
            Family::LabelPrefix => "label-prefix",
            Family::LabelTable => "label-table",
            Family::LabelRemove => "label-remove",
            Family::ColorLabel => "color-label",
            Family::PrefixCount => "prefix-count",
            Family::EdgeStat => "edge-stat",
            Family::TopDegree => "top-degree",
            Family::ColorExtreme => "color-extreme",
            Family::LabelGraph => "label-graph",
            Family::PrefixGraph => "prefix-graph",
            Family::NbrCount => "nbr-count",
            Family::NbrColor => "nbr-color",
            Family::EdgeFilter => "edge-filter",
            Family::TopTalkers => "top-talkers",
            Family::TimeSeries => "time-series",
            Family::ColorPrefix => "color-prefix",
            Family::Bisect => "bisect",
            Family::CutBalanced => "cut-balanced",
            Family::MinCut => "min-cut",
            Family::Kmeans => "kmeans",
            Family::Heatmap => "heatmap",
            Family::Cliques => "cliques",
            Family::PortScan => "port-scan",
            Family::HeavyHitters => "heavy-hitters",
            Family::Compose => "compose",
            Family::FlowGraph => "flow-graph",
        }
    }

    /// The node attributes (or `-edge`, `-node`) an answer of this family may change; a
    /// composed question's are its steps' and its question's (`compose::scope`).
    pub fn scope(self) -> &'static [&'static str] {
        match self {
            Family::LabelRemove | Family::LabelPrefix => &["labels"],
            // Size only for the case that doubles it (`task`).
            Family::ColorExtreme => &["color", "size"],
            Family::ColorLabel
            | Family::NbrColor
            | Family::ColorPrefix
            | Family::Bisect
            | Family::CutBalanced
            | Family::Heatmap => &["color"],
            // Colours only when the question asks for them (`task`).
            Family::Kmeans => &["labels", "color"],
            Family::EdgeFilter => &["-edge"],
            _ => &[],
        }
    }
}

pub const COLORS: [&str; 10] =
    ["red", "green", "blue", "purple", "orange", "yellow", "pink", "brown", "black", "gray"];
pub const WEIGHT_NAMES: [&str; 3] = ["byte", "connection", "packet"];
/// The labels a label-prefix question adds.
pub const NEW_LABELS: [&str; 5] = ["app:prod", "app:test", "app:dev", "env:blue", "env:green"];

/// An edge-filter threshold statistic.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Stat {
    Median,
    Mean,
    Percentile(u8),
}

/// A resolved question: a family and its parameters.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "family", rename_all = "kebab-case")]
pub enum Query {
    /// Cases `f` (nodes in a /16) and `g` (edges leaving it) are the second version's.
    Count {
        case: char,
        label: Option<String>,
        k: Option<i64>,
        #[serde(skip_serializing_if = "Option::is_none")]
        prefix: Option<String>,
    },
    DegreeStat {
        weight: Option<String>,
    },
    /// Each pair: a /16 written `a.b.0.0/16` and the label its nodes get.
    LabelPrefix {
        pairs: Vec<(String, String)>,
    },
    LabelTable,
    LabelRemove {
        label: String,
    },
    ColorLabel {
        label: String,
        color: String,
    },
    PrefixCount {
        bits: u8,
    },
    EdgeStat {
        label: String,
    },
    TopDegree {
        k: i64,
    },
    /// Case `a` colours the lowest-degree node `c2`; case `b` doubles the highest's size.
    ColorExtreme {
        case: char,
        c1: String,
        c2: Option<String>,
    },
    /// Nodes outside the labels (or, from the second version, outside a /16 `prefix`, with
    /// no labels) that have an edge to one inside.
    NbrCount {
        labels: Vec<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        prefix: Option<String>,
    },
    NbrColor {
        label: String,
        color: String,
    },
    EdgeFilter {
        weight: String,
        strict: bool,
        stat: Stat,
    },
    /// The label graph of the whole graph, or (second version) of the nodes in one /16.
    LabelGraph {
        #[serde(skip_serializing_if = "Option::is_none")]
        prefix: Option<String>,
    },
    PrefixGraph,
    ColorPrefix,
    Bisect {
        c1: String,
        c2: String,
    },
    CutBalanced {
        c1: String,
        c2: String,
        d: i64,
    },
    MinCut {
        u: String,
        v: String,
    },
    Kmeans {
        k: usize,
        color: bool,
    },
    Heatmap {
        palette: Vec<String>,
    },
    /// Every maximal clique, or (second version) those containing `node`.
    Cliques {
        #[serde(skip_serializing_if = "Option::is_none")]
        node: Option<String>,
    },
    /// A step of a composed question only: removing every node without an edge.
    RemoveIsolated,
    /// Level 4: change steps, then a question on the graph they leave (`compose`).
    Compose {
        steps: Vec<Query>,
        question: Box<Query>,
    },
    /// Level 4: a question on the communication graph of the connections starting in the
    /// window `[t1, t2)` (minutes after the trace's start).
    FlowGraph {
        t1: u32,
        t2: u32,
        question: Box<Query>,
    },
    /// A flow-log question (its own `family` tag).
    #[serde(untagged)]
    Flow(FlowQuery),
}

/// What the truth of a question is computed on: the mock as adjacency and weights.
pub struct View {
    /// Shared (as `labels` is) with the property spec of a question asked on the view: ten
    /// thousand nodes' strings were otherwise copied for each such question.
    pub ips: Arc<[String]>,
    pub labels: Arc<[Vec<String>]>,
    pub adj: Vec<BTreeSet<usize>>,
    /// (u, v) with u < v → `[byte, connection, packet]`, in units of `unit`.
    pub edges: BTreeMap<(usize, usize), [i64; 3]>,
    /// What one unit of `edges` weighs: 1 for a graph of integer weights (the standard and
    /// tenant graphs), [`FIXED_UNIT`] for one of float weights (the nemo mock), whose weights
    /// are held in fixed point so that totals, medians and the exact k-means stay integer.
    pub unit: f64,
}

/// The unit of a float-weighted graph's view: 2⁻⁴⁰ (a power of two, so scaling is exact and
/// only the rounding to a whole unit loses anything, under 5·10⁻¹³ per weight).
pub const FIXED_UNIT: f64 = 1.0 / (1u64 << 40) as f64;

impl View {
    pub fn new(mock: &super::mock::Mock) -> View {
        let n = mock.nodes.len();
        // Collected, then built from sorted lists: per-edge inserts into the sets and the map
        // were most of the view's cost at 10,000 nodes. `BTreeMap::from_iter` keeps the last
        // weights of a repeated edge, as repeated inserts did.
        let mut nbrs: Vec<Vec<usize>> = vec![Vec::new(); n];
        for &(u, v, _) in &mock.edges {
            nbrs[u].push(v);
            nbrs[v].push(u);
        }
        let adj: Vec<BTreeSet<usize>> = nbrs
            .into_iter()
            .map(|mut a| {
                a.sort_unstable();
                a.into_iter().collect()
            })
            .collect();
        let edges: BTreeMap<(usize, usize), [i64; 3]> =
            mock.edges.iter().map(|&(u, v, w)| ((u.min(v), u.max(v)), w)).collect();
        let labels = mock.nodes.iter().map(|(_, l)| crate::flows::graph::label_set(l.clone())).collect();
        View { ips: mock.nodes.iter().map(|(ip, _)| ip.clone()).collect(), labels, adj, edges, unit: 1.0 }
    }

    pub(super) fn present_labels(&self) -> Vec<String> {
        self.labels.iter().flatten().cloned().collect::<BTreeSet<_>>().into_iter().collect()
    }

    /// Every node's total of weight `w` (an index into [`WEIGHT_NAMES`]). One pass over the
    /// edges: summing each node's neighbours looked every edge up twice in the map, which was
    /// most of a property question's generation beyond the mock at 10,000 nodes. A node's
    /// neighbours are exactly the other ends of its edges (`new` builds both from one list),
    /// so the sums are the same.
    pub(super) fn totals(&self, w: usize) -> Vec<i64> {
        let mut t = vec![0i64; self.ips.len()];
        for (&(a, b), e) in &self.edges {
            t[a] += e[w];
            if a != b {
                t[b] += e[w];
            }
        }
        t
    }

    /// The component number of each node.
    fn components(&self) -> Vec<usize> {
        let mut comp = vec![usize::MAX; self.ips.len()];
        for start in 0..self.ips.len() {
            if comp[start] != usize::MAX {
                continue;
            }
            comp[start] = start;
            let mut stack = vec![start];
            while let Some(x) = stack.pop() {
                for &y in &self.adj[x] {
                    if comp[y] == usize::MAX {
                        comp[y] = start;
                        stack.push(y);
                    }
                }
            }
        }
        comp
    }

    /// The /16 prefixes present, in address order, written `a.b.0.0/16`.
    pub(super) fn prefixes(&self) -> Vec<String> {
        let set: BTreeSet<(u32, String)> = self
            .ips
            .iter()
            .map(|ip| {
                let p = prefix_of(ip, 16);
                (ip_number(&p[..p.len() - 3]), p)
            })
            .collect();
        set.into_iter().map(|(_, p)| p).collect()
    }

    /// The nodes of the highest and of the lowest degree, ties to the lowest address.
    pub(super) fn extremes(&self) -> (usize, usize) {
        let order = self.by_ip();
        let degree = |u: &usize| self.adj[*u].len();
        // `min_by_key`/`max_by_key` keep the first and the last of equals: reverse for the max.
        let hi = order.iter().rev().max_by_key(|u| degree(u)).copied().unwrap_or(0);
        let lo = order.iter().min_by_key(|u| degree(u)).copied().unwrap_or(0);
        (hi, lo)
    }

    fn index_of(&self, ip: &str) -> Option<usize> {
        self.ips.iter().position(|x| x == ip)
    }

    /// Node indexes in address order.
    fn by_ip(&self) -> Vec<usize> {
        by_ip(&self.ips)
    }
}

/// Indexes of `ips` in address order, ties in index order. Each address is parsed once
/// (`sort_by_cached_key`, stable like `sort_by_key`), not once per comparison.
pub(super) fn by_ip(ips: &[String]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..ips.len()).collect();
    order.sort_by_cached_key(|&i| ip_number(&ips[i]));
    order
}

pub fn ip_number(ip: &str) -> u32 {
    ip.parse::<std::net::Ipv4Addr>().map(u32::from).unwrap_or(u32::MAX)
}

fn weight_index(name: &str) -> usize {
    WEIGHT_NAMES.iter().position(|w| *w == name).unwrap_or(0)
}

/// Draws the parameters of `family` on `view` (flow families on `logs`, which generation
/// always passes for them) as generator `version` does: the second added the /16 and node
/// forms of count, nbr-count, label-graph and cliques (docs/traffic.md, "Versions").
pub fn draw(family: Family, s: &mut Stream, view: &View, logs: Option<&Logs>, version: u32) -> Query {
    let wide = version >= 2;
    let labels = view.present_labels();
    let tagged: Vec<String> = labels.iter().filter(|l| *l != "type=VM").cloned().collect();
    let tagged = if tagged.is_empty() { labels.clone() } else { tagged };
    let color = |s: &mut Stream| s.choose(&COLORS).to_string();
    match family {
        Family::Count => {
            let cases: &[char] =
                if wide { &['a', 'b', 'c', 'd', 'e', 'f', 'g'] } else { &['a', 'b', 'c', 'd', 'e'] };
            let case = *s.choose(cases);
            let label = (case == 'd').then(|| s.choose(&labels).clone());
            let k = (case == 'e').then(|| {
                let degrees: Vec<i64> =
                    view.adj.iter().map(|a| a.len() as i64).collect::<BTreeSet<_>>().into_iter().collect();
                *s.choose(&degrees)
            });
            let prefix = matches!(case, 'f' | 'g').then(|| s.choose(&view.prefixes()).clone());
            Query::Count { case, label, k, prefix }
        }
        Family::DegreeStat => {
            let weighted = s.chance(1, 2);
            Query::DegreeStat { weight: weighted.then(|| s.choose(&WEIGHT_NAMES).to_string()) }
        }
        Family::LabelPrefix => {
            let prefixes = view.prefixes();
            let one = s.chance(1, 2) || prefixes.len() < 2;
            let count = if one { 1 } else { 2 };
            let ps = s.subset(prefixes.len(), count);
            let ls = s.subset(NEW_LABELS.len(), count);
            let pairs = ps.iter().zip(&ls).map(|(&p, &l)| (prefixes[p].clone(), NEW_LABELS[l].to_string()));
            Query::LabelPrefix { pairs: pairs.collect() }
        }
        Family::EdgeStat => {
            let linked: BTreeSet<&String> = (0..view.ips.len())
                .filter(|&u| !view.adj[u].is_empty())
                .flat_map(|u| &view.labels[u])
                .collect();
            let linked: Vec<String> = linked.into_iter().cloned().collect();
            // No edge at all: generation refuses the id (the truth would divide by zero).
            let pool = if linked.is_empty() { &labels } else { &linked };
            Query::EdgeStat { label: s.choose(pool).clone() }
        }
        Family::ColorExtreme => {
            let mut case = *s.choose(&['a', 'b']);
            let two = s.subset(COLORS.len(), 2);
            let (hi, lo) = view.extremes();
            if hi == lo {
                case = 'b';
            }
            let c2 = (case == 'a').then(|| COLORS[two[1]].to_string());
            Query::ColorExtreme { case, c1: COLORS[two[0]].to_string(), c2 }
        }
        Family::LabelGraph => {
            Query::LabelGraph { prefix: (wide && s.chance(1, 2)).then(|| s.choose(&view.prefixes()).clone()) }
        }
        Family::PrefixGraph => Query::PrefixGraph,
        Family::LabelTable => Query::LabelTable,
        Family::LabelRemove => Query::LabelRemove { label: s.choose(&labels).clone() },
        Family::ColorLabel => {
            let label = s.choose(&labels).clone();
            Query::ColorLabel { label, color: color(s) }
        }
        Family::PrefixCount => Query::PrefixCount { bits: *s.choose(&[8, 16, 24]) },
        Family::TopDegree => Query::TopDegree { k: 3 + s.below(8) as i64 },
        Family::NbrCount if wide && s.chance(1, 3) => {
            Query::NbrCount { labels: Vec::new(), prefix: Some(s.choose(&view.prefixes()).clone()) }
        }
        Family::NbrCount => {
            let two = s.chance(1, 2) && tagged.len() >= 2;
            let picked = if two { s.subset(tagged.len(), 2) } else { vec![s.index(tagged.len())] };
            let mut labels: Vec<String> = picked.into_iter().map(|i| tagged[i].clone()).collect();
            labels.sort();
            Query::NbrCount { labels, prefix: None }
        }
        Family::NbrColor => {
            let label = s.choose(&tagged).clone();
            Query::NbrColor { label, color: color(s) }
        }
        Family::EdgeFilter => {
            let weight = s.choose(&WEIGHT_NAMES).to_string();
            let strict = s.chance(1, 2);
            let stat = *s.choose(&[
                Stat::Median,
                Stat::Mean,
                Stat::Percentile(10),
                Stat::Percentile(25),
                Stat::Percentile(75),
                Stat::Percentile(90),
            ]);
            Query::EdgeFilter { weight, strict, stat }
        }
        Family::MinCut => {
            let comp = view.components();
            let linked: Vec<usize> = (0..view.ips.len()).filter(|&u| !view.adj[u].is_empty()).collect();
            if linked.is_empty() {
                return Query::MinCut { u: view.ips[0].clone(), v: view.ips[1].clone() };
            }
            let u = *s.choose(&linked);
            let mates: Vec<usize> = (0..view.ips.len()).filter(|&v| v != u && comp[v] == comp[u]).collect();
            let v = *s.choose(&mates);
            Query::MinCut { u: view.ips[u].clone(), v: view.ips[v].clone() }
        }
        Family::Cliques => Query::Cliques {
            node: (wide && s.chance(1, 2)).then(|| {
                let linked: Vec<&String> =
                    (0..view.ips.len()).filter(|&u| !view.adj[u].is_empty()).map(|u| &view.ips[u]).collect();
                let node = if linked.is_empty() { s.choose(&view.ips) } else { *s.choose(&linked) };
                node.clone()
            }),
        },
        Family::ColorPrefix => Query::ColorPrefix,
        Family::Bisect | Family::CutBalanced => {
            let two = s.subset(COLORS.len(), 2);
            let (c1, c2) = (COLORS[two[0]].to_string(), COLORS[two[1]].to_string());
            if family == Family::Bisect {
                Query::Bisect { c1, c2 }
            } else {
                let d = view.adj.iter().map(BTreeSet::len).max().unwrap_or(0) as i64 / 2;
                Query::CutBalanced { c1, c2, d }
            }
        }
        Family::Kmeans => {
            let distinct = view.totals(0).into_iter().collect::<BTreeSet<_>>().len();
            // At least two clusters, and no more than distinct totals (else one stays empty);
            // a graph with fewer is refused at generation.
            let hi = distinct.clamp(2, 6) as u64;
            let k = 2 + s.below(hi - 1) as usize;
            Query::Kmeans { k, color: s.chance(1, 2) }
        }
        Family::Heatmap => Query::Heatmap { palette: super::prop::palette(3 + s.below(4) as usize) },
        Family::TopTalkers | Family::TimeSeries | Family::PortScan | Family::HeavyHitters => match logs {
            Some(l) => Query::Flow(super::flowq::draw(family.id(), s, l)),
            None => Query::Cliques { node: None },
        },
        // Generation draws level 4 in `compose` (it needs the graph the steps change, or the
        // logs' window); asked here without either, a plain question stands in, as for a
        // flow family without logs above.
        Family::Compose | Family::FlowGraph => Query::Cliques { node: None },
    }
}

pub const LABEL_HEADER: [&str; 2] = ["Label", "Number of Nodes"];
pub const EDGE_HEADER: [&str; 2] = ["Average byte weight", "Average connection weight"];

pub fn degree_header(weight: Option<&str>) -> Vec<String> {
    match weight {
        None => vec!["Max degree".into(), "Min degree".into()],
        Some(w) => vec![format!("Max total {w} weight"), format!("Min total {w} weight")],
    }
}

pub(super) fn py_list<S: AsRef<str>>(items: &[S]) -> String {
    let quoted: Vec<String> = items.iter().map(|s| format!("'{}'", s.as_ref())).collect();
    format!("[{}]", quoted.join(", "))
}

/// The expected value of a read-only question: answer type, data, and whether table rows
/// (after a header) are ordered.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Truth {
    #[serde(rename = "type")]
    pub ty: &'static str,
    pub data: Value,
    pub ordered: bool,
    /// Table rows that come first, in order, whatever `ordered` says.
    pub header: usize,
}

/// A new graph's truth: node-link data (`check::new_graph_ok` compares it).
fn new_graph(nodes: impl Iterator<Item = Value>, links: impl Iterator<Item = Value>) -> Truth {
    let data = json!({"nodes": nodes.collect::<Vec<_>>(), "links": links.collect::<Vec<_>>()});
    Truth { ty: "new", data, ordered: false, header: 0 }
}

fn text(v: i64) -> Truth {
    Truth { ty: "text", data: json!(v), ordered: true, header: 0 }
}

/// The threshold of an edge filter on the sorted weights.
pub fn threshold(sorted: &[i64], stat: Stat) -> f64 {
    let n = sorted.len();
    if n == 0 {
        return 0.0;
    }
    match stat {
        Stat::Median if n % 2 == 1 => sorted[n / 2] as f64,
        Stat::Median => (sorted[n / 2 - 1] as f64 + sorted[n / 2] as f64) / 2.0,
        Stat::Mean => sorted.iter().map(|&x| x as f64).sum::<f64>() / n as f64,
        Stat::Percentile(q) => {
            let rank = (usize::from(q) * n).div_ceil(100).max(1);
            sorted[rank - 1] as f64
        }
    }
}

/// The truth of a read-only question, `None` for a family that changes the graph.
pub fn truth(q: &Query, v: &View) -> Option<Truth> {
    let degree = |u: usize| v.adj[u].len() as i64;
    let n = v.ips.len();
    Some(match q {
        Query::Count { case: 'a', .. } => text(n as i64),
        Query::Count { case: 'b', .. } => text(v.edges.len() as i64),
        Query::Count { case: 'c', .. } => {
            Truth { ty: "list", data: json!([n, v.edges.len()]), ordered: true, header: 0 }
        }
        Query::Count { case: 'd', label, .. } => {
            let l = label.as_deref().unwrap_or("");
            text(v.labels.iter().filter(|ls| ls.iter().any(|x| x == l)).count() as i64)
        }
        Query::Count { case: 'f', prefix, .. } => {
            text(in_prefix(v, prefix).into_iter().filter(|&x| x).count() as i64)
        }
        Query::Count { case: 'g', prefix, .. } => {
            let inside = in_prefix(v, prefix);
            text(v.edges.keys().filter(|(a, b)| inside[*a] != inside[*b]).count() as i64)
        }
        Query::Count { k, .. } => text((0..n).filter(|&u| Some(degree(u)) == *k).count() as i64),
        Query::DegreeStat { weight } => {
            let vals: Vec<i64> = match weight {
                None => (0..n).map(degree).collect(),
                Some(w) => v.totals(weight_index(w)),
            };
            let (max, min) =
                (vals.iter().max().copied().unwrap_or(0), vals.iter().min().copied().unwrap_or(0));
            // Degrees are counts; totals of a fixed-point view are printed in its unit.
            let row = match weight {
                Some(_) if v.unit != 1.0 => json!([max as f64 * v.unit, min as f64 * v.unit]),
                _ => json!([max, min]),
            };
            Truth {
                ty: "table",
                data: json!([degree_header(weight.as_deref()), row]),
                ordered: true,
                header: 1,
            }
        }
        Query::LabelTable => {
            let mut counts: BTreeMap<&str, i64> = BTreeMap::new();
            for l in v.labels.iter().flatten() {
                *counts.entry(l).or_default() += 1;
            }
            let mut rows = vec![json!(LABEL_HEADER)];
            rows.extend(counts.into_iter().map(|(l, c)| json!([l, c])));
            Truth { ty: "table", data: Value::Array(rows), ordered: false, header: 1 }
        }
        Query::PrefixCount { bits } => {
            let mut counts: BTreeMap<(u32, String), i64> = BTreeMap::new();
            for ip in v.ips.iter() {
                let p = prefix_of(ip, *bits);
                *counts.entry((ip_number(&p), p)).or_default() += 1;
            }
            let rows: Vec<Value> = counts.into_iter().map(|((_, p), c)| json!([p, c])).collect();
            Truth { ty: "table", data: Value::Array(rows), ordered: false, header: 0 }
        }
        Query::EdgeStat { label } => {
            let touched: Vec<&[i64; 3]> = v
                .edges
                .iter()
                .filter(|((a, b), _)| v.labels[*a].contains(label) || v.labels[*b].contains(label))
                .map(|(_, w)| w)
                .collect();
            // `* unit` is exact for 1 (integer graphs print as before).
            let mean =
                |i: usize| touched.iter().map(|w| w[i]).sum::<i64>() as f64 / touched.len() as f64 * v.unit;
            Truth { ty: "table", data: json!([EDGE_HEADER, [mean(0), mean(1)]]), ordered: true, header: 1 }
        }
        Query::LabelGraph { prefix } => {
            // The whole graph, or the nodes of one /16 and the edges between two of them.
            let inside = in_prefix(v, prefix);
            let kept = |u: usize| prefix.is_none() || inside[u];
            let mut links: BTreeSet<(&str, &str)> = BTreeSet::new();
            for &(a, b) in v.edges.keys().filter(|(a, b)| kept(*a) && kept(*b)) {
                for x in &v.labels[a] {
                    for y in &v.labels[b] {
                        links.insert((x.min(y), x.max(y)));
                    }
                }
            }
            let links = links.into_iter().map(|(a, b)| json!({"source": a, "target": b}));
            let present: BTreeSet<&String> = (0..n).filter(|&u| kept(u)).flat_map(|u| &v.labels[u]).collect();
            let nodes = present.into_iter().map(|l| json!({"id": l}));
            new_graph(nodes, links)
        }
        Query::PrefixGraph => {
            let pre: Vec<String> = v.ips.iter().map(|ip| prefix_of(ip, 16)).collect();
            let key = |p: &str| ip_number(&p[..p.len() - 3]);
            let mut links: BTreeMap<(u32, u32), (&str, &str, i64)> = BTreeMap::new();
            for (&(a, b), w) in &v.edges {
                let (x, y) =
                    if key(&pre[a]) <= key(&pre[b]) { (&pre[a], &pre[b]) } else { (&pre[b], &pre[a]) };
                links.entry((key(x), key(y))).or_insert((x, y, 0)).2 += w[0];
            }
            let links =
                links.into_values().map(|(a, b, w)| json!({"source": a, "target": b, "byte_weight": w}));
            let nodes = v.prefixes().into_iter().map(|p| json!({"id": p}));
            new_graph(nodes, links)
        }
        Query::TopDegree { k } => {
            let mut order = v.by_ip();
            order.sort_by_key(|&u| std::cmp::Reverse(degree(u)));
            let rows: Vec<Value> = order
                .into_iter()
                .take(*k as usize)
                .map(|u| json!([v.ips[u], v.labels[u], degree(u)]))
                .collect();
            Truth { ty: "table", data: Value::Array(rows), ordered: true, header: 0 }
        }
        Query::NbrCount { labels, prefix } => {
            let inside = in_prefix(v, prefix);
            let has = |u: usize| v.labels[u].iter().any(|l| labels.contains(l)) || inside[u];
            text((0..n).filter(|&u| !has(u) && v.adj[u].iter().any(|&w| has(w))).count() as i64)
        }
        Query::MinCut { u, v: w } => text(match (v.index_of(u), v.index_of(w)) {
            (Some(a), Some(b)) => super::algo::max_flow(v, a, b),
            _ => 0,
        }),
        Query::Cliques { node: None } => text(super::algo::maximal_cliques(&v.adj, None).unwrap_or(-1)),
        Query::Cliques { node: Some(ip) } => {
            text(v.index_of(ip).and_then(|u| super::algo::maximal_cliques(&v.adj, Some(u))).unwrap_or(-1))
        }
        _ => return None,
    })
}

/// Per node, whether it is in the /16 `prefix` (written `a.b.0.0/16`); none without one.
/// Computed once per question: each test formats the node's prefix, and the edge and
/// neighbour walks would otherwise repeat it per edge end.
fn in_prefix(v: &View, prefix: &Option<String>) -> Vec<bool> {
    v.ips.iter().map(|ip| prefix.as_ref().is_some_and(|p| prefix_of(ip, 16) == *p)).collect()
}

/// `ip` cut to its /`bits` prefix, written `a.b.c.d/bits`.
pub fn prefix_of(ip: &str, bits: u8) -> String {
    let mask = if bits == 0 { 0 } else { u32::MAX << (32 - u32::from(bits)) };
    cidr(ip_number(ip) & mask, bits)
}

/// The mask of a /16.
pub const PREFIX_MASK: u32 = 0xffff_0000;

/// `a.b.c.d/bits` of a prefix's first address.
pub fn cidr(first: u32, bits: u8) -> String {
    format!("{}/{bits}", std::net::Ipv4Addr::from(first))
}

/// A /16 written `a.b.0.0/16` as the start `a.b.` of its addresses (a Python test by
/// `startswith`, as an agent would write it).
fn dotted(prefix: &str) -> String {
    let mut parts = prefix.split('.');
    format!("{}.{}.", parts.next().unwrap_or(""), parts.next().unwrap_or(""))
}

/// The label-graph answer over the nodes `{kept}` and the edges `{edges}`. Each node's labels
/// are read once: reading them per edge end costs two host calls an edge, which at n = 10,000
/// passes the sandbox's 100,000 (`NbrCount`'s reference reads them once too).
const LABEL_GRAPH_CODE: &str = "labels = set()\n    of = {}\n    for n in {kept}:\n        of[n] = G.labels(n)\n        \
     for l in of[n]:\n            labels.add(l)\n    \
     pairs = set()\n    for u, v in {edges}:\n        for a in of[u]:\n            for b in of[v]:\n                \
     pairs.add((min(a, b), max(a, b)))\n    nodes = [{'id': l} for l in sorted(labels)]\n    \
     links = [{'source': a, 'target': b} for a, b in sorted(pairs)]\n    \
     return {'type': 'new', 'data': {'nodes': nodes, 'links': links}}";

/// The Python literal of a string.
fn lit(s: &str) -> String {
    format!("'{}'", s.replace('\\', "\\\\").replace('\'', "\\'"))
}

/// The reference answer: a `process_graph(G)` over the G API (`process_flows(F, G)` for a
/// flow question).
pub fn code(q: &Query) -> String {
    let body = match q {
        Query::Compose { .. } | Query::FlowGraph { .. } => return super::compose::code(q),
        // Listed first: removing nodes while `G.degree()`'s list is walked is safe.
        Query::RemoveIsolated => "for n, d in G.degree():\n        if d == 0:\n            G.remove_node(n)\n    \
             return {'type': 'graph', 'data': G}"
            .to_string(),
        Query::Count { case: 'a', .. } => "return {'type': 'text', 'data': G.number_of_nodes()}".to_string(),
        Query::Count { case: 'b', .. } => "return {'type': 'text', 'data': G.number_of_edges()}".to_string(),
        Query::Count { case: 'c', .. } => {
            "return {'type': 'list', 'data': [G.number_of_nodes(), G.number_of_edges()]}".to_string()
        }
        Query::Count { case: 'd', label, .. } => format!(
            "return {{'type': 'text', 'data': len(G.nodes_with_label({}))}}",
            lit(label.as_deref().unwrap_or(""))
        ),
        Query::Count { case: 'f', prefix, .. } => format!(
            "return {{'type': 'text', 'data': len([n for n in G.nodes() if n.startswith({})])}}",
            lit(&dotted(prefix.as_deref().unwrap_or("")))
        ),
        Query::Count { case: 'g', prefix, .. } => format!(
            "inside = {}\n    cut = [1 for u, v in G.edges() if u.startswith(inside) != v.startswith(inside)]\n    \
             return {{'type': 'text', 'data': len(cut)}}",
            lit(&dotted(prefix.as_deref().unwrap_or("")))
        ),
        Query::Count { k, .. } => format!(
            "return {{'type': 'text', 'data': len([n for n, d in G.degree() if d == {}])}}",
            k.unwrap_or(0)
        ),
        Query::DegreeStat { weight } => {
            let call = match weight {
                None => "G.degree()".to_string(),
                Some(w) => format!("G.degree(weight={})", lit(&format!("{w}_weight"))),
            };
            format!(
                "ds = [d for n, d in {call}]\n    return {{'type': 'table', 'data': [{}, [max(ds), min(ds)]]}}",
                py_list(&degree_header(weight.as_deref()))
            )
        }
        Query::LabelPrefix { pairs } => {
            let pairs: Vec<String> = pairs.iter().map(|(p, l)| format!("[{}, {}]", lit(p), lit(l))).collect();
            format!(
                "pairs = [{}]\n    for n in G.nodes():\n        a, b, c, d = n.split('.')\n        for p, l in pairs:\n            \
                 if p == f'{{a}}.{{b}}.0.0/16':\n                G.add_label(n, l)\n    return {{'type': 'graph', 'data': G}}",
                pairs.join(", ")
            )
        }
        Query::EdgeStat { label } => format!(
            "es = [e for e in G.edges(data=True) if {l} in G.labels(e[0]) or {l} in G.labels(e[1])]\n    \
             bs = [e[2]['byte_weight'] for e in es]\n    cs = [e[2]['connection_weight'] for e in es]\n    \
             return {{'type': 'table', 'data': [{}, [sum(bs) / len(es), sum(cs) / len(es)]]}}",
            py_list(&EDGE_HEADER),
            l = lit(label)
        ),
        Query::ColorExtreme { case, c1, c2 } => {
            let then = match (case, c2) {
                ('a', Some(c2)) => format!("G.set(lo[0], 'color', {})", lit(c2)),
                _ => "G.set(hi[0], 'size', G.get(hi[0], 'size') * 2)".to_string(),
            };
            format!(
                "def ip(n):\n        return [int(x) for x in n.split('.')]\n    ds = sorted(G.degree(), key=lambda x: ip(x[0]))\n    \
                 hi = ds[0]\n    lo = ds[0]\n    for x in ds:\n        if x[1] > hi[1]:\n            hi = x\n        \
                 if x[1] < lo[1]:\n            lo = x\n    G.set(hi[0], 'color', {})\n    {then}\n    \
                 return {{'type': 'graph', 'data': G}}",
                lit(c1)
            )
        }
        Query::LabelGraph { prefix: None } => LABEL_GRAPH_CODE.replace("{kept}", "G.nodes()").replace("{edges}", "G.edges()"),
        // The nodes of the /16 and the edges with both ends among them (`of` holds only those).
        Query::LabelGraph { prefix: Some(p) } => LABEL_GRAPH_CODE
            .replace("{kept}", &format!("[n for n in G.nodes() if n.startswith({})]", lit(&dotted(p))))
            .replace("{edges}", "[(u, v) for u, v in G.edges() if u in of and v in of]"),
        Query::PrefixGraph => "def pre(n):\n        a, b, c, d = n.split('.')\n        return f'{a}.{b}.0.0/16'\n    \
             def key(p):\n        return [int(x) for x in p.split('/')[0].split('.')]\n    w = {}\n    \
             for u, v, d in G.edges(data=True):\n        p, q = sorted([pre(u), pre(v)], key=key)\n        \
             w[(p, q)] = w.get((p, q), 0) + d['byte_weight']\n    nodes = sorted(set(pre(n) for n in G.nodes()), key=key)\n    \
             links = [{'source': k[0], 'target': k[1], 'byte_weight': x} for k, x in w.items()]\n    \
             return {'type': 'new', 'data': {'nodes': [{'id': p} for p in nodes], 'links': links}}"
            .to_string(),
        Query::LabelTable => format!(
            "counts = {{}}\n    for n in G.nodes():\n        for l in G.labels(n):\n            counts[l] = counts.get(l, 0) + 1\n    \
             rows = [{}] + [[l, c] for l, c in sorted(counts.items())]\n    return {{'type': 'table', 'data': rows}}",
            py_list(&LABEL_HEADER)
        ),
        Query::LabelRemove { label } => format!(
            "for n in G.nodes_with_label({}):\n        G.remove_label(n, {})\n    return {{'type': 'graph', 'data': G}}",
            lit(label),
            lit(label)
        ),
        Query::ColorLabel { label, color } => format!(
            "for n in G.nodes_with_label({}):\n        G.set(n, 'color', {})\n    return {{'type': 'graph', 'data': G}}",
            lit(label),
            lit(color)
        ),
        Query::PrefixCount { bits } => {
            let prefix = match bits {
                8 => "f'{a}.0.0.0/8'",
                16 => "f'{a}.{b}.0.0/16'",
                _ => "f'{a}.{b}.{c}.0/24'",
            };
            format!(
                "counts = {{}}\n    for n in G.nodes():\n        a, b, c, d = n.split('.')\n        p = {prefix}\n        \
                 counts[p] = counts.get(p, 0) + 1\n    return {{'type': 'table', 'data': [[p, c] for p, c in counts.items()]}}"
            )
        }
        Query::TopDegree { k } => format!(
            "def ip(n):\n        return [int(x) for x in n.split('.')]\n    ranked = sorted(G.degree(), key=lambda x: (-x[1], ip(x[0])))\n    \
             rows = [[n, sorted(G.labels(n)), d] for n, d in ranked[:{k}]]\n    return {{'type': 'table', 'data': rows}}"
        ),
        Query::NbrCount { prefix: Some(p), .. } => format!(
            "inside = {}\n    has = {{n: n.startswith(inside) for n in G.nodes()}}\n    \
             count = len([n for n in G.nodes() if not has[n] and any(has[m] for m in G.neighbors(n))])\n    \
             return {{'type': 'text', 'data': count}}",
            lit(&dotted(p))
        ),
        Query::NbrCount { labels, prefix: None } => {
            let ls: Vec<String> = labels.iter().map(|l| lit(l)).collect();
            format!(
                "wanted = [{}]\n    has = {{n: any(l in wanted for l in G.labels(n)) for n in G.nodes()}}\n    \
                 count = len([n for n in G.nodes() if not has[n] and any(has[m] for m in G.neighbors(n))])\n    \
                 return {{'type': 'text', 'data': count}}",
                ls.join(", ")
            )
        }
        Query::NbrColor { label, color } => format!(
            "marked = set(G.nodes_with_label({}))\n    hits = [n for n in G.nodes() if any(m in marked for m in G.neighbors(n))]\n    \
             for n in hits:\n        G.set(n, 'color', {})\n    return {{'type': 'graph', 'data': G}}",
            lit(label),
            lit(color)
        ),
        Query::MinCut { u, v } => super::algo::MIN_CUT_CODE.replace("{u}", &lit(u)).replace("{v}", &lit(v)),
        Query::Cliques { node: None } => super::algo::CLIQUES_CODE.replace("{start}", "set(nb.keys())"),
        Query::Cliques { node: Some(u) } => {
            super::algo::CLIQUES_CODE.replace("{start}", &format!("set(nb[{}])", lit(u)))
        }
        Query::ColorPrefix
        | Query::Bisect { .. }
        | Query::CutBalanced { .. }
        | Query::Kmeans { .. }
        | Query::Heatmap { .. } => {
            return super::propcode::code(q, false);
        }
        Query::Flow(f) => return super::flowq::code(f, false),
        Query::EdgeFilter { weight, strict, stat } => {
            let key = lit(&format!("{weight}_weight"));
            let t = match stat {
                Stat::Median => {
                    "n = len(ws)\n    t = ws[n // 2] if n % 2 == 1 else (ws[n // 2 - 1] + ws[n // 2]) / 2"
                        .to_string()
                }
                Stat::Mean => "t = sum(ws) / len(ws)".to_string(),
                Stat::Percentile(q) => format!("r = max(1, -(-{q} * len(ws) // 100))\n    t = ws[r - 1]"),
            };
            let cmp = if *strict { "<" } else { "<=" };
            format!(
                "es = G.edges(data=True)\n    ws = sorted([e[2][{key}] for e in es])\n    {t}\n    for e in es:\n        \
                 if e[2][{key}] {cmp} t:\n            G.remove_edge(e[0], e[1])\n    return {{'type': 'graph', 'data': G}}"
            )
        }
    };
    format!("def process_graph(G):\n    {body}\n")
}
