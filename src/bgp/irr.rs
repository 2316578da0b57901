//! The routing registry (IRR): the `route`/`route6` objects the emulated Internet registered,
//! which RIPEstat's `whois` (`irr_records`) and `routing-status` (`route_objects`) show.
//!
//! - Every baseline prefix has an object for its owner, created when the route was first seen.
//! - A benign new origin registers before it announces, as operators do: a migration's new
//!   origin when its ROA is published (at least an hour before the start), an anycast sibling
//!   with its ROA at the start. No harmful family registers anything, so a hijacker's or
//!   re-originator's origin has no object, as in the real registries most of the time.
//! - A new prefix of the churn (generator v2) has its owner's object, registered with its ROA
//!   before the first announcement.
//! - From L3 on, 5% of the prefixes (rounded) also carry a **stale** object: one left by a
//!   former upstream of the owner, registered when it announced the space for its customer and
//!   never deleted, the most common kind of stale IRR data. It names one of the owner's current
//!   providers, created 30–720 days before the route was first seen. A stale object never names
//!   an AS of the target or the distractor, so the registry never vouches for a culprit.
//!
//! **Draws.** The stale objects are the stream's last draws, after the trigger: a registry is
//! only read by the tools, and drawing it last left every earlier draw, so every task's
//! incident, timeline and truth, unchanged. The other objects draw nothing.

use ipnet::IpNet;

use super::churn::Fresh;
use super::family::Family;
use super::incident::Incident;
use super::level::Level;
use super::topology::{AsIx, Rel};
use super::world::World;
use crate::seed::Stream;

const DAY: u64 = 86_400;

/// One `route` (IPv4) or `route6` object.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RouteObject {
    pub prefix: IpNet,
    /// The AS the object authorises to originate the prefix.
    pub origin: AsIx,
    /// When it was registered (Unix seconds); objects are never deleted.
    pub created: u64,
    /// Left behind by a former upstream.
    pub stale: bool,
}

/// Every route object of a task, sorted by prefix, then origin's index.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Irr {
    pub objects: Vec<RouteObject>,
}

impl Irr {
    /// The objects for exactly `prefix` that exist at `t`.
    pub fn at(&self, prefix: IpNet, t: u64) -> impl Iterator<Item = &RouteObject> {
        self.objects.iter().filter(move |o| o.prefix == prefix && o.created <= t)
    }

    /// Whether some object at `t` authorises `origin` for `prefix`.
    pub fn registered(&self, prefix: IpNet, origin: AsIx, t: u64) -> bool {
        self.at(prefix, t).any(|o| o.origin == origin)
    }
}

/// The registry of `world` with the task's `incidents` (target first) and the churn's new
/// prefixes; draws the stale objects (their count as generator `version` rounds it).
pub fn draw(s: &mut Stream, world: &World, incidents: &[&Incident], fresh: &[Fresh], version: u32) -> Irr {
    let t = &world.topology;
    let mut objects: Vec<RouteObject> = t
        .prefixes
        .iter()
        .zip(&world.first_seen)
        .map(|(p, &seen)| RouteObject { prefix: p.net, origin: p.owner, created: seen, stale: false })
        .collect();
    for inc in incidents {
        objects.extend(newcomer(world, inc));
    }
    let registered =
        |f: &Fresh| RouteObject { prefix: f.prefix, origin: f.owner, created: f.published, stale: false };
    objects.extend(fresh.iter().map(registered));
    if t.level >= Level::L3 {
        let protected: Vec<AsIx> =
            incidents.iter().flat_map(|i| i.ases.iter().copied().chain(i.new_origin)).collect();
        objects.extend(stale(s, world, &protected, version));
    }
    objects.sort_by_key(|o| (o.prefix, o.origin, o.created));
    objects.dedup_by_key(|o| (o.prefix, o.origin));
    Irr { objects }
}

/// A benign new origin's object: a migration's when its ROA appears, an anycast sibling's at
/// the start.
fn newcomer(world: &World, inc: &Incident) -> Option<RouteObject> {
    if !matches!(inc.family, Family::Bm | Family::Ba) {
        return None;
    }
    let w = inc.new_origin?;
    let asn = world.topology.ases[w].asn;
    let created = inc.new_roas.iter().find(|(_, r)| r.origin == asn).map_or(inc.start, |&(at, _)| at);
    Some(RouteObject { prefix: inc.prefix, origin: w, created, stale: false })
}

/// 5% of the prefixes, rounded, among those whose owner has a provider outside `protected`.
fn stale(s: &mut Stream, world: &World, protected: &[AsIx], version: u32) -> Vec<RouteObject> {
    let t = &world.topology;
    let uplinks = |owner: AsIx| -> Vec<AsIx> {
        t.neighbours(owner)
            .iter()
            .filter(|&&(n, r)| r == Rel::Provider && !protected.contains(&n))
            .map(|&(n, _)| n)
            .collect()
    };
    let eligible: Vec<usize> =
        (0..t.prefixes.len()).filter(|&k| !uplinks(t.prefixes[k].owner).is_empty()).collect();
    let want = stale_count(t.prefixes.len(), eligible.len(), version);
    s.subset(eligible.len(), want)
        .into_iter()
        .map(|j| {
            let k = eligible[j];
            let origin = *s.choose(&uplinks(t.prefixes[k].owner));
            let created = world.first_seen[k] - DAY * s.range(30, 720);
            RouteObject { prefix: t.prefixes[k].net, origin, created, stale: true }
        })
        .collect()
}

/// How many stale objects a registry holds: 5% of `prefixes`, rounded, at most `eligible`.
/// Generator v1 divided by `min(100, eligible)` instead of dividing by 100 and then taking the
/// minimum: the same count from 100 eligible prefixes on, more below that, and a panic (division
/// by zero, or more objects than eligible prefixes) in the worlds where it overshot. v1 keeps
/// its count wherever it generated, so its tasks stay byte for byte what they were; where it
/// failed, the count is capped and the id now generates.
fn stale_count(prefixes: usize, eligible: usize, version: u32) -> usize {
    let v2 = (prefixes * 5 + 50) / 100;
    let count =
        if version >= 2 { v2 } else { (prefixes * 5 + 50).checked_div(100.min(eligible)).unwrap_or(0) };
    count.min(eligible)
}

#[cfg(test)]
mod tests;
