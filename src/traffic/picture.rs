//! The task's picture: the communication graph, or its busiest part, in rows by /16 prefix
//! (docs/traffic.md, "The picture").
//!
//! A default graph has 60 nodes and some have thousands, so the picture shows at most
//! [`MAX_NODES`]: once an answer is scored, first the nodes it changed or should have changed
//! and the ends of such edges, then the nodes of highest degree (ties by address, the order
//! every truth uses). Questions name prefixes and labels rather than nodes, so the prefix is
//! what a reader looks for: one row per /16 in address order, the rows past `ROWS` merged
//! into the last, each wrapping after `ROW_MAX` nodes. Edges are drawn between shown nodes,
//! unlabelled (a weight on each of a hundred edges would only hide the graph).
//!
//! Until the episode is scored every tone is neutral: the picture must not hint at the answer.
//! Afterwards a node or edge the answer changed as expected is ✓ (fixed), one that differs
//! from the expected graph ✗ (changed wrongly, or not changed where it should have been), and
//! a change outside the question's scope is broken. A property question has no single
//! expected graph, so its changed nodes are ✓ when every rule holds and neutral otherwise (the
//! rules' problems are in the score); a removed edge or node is drawn from the task's graph.

use std::collections::BTreeMap;

use serde_json::Value;

use super::check::{self, At};
use super::family::ip_number;
use crate::view::{PicEdge, PicNode, Picture, Tone};

/// Nodes a picture shows at most.
pub const MAX_NODES: usize = 40;
/// Nodes side by side in one row before it wraps.
const ROW_MAX: usize = 10;
/// Prefix rows at most; further prefixes share the last.
const ROWS: usize = 5;

/// The tones of what an answer touched, by node and by edge.
///
/// The types here are few on purpose (one map type, one sort key): each generic instance is
/// code in the traffic worker, whose bundle has a size hold.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Marks(BTreeMap<At, Tone>);

/// How bad a tone is, so a node marked twice keeps the worse mark.
fn severity(t: Tone) -> u8 {
    match t {
        Tone::Broken => 3,
        Tone::Bad => 2,
        Tone::Neutral => 1,
        _ => 0,
    }
}

impl Marks {
    /// The marks of a final `graph` against the task's `base` graph: `expected` is the graph
    /// an exact answer leaves (`None` for a property question or a read-only one), `correct`
    /// the score's verdict and `scope` the attributes the question may change.
    pub fn of(base: &Value, graph: &Value, expected: Option<&Value>, correct: bool, scope: &[&str]) -> Marks {
        let mut wrong = Marks::default();
        for c in expected.map(|e| check::diff(e, graph)).unwrap_or_default() {
            wrong.mark(c.at, Tone::Bad);
        }
        let mut marks = Marks::default();
        for c in check::diff(base, graph) {
            let tone = if !scope.contains(&c.key.as_str()) {
                Tone::Broken
            } else if wrong.0.contains_key(&c.at) {
                Tone::Bad
            } else if expected.is_some() || correct {
                Tone::Fixed
            } else {
                Tone::Neutral
            };
            marks.mark(c.at, tone);
        }
        // What should have changed and did not.
        for (at, tone) in wrong.0 {
            marks.mark(at, tone);
        }
        marks
    }

    fn mark(&mut self, at: At, tone: Tone) {
        let slot = self.0.entry(at).or_insert(tone);
        if severity(tone) > severity(*slot) {
            *slot = tone;
        }
    }

    /// The tone of one node or edge: neutral when unmarked.
    pub fn tone(&self, at: &At) -> Tone {
        self.0.get(at).copied().unwrap_or(Tone::Neutral)
    }

    fn node(&self, id: &str) -> Tone {
        self.tone(&At::Node(id.to_string()))
    }
}

/// Each node's id and colour, in the graph's order.
fn nodes_of(g: &Value) -> Vec<(&str, Option<&str>)> {
    g["nodes"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|n| Some((n["id"].as_str()?, n["color"].as_str())))
        .collect()
}

fn links_of(g: &Value) -> impl Iterator<Item = (&str, &str)> {
    g["links"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|l| Some((l["source"].as_str()?, l["target"].as_str()?)))
}

/// The /16 a node's address is in (`a.b`), or the id itself when it is not a dotted address.
fn prefix(id: &str) -> &str {
    let mut dots = id.match_indices('.').map(|(i, _)| i);
    match (dots.next(), dots.next()) {
        (Some(_), Some(second)) => &id[..second],
        _ => id,
    }
}

/// A sort key: a number first (a rank or a prefix), then the address numerically, so `10.9.…`
/// comes before `10.10.…`, then the text (anything not an address after every address).
type Key<'g> = (u64, u32, &'g str);

fn key(first: u64, id: &str) -> Key<'_> {
    (first, ip_number(id), id)
}

/// The nodes to show: marked nodes and the ends of marked edges, then by degree.
fn chosen<'g>(base: &'g Value, graph: &'g Value, marks: &'g Marks) -> Vec<&'g str> {
    let mut ends: Vec<&str> = links_of(graph).flat_map(|(s, t)| [s, t]).collect();
    ends.sort_unstable();
    let degree = |n: &str| ends.partition_point(|e| *e < n).abs_diff(ends.partition_point(|e| *e <= n));
    let mut focus: Vec<&str> = marks
        .0
        .keys()
        .flat_map(|at| match at {
            At::Node(n) => [n.as_str(), n.as_str()],
            At::Edge(s, t) => [s.as_str(), t.as_str()],
        })
        .collect();
    focus.sort_unstable();
    // Marked first (rank 0), then by degree, highest first.
    let marked = |n: &str| focus.binary_search(&n).is_ok();
    let mut all: Vec<Key> = nodes_of(base)
        .into_iter()
        .chain(nodes_of(graph))
        .map(|(n, _)| key(if marked(n) { 0 } else { u64::MAX - degree(n) as u64 }, n))
        .collect();
    all.sort_unstable();
    all.dedup_by(|a, b| a.2 == b.2);
    let mut shown: Vec<&str> = Vec::new();
    for (_, _, n) in all {
        if shown.len() == MAX_NODES {
            break;
        }
        if !shown.contains(&n) {
            shown.push(n);
        }
    }
    shown
}

/// The drawing lines: one per /16 in address order (those past `ROWS` merged into the last),
/// each wrapped after `ROW_MAX` nodes.
fn lines(shown: &[&str]) -> Vec<Vec<String>> {
    let mut sorted: Vec<Key> =
        shown.iter().map(|n| key(u64::from(ip_number(&format!("{}.0.0", prefix(n)))), n)).collect();
    sorted.sort_unstable();
    let mut rows: Vec<Vec<String>> = Vec::new();
    let mut last = None;
    for (p, _, n) in sorted {
        if last != Some(p) && rows.len() < ROWS {
            rows.push(Vec::new());
        }
        last = Some(p);
        rows.last_mut().expect("a row").push(n.to_string());
    }
    rows.into_iter().flat_map(|r| r.chunks(ROW_MAX).map(<[String]>::to_vec).collect::<Vec<_>>()).collect()
}

/// The picture of `graph` (the task's graph until scored, then the final one) with `marks`;
/// `base` is the task's graph, from which removed nodes and edges are drawn. The caption says
/// how many of the graph's nodes are shown.
pub fn picture(base: &Value, graph: &Value, marks: &Marks, caption: &str) -> Picture {
    let shown = chosen(base, graph, marks);
    let (now, before) = (nodes_of(graph), nodes_of(base));
    let caption = format!("{caption}: {} of {} nodes, one row per /16 prefix", shown.len(), now.len());
    let lines = lines(&shown);
    let mut nodes = Vec::new();
    for (r, line) in lines.iter().enumerate() {
        for (i, id) in line.iter().enumerate() {
            let tone = marks.node(id);
            // A marked node shows its colour: colouring is most of what questions change.
            let colour = now.iter().chain(&before).find(|(n, _)| n == id).and_then(|(_, c)| *c);
            let label = match colour.filter(|_| tone != Tone::Neutral) {
                Some(c) => format!("{id} {c}"),
                None => id.clone(),
            };
            nodes.push(PicNode {
                id: id.clone(),
                label,
                role: "host".into(),
                x: 1000.0 * (i as f64 + 0.5) / line.len() as f64,
                y: 1000.0 * (r as f64 + 0.5) / lines.len() as f64,
                tone,
            });
        }
    }
    let mut links: Vec<(&str, &str)> = links_of(base)
        .chain(links_of(graph))
        .filter(|(s, t)| shown.contains(s) && shown.contains(t))
        .collect();
    links.sort_unstable();
    links.dedup();
    let edges = links
        .into_iter()
        .map(|(s, t)| PicEdge {
            from: s.to_string(),
            to: t.to_string(),
            label: String::new(),
            tone: marks.tone(&At::Edge(s.to_string(), t.to_string())),
            directed: false,
        })
        .collect();
    Picture { caption, nodes, edges }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    fn graph(nodes: &[(&str, &str)], links: &[(&str, &str)]) -> Value {
        let nodes: Vec<Value> = nodes
            .iter()
            .map(|(id, c)| json!({"id": id, "ip_address": id, "color": c, "size": 4, "labels": []}))
            .collect();
        let links: Vec<Value> =
            links.iter().map(|(s, t)| json!({"source": s, "target": t, "byte_weight": 1})).collect();
        json!({"nodes": nodes, "links": links})
    }

    fn tone(p: &Picture, id: &str) -> Tone {
        p.nodes.iter().find(|n| n.id == id).map(|n| n.tone).unwrap()
    }

    #[test]
    fn a_task_picture_is_neutral_in_prefix_rows_inside_the_box() {
        let g = graph(
            &[("10.9.0.1", "steelblue"), ("10.10.0.1", "steelblue"), ("10.9.0.2", "steelblue")],
            &[("10.9.0.1", "10.10.0.1"), ("10.9.0.1", "10.9.0.2")],
        );
        let p = picture(&g, &g, &Marks::default(), "G");
        assert_eq!(p.caption, "G: 3 of 3 nodes, one row per /16 prefix");
        assert!(p.nodes.iter().all(|n| n.tone == Tone::Neutral && n.label == n.id));
        assert!(p.nodes.iter().all(|n| (0.0..=1000.0).contains(&n.x) && (0.0..=1000.0).contains(&n.y)));
        let y = |id: &str| p.nodes.iter().find(|n| n.id == id).unwrap().y;
        // 10.9 sorts before 10.10 numerically, and shares its row.
        assert!(y("10.9.0.1") == y("10.9.0.2") && y("10.9.0.1") < y("10.10.0.1"));
        assert_eq!(p.edges.len(), 2);
    }

    #[test]
    fn marks_tell_expected_wrong_missing_and_out_of_scope_changes() {
        let base = graph(
            &[("1.1.0.1", "blue"), ("1.1.0.2", "blue"), ("1.1.0.3", "blue")],
            &[("1.1.0.1", "1.1.0.2")],
        );
        let expected =
            graph(&[("1.1.0.1", "red"), ("1.1.0.2", "red"), ("1.1.0.3", "blue")], &[("1.1.0.1", "1.1.0.2")]);
        // Node 1 as expected, node 2 not done, node 3 recoloured wrongly, the edge removed.
        let fin = graph(&[("1.1.0.1", "red"), ("1.1.0.2", "blue"), ("1.1.0.3", "green")], &[]);
        let m = Marks::of(&base, &fin, Some(&expected), false, &["color"]);
        let p = picture(&base, &fin, &m, "G");
        assert_eq!(tone(&p, "1.1.0.1"), Tone::Fixed);
        assert_eq!(tone(&p, "1.1.0.2"), Tone::Bad);
        assert_eq!(tone(&p, "1.1.0.3"), Tone::Bad);
        let edge = &p.edges[0];
        assert_eq!((edge.from.as_str(), edge.tone), ("1.1.0.1", Tone::Broken), "removed, outside the scope");
        assert_eq!(p.nodes.iter().find(|n| n.id == "1.1.0.3").unwrap().label, "1.1.0.3 green");
        // A property question: no expected graph; changes are ✓ only when the rules hold.
        let right = Marks::of(&base, &fin, None, true, &["color", "-edge"]);
        assert_eq!(right.tone(&At::Node("1.1.0.3".into())), Tone::Fixed);
        let wrong = Marks::of(&base, &fin, None, false, &["color", "-edge"]);
        assert_eq!(wrong.tone(&At::Node("1.1.0.3".into())), Tone::Neutral);
        assert_eq!(wrong.tone(&At::Node("1.1.0.2".into())), Tone::Neutral, "unchanged, unmarked");
    }

    #[test]
    fn a_large_graph_shows_marked_nodes_first_then_the_busiest() {
        let ids: Vec<String> = (0..100).map(|i| format!("10.{}.0.{}", i % 7, i)).collect();
        let nodes: Vec<(&str, &str)> = ids.iter().map(|i| (i.as_str(), "steelblue")).collect();
        // Node 0 is the hub; node 99 is isolated.
        let links: Vec<(&str, &str)> = ids[1..99].iter().map(|i| (ids[0].as_str(), i.as_str())).collect();
        let base = graph(&nodes, &links);
        let mut fin = base.clone();
        fin["nodes"][99]["color"] = json!("red");
        let m = Marks::of(&base, &fin, None, true, &["color"]);
        let p = picture(&base, &fin, &m, "G");
        assert_eq!(p.nodes.len(), MAX_NODES);
        assert_eq!(tone(&p, &ids[99]), Tone::Fixed);
        assert!(p.nodes.iter().any(|n| n.id == ids[0]), "the hub is shown");
        // Seven prefixes: rows past the fifth merge, and a row wraps after ten nodes.
        let rows: std::collections::BTreeSet<u64> = p.nodes.iter().map(|n| n.y as u64).collect();
        assert!(rows.len() <= MAX_NODES.div_ceil(ROW_MAX) + ROWS, "{rows:?}");
        assert!(p.edges.iter().all(|e| e.from == ids[0]));
    }
}
