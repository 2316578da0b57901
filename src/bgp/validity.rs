//! The validity rules a drawn incident must pass before it becomes a task, so that every task
//! can be solved from the tools' evidence.
//!
//! - **Visible**: the incident's start changes the route to one of its prefixes at two or more
//!   vantage points (L1–L2) or at least one (L3–L4). Those VPs are the task's *affected* set.
//! - **Identifiable**: the family's key evidence is in the collector data. Hijacks: a VP route
//!   with the offender as origin. Forged origin: a VP path with the forged `X V` adjacency (X is
//!   never V's neighbour, by construction). Leaks: a VP path through the valley `B L A`.
//!   Re-origination: besides a VP route with the re-originator as origin, a probe's traceroute
//!   at the moment the first such route reaches a collector that shows the re-originator
//!   answering a hop and the victim's address answering after it (the one thing that tells
//!   the family from an exact-prefix hijack).
//!   More-specifics: a VP seeing one. ROA misconfiguration: the victim's route Invalid under
//!   the new ROAs. Link failure: no VP path over the failed link once the change has spread.
//!   Migration: the new origin's ROA published before the start.
//! - **Leak consistent**: after the leak, the leaker's own best path to each leaked prefix is
//!   still the frozen path it leaked (otherwise the leaked route would claim a path the leaker
//!   no longer uses).
//!
//! - **Not masked** and **disjoint**: churn never lists the incident's prefixes and the
//!   distractor shares no AS or prefix with it; both hold by construction
//!   ([`super::churn`], [`super::distractor`]). The distractor itself must be visible at one
//!   vantage point and, if a leak, consistent ([`distractor_visible`]).

use super::dataplane::{Plane, Scene, service_address};
use super::family::Family;
use super::incident::{Culprit, Incident};
use super::level::Level;
use super::routing::{Graph, stable_state};
use super::timeline::{Failure, Timeline, Update};
use super::world::World;

/// Why an incident was refused (for tests and the generator's statistics).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    Invisible,
    NoEvidence,
    LeakInconsistent,
}

/// Checks `inc` against its timeline; on success, the affected VPs (positions, ascending).
pub fn check(scene: &Scene<'_>, tl: &Timeline) -> Result<Vec<usize>, Refusal> {
    let (w, inc) = (scene.world, scene.incident);
    let started: Vec<&Update> = tl
        .updates()
        .iter()
        .filter(|u| u.change == inc.start_change && inc.prefixes.contains(&u.prefix))
        .collect();
    let mut affected: Vec<usize> = started.iter().map(|u| u.vp).collect();
    affected.sort_unstable();
    affected.dedup();
    let need = if w.topology.level <= Level::L2 { 2 } else { 1 };
    if affected.len() < need {
        return Err(Refusal::Invisible);
    }
    if !identifiable(w, inc, tl, &started) || !traced(scene, &started) {
        return Err(Refusal::NoEvidence);
    }
    if !leak_consistent(w, inc) {
        return Err(Refusal::LeakInconsistent);
    }
    Ok(affected)
}

/// Whether the distractor `d`, whose changes start at index `offset` of the timeline's change
/// list, changes some vantage point's route and (a leak) is consistent.
pub fn distractor_visible(w: &World, d: &Incident, tl: &Timeline, offset: usize) -> bool {
    let start = offset + d.start_change;
    tl.updates().iter().any(|u| u.change == start && d.prefixes.contains(&u.prefix)) && leak_consistent(w, d)
}

fn asn(w: &World, a: usize) -> u32 {
    w.topology.ases[a].asn
}

fn any_path(started: &[&Update], f: impl Fn(&[u32]) -> bool) -> bool {
    started.iter().any(|u| u.route.as_ref().is_some_and(|r| f(&r.path)))
}

/// Whether an AS path carries `inc`'s signature: the offender's origin (hijacks,
/// re-origination), the forged adjacency, the leak's valley; `None` for the families whose
/// evidence is not on a path. The validity check and the result panels read routes by it.
pub(super) fn path_signature(w: &World, inc: &Incident, path: &[u32]) -> Option<bool> {
    Some(match inc.family {
        Family::Eh | Family::Sh | Family::Ro => {
            inc.new_origin.is_some_and(|x| path.last() == Some(&asn(w, x)))
        }
        Family::Fo => inc.forged.is_some_and(|(x, v)| path.windows(2).any(|q| q == [asn(w, x), asn(w, v)])),
        Family::Rl1 | Family::Rl2 | Family::Rl3 | Family::Rl4 => inc
            .leak
            .as_ref()
            .is_some_and(|l| path.windows(3).any(|q| q == [asn(w, l.to), asn(w, l.leaker), asn(w, l.from)])),
        _ => return None,
    })
}

fn identifiable(w: &World, inc: &Incident, tl: &Timeline, started: &[&Update]) -> bool {
    match inc.family {
        Family::Eh
        | Family::Sh
        | Family::Ro
        | Family::Fo
        | Family::Rl1
        | Family::Rl2
        | Family::Rl3
        | Family::Rl4 => any_path(started, |p| path_signature(w, inc, p) == Some(true)),
        Family::Ms => any_path(started, |_| true),
        Family::Rm => {
            let vrps = inc.vrps_after.as_ref().unwrap_or(&w.vrps);
            vrps.validate(inc.prefix, asn(w, inc.victim)).is_invalid()
        }
        Family::Lf => match inc.culprit {
            Culprit::Link(a, b) => {
                let failed = Failure::Link(asn(w, a), asn(w, b));
                let settled = inc.start + 600;
                tl.rib_at(settled).iter().all(|e| !failed.used_by(&e.route.path))
            }
            _ => false,
        },
        Family::Bm => inc.new_roas.iter().all(|&(t, _)| t < inc.start),
        Family::Ow | Family::Ba | Family::Bp => true,
    }
}

/// For a re-origination by L: whether some probe's traceroute to the prefix's service
/// address, at the second the first route with origin L reached a collector, crosses L (L
/// answering its hop) and is answered by the destination. Other families need no trace.
fn traced(scene: &Scene<'_>, started: &[&Update]) -> bool {
    let (w, inc) = (scene.world, scene.incident);
    let (Family::Ro, Culprit::Offender(l)) = (inc.family, inc.culprit) else { return true };
    let first = started.iter().find(|u| u.route.as_ref().is_some_and(|r| r.path.last() == Some(&asn(w, l))));
    let Some(first) = first else { return false };
    let dst = service_address(inc.prefix);
    let v6 = dst.is_ipv6();
    let plane = Plane::in_scene(*scene, dst, first.secs());
    let t = &w.topology;
    w.probes.iter().filter(|p| !v6 || p.v6.is_some()).any(|p| plane.forward(p.asx).shows_through(t, l, v6))
}

fn leak_consistent(w: &World, inc: &Incident) -> bool {
    let (Some(l), Some(start)) = (&inc.leak, inc.changes.get(inc.start_change)) else { return true };
    let g: &Graph = start.graph.as_deref().unwrap_or(&w.graph);
    let vrps = start.vrps.as_deref().unwrap_or(&w.vrps);
    start.seeds.iter().all(|seeds| {
        let frozen = l.routes.iter().find(|r| r.0 == seeds.prefix).map(|r| &r.1);
        let st = stable_state(g, vrps, seeds.clone());
        frozen.is_some_and(|f| st.path(g, l.leaker).as_ref() == Some(f))
    })
}
