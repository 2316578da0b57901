//! The data plane: where a packet toward an address goes, AS by AS, at some time of a task
//! (docs/bgp.md, "Traceroutes").
//!
//! **State.** The routing state at time `t` is the stable state after every change made at or
//! before `t` (the task's incident, distractor and churn, in the timeline's order), computed
//! for the prefixes that cover the address only: the baseline prefix that holds it and every
//! more-specific a change ever announces. Convergence is taken as instant: the control plane's
//! few seconds per AS hop (what the collectors record) do not delay forwarding here.
//!
//! **Forwarding.** From the probe's AS, each AS takes its longest matching prefix it has a
//! route to and hands the packet to that route's neighbour, one hop per AS. An AS with no
//! route for the address still answers the hop the packet expired at, then drops it. The AS
//! that originates the matched prefix delivers when it holds the address: the address's
//! owner, a sibling of the owner (anycast), or the new origin of a benign migration. Any other
//! originator (a hijacker) answers its own hop and then nothing. A re-originator is the
//! exception that makes its family observable: it announces the victim's prefix as its own yet
//! still hands the packets along the path it held before, so the trace crosses it and reaches
//! the victim. Its frozen path is followed hop by hop as stored, since the ASes on it may now
//! route the prefix back toward the re-originator. At [`MAX_HOPS`] the trace stops, so a
//! forwarding loop between a more-specific and its cover ends there.

use std::net::IpAddr;
use std::sync::Arc;

use ipnet::IpNet;

use super::family::Family;
use super::incident::{Culprit, Incident};
use super::prefixes::ixp_lan;
use super::probes::router_address;
use super::routing::{Best, Origination, PrefixState, Seeds, stable_state};
use super::task::Task;
use super::timeline::Change;
use super::topology::{AsIx, LinkKind, Topology};
use super::world::World;

/// The hop limit of a traceroute (RIPE Atlas's default).
pub const MAX_HOPS: usize = 32;
/// Silent hops in a row after which a probe gives up.
pub const GIVE_UP: usize = 5;

/// What the data plane needs of a task: the world and every change made in it. The generator
/// builds one before the task exists, to check that a re-origination shows in traceroutes.
#[derive(Clone, Copy)]
pub struct Scene<'a> {
    pub world: &'a World,
    pub incident: &'a Incident,
    pub distractor: Option<&'a Incident>,
    pub churn: &'a [Change],
}

impl Task {
    /// The task as the data plane sees it.
    pub fn scene(&self) -> Scene<'_> {
        Scene {
            world: &self.world,
            incident: &self.incident,
            distractor: self.distractor.as_ref(),
            churn: &self.churn,
        }
    }
}

/// Host 10 of a prefix: the service address a level-3 report names, and where the generator
/// aims the traceroutes that must show a re-origination.
pub fn service_address(net: IpNet) -> IpAddr {
    match net {
        IpNet::V4(p) => IpAddr::V4((u32::from(p.network()) + 10).into()),
        IpNet::V6(p) => IpAddr::V6((u128::from(p.network()) + 10).into()),
    }
}

/// One AS a packet crosses, and the exchange point it entered it over, if any.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hop {
    pub asx: AsIx,
    pub ixp: Option<usize>,
}

/// Where a packet went: the ASes it crossed (the source's first) and whether the last one
/// delivered it to the address.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Path {
    pub hops: Vec<Hop>,
    pub delivered: bool,
}

/// The routing state toward one address at one time.
pub struct Plane<'a> {
    scene: Scene<'a>,
    dst: IpAddr,
    /// Every prefix covering the address, longest first.
    states: Vec<PrefixState>,
}

/// The task's changes in the order the timeline applies them: by time, ties in the order
/// incident, distractor, churn.
fn changes<'a>(scene: &Scene<'a>) -> Vec<&'a Change> {
    let mut all: Vec<&Change> = scene.incident.changes.iter().collect();
    all.extend(scene.distractor.iter().flat_map(|d| d.changes.iter()));
    all.extend(scene.churn.iter());
    all.sort_by_key(|c| c.t);
    all
}

fn baseline_seeds(t: &Topology, net: IpNet) -> Seeds {
    let originations = t
        .prefixes
        .iter()
        .filter(|p| p.net == net)
        .map(|p| Origination::plain(p.owner, t.ases[p.owner].asn))
        .collect();
    Seeds { prefix: net, originations, leaks: Vec::new() }
}

impl<'a> Plane<'a> {
    /// The state toward `dst` at `t`.
    pub fn at(task: &'a Task, dst: IpAddr, t: u64) -> Plane<'a> {
        Plane::in_scene(task.scene(), dst, t)
    }

    /// The state toward `dst` at `t` in `scene`.
    pub fn in_scene(scene: Scene<'a>, dst: IpAddr, t: u64) -> Plane<'a> {
        let topo = &scene.world.topology;
        let all = changes(&scene);
        let applied: Vec<&Change> = all.iter().copied().filter(|c| c.t <= t).collect();
        let mut nets: Vec<IpNet> = topo.prefixes.iter().map(|p| p.net).filter(|n| n.contains(&dst)).collect();
        let announced = all.iter().flat_map(|c| c.seeds.iter().map(|s| s.prefix));
        nets.extend(announced.filter(|n| n.contains(&dst)));
        nets.sort_by_key(|n| (std::cmp::Reverse(n.prefix_len()), *n));
        nets.dedup();
        let mut seeds: Vec<Seeds> = nets.iter().map(|&n| baseline_seeds(topo, n)).collect();
        let mut graph = Arc::clone(&scene.world.graph);
        let mut vrps = Arc::clone(&scene.world.vrps);
        for c in applied {
            if let Some(g) = &c.graph {
                graph = Arc::clone(g);
            }
            if let Some(v) = &c.vrps {
                vrps = Arc::clone(v);
            }
            for s in &c.seeds {
                if let Some(k) = nets.iter().position(|&n| n == s.prefix) {
                    seeds[k] = s.clone();
                }
            }
        }
        let states = seeds.into_iter().map(|s| stable_state(&graph, &vrps, s)).collect();
        Plane { scene, dst, states }
    }

    fn topo(&self) -> &'a Topology {
        &self.scene.world.topology
    }

    /// The path of a packet sent from AS `from`.
    pub fn forward(&self, from: AsIx) -> Path {
        let mut hops = vec![Hop { asx: from, ixp: None }];
        let mut cur = from;
        while hops.len() < MAX_HOPS {
            let Some((st, best)) = self.lookup(cur) else { break };
            let Some(next) = best.neighbour else { return self.at_origin(cur, st.prefix(), hops) };
            hops.push(Hop { asx: next, ixp: self.ixp_between(cur, next) });
            cur = next;
        }
        Path { hops, delivered: false }
    }

    /// AS `a`'s longest-match route toward the address.
    fn lookup(&self, a: AsIx) -> Option<(&PrefixState, Best)> {
        self.states.iter().find_map(|st| st.best(a).map(|b| (st, b)))
    }

    /// The packet reached `a`, which originates `prefix`.
    fn at_origin(&self, a: AsIx, prefix: IpNet, mut hops: Vec<Hop>) -> Path {
        if self.serves(a, prefix) {
            return Path { hops, delivered: true };
        }
        let Some(frozen) = self.reoriginated(a, prefix) else { return Path { hops, delivered: false } };
        let mut prev = a;
        for &asn in frozen.iter().skip(1) {
            let Some(next) = self.topo().index_of(asn) else { break };
            if hops.len() >= MAX_HOPS {
                return Path { hops, delivered: false };
            }
            hops.push(Hop { asx: next, ixp: self.ixp_between(prev, next) });
            prev = next;
        }
        let delivered = prev != a && self.serves(prev, prefix);
        Path { hops, delivered }
    }

    /// Whether `a`, originating `prefix`, holds the address: its owner, the owner's sibling,
    /// or a benign new origin of that prefix.
    fn serves(&self, a: AsIx, prefix: IpNet) -> bool {
        let t = self.topo();
        let owner = t.prefixes.iter().find(|p| p.net.contains(&self.dst)).map(|p| p.owner);
        let Some(owner) = owner else { return false };
        let benign = |inc: &Incident| {
            inc.family.is_benign() && inc.new_origin == Some(a) && inc.prefixes.contains(&prefix)
        };
        a == owner || t.ases[a].org == t.ases[owner].org || self.incidents().any(benign)
    }

    /// The frozen forwarding path of a re-originator `a` of `prefix` (`a` first).
    fn reoriginated(&self, a: AsIx, prefix: IpNet) -> Option<&'a [u32]> {
        let found = self.incidents().find(|inc| {
            inc.family == Family::Ro && inc.culprit == Culprit::Offender(a) && inc.prefix == prefix
        })?;
        found.frozen.as_deref()
    }

    fn incidents(&self) -> impl Iterator<Item = &'a Incident> + use<'a> {
        std::iter::once(self.scene.incident).chain(self.scene.distractor)
    }

    /// The exchange point `a` and `b` meet over, if their link is a route-server session.
    fn ixp_between(&self, a: AsIx, b: AsIx) -> Option<usize> {
        let (lo, hi) = (a.min(b), a.max(b));
        self.topo().links.iter().find(|l| l.a == lo && l.b == hi).and_then(|l| match l.kind {
            LinkKind::RouteServer(i) => Some(i),
            _ => None,
        })
    }
}

/// What answers one hop of a traceroute.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reply {
    /// A router, from this address.
    Router(IpAddr),
    /// The destination itself.
    Destination,
    Silent,
}

impl Path {
    /// What answers each hop of a traceroute along this path, up to where the probe gives up
    /// ([`GIVE_UP`] silent hops in a row).
    pub fn replies(&self, t: &Topology, v6: bool) -> Vec<Reply> {
        let last = self.hops.len() - 1;
        let mut out = Vec::new();
        let mut silent = 0;
        for (i, &hop) in self.hops.iter().enumerate() {
            let reply = match i == last && self.delivered {
                true => Reply::Destination,
                false => hop_address(t, hop, v6).map_or(Reply::Silent, Reply::Router),
            };
            silent = if reply == Reply::Silent { silent + 1 } else { 0 };
            out.push(reply);
            if silent == GIVE_UP {
                break;
            }
        }
        out
    }

    /// Whether a traceroute along this path shows AS `a` answering a hop and then the
    /// destination answering: what a re-origination by `a` looks like in the data plane.
    pub fn shows_through(&self, t: &Topology, a: AsIx, v6: bool) -> bool {
        let replies = self.replies(t, v6);
        replies.last() == Some(&Reply::Destination)
            && self.hops.iter().zip(&replies).any(|(h, r)| h.asx == a && matches!(r, Reply::Router(_)))
    }
}

/// The address AS `hop.asx` answers a hop from: its address on the exchange point's LAN when
/// the packet came in over it (member `j` of the exchange holds host `j + 1`; a member beyond
/// what the /26 holds answers from its own space), else host 1 of its first prefix of the
/// family. An AS without space of that family answers nothing (`None`).
pub fn hop_address(t: &Topology, hop: Hop, v6: bool) -> Option<IpAddr> {
    let on_lan = hop.ixp.and_then(|i| {
        let j = t.ixps.get(i)?.members.iter().position(|&m| m == hop.asx)? as u128 + 1;
        let (lan4, lan6) = ixp_lan(i)?;
        if v6 {
            Some(IpAddr::V6((u128::from(lan6.network()) + j).into()))
        } else {
            let hosts = (1u128 << (32 - lan4.prefix_len())) - 2;
            (j <= hosts).then(|| IpAddr::V4((u32::from(lan4.network()) + j as u32).into()))
        }
    });
    on_lan.or_else(|| router_address(t, hop.asx, v6))
}

#[cfg(test)]
mod tests;
