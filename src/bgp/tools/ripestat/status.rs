//! `visibility` and `routing-status`: how many full-feed vantage points see a prefix (or an
//! AS's prefixes) at one moment, who they are per collector, and a prefix's or AS's routing
//! summary (first and last seen, origins, less- and more-specifics, announced space).
//!
//! "Full table peer" is a vantage point with a full feed: a partial feed carries only its
//! own and customer routes, so its missing a prefix says nothing about the prefix (RIPEstat
//! excludes such peers by a prefix-count threshold; our feeds say it directly). A world without
//! IPv6 prefixes has no IPv6 full-table peers. The moment is the window's end unless
//! `query_time` (visibility) or `timestamp` (routing-status) names another, clamped to the
//! history; unlike RIPEstat it is not rounded to a RIB dump time.

use std::collections::BTreeSet;

use ipnet::IpNet;
use serde_json::{Value, json};

use super::{Query, Resource, routed_prefix, time};
use crate::bgp::collectors::{self, Feed};
use crate::bgp::task::Task;
use crate::bgp::timeline::RibEntry;
use crate::bgp::tools::view::{spans, within};

impl Query<'_> {
    /// The moment a snapshot call describes: `key` if given (clamped), else the window's end.
    fn moment(&self, key: &str) -> Result<u64, String> {
        let c = self.task.world.clock;
        match self.params.get(key) {
            None => Ok(c.end()),
            Some(t) => time::parse(t).map(|t| c.clamp(t)).ok_or_else(|| format!("Invalid {key}: {t}")),
        }
    }
}

/// What a snapshot call is about: one prefix (an address resolved to its routed prefix) or
/// the routes an AS originates.
#[derive(Debug, Clone, Copy)]
enum Subject {
    Prefix(IpNet),
    Origin(u32),
}

impl Subject {
    fn of(task: &Task, res: Resource) -> Subject {
        match res {
            Resource::Asn(a) => Subject::Origin(a),
            Resource::Prefix(p) => Subject::Prefix(p),
            Resource::Ip(a) => Subject::Prefix(routed_prefix(task, a)),
        }
    }

    /// Whether a route to `prefix` with this origin is about the subject.
    fn holds(self, prefix: IpNet, origin: Option<u32>) -> bool {
        match self {
            Subject::Prefix(p) => prefix == p,
            Subject::Origin(a) => origin == Some(a),
        }
    }

    /// Whether the subject concerns the address family: a prefix its own, an AS a family it
    /// holds space in or is seen originating in (else every peer of the family would be
    /// listed as not seeing an AS that never announced anything there).
    fn in_family(self, task: &Task, seen: &[BTreeSet<usize>; 2], v6: bool) -> bool {
        match self {
            Subject::Prefix(p) => p.addr().is_ipv6() == v6,
            Subject::Origin(a) => {
                let t = &task.world.topology;
                let owns =
                    t.prefixes.iter().any(|p| t.ases[p.owner].asn == a && p.net.addr().is_ipv6() == v6);
                owns || !seen[usize::from(v6)].is_empty()
            }
        }
    }
}

/// Whether the world has any IPv6 prefix (else there are no IPv6 full-table peers).
fn has_v6(task: &Task) -> bool {
    task.world.topology.prefixes.iter().any(|p| p.net.addr().is_ipv6())
}

/// The full-feed VPs of `family`, in VP order.
fn full_peers(task: &Task, v6: bool) -> Vec<usize> {
    if v6 && !has_v6(task) {
        return Vec::new();
    }
    (0..task.world.collectors.vps.len())
        .filter(|&k| task.world.collectors.vps[k].feed == Feed::Full)
        .collect()
}

/// The VPs whose route at the moment is about the subject, per family (v4, v6).
fn seeing(rib: &[RibEntry<'_>], subject: Subject) -> [BTreeSet<usize>; 2] {
    let mut out = [BTreeSet::new(), BTreeSet::new()];
    for e in rib.iter().filter(|e| subject.holds(e.prefix, e.route.path.last().copied())) {
        out[usize::from(e.prefix.addr().is_ipv6())].insert(e.vp);
    }
    out
}

pub(super) fn visibility(q: &Query<'_>) -> Result<Value, String> {
    let task = q.task;
    let subject = Subject::of(task, q.resource()?);
    let at = q.moment("query_time")?;
    let with_seeing = match q.params.get("include") {
        None => false,
        Some(&"peers_seeing") => true,
        Some(other) => return Err(format!("Invalid include: {other}")),
    };
    let rib = task.timeline.rib_at(at);
    let seen = seeing(&rib, subject);
    let vps = &task.world.collectors.vps;
    let peer = |k: usize, v6: bool| {
        let ip = if v6 { vps[k].ip6.to_string() } else { vps[k].ip4.to_string() };
        json!({"asn": task.world.topology.ases[vps[k].asx].asn, "ip": ip})
    };
    let visibilities: Vec<Value> = (0..task.world.collectors.count)
        .map(|c| {
            let feeding: Vec<usize> = task.world.collectors.feeding(c).collect();
            let mut v = json!({"probe": {"name": collectors::name(c).to_uppercase(), "city": "NetPress lab", "country": "ZZ",
                                         "ipv4_peer_count": feeding.len(), "ipv6_peer_count": if has_v6(task) { feeding.len() } else { 0 }}});
            for (fam, v6) in [("ipv4", false), ("ipv6", true)] {
                let full: Vec<usize> = full_peers(task, v6).into_iter().filter(|k| feeding.contains(k)).collect();
                let concerned = subject.in_family(task, &seen, v6);
                let (yes, no): (Vec<usize>, Vec<usize>) = if concerned {
                    full.iter().partition(|&&k| seen[usize::from(v6)].contains(&k))
                } else {
                    (Vec::new(), Vec::new())
                };
                let count = if concerned { full.len() } else { 0 };
                v[format!("{fam}_full_table_peer_count")] = json!(count);
                v[format!("{fam}_full_table_peers_not_seeing")] = no.iter().map(|&k| peer(k, v6)).collect();
                if with_seeing {
                    v[format!("{fam}_full_table_peers_seeing")] = yes.iter().map(|&k| peer(k, v6)).collect();
                }
            }
            v
        })
        .collect();
    Ok(json!({
        "visibilities": visibilities,
        "resource": resource_name(subject),
        "query_time": time::iso(at),
        "latest_time": time::iso(task.world.clock.end()),
    }))
}

fn resource_name(subject: Subject) -> String {
    match subject {
        Subject::Prefix(p) => p.to_string(),
        Subject::Origin(a) => a.to_string(),
    }
}

pub(super) fn routing_status(q: &Query<'_>) -> Result<Value, String> {
    let task = q.task;
    let subject = Subject::of(task, q.resource()?);
    let at = q.moment("timestamp")?;
    let rib = task.timeline.rib_at(at);
    let seen = seeing(&rib, subject);
    let family = |v6: bool| {
        let full = full_peers(task, v6);
        let n = full.iter().filter(|&&k| seen[usize::from(v6)].contains(&k)).count();
        json!({"ris_peers_seeing": n, "total_ris_peers": full.len()})
    };
    let mut data = json!({
        "visibility": {"v4": family(false), "v6": family(true)},
        "resource": resource_name(subject),
        "query_time": time::iso(at),
    });
    if let Some((first, last)) = first_and_last(task, subject, at, &rib) {
        data["first_seen"] = first;
        data["last_seen"] = last;
    }
    match subject {
        Subject::Prefix(p) => prefix_status(task, p, at, &rib, &mut data),
        Subject::Origin(a) => as_status(a, &rib, &mut data),
    }
    Ok(data)
}

fn seen_at(prefix: IpNet, origin: u32, t: u64) -> Value {
    json!({"prefix": prefix.to_string(), "origin": origin.to_string(), "time": time::iso(t)})
}

/// When and how the subject was first seen, and last seen (the moment itself while it is
/// still seen); `None` if it never was before the moment. Ties go to the lower prefix and
/// origin.
fn first_and_last(task: &Task, subject: Subject, at: u64, rib: &[RibEntry<'_>]) -> Option<(Value, Value)> {
    let held: Vec<(u64, u64, IpNet, u32)> = spans(task, |_| true)
        .iter()
        .filter_map(|s| Some((s.from, s.to.min(at), s.prefix, s.origin()?)))
        .filter(|&(from, _, p, o)| from <= at && subject.holds(p, Some(o)))
        .collect();
    let first = held.iter().min_by_key(|h| (h.0, h.2, h.3))?;
    let now = rib
        .iter()
        .filter_map(|e| Some((e.prefix, *e.route.path.last()?)))
        .find(|&(p, o)| subject.holds(p, Some(o)));
    let last = match now {
        Some((p, o)) => seen_at(p, o, at),
        None => {
            let l = held.iter().max_by_key(|h| (h.1, std::cmp::Reverse((h.2, h.3))))?;
            seen_at(l.2, l.3, l.1)
        }
    };
    Some((seen_at(first.2, first.3, first.0), last))
}

/// The routes at the moment as (prefix, origin) pairs, sorted, each once.
fn routes(rib: &[RibEntry<'_>]) -> BTreeSet<(IpNet, u32)> {
    rib.iter().filter_map(|e| Some((e.prefix, *e.route.path.last()?))).collect()
}

fn prefix_status(task: &Task, p: IpNet, at: u64, rib: &[RibEntry<'_>], data: &mut Value) {
    let now = routes(rib);
    let registered = |o: u32| task.world.topology.index_of(o).is_some_and(|a| task.irr.registered(p, a, at));
    let origins: BTreeSet<u32> = now.iter().filter(|r| r.0 == p).map(|r| r.1).collect();
    data["origins"] = origins
        .iter()
        .map(|&o| {
            let objects: Vec<&str> = if registered(o) { vec!["NETPRESS"] } else { Vec::new() };
            json!({"origin": o.to_string(), "route_objects": objects})
        })
        .collect();
    let listed = |keep: &dyn Fn(IpNet) -> bool| -> Value {
        now.iter()
            .filter(|r| keep(r.0))
            .map(|&(q, o)| json!({"prefix": q.to_string(), "origin": o.to_string()}))
            .collect()
    };
    data["less_specifics"] = listed(&|q| q != p && within(p, q));
    data["more_specifics"] = listed(&|q| q != p && within(q, p));
}

fn as_status(asn: u32, rib: &[RibEntry<'_>], data: &mut Value) {
    let mine: BTreeSet<IpNet> = routes(rib).into_iter().filter(|r| r.1 == asn).map(|r| r.0).collect();
    let (v4, v6): (Vec<IpNet>, Vec<IpNet>) = mine.iter().partition(|p| p.addr().is_ipv4());
    let ips: u64 = v4.iter().map(|p| 1u64 << (32 - p.prefix_len())).sum();
    let s48: u64 = v6.iter().map(|p| 1u64 << 48u8.saturating_sub(p.prefix_len()).min(63)).sum();
    data["announced_space"] =
        json!({"v4": {"prefixes": v4.len(), "ips": ips}, "v6": {"prefixes": v6.len(), "48s": s48}});
    let mut neighbours: BTreeSet<u32> = BTreeSet::new();
    for e in rib {
        let mut path = e.route.path.clone();
        path.dedup();
        for w in path.windows(2) {
            if w[0] == asn {
                neighbours.insert(w[1]);
            } else if w[1] == asn {
                neighbours.insert(w[0]);
            }
        }
    }
    data["observed_neighbours"] = json!(neighbours.len());
}

#[cfg(test)]
mod tests;
