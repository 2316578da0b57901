//! Background churn: the routine routing noise of a real Internet that an investigator has to
//! look past, drawn at generation after the incident (and the L4 distractor).
//!
//! Real collector feeds are never quiet: prefixes flap, operators change their prepending, a
//! stub's upstream session bounces. Without churn every update in a task's window belongs to
//! the incident, and "the first new origin" or "the first valley" is always the answer. With
//! it, a rule has to tie what it sees to the trigger.
//!
//! **How many.** None at L1, 0–3 events at L2, 5–20 at L3, 20–60 at L4, each at a uniform
//! second of the window (at least 60 s before its end).
//!
//! **Kinds**, drawn uniformly per event:
//! - *flap*: a prefix's owner withdraws it and announces it again 60–600 s later, unchanged;
//! - *prepending*: a prefix's owner starts prepending its ASN 1–2 extra times to everyone;
//! - *link flap*: a multihomed stub's session to one of its providers goes down and comes back
//!   60–600 s later. Only stubs that are neither vantage points nor probe hosts, because a stub
//!   does not export what it learns, so only its own prefixes' routes change: that keeps the
//!   flap's effect on the collectors exactly its own prefixes. When the incident or the
//!   distractor changes the routing graph (a link failure), link flaps are not drawn (a flap
//!   would otherwise restore the failed link); the event becomes a prefix flap.
//!
//! **Never touching the incident.** Every event picks a prefix whose owner is none of the
//! incident's or distractor's ASes and which neither covers nor lies inside any of their
//! prefixes, and each prefix (each stub) is used by one event at most. A change only
//! recomputes the prefixes it lists, so no churn event ever changes a route to the target's
//! prefixes: the "not masked" rule holds by construction. New prefixes with fresh ROAs (a
//! fourth kind real feeds show) are not drawn: a ROA change would replace the VRP set the
//! incident itself may change.

use std::sync::Arc;

use ipnet::IpNet;

use super::incident::Incident;
use super::level::Level;
use super::routing::{Graph, Origination, Prepend, Seeds};
use super::timeline::{Change, Failure};
use super::topology::{AsIx, LinkKind, Tier, Topology};
use super::world::World;
use crate::seed::Stream;

/// How many churn events a level draws (inclusive).
pub fn count_range(level: Level) -> (u64, u64) {
    match level {
        Level::L1 => (0, 0),
        Level::L2 => (0, 3),
        Level::L3 => (5, 20),
        Level::L4 => (20, 60),
    }
}

/// What churn must stay away from, and what it has used so far.
struct Guard<'a> {
    w: &'a World,
    /// ASes of the incident and distractor.
    ases: Vec<AsIx>,
    /// Prefixes of the incident and distractor (with the victim prefixes).
    prefixes: Vec<IpNet>,
    /// Prefixes already given to a churn event.
    used: Vec<IpNet>,
    /// Whether a link flap may be drawn.
    links_ok: bool,
}

impl Guard<'_> {
    fn free(&self, p: IpNet, owner: AsIx) -> bool {
        let overlaps = |q: &IpNet| q.contains(&p) || p.contains(q);
        !self.ases.contains(&owner) && !self.prefixes.iter().any(overlaps) && !self.used.contains(&p)
    }

    /// A baseline prefix nobody protects, drawn uniformly, and its owner.
    fn prefix(&self, s: &mut Stream) -> Option<(IpNet, AsIx)> {
        let t = &self.w.topology;
        let pool: Vec<(IpNet, AsIx)> =
            t.prefixes.iter().filter(|p| self.free(p.net, p.owner)).map(|p| (p.net, p.owner)).collect();
        (!pool.is_empty()).then(|| *s.choose(&pool))
    }

    /// A (stub, provider link) whose flap stays inside the stub's own prefixes.
    fn stub_link(&self, s: &mut Stream) -> Option<(AsIx, usize)> {
        let t = &self.w.topology;
        let hosts: Vec<AsIx> =
            self.w.collectors.vps.iter().map(|v| v.asx).chain(self.w.probes.iter().map(|p| p.asx)).collect();
        let ok = |a: AsIx| {
            t.ases[a].tier == Tier::Stub
                && !hosts.contains(&a)
                && t.prefixes.iter().filter(|p| p.owner == a).all(|p| self.free(p.net, a))
        };
        let pool: Vec<(AsIx, usize)> = (0..t.links.len())
            .filter(|&i| t.links[i].kind == LinkKind::CustomerProvider)
            .map(|i| (t.links[i].a, i))
            .filter(|&(a, _)| ok(a) && providers(t, a) >= 2)
            .collect();
        (!pool.is_empty()).then(|| *s.choose(&pool))
    }
}

fn providers(t: &Topology, a: AsIx) -> usize {
    t.links.iter().filter(|l| l.kind == LinkKind::CustomerProvider && l.a == a).count()
}

/// The routing graph of `t` without link `li`.
pub fn graph_without(t: &Topology, li: usize) -> Graph {
    let asns: Vec<u32> = t.ases.iter().map(|a| a.asn).collect();
    let kept = t.links.iter().enumerate().filter(|&(i, _)| i != li).map(|(_, l)| l);
    let (p2p, p2c): (Vec<_>, Vec<_>) = kept.partition(|l| l.is_peer());
    let pairs = |v: Vec<&super::topology::Link>| v.into_iter().map(|l| (l.a, l.b)).collect::<Vec<_>>();
    Graph::new(asns, &pairs(p2c), &pairs(p2p), t.rov.clone())
}

/// Draws the churn of a task whose incident (and distractor) are `protected`.
pub fn draw(s: &mut Stream, w: &World, protected: &[&Incident]) -> Vec<Change> {
    let (lo, hi) = count_range(w.topology.level);
    let n = s.range(lo, hi);
    let mut g = Guard {
        w,
        ases: protected.iter().flat_map(|i| i.ases.iter().copied()).collect(),
        prefixes: protected.iter().flat_map(|i| i.prefixes.iter().copied().chain([i.prefix])).collect(),
        used: Vec::new(),
        links_ok: protected.iter().all(|i| i.changes.iter().all(|c| c.graph.is_none())),
    };
    let mut out = Vec::new();
    for k in 0..n {
        let t = w.clock.w0 + s.below((w.clock.end() - w.clock.w0).saturating_sub(60).max(1));
        let back = t + s.range(60, 600);
        let kind = s.below(3);
        let name = format!("churn{k}");
        let drawn = match kind {
            2 if g.links_ok => link_flap(s, &mut g, &name, t, back),
            1 => prepending(s, &mut g, &name, t),
            _ => flap(s, &mut g, &name, t, back),
        };
        out.extend(drawn);
    }
    out
}

fn change(name: &str, t: u64, at: AsIx, seeds: Vec<Seeds>) -> Change {
    Change { t, name: name.into(), at: vec![at], seeds, graph: None, vrps: None, failure: None }
}

fn plain(w: &World, p: IpNet, owner: AsIx) -> Seeds {
    let o = Origination::plain(owner, w.topology.ases[owner].asn);
    Seeds { prefix: p, originations: vec![o], leaks: Vec::new() }
}

fn flap(s: &mut Stream, g: &mut Guard<'_>, name: &str, t: u64, back: u64) -> Vec<Change> {
    let Some((p, owner)) = g.prefix(s) else { return Vec::new() };
    g.used.push(p);
    let gone = Seeds { prefix: p, originations: Vec::new(), leaks: Vec::new() };
    let mut down = change(&format!("{name}-down"), t, owner, vec![gone]);
    down.failure = Some(Failure::Origin(g.w.topology.ases[owner].asn));
    vec![down, change(&format!("{name}-up"), back, owner, vec![plain(g.w, p, owner)])]
}

fn prepending(s: &mut Stream, g: &mut Guard<'_>, name: &str, t: u64) -> Vec<Change> {
    let Some((p, owner)) = g.prefix(s) else { return Vec::new() };
    g.used.push(p);
    let mut seeds = plain(g.w, p, owner);
    seeds.originations[0].prepend = Prepend { all: s.range(1, 2) as u8, toward: Vec::new() };
    vec![change(name, t, owner, vec![seeds])]
}

fn link_flap(s: &mut Stream, g: &mut Guard<'_>, name: &str, t: u64, back: u64) -> Vec<Change> {
    let Some((stub, li)) = g.stub_link(s) else { return Vec::new() };
    let w = g.w;
    let topo = &w.topology;
    let own: Vec<Seeds> =
        topo.prefixes.iter().filter(|p| p.owner == stub).map(|p| plain(w, p.net, stub)).collect();
    g.used.extend(own.iter().map(|x| x.prefix));
    g.ases.push(stub);
    let link = &topo.links[li];
    let (a, b) = (topo.ases[link.a].asn, topo.ases[link.b].asn);
    let mut down = change(&format!("{name}-down"), t, stub, own.clone());
    down.graph = Some(Arc::new(graph_without(topo, li)));
    down.failure = Some(Failure::Link(a, b));
    let mut up = change(&format!("{name}-up"), back, stub, own);
    up.graph = Some(Arc::clone(&w.graph));
    vec![down, up]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bgp::task::Task;
    use crate::id::QueryId;

    fn task(id: &str) -> Task {
        Task::generate(&id.parse::<QueryId>().unwrap()).unwrap()
    }

    #[test]
    fn churn_counts_follow_the_level_and_never_touch_the_target() {
        for (level, seed) in [(1, 0), (2, 1), (3, 2), (3, 5), (4, 3)] {
            let t = task(&format!("bgp-v1-L{level}-s{seed}-i0-n{}", [30, 60, 200, 200, 700][level as usize]));
            let (lo, hi) = count_range(t.spec.level);
            let events = t.churn.iter().filter(|c| !c.name.ends_with("-up")).count() as u64;
            assert!(events <= hi, "{}: {events}", t.id);
            if lo > 0 {
                assert!(events > 0, "{}", t.id);
            }
            let inc = &t.incident;
            for c in &t.churn {
                for sd in &c.seeds {
                    assert!(!inc.prefixes.iter().any(|q| q.contains(&sd.prefix) || sd.prefix.contains(q)));
                    assert!(!inc.prefix.contains(&sd.prefix) && !sd.prefix.contains(&inc.prefix));
                }
                assert!(c.at.iter().all(|a| !inc.ases.contains(a)));
            }
        }
    }

    #[test]
    fn a_link_flap_changes_only_its_stubs_prefixes() {
        let is_flap = |c: &&Change| c.graph.is_some() && c.name.ends_with("-down");
        let t = (0..10)
            .map(|seed| task(&format!("bgp-v1-L3-s{seed}-i0-n200")))
            .find(|t| t.churn.iter().any(|c| is_flap(&c)))
            .expect("a link flap within ten L3 seeds");
        let w = &t.world;
        let down = t.churn.iter().find(is_flap).unwrap();
        let stub = down.at[0];
        let g = down.graph.as_deref().unwrap();
        let base = crate::bgp::stable_states(&w.graph, &w.vrps, w.topology.baseline_seeds());
        let after = crate::bgp::stable_states(g, &w.vrps, w.topology.baseline_seeds());
        for (x, y) in base.iter().zip(&after) {
            let own = w.topology.prefixes.iter().any(|p| p.net == x.prefix() && p.owner == stub);
            if own {
                continue;
            }
            for vp in &w.collectors.vps {
                assert_eq!(
                    crate::bgp::timeline::vp_view(&w.graph, x, vp),
                    crate::bgp::timeline::vp_view(g, y, vp),
                    "{}",
                    x.prefix()
                );
            }
        }
    }
}
