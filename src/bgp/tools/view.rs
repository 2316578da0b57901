//! What the tools read from a task: each vantage point's routes over time, the VRPs in force,
//! the communities and peer addresses a collector records. One place, so bgpdump, RIPEstat and
//! the baseline's checks see the same data.

use std::collections::BTreeMap;
use std::net::IpAddr;

use ipnet::IpNet;

use crate::bgp::routing::Pref;
use crate::bgp::rpki::Vrps;
use crate::bgp::task::Task;
use crate::bgp::timeline::VpRoute;
use crate::bgp::topology::Tier;

/// A route one VP held from `from` until `to` (the window's end if still held).
#[derive(Debug, Clone)]
pub struct Span<'a> {
    pub vp: usize,
    pub prefix: IpNet,
    pub route: &'a VpRoute,
    pub from: u64,
    pub to: u64,
}

impl Span<'_> {
    pub fn origin(&self) -> Option<u32> {
        self.route.path.last().copied()
    }
}

/// Every route of a prefix `want` accepts, over the task's history, sorted by (prefix, VP,
/// start).
pub fn spans(task: &Task, want: impl Fn(IpNet) -> bool) -> Vec<Span<'_>> {
    let tl = &task.timeline;
    let end = task.world.clock.end();
    let mut open: BTreeMap<(IpNet, usize), (&VpRoute, u64)> = BTreeMap::new();
    for p in task.world.topology.prefixes.iter().filter(|p| want(p.net)) {
        for vp in 0..task.world.collectors.vps.len() {
            if let Some((r, first)) = tl.baseline_route(vp, p.net) {
                open.insert((p.net, vp), (r, first));
            }
        }
    }
    let mut out = Vec::new();
    for u in tl.updates().iter().filter(|u| want(u.prefix) && u.secs() <= end) {
        if let Some((route, from)) = open.remove(&(u.prefix, u.vp)) {
            out.push(Span { vp: u.vp, prefix: u.prefix, route, from, to: u.secs() });
        }
        if let Some(r) = &u.route {
            open.insert((u.prefix, u.vp), (r, u.secs()));
        }
    }
    out.extend(open.into_iter().map(|((prefix, vp), (route, from))| Span {
        vp,
        prefix,
        route,
        from,
        to: end,
    }));
    out.sort_by_key(|s| (s.prefix, s.vp, s.from));
    out
}

/// The VRPs in force at `t`: the last ROA change at or before `t` (the incident's or a new
/// prefix's; each carries the whole set, and ties go to the later one, as the timeline
/// applies them), else the world's.
pub fn vrps_at(task: &Task, t: u64) -> &Vrps {
    let distractor = task.distractor.iter().flat_map(|d| d.changes.iter());
    task.incident
        .changes
        .iter()
        .chain(distractor)
        .chain(&task.churn)
        .filter(|c| c.t <= t)
        .filter_map(|c| c.vrps.as_deref().map(|v| (c.t, v)))
        .max_by_key(|&(at, _)| at)
        .map_or(&task.world.vrps, |(_, v)| v)
}

/// The VP's ASN.
pub fn vp_asn(task: &Task, vp: usize) -> u32 {
    task.world.topology.ases[task.world.collectors.vps[vp].asx].asn
}

/// The VP's session address for `prefix`'s family (also the next hop it announces).
pub fn peer_ip(task: &Task, vp: usize, prefix: IpNet) -> IpAddr {
    let v = &task.world.collectors.vps[vp];
    match prefix {
        IpNet::V4(_) => IpAddr::V4(v.ip4),
        IpNet::V6(_) => IpAddr::V6(v.ip6),
    }
}

/// The informational community a 16-bit transit VP tags its route with: `A:100` learned from
/// a customer, `A:200` from a peer, `A:300` from a provider.
pub fn community(task: &Task, vp: usize, route: &VpRoute) -> Option<(u32, u32)> {
    let info = &task.world.topology.ases[task.world.collectors.vps[vp].asx];
    if info.tier != Tier::Transit || info.asn > 65_535 {
        return None;
    }
    let tag = match route.pref {
        Pref::Customer => 100,
        Pref::Peer => 200,
        Pref::Provider => 300,
        Pref::Own => return None,
    };
    Some((info.asn, tag))
}

/// Whether `p` is `of` or more specific than it.
pub fn within(p: IpNet, of: IpNet) -> bool {
    p == of || of.contains(&p)
}

/// Every prefix the task's routes ever carry, sorted.
pub fn known_prefixes(task: &Task) -> Vec<IpNet> {
    let mut all: Vec<IpNet> = task.world.topology.prefixes.iter().map(|p| p.net).collect();
    all.extend(task.timeline.updates().iter().map(|u| u.prefix));
    all.sort_unstable();
    all.dedup();
    all
}
