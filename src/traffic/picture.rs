//! The task's picture: the communication graph, or its busiest part, in rows by /16 prefix
//! (docs/traffic.md, "The picture").
//!
//! A default graph has 60 nodes and some have thousands, so the picture shows at most
//! [`MAX_NODES`]: once an answer is scored, first the nodes it changed or should have changed
//! and the ends of such edges, then the nodes of highest degree (ties by address, the order
//! every truth uses). Questions name prefixes and labels rather than nodes, so the prefix is
//! what a reader looks for: one row per /16 in address order, the rows past [`ROWS`] merged
//! into the last, each wrapping after [`ROW_MAX`] nodes. Edges are drawn between shown nodes,
//! unlabelled (a weight on each of a hundred edges would only hide the graph).
//!
//! Until the episode is scored every tone is neutral: the picture must not hint at the answer.
//! Afterwards a node or edge the answer changed as expected is ✓ (fixed), one that differs
//! from the expected graph ✗ (changed wrongly, or not changed where it should have been), and
//! a change outside the question's scope is broken. A property question has no single
//! expected graph, so its changed nodes are ✓ when every rule holds and neutral otherwise (the
//! rules' problems are in the score); a removed edge or node is drawn from the task's graph.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use super::check::{self, At};
use super::family;
use crate::view::{PicEdge, PicNode, Picture, Tone};

/// Nodes a picture shows at most.
pub const MAX_NODES: usize = 40;
/// Nodes side by side in one row before it wraps.
const ROW_MAX: usize = 10;
/// Prefix rows at most; further prefixes share the last.
const ROWS: usize = 5;

/// The tones of what an answer touched, by node and by edge.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Marks {
    nodes: BTreeMap<String, Tone>,
    edges: BTreeMap<(String, String), Tone>,
}

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
        let wrong: BTreeSet<At> =
            expected.map(|e| check::diff(e, graph).into_iter().map(|c| c.at).collect()).unwrap_or_default();
        let mut marks = Marks::default();
        for c in check::diff(base, graph) {
            let tone = if !scope.contains(&c.key.as_str()) {
                Tone::Broken
            } else if wrong.contains(&c.at) {
                Tone::Bad
            } else if expected.is_some() || correct {
                Tone::Fixed
            } else {
                Tone::Neutral
            };
            marks.mark(c.at, tone);
        }
        // What should have changed and did not.
        for at in wrong {
            marks.mark(at, Tone::Bad);
        }
        marks
    }

    fn mark(&mut self, at: At, tone: Tone) {
        let slot = match at {
            At::Node(n) => self.nodes.entry(n).or_insert(tone),
            At::Edge(s, t) => self.edges.entry((s, t)).or_insert(tone),
        };
        if severity(tone) > severity(*slot) {
            *slot = tone;
        }
    }

    /// The tone of one node or edge: neutral when unmarked.
    pub fn tone(&self, at: &At) -> Tone {
        let t = match at {
            At::Node(n) => self.nodes.get(n),
            At::Edge(s, t) => self.edges.get(&(s.clone(), t.clone())),
        };
        t.copied().unwrap_or(Tone::Neutral)
    }
}

/// Each node's id and colour.
fn nodes_of(g: &Value) -> BTreeMap<&str, Option<&str>> {
    g["nodes"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|n| Some((n["id"].as_str()?, n["color"].as_str())))
        .collect()
}

fn links_of(g: &Value) -> BTreeSet<(&str, &str)> {
    g["links"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|l| Some((l["source"].as_str()?, l["target"].as_str()?)))
        .collect()
}

/// The /16 a node's address is in (`a.b`), or the id itself when it is not a dotted address.
fn prefix(id: &str) -> &str {
    let mut dots = id.match_indices('.').map(|(i, _)| i);
    match (dots.next(), dots.next()) {
        (Some(_), Some(second)) => &id[..second],
        _ => id,
    }
}

/// An address's numeric order key, so `10.9.…` comes before `10.10.…` (anything else after
/// every address, by its text).
fn order(id: &str) -> (u32, String) {
    (family::ip_number(id), id.to_string())
}

/// The nodes to show: marked nodes and the ends of marked edges, then by degree.
fn chosen<'g>(base: &'g Value, graph: &'g Value, marks: &'g Marks) -> Vec<&'g str> {
    let mut degree: BTreeMap<&str, usize> = BTreeMap::new();
    for (s, t) in links_of(graph) {
        *degree.entry(s).or_default() += 1;
        *degree.entry(t).or_default() += 1;
    }
    let mut all: Vec<&str> = nodes_of(base).into_keys().chain(nodes_of(graph).into_keys()).collect();
    all.sort_by(|a, b| order(a).cmp(&order(b)));
    all.dedup();
    all.sort_by_key(|n| std::cmp::Reverse(degree.get(n).copied().unwrap_or(0)));
    let focus: Vec<&str> = marks
        .nodes
        .keys()
        .map(String::as_str)
        .chain(marks.edges.keys().flat_map(|(s, t)| [s.as_str(), t.as_str()]))
        .collect();
    let mut shown: Vec<&str> = Vec::new();
    for n in focus.into_iter().chain(all) {
        if shown.len() == MAX_NODES {
            break;
        }
        if !shown.contains(&n) {
            shown.push(n);
        }
    }
    shown
}

/// The picture of `graph` (the task's graph until scored, then the final one) with `marks`;
/// `base` is the task's graph, from which removed nodes and edges are drawn. The caption says
/// how many of the graph's nodes are shown.
pub fn picture(base: &Value, graph: &Value, marks: &Marks, caption: &str) -> Picture {
    let shown = chosen(base, graph, marks);
    let total = nodes_of(graph).len();
    let caption = format!("{caption}: {} of {total} nodes, one row per /16 prefix", shown.len());
    let mut rows: BTreeMap<_, Vec<&str>> = BTreeMap::new();
    for &n in &shown {
        rows.entry(order(&format!("{}.0.0", prefix(n)))).or_default().push(n);
    }
    let mut rows: Vec<Vec<&str>> = rows.into_values().collect();
    if rows.len() > ROWS {
        let rest: Vec<&str> = rows.drain(ROWS - 1..).flatten().collect();
        rows.push(rest);
    }
    let lines: Vec<Vec<&str>> = rows
        .into_iter()
        .flat_map(|mut r| {
            r.sort_by(|a, b| order(a).cmp(&order(b)));
            r.chunks(ROW_MAX).map(<[&str]>::to_vec).collect::<Vec<_>>()
        })
        .collect();
    let (now, before) = (nodes_of(graph), nodes_of(base));
    let mut nodes = Vec::new();
    for (r, line) in lines.iter().enumerate() {
        for (i, &id) in line.iter().enumerate() {
            let tone = marks.nodes.get(id).copied().unwrap_or(Tone::Neutral);
            // A marked node shows its colour: colouring is most of what questions change.
            let colour = now
                .get(id)
                .or_else(|| before.get(id))
                .copied()
                .flatten()
                .filter(|_| marks.nodes.contains_key(id));
            nodes.push(PicNode {
                id: id.to_string(),
                label: colour.map_or_else(|| id.to_string(), |c| format!("{id} {c}")),
                role: "host".into(),
                x: 1000.0 * (i as f64 + 0.5) / line.len() as f64,
                y: 1000.0 * (r as f64 + 0.5) / lines.len() as f64,
                tone,
            });
        }
    }
    let set: BTreeSet<&str> = shown.iter().copied().collect();
    let edges = links_of(base)
        .union(&links_of(graph))
        .filter(|(s, t)| set.contains(s) && set.contains(t))
        .map(|&(s, t)| PicEdge {
            from: s.to_string(),
            to: t.to_string(),
            label: String::new(),
            tone: marks.edges.get(&(s.to_string(), t.to_string())).copied().unwrap_or(Tone::Neutral),
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
        let rows: BTreeSet<u64> = p.nodes.iter().map(|n| n.y as u64).collect();
        assert!(rows.len() <= MAX_NODES.div_ceil(ROW_MAX) + ROWS, "{rows:?}");
        assert!(p.edges.iter().all(|e| e.from == ids[0]));
    }
}
