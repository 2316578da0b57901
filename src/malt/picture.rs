//! The task's picture: the neighbourhood of the nodes a question names (their ancestors and a
//! few children each), laid out in rows by layer in a 0..1000 box. The whole topology is
//! thousands of nodes; the neighbourhood is what a reader needs to follow the question.

use std::collections::BTreeSet;

use crate::view::{PicEdge, PicNode, Picture, Tone};

use super::graph::{Id, Working};
use super::kind::{Kind, Rel};

/// Children shown per named node.
const CHILDREN: usize = 6;
/// Nodes shown at most.
const MAX_NODES: usize = 80;

/// The drawing row of a kind (fabric top to bottom, physical and control beside it).
fn row(kind: Kind) -> usize {
    match kind {
        Kind::Jupiter | Kind::Rack | Kind::ControlDomain => 0,
        Kind::Superblock | Kind::Spineblock | Kind::Chassis | Kind::ControlPoint => 1,
        Kind::AggBlock => 2,
        Kind::PacketSwitch => 3,
        Kind::Port => 4,
    }
}

fn role(kind: Kind) -> &'static str {
    match kind {
        Kind::PacketSwitch => "switch",
        Kind::Port => "port",
        Kind::Rack | Kind::Chassis => "rack",
        Kind::ControlDomain | Kind::ControlPoint => "control",
        _ => "block",
    }
}

/// The picture of the named nodes of a base graph.
pub fn neighbourhood(g: &Working, named: &[String], caption: &str) -> Picture {
    let focus: BTreeSet<Id> = named.iter().filter_map(|n| g.lookup(n)).collect();
    let mut shown: BTreeSet<Id> = BTreeSet::new();
    for &id in &focus {
        shown.insert(id);
        shown.extend(g.ancestors(id));
        shown.extend(g.children(id).into_iter().take(CHILDREN));
    }
    let shown: Vec<Id> = shown.into_iter().take(MAX_NODES).collect();
    let mut rows: [Vec<Id>; 5] = Default::default();
    for &id in &shown {
        rows[row(g.kind(id))].push(id);
    }
    let mut nodes = Vec::new();
    for (r, ids) in rows.iter().enumerate() {
        for (i, &id) in ids.iter().enumerate() {
            nodes.push(PicNode {
                id: g.name(id).to_string(),
                label: g.name(id).to_string(),
                role: role(g.kind(id)).to_string(),
                x: 1000.0 * (i as f64 + 0.5) / ids.len() as f64,
                y: 100.0 + 200.0 * r as f64,
                tone: if focus.contains(&id) { Tone::Good } else { Tone::Neutral },
            });
        }
    }
    let set: BTreeSet<Id> = shown.iter().copied().collect();
    let edges = shown
        .iter()
        .flat_map(|&u| g.out(u).into_iter().map(move |(v, r)| (u, v, r)))
        .filter(|(_, v, _)| set.contains(v))
        .map(|(u, v, r)| PicEdge {
            from: g.name(u).to_string(),
            to: g.name(v).to_string(),
            label: if r == Rel::Controls { "controls".into() } else { String::new() },
            tone: Tone::Neutral,
            directed: r == Rel::Controls,
        })
        .collect();
    Picture { caption: caption.to_string(), nodes, edges }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::malt::topo::{Shape, TopoKey, topology};

    #[test]
    fn shows_ancestors_and_children_inside_the_box() {
        let g = Working::new(topology(TopoKey { shape: Shape::SMALL, seed: 0 }));
        let p = neighbourhood(&g, &["ju1.a1.m1.s2c1".into(), "missing".into()], "c");
        let names: Vec<&str> = p.nodes.iter().map(|n| n.id.as_str()).collect();
        assert!(
            names.contains(&"ju1")
                && names.contains(&"ju1.a1.m1.s2c1.p1")
                && names.contains(&"ju1.a1.m1rack")
        );
        assert!(p.nodes.iter().all(|n| (0.0..=1000.0).contains(&n.x) && (0.0..=1000.0).contains(&n.y)));
        assert!(p.edges.iter().any(|e| e.from == "ju1.a1.m1" && e.to == "ju1.a1.m1.s2c1"));
    }
}
