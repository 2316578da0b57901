//! The task's picture: the AS graph around the incident, not the whole Internet (docs/bgp.md,
//! "The picture").
//!
//! An L4 world has thousands of ASes; what a reader needs is the victim prefix's origin, the
//! culprit, the vantage points and the ASes on the paths the incident changed. The
//! [`Neighbourhood`] picks them in that order of importance, up to [`MAX_ASES`]: the incident's
//! own ASes always, then each affected vantage point's path whole (a path cut in the middle
//! explains nothing), then further vantage points in VP order while room is left. The same
//! selection is what `netpress bgp topo` prints.
//!
//! Layout: rows by rank in the customer–provider DAG (the Tier-1s on top, stubs at the bottom),
//! each row in AS index order and wrapped after `ROW_MAX` ASes; a provider–customer link is
//! an arrow down to the customer, a peering a plain line. A peering over an exchange point's
//! route server goes through the exchange point, a square on a row of its own between its
//! members' rows (`exchanges`); the AS cap counts ASes only. Nothing in the task's picture
//! hints at the answer: every tone is neutral. Once the episode is over (scored), its picture
//! marks the culprit ✗, the affected paths' links (✗ for an incident, ✓ for a harmless change;
//! both halves of a route-server session alike), a forged adjacency as a link of its own, a
//! wrongly accused AS `!`, and at L4 the distractor's culprit, added if need be and labelled
//! `distractor` (it never counts toward the score).

use std::collections::{BTreeMap, BTreeSet};

use super::incident::Culprit;
use super::task::Task;
use super::topology::{AsIx, Rel, Topology};
use super::verdict::Verdict;
use crate::view::{PicEdge, PicNode, Picture, Tone};
use exchanges::Exchanges;

pub(super) mod exchanges;

/// ASes a picture shows at most, whatever the world's size.
pub const MAX_ASES: usize = 40;
/// ASes side by side in one drawing row before it wraps.
const ROW_MAX: usize = 10;

/// The ASes shown and the affected paths among them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Neighbourhood {
    /// Shown ASes, ascending index.
    pub ases: Vec<AsIx>,
    /// Each affected vantage point's path once the incident started (its new path, or the one
    /// it lost), VP first, origin last, without prepending; only paths shown whole.
    pub paths: Vec<Vec<AsIx>>,
}

impl Neighbourhood {
    /// The neighbourhood of `task`'s incident, with `extra` ASes (a wrongly accused one) kept
    /// like the incident's own.
    pub fn of(task: &Task, extra: &[AsIx]) -> Neighbourhood {
        let mut shown = BTreeSet::new();
        let focus = focus(task).into_iter().chain(extra.iter().copied());
        shown.extend(focus.filter(|&a| a < task.world.topology.len()));
        let mut paths = Vec::new();
        for path in affected_paths(task) {
            let new = path.iter().filter(|a| !shown.contains(*a)).collect::<BTreeSet<_>>().len();
            if shown.len() + new <= MAX_ASES {
                shown.extend(path.iter().copied());
                paths.push(path);
            }
        }
        for vp in &task.world.collectors.vps {
            if shown.len() >= MAX_ASES {
                break;
            }
            shown.insert(vp.asx);
        }
        Neighbourhood { ases: shown.into_iter().collect(), paths }
    }

    /// The links among the shown ASes: `(provider, customer, false)` and `(low, high, true)`
    /// for a peering, in index order of their first AS.
    pub fn links(&self, t: &Topology) -> Vec<(AsIx, AsIx, bool)> {
        let set: BTreeSet<AsIx> = self.ases.iter().copied().collect();
        let mut out = Vec::new();
        for &a in &self.ases {
            for &(b, rel) in t.neighbours(a) {
                match rel {
                    Rel::Customer if set.contains(&b) => out.push((a, b, false)),
                    Rel::Peer if a < b && set.contains(&b) => out.push((a, b, true)),
                    _ => {}
                }
            }
        }
        out
    }
}

/// The incident's own ASes: the victim origin, the culprit, the leaker's or hijacker's
/// parties, a forged adjacency's ends.
fn focus(task: &Task) -> Vec<AsIx> {
    let inc = &task.incident;
    let mut out = vec![inc.victim];
    match inc.culprit {
        Culprit::Offender(x) | Culprit::Victim(x) => out.push(x),
        Culprit::Link(a, b) => out.extend([a, b]),
        Culprit::Nobody => {}
    }
    out.extend(inc.ases.iter().copied());
    out.extend(inc.new_origin);
    out.extend(inc.forged.map(|(x, v)| [x, v]).into_iter().flatten());
    out
}

/// Each affected VP's path after the incident's start change settled, in VP order: the last
/// announcement it sent for that change, or the baseline path a withdrawal took away.
fn affected_paths(task: &Task) -> Vec<Vec<AsIx>> {
    let inc = &task.incident;
    let mut last: BTreeMap<usize, Option<Vec<u32>>> = BTreeMap::new();
    for u in task.timeline.updates() {
        if u.change == inc.start_change && inc.prefixes.contains(&u.prefix) {
            let lost = || task.timeline.baseline_route(u.vp, u.prefix).map(|(r, _)| r.path.clone());
            last.insert(u.vp, u.route.as_ref().map(|r| r.path.clone()).or_else(lost));
        }
    }
    let t = &task.world.topology;
    last.into_values()
        .flatten()
        .map(|mut path| {
            path.dedup();
            path.iter().filter_map(|&asn| t.index_of(asn)).collect::<Vec<AsIx>>()
        })
        .filter(|p: &Vec<AsIx>| !p.is_empty())
        .collect()
}

/// The task's picture: the neighbourhood, every tone neutral.
pub fn task_picture(task: &Task) -> Picture {
    let n = Neighbourhood::of(task, &[]);
    draw(task, &n, &Exchanges::of(&task.world.topology, &n.links(&task.world.topology)))
}

/// The picture once the episode is scored: the culprit, the affected paths and a wrong
/// accusation marked (see the module's doc).
pub fn scored(task: &Task, verdict: Option<&Verdict>) -> Picture {
    let t = &task.world.topology;
    let inc = &task.incident;
    let accused = verdict
        .and_then(|v| v.offender_asn)
        .and_then(|asn| t.index_of(asn))
        .filter(|&a| inc.culprit != Culprit::Offender(a));
    let distractor = task.distractor.as_ref().and_then(|d| match d.culprit {
        Culprit::Offender(x) | Culprit::Victim(x) => Some(x),
        Culprit::Link(..) | Culprit::Nobody => None,
    });
    let n = Neighbourhood::of(task, &accused.into_iter().chain(distractor).collect::<Vec<_>>());
    let ex = Exchanges::of(t, &n.links(t));
    let mut p = draw(task, &n, &ex);
    let id = |a: AsIx| node_id(t, a);
    if let Some(node) = distractor.and_then(|x| p.nodes.iter_mut().find(|n| n.id == id(x))) {
        node.label.push_str(" distractor");
        p.caption.push_str("; distractor: the unrelated second incident's culprit (not scored)");
    }
    match inc.culprit {
        Culprit::Offender(x) | Culprit::Victim(x) => mark_node(&mut p, &id(x), Tone::Bad),
        Culprit::Link(a, b) => {
            for k in mark_session(&mut p, t, &ex, a, b, Tone::Bad, "failed") {
                p.edges[k].label = "failed".into();
            }
        }
        Culprit::Nobody => {}
    }
    let path_tone = if inc.culprit == Culprit::Nobody { Tone::Good } else { Tone::Bad };
    for path in &n.paths {
        for w in path.windows(2) {
            mark_session(&mut p, t, &ex, w[0], w[1], path_tone, "forged");
        }
    }
    if let Some(a) = accused {
        mark_node(&mut p, &id(a), Tone::Broken);
    }
    p.caption.push_str(&scored_legend(inc.culprit));
    p
}

fn scored_legend(culprit: Culprit) -> String {
    match culprit {
        Culprit::Nobody => {
            "; scored: no incident, ✓ the harmless change's paths, ! a wrongly accused AS".into()
        }
        Culprit::Link(..) => {
            "; scored: ✗ the failed link and the affected paths, ! a wrongly accused AS".into()
        }
        _ => "; scored: ✗ the culprit and the affected paths, ! a wrongly accused AS".into(),
    }
}

fn mark_node(p: &mut Picture, id: &str, tone: Tone) {
    if let Some(n) = p.nodes.iter_mut().find(|n| n.id == id) {
        n.tone = tone;
    }
}

/// Tones the link between ASes `a` and `b` (see [`mark_link`]) and returns its edges' positions:
/// both halves of a route-server session, through its exchange point, else the one edge.
fn mark_session(
    p: &mut Picture,
    t: &Topology,
    ex: &Exchanges,
    a: AsIx,
    b: AsIx,
    tone: Tone,
    missing: &str,
) -> Vec<usize> {
    let (id_a, id_b) = (node_id(t, a), node_id(t, b));
    match ex.via(a, b) {
        Some(i) => {
            let x = exchanges::node_id(t, i);
            vec![mark_link(p, &id_a, &x, tone, missing), mark_link(p, &x, &id_b, tone, missing)]
        }
        None => vec![mark_link(p, &id_a, &id_b, tone, missing)],
    }
}

/// Tones the link between `a` and `b` and returns its edge's position; a pair without a link
/// (a forged adjacency on a path) gets an edge of its own, labelled `missing`.
fn mark_link(p: &mut Picture, a: &str, b: &str, tone: Tone, missing: &str) -> usize {
    let hit = |e: &PicEdge| (e.from == a && e.to == b) || (e.from == b && e.to == a);
    match p.edges.iter().position(hit) {
        Some(k) => {
            // The culprit's link, marked first, stays ✗ when a path crosses it.
            if p.edges[k].tone != Tone::Bad {
                p.edges[k].tone = tone;
            }
            k
        }
        None => {
            p.edges.push(PicEdge {
                from: a.into(),
                to: b.into(),
                label: missing.into(),
                tone,
                directed: false,
            });
            p.edges.len() - 1
        }
    }
}

fn node_id(t: &Topology, a: AsIx) -> String {
    format!("AS{}", t.ases[a].asn)
}

/// One place in a drawing row: an AS or an exchange point.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Spot {
    As(AsIx),
    Ixp(usize),
}

/// The drawing rows: ASes by rank (highest first), in index order and wrapped after `ROW_MAX`;
/// each exchange point on a row of its own just below the middle row of its spoke members
/// (the upper of the two middle ones), so its spokes reach both up and down.
fn rows(task: &Task, n: &Neighbourhood, ex: &Exchanges) -> Vec<Vec<Spot>> {
    let ranks = task.world.topology.ranks();
    let mut by_rank: BTreeMap<std::cmp::Reverse<u32>, Vec<AsIx>> = BTreeMap::new();
    for &a in &n.ases {
        by_rank.entry(std::cmp::Reverse(ranks[a])).or_default().push(a);
    }
    let as_rows: Vec<&[AsIx]> = by_rank.values().flat_map(|r| r.chunks(ROW_MAX)).collect();
    let row_of: BTreeMap<AsIx, usize> =
        as_rows.iter().enumerate().flat_map(|(r, row)| row.iter().map(move |&a| (a, r))).collect();
    let mut below: BTreeMap<usize, Vec<Spot>> = BTreeMap::new();
    for (i, members) in ex.members() {
        let mut at: Vec<usize> = members.iter().filter_map(|a| row_of.get(a).copied()).collect();
        at.sort_unstable();
        if let Some(&r) = at.get(at.len().saturating_sub(1) / 2) {
            below.entry(r).or_default().push(Spot::Ixp(i));
        }
    }
    let mut out = Vec::with_capacity(as_rows.len() + below.len());
    for (r, row) in as_rows.into_iter().enumerate() {
        out.push(row.iter().map(|&a| Spot::As(a)).collect());
        out.extend(below.remove(&r));
    }
    out
}

/// The node drawn for `spot`, at the origin.
fn node(task: &Task, spot: Spot) -> PicNode {
    let t = &task.world.topology;
    let (id, label, role) = match spot {
        Spot::As(a) if task.world.collectors.vp_of(a).is_some() => {
            (node_id(t, a), format!("{} VP", node_id(t, a)), "as")
        }
        Spot::As(a) => (node_id(t, a), node_id(t, a), "as"),
        Spot::Ixp(i) => (exchanges::node_id(t, i), exchanges::label(t, i), "ixp"),
    };
    PicNode { id, label, role: role.into(), x: 0.0, y: 0.0, tone: Tone::Neutral }
}

/// A neutral, unlabelled edge.
fn plain_edge(from: String, to: String, directed: bool) -> PicEdge {
    PicEdge { from, to, label: String::new(), tone: Tone::Neutral, directed }
}

/// Draws a neighbourhood: rows by rank, arrows from provider to customer, route-server
/// peerings through their exchange points.
fn draw(task: &Task, n: &Neighbourhood, ex: &Exchanges) -> Picture {
    let t = &task.world.topology;
    let rows = rows(task, n, ex);
    let gap = if rows.len() > 1 { 880.0 / (rows.len() - 1) as f64 } else { 0.0 };
    let mut nodes = Vec::with_capacity(n.ases.len());
    for (r, row) in rows.iter().enumerate() {
        for (i, &spot) in row.iter().enumerate() {
            let x = 1000.0 * (i as f64 + 0.5) / row.len() as f64;
            nodes.push(PicNode { x, y: 60.0 + gap * r as f64, ..node(task, spot) });
        }
    }
    let direct = n.links(t).into_iter().filter(|&(a, b, _)| ex.via(a, b).is_none());
    let mut edges: Vec<PicEdge> =
        direct.map(|(a, b, peer)| plain_edge(node_id(t, a), node_id(t, b), !peer)).collect();
    for (i, members) in ex.members() {
        edges.extend(members.iter().map(|&a| plain_edge(node_id(t, a), exchanges::node_id(t, i), false)));
    }
    let squares = if ex.is_empty() {
        ""
    } else {
        "; squares are exchange points, a peering over one's route server drawn through it"
    };
    let caption = format!(
        "ASes around {}: {} of {} (rows by rank, arrows from provider to customer, lines are peerings{squares}; VP = vantage point)",
        task.incident.prefix,
        n.ases.len(),
        t.len()
    );
    Picture { caption, nodes, edges }
}

#[cfg(test)]
mod tests;
