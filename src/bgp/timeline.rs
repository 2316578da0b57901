//! The event timeline: what each vantage point tells its collectors, and when.
//!
//! A task's routing history is a baseline (every prefix originated by its owner, stable since
//! its first-seen time) followed by [`Change`]s: at time `t`, the seeds of some prefixes change
//! (a hijacker starts originating, an origin withdraws, a leak appears, a link or a ROA
//! changes). After each change the touched prefixes' stable state is recomputed
//! ([`super::routing`]) and every vantage point whose route to one of them differs sends an
//! update: an announcement with its new path, or a withdrawal.
//!
//! **When.** Real propagation takes seconds per AS hop. An AS at AS-hop distance `h` from the
//! change adopts the new state at `t + 5 s + 4 s·h + jitter`, where `h` is the position of the
//! first of the change's ASes on the VP's new path (else on its old path, as for a loss; else
//! the path's length), and the jitter is SHA-256(`id|event|ASN|prefix`) mod 3001 ms, so
//! it is fixed by the task id and differs per VP and prefix without a random draw.
//!
//! **Path exploration** (from L3 on, for losses of an origin or a link): before settling, a VP
//! whose old route used the failed origin or link first tries up to two of its other old
//! candidates that also use it, in preference order, 30 s apart, as real routers do while the
//! withdrawal spreads. Candidates are the routes its neighbours held before the change and
//! would export to it (valley-free), without loops or, at an ROV-deploying VP, RPKI-Invalid
//! origins.
//!
//! **Order.** A VP's updates to one prefix never overtake each other: an update due before the
//! previous one for the same VP and prefix is moved to one second after it. Updates are sorted
//! by (second, VP, prefix), the order the update files list them in.
//!
//! A partial feed only carries own and customer routes, so a VP whose new best route is learned
//! from a peer or provider withdraws it from a partial-feed collector.

use std::collections::BTreeMap;
use std::sync::Arc;

use ipnet::IpNet;
use sha2::{Digest, Sha256};

use super::collectors::{Collectors, Vp};
use super::routing::{Graph, Pref, PrefixState, Seeds, stable_states};
use super::rpki::Vrps;
use super::topology::{AsIx, Rel};

/// The origin or the link a loss takes away (for path exploration).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Failure {
    /// An origin ASN stops announcing.
    Origin(u32),
    /// The link between two ASNs fails.
    Link(u32, u32),
}

impl Failure {
    /// Whether `path` uses what failed.
    pub fn used_by(self, path: &[u32]) -> bool {
        match self {
            Failure::Origin(o) => path.last() == Some(&o),
            Failure::Link(a, b) => path.windows(2).any(|w| (w[0], w[1]) == (a, b) || (w[0], w[1]) == (b, a)),
        }
    }
}

/// One routing change.
#[derive(Debug, Clone)]
pub struct Change {
    /// When it happens, Unix seconds.
    pub t: u64,
    /// Its name in the delay hashes (`target`, `churn3`); distinct per change.
    pub name: String,
    /// The ASes it starts at (distances are counted from the first of them on a path).
    pub at: Vec<AsIx>,
    /// The new seeds of every prefix it touches (no originations: the prefix is gone). After a
    /// graph or ROA change, list every prefix whose state may change.
    pub seeds: Vec<Seeds>,
    /// The graph from now on, if it changes (a link fails or comes back).
    pub graph: Option<Arc<Graph>>,
    /// The VRPs from now on, if they change.
    pub vrps: Option<Arc<Vrps>>,
    /// What a loss takes away, for path exploration.
    pub failure: Option<Failure>,
}

/// A route as a collector records it from a VP.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VpRoute {
    /// The VP first, the origin last.
    pub path: Vec<u32>,
    /// What the neighbour it came from is to the VP (or its own origination).
    pub pref: Pref,
}

/// One update a VP sends its collectors.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Update {
    /// Milliseconds since the Unix epoch.
    pub ms: u64,
    /// The VP's position in [`Collectors::vps`].
    pub vp: usize,
    pub prefix: IpNet,
    /// `None` is a withdrawal.
    pub route: Option<VpRoute>,
    /// The index of the change that caused it.
    pub change: usize,
}

impl Update {
    /// The update's time in whole seconds, as MRT records it.
    pub fn secs(&self) -> u64 {
        self.ms / 1000
    }
}

/// A RIB entry at some time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RibEntry<'a> {
    pub prefix: IpNet,
    pub vp: usize,
    pub route: &'a VpRoute,
    /// When it was last updated (its first-seen time for a baseline route), Unix seconds.
    pub originated: u64,
}

/// What every VP saw over a task's history.
#[derive(Debug, Clone)]
pub struct Timeline {
    /// Per baseline prefix: its first-seen time and each VP's route (VP order).
    baseline: BTreeMap<IpNet, (u64, Vec<Option<VpRoute>>)>,
    /// Sorted by (second, VP, prefix).
    updates: Vec<Update>,
}

/// Everything the timeline is computed from.
#[derive(Debug, Clone, Copy)]
pub struct Inputs<'a> {
    /// The task id, for the delay jitter.
    pub id: &'a str,
    pub graph: &'a Arc<Graph>,
    pub vrps: &'a Arc<Vrps>,
    pub collectors: &'a Collectors,
    /// The baseline seeds, one per prefix.
    pub baseline: &'a [Seeds],
    /// First-seen time per baseline prefix (same order).
    pub first_seen: &'a [u64],
    /// Whether losses explore old paths first (L3 and L4).
    pub explore: bool,
}

/// The stable state of each prefix together with the world it was computed in.
struct Current {
    graph: Arc<Graph>,
    vrps: Arc<Vrps>,
    states: BTreeMap<IpNet, PrefixState>,
}

impl Timeline {
    /// Computes the timeline of `changes` (applied in time order, ties in the order given).
    pub fn build(inp: Inputs<'_>, changes: &[Change]) -> Timeline {
        let all = stable_states(inp.graph, inp.vrps, inp.baseline.to_vec());
        let mut baseline = BTreeMap::new();
        for (k, st) in all.iter().enumerate() {
            let views = inp.collectors.vps.iter().map(|vp| vp_view(inp.graph, st, vp)).collect();
            baseline.insert(st.prefix(), (inp.first_seen.get(k).copied().unwrap_or(0), views));
        }
        let states = all.into_iter().map(|st| (st.prefix(), st)).collect();
        let mut cur = Current { graph: Arc::clone(inp.graph), vrps: Arc::clone(inp.vrps), states };
        let mut order: Vec<usize> = (0..changes.len()).collect();
        order.sort_by_key(|&k| changes[k].t);
        let mut emit = Emitter::default();
        for k in order {
            apply(&inp, &mut cur, &changes[k], k, &mut emit);
        }
        let mut updates = emit.updates;
        updates.sort_by_key(|u| (u.secs(), u.vp, u.prefix, u.ms));
        Timeline { baseline, updates }
    }

    /// Every update, sorted by (second, VP, prefix).
    pub fn updates(&self) -> &[Update] {
        &self.updates
    }

    /// The updates of seconds `from..to`.
    pub fn updates_between(&self, from: u64, to: u64) -> &[Update] {
        let lo = self.updates.partition_point(|u| u.secs() < from);
        let hi = self.updates.partition_point(|u| u.secs() < to);
        &self.updates[lo..hi.max(lo)]
    }

    /// VP `vp`'s baseline route to `prefix` and its first-seen time.
    pub fn baseline_route(&self, vp: usize, prefix: IpNet) -> Option<(&VpRoute, u64)> {
        let (first, views) = self.baseline.get(&prefix)?;
        views.get(vp)?.as_ref().map(|r| (r, *first))
    }

    /// Every route the collectors hold at `t` (updates up to and including second `t`), sorted
    /// by prefix, then VP.
    pub fn rib_at(&self, t: u64) -> Vec<RibEntry<'_>> {
        let mut rib: BTreeMap<(IpNet, usize), Option<(&VpRoute, u64)>> = BTreeMap::new();
        for (&prefix, (first, views)) in &self.baseline {
            for (vp, r) in views.iter().enumerate() {
                if let Some(r) = r {
                    rib.insert((prefix, vp), Some((r, *first)));
                }
            }
        }
        for u in self.updates.iter().take_while(|u| u.secs() <= t) {
            rib.insert((u.prefix, u.vp), u.route.as_ref().map(|r| (r, u.secs())));
        }
        rib.into_iter()
            .filter_map(|((prefix, vp), e)| {
                e.map(|(route, originated)| RibEntry { prefix, vp, route, originated })
            })
            .collect()
    }
}

/// The route VP `vp` sends its collectors in state `st`, if its feed carries one.
pub fn vp_view(g: &Graph, st: &PrefixState, vp: &Vp) -> Option<VpRoute> {
    let best = st.best(vp.asx)?;
    if !vp.feed.exports(best.pref) {
        return None;
    }
    Some(VpRoute { path: st.path(g, vp.asx)?, pref: best.pref })
}

/// Collects updates, keeping each VP's updates to a prefix in order.
#[derive(Default)]
struct Emitter {
    updates: Vec<Update>,
    last: BTreeMap<(usize, IpNet), u64>,
}

impl Emitter {
    fn push(&mut self, mut u: Update) {
        if let Some(&last) = self.last.get(&(u.vp, u.prefix))
            && u.secs() <= last / 1000
        {
            u.ms = last + 1000;
        }
        self.last.insert((u.vp, u.prefix), u.ms);
        self.updates.push(u);
    }
}

fn apply(inp: &Inputs<'_>, cur: &mut Current, ch: &Change, k: usize, emit: &mut Emitter) {
    let graph = ch.graph.clone().unwrap_or_else(|| Arc::clone(&cur.graph));
    let vrps = ch.vrps.clone().unwrap_or_else(|| Arc::clone(&cur.vrps));
    let at: Vec<u32> = ch.at.iter().filter(|&&a| a < graph.len()).map(|&a| graph.asn(a)).collect();
    for st in stable_states(&graph, &vrps, ch.seeds.clone()) {
        let old = cur.states.get(&st.prefix());
        for (v, vp) in inp.collectors.vps.iter().enumerate() {
            let before = old.and_then(|o| vp_view(&cur.graph, o, vp));
            let after = vp_view(&graph, &st, vp);
            if before == after {
                continue;
            }
            let h = distance(&at, &before, &after);
            let asn = graph.asn(vp.asx);
            let t0 = ch.t * 1000 + 5000 + 4000 * h + jitter(inp.id, &ch.name, asn, st.prefix());
            let mut steps = Vec::new();
            if let (true, Some(f), Some(b), Some(o)) = (inp.explore, ch.failure, &before, old)
                && f.used_by(&b.path)
            {
                steps = candidates(cur, o, vp, b, f);
            }
            steps.push(after);
            for (i, route) in steps.into_iter().enumerate() {
                let u = Update { ms: t0 + 30_000 * i as u64, vp: v, prefix: st.prefix(), route, change: k };
                emit.push(u);
            }
        }
        cur.states.insert(st.prefix(), st);
    }
    cur.graph = graph;
    cur.vrps = vrps;
}

/// The AS-hop distance from the change to a VP: where the first of the change's ASes sits on
/// the new path, else on the old one (a loss), else the length of the path.
fn distance(at: &[u32], before: &Option<VpRoute>, after: &Option<VpRoute>) -> u64 {
    let pos = |r: &Option<VpRoute>| r.as_ref().and_then(|r| r.path.iter().position(|a| at.contains(a)));
    let len = || after.as_ref().or(before.as_ref()).map_or(0, |r| r.path.len());
    pos(after).or_else(|| pos(before)).unwrap_or_else(len) as u64
}

/// Up to two of VP `vp`'s other pre-change candidates that also use `f`, best first.
fn candidates(cur: &Current, st: &PrefixState, vp: &Vp, best: &VpRoute, f: Failure) -> Vec<Option<VpRoute>> {
    let g = &cur.graph;
    let me = g.asn(vp.asx);
    let best_via = best.path.get(1).copied();
    let mut out: Vec<(Pref, usize, u32, Vec<u32>)> = Vec::new();
    for (n, rel) in g.neighbours(vp.asx) {
        let Some(nb) = st.best(n) else { continue };
        let exported = nb.pref >= Pref::Customer || rel == Rel::Provider;
        let pref = Pref::of(rel);
        if !exported || !vp.feed.exports(pref) || Some(g.asn(n)) == best_via {
            continue;
        }
        let Some(p) = st.path_toward(g, n, vp.asx) else { continue };
        let invalid = p.last().is_some_and(|&o| cur.vrps.validate(st.prefix(), o).is_invalid());
        if p.contains(&me) || (invalid && g.deploys_rov(vp.asx)) || !f.used_by(&p) {
            continue;
        }
        let mut path = Vec::with_capacity(p.len() + 1);
        path.push(me);
        path.extend(p);
        out.push((pref, path.len(), g.asn(n), path));
    }
    out.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2)));
    out.into_iter().take(2).map(|(pref, _, _, path)| Some(VpRoute { path, pref })).collect()
}

/// The per-(event, AS, prefix) delay jitter: SHA-256 of `id|event|ASN|prefix` mod 3001, in ms.
pub fn jitter(id: &str, event: &str, asn: u32, prefix: IpNet) -> u64 {
    let d = Sha256::digest(format!("{id}|{event}|{asn}|{prefix}").as_bytes());
    let mut b = [0u8; 8];
    b.copy_from_slice(&d[..8]);
    u64::from_be_bytes(b) % 3001
}

#[cfg(test)]
mod tests;
