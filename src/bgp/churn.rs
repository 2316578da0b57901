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
//! **Kinds**, drawn uniformly per event (the fourth from generator v2 on; v1 ids draw among
//! the first three, as they always did):
//! - *flap*: a prefix's owner withdraws it and announces it again 60–600 s later, unchanged;
//! - *prepending*: a prefix's owner starts prepending its ASN 1–2 extra times to everyone;
//! - *link flap*: a multihomed stub's session to one of its providers goes down and comes back
//!   60–600 s later. Only stubs that are neither vantage points nor probe hosts, because a stub
//!   does not export what it learns, so only its own prefixes' routes change: that keeps the
//!   flap's effect on the collectors exactly its own prefixes. When the incident or the
//!   distractor changes the routing graph (a link failure), link flaps are not drawn (a flap
//!   would otherwise restore the failed link); the event becomes a prefix flap.
//! - *new prefix*: an AS outside the incident and the distractor starts announcing a prefix
//!   never seen before, from fresh space (a /24, or a /48 if it holds IPv6 space and a coin
//!   says so), allocated after every prefix of the world, so it overlaps nothing. Like an
//!   operator bringing new space into service, it signs a ROA (origin itself, maxLength the
//!   prefix's length) and registers a route object 1–6 h before the first announcement, so the
//!   new route is RPKI-valid from its first second ([`Fresh`]). Not drawn when the incident
//!   or distractor changes the graph (the event becomes a prefix flap): a link failure
//!   recomputes the prefixes it lists in the new graph, and a new prefix announced before it
//!   would keep its paths over the failed link.
//!
//! **Never touching the incident.** Every event picks a prefix whose owner is none of the
//! incident's or distractor's ASes and which neither covers nor lies inside any of their
//! prefixes, and each prefix (each stub) is used by one event at most. A change only
//! recomputes the prefixes it lists, so no churn event ever changes a route to the target's
//! prefixes: the "not masked" rule holds by construction.
//!
//! **ROAs.** A change carries the whole VRP set in force after it, and the incident may
//! change that set too (a migration, an anycast sibling, a ROA mistake). So a new prefix's ROA
//! change holds the set the incident had in force then plus every fresh ROA published so far
//! ([`in_force`]), and the task adds the fresh ROAs published before each of the incident's
//! own ROA changes to those ([`Churn::sign`]). A fresh ROA covers only fresh space, so it
//! changes the validity of no other route: the incident validates exactly as it did.

use std::collections::BTreeSet;
use std::sync::Arc;

use ipnet::IpNet;

use super::incident::Incident;
use super::level::Level;
use super::prefixes::Allocator;
use super::routing::{Graph, Origination, Prepend, Seeds};
use super::rpki::{Roa, Vrps};
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

/// How long before its first announcement a new prefix's ROA and route object appear.
const LEAD: (u64, u64) = (3600, 6 * 3600);

/// A prefix announced for the first time in the window (churn's fourth kind).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fresh {
    pub prefix: IpNet,
    pub owner: AsIx,
    /// Its ROA: origin the owner, maxLength the prefix's length.
    pub roa: Roa,
    /// When the ROA was published and the route object registered.
    pub published: u64,
    /// When the owner first announced it.
    pub announced: u64,
}

/// A task's churn: its changes in draw order and the new prefixes among them.
#[derive(Debug, Clone, Default)]
pub struct Churn {
    pub changes: Vec<Change>,
    pub fresh: Vec<Fresh>,
}

impl Churn {
    /// Adds the fresh ROAs published by each of `inc`'s ROA changes to the set it carries
    /// (that set was drawn before the churn, from the world's ROAs).
    pub fn sign(&self, inc: &mut Incident) {
        for c in &mut inc.changes {
            if let Some(v) = &c.vrps {
                c.vrps = Some(Arc::new(with_fresh(v, &self.fresh, c.t)));
            }
        }
    }
}

/// `v` plus the fresh ROAs published by `t`.
fn with_fresh(v: &Vrps, fresh: &[Fresh], t: u64) -> Vrps {
    let mut roas = v.roas().to_vec();
    roas.extend(fresh.iter().filter(|f| f.published <= t).map(|f| f.roa));
    Vrps::new(&roas)
}

/// The VRPs in force at `t`: the latest ROA change of the `incidents` by then (ties go to the
/// later one, as the timeline applies them), else `base`, plus the fresh ROAs published by `t`.
pub fn in_force(base: &Vrps, incidents: &[&Incident], fresh: &[Fresh], t: u64) -> Vrps {
    let latest = incidents
        .iter()
        .flat_map(|i| i.changes.iter())
        .filter(|c| c.t <= t)
        .filter_map(|c| c.vrps.as_deref().map(|v| (c.t, v)))
        .max_by_key(|&(at, _)| at);
    with_fresh(latest.map_or(base, |(_, v)| v), fresh, t)
}

/// What churn must stay away from, and what it has used so far.
///
/// What does not change while events are drawn (which prefixes overlap the protected ones,
/// each AS's prefixes and providers, the hosts) is worked out once: checked again for every
/// prefix at every event, it was most of a 5,000-AS task's generation.
struct Guard<'a> {
    w: &'a World,
    /// ASes of the incident and distractor, then the stubs given to a link flap.
    ases: Vec<AsIx>,
    /// Per prefix of the topology (same index): whether it neither covers nor lies inside a
    /// prefix of the incident or distractor (the victim prefixes included).
    clear: Vec<bool>,
    /// Prefixes already given to a churn event.
    used: BTreeSet<IpNet>,
    /// Each AS's prefixes, as indexes into the topology's.
    owned: Vec<Vec<usize>>,
    /// Each AS's number of providers.
    providers: Vec<usize>,
    /// The vantage points' and probes' ASes, which a link flap leaves alone.
    hosts: BTreeSet<AsIx>,
    /// Whether the incident and distractor keep the world's graph, so that a link flap or a
    /// new prefix may be drawn.
    links_ok: bool,
    /// Fresh space, after the world's.
    alloc: Allocator,
    /// The new prefixes drawn so far.
    fresh: Vec<Fresh>,
}

impl<'a> Guard<'a> {
    fn new(w: &'a World, protected: &[&Incident]) -> Self {
        let t = &w.topology;
        let guarded: Vec<IpNet> =
            protected.iter().flat_map(|i| i.prefixes.iter().copied().chain([i.prefix])).collect();
        let guarded = Nested::new(&guarded);
        let mut owned = vec![Vec::new(); t.ases.len()];
        for (i, p) in t.prefixes.iter().enumerate() {
            owned[p.owner].push(i);
        }
        let mut providers = vec![0; t.ases.len()];
        for l in t.links.iter().filter(|l| l.kind == LinkKind::CustomerProvider) {
            providers[l.a] += 1;
        }
        Guard {
            w,
            ases: protected.iter().flat_map(|i| i.ases.iter().copied()).collect(),
            clear: t.prefixes.iter().map(|p| !guarded.overlaps(p.net)).collect(),
            used: BTreeSet::new(),
            owned,
            providers,
            hosts: w.collectors.vps.iter().map(|v| v.asx).chain(w.probes.iter().map(|p| p.asx)).collect(),
            links_ok: protected.iter().all(|i| i.changes.iter().all(|c| c.graph.is_none())),
            alloc: Allocator::resume(&t.prefixes),
            fresh: Vec::new(),
        }
    }

    /// Whether the topology's prefix `i` may be given to an event.
    fn free(&self, i: usize) -> bool {
        let p = &self.w.topology.prefixes[i];
        self.clear[i] && !self.ases.contains(&p.owner) && !self.used.contains(&p.net)
    }

    /// A baseline prefix nobody protects, drawn uniformly, and its owner.
    fn prefix(&self, s: &mut Stream) -> Option<(IpNet, AsIx)> {
        let t = &self.w.topology;
        let pool: Vec<(IpNet, AsIx)> = (0..t.prefixes.len())
            .filter(|&i| self.free(i))
            .map(|i| (t.prefixes[i].net, t.prefixes[i].owner))
            .collect();
        (!pool.is_empty()).then(|| *s.choose(&pool))
    }

    /// A (stub, provider link) whose flap stays inside the stub's own prefixes.
    fn stub_link(&self, s: &mut Stream) -> Option<(AsIx, usize)> {
        let t = &self.w.topology;
        let ok = |a: AsIx| {
            t.ases[a].tier == Tier::Stub
                && !self.hosts.contains(&a)
                && self.owned[a].iter().all(|&i| self.free(i))
        };
        let pool: Vec<(AsIx, usize)> = (0..t.links.len())
            .filter(|&i| t.links[i].kind == LinkKind::CustomerProvider)
            .map(|i| (t.links[i].a, i))
            .filter(|&(a, _)| ok(a) && self.providers[a] >= 2)
            .collect();
        (!pool.is_empty()).then(|| *s.choose(&pool))
    }
}

/// A set of prefixes asked whether a prefix overlaps (covers or lies inside) any of them, in
/// logarithmic time: the protected prefixes of a 5,000-AS task number in the thousands, and
/// every prefix of its topology is asked.
struct Nested {
    /// Truncated to their networks, sorted (by address, then length), without duplicates.
    sorted: Vec<IpNet>,
}

impl Nested {
    fn new(prefixes: &[IpNet]) -> Self {
        let mut sorted: Vec<IpNet> = prefixes.iter().map(IpNet::trunc).collect();
        sorted.sort();
        sorted.dedup();
        Nested { sorted }
    }

    fn overlaps(&self, p: IpNet) -> bool {
        let p = p.trunc();
        // Two prefixes overlap only by nesting. One inside `p` (or `p` itself) sorts at or
        // after it and starts within it; a shorter one that starts within `p` cannot be
        // aligned there unless it starts where `p` does, and then it sorts before `p` and
        // covers it, which the supernets find.
        let inside =
            self.sorted.get(self.sorted.partition_point(|q| *q < p)).is_some_and(|q| p.contains(&q.addr()));
        inside
            || std::iter::successors(p.supernet(), IpNet::supernet)
                .any(|s| self.sorted.binary_search(&s).is_ok())
    }
}

/// The routing graph of `t` without link `li`.
pub fn graph_without(t: &Topology, li: usize) -> Graph {
    let asns: Vec<u32> = t.ases.iter().map(|a| a.asn).collect();
    let kept = t.links.iter().enumerate().filter(|&(i, _)| i != li).map(|(_, l)| l);
    let (p2p, p2c): (Vec<_>, Vec<_>) = kept.partition(|l| l.is_peer());
    let pairs = |v: Vec<&super::topology::Link>| v.into_iter().map(|l| (l.a, l.b)).collect::<Vec<_>>();
    Graph::new(asns, &pairs(p2c), &pairs(p2p), t.rov.clone())
}

/// Draws the churn of a task whose incident (and distractor) are `protected`, in generator
/// version `version` (v1 draws no new prefixes).
pub fn draw(s: &mut Stream, w: &World, protected: &[&Incident], version: u32) -> Churn {
    let (lo, hi) = count_range(w.topology.level);
    let n = s.range(lo, hi);
    let mut g = Guard::new(w, protected);
    let kinds = if version >= 2 { 4 } else { 3 };
    let mut out = Vec::new();
    for k in 0..n {
        let t = w.clock.w0 + s.below((w.clock.end() - w.clock.w0).saturating_sub(60).max(1));
        let back = t + s.range(60, 600);
        let kind = s.below(kinds);
        let name = format!("churn{k}");
        let drawn = match kind {
            3 if g.links_ok => new_prefix(s, &mut g, &name, t),
            2 if g.links_ok => link_flap(s, &mut g, &name, t, back),
            1 => prepending(s, &mut g, &name, t),
            _ => flap(s, &mut g, &name, t, back),
        };
        out.extend(drawn);
    }
    for c in out.iter_mut().filter(|c| c.vrps.is_some()) {
        c.vrps = Some(Arc::new(in_force(&w.vrps, protected, &g.fresh, c.t)));
    }
    Churn { changes: out, fresh: g.fresh }
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
    g.used.insert(p);
    let gone = Seeds { prefix: p, originations: Vec::new(), leaks: Vec::new() };
    let mut down = change(&format!("{name}-down"), t, owner, vec![gone]);
    down.failure = Some(Failure::Origin(g.w.topology.ases[owner].asn));
    vec![down, change(&format!("{name}-up"), back, owner, vec![plain(g.w, p, owner)])]
}

fn prepending(s: &mut Stream, g: &mut Guard<'_>, name: &str, t: u64) -> Vec<Change> {
    let Some((p, owner)) = g.prefix(s) else { return Vec::new() };
    g.used.insert(p);
    let mut seeds = plain(g.w, p, owner);
    seeds.originations[0].prepend = Prepend { all: s.range(1, 2) as u8, toward: Vec::new() };
    vec![change(name, t, owner, vec![seeds])]
}

fn new_prefix(s: &mut Stream, g: &mut Guard<'_>, name: &str, t: u64) -> Vec<Change> {
    let topo = &g.w.topology;
    let pool: Vec<AsIx> = (0..topo.ases.len()).filter(|a| !g.ases.contains(a)).collect();
    if pool.is_empty() {
        return Vec::new();
    }
    let owner = *s.choose(&pool);
    let has_v6 = topo.prefixes.iter().any(|p| p.owner == owner && p.net.addr().is_ipv6());
    let net =
        if has_v6 && s.chance(1, 2) { g.alloc.v6(48).map(IpNet::V6) } else { g.alloc.v4(24).map(IpNet::V4) };
    let Ok(prefix) = net else { return Vec::new() };
    let published = t.saturating_sub(s.range(LEAD.0, LEAD.1));
    let roa = Roa { prefix, origin: topo.ases[owner].asn, max_len: prefix.prefix_len() };
    g.fresh.push(Fresh { prefix, owner, roa, published, announced: t });
    g.used.insert(prefix);
    // The set is filled in once every event is drawn ([`in_force`]).
    let mut sign = change(&format!("{name}-roa"), published, owner, Vec::new());
    sign.vrps = Some(Arc::clone(&g.w.vrps));
    vec![sign, change(name, t, owner, vec![plain(g.w, prefix, owner)])]
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
mod tests;
