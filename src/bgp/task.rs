//! One BGP task: its id's knobs, the world, the incident, the timeline and the truth.
//!
//! **Id.** `bgp-v3-L<1..4>-s<seed>-i<index>` (v1 and v2 ids still generate their versions' tasks), then optional knobs in this order: `-n<N>` ASes
//! (10..5000), `-f<FAMS>` families to draw from (`+`-joined codes in family order), `-c<K>`
//! collectors (1..8), `-v<V>` vantage points (2..200; from v3 at most 20 per collector, so 160,
//! or 20 × `-c`, and fewer in worlds above 3,635 ASes: [`collectors::max_sessions`]), `-w<H>`
//! window hours (1..48, default 8),
//! `-t<T>` turn limit (default 20 at L1–L2, 30 at L3–L4).
//!
//! **Draws.** One stream, seeded by the id with its knobs: the world (topology, collectors,
//! probes, time; [`World::generate`]), then the target family (first world only), then its
//! parameters, the distractor (L4, [`super::distractor`]), the churn ([`super::churn`]), the
//! as-rel errors ([`super::asrel_noise`]), the trigger and, last, the routing registry's stale
//! objects ([`super::irr`]). An incident that fails validity
//! ([`super::validity`]) is redrawn from its parameters on, from the same stream with the world
//! and the family kept, at most 64 times; then the whole draw restarts with the material
//! suffixed `|r<k>`, keeping the family for 4 restarts; 4 more restarts draw a fresh family
//! each (so a family no world can hold does not exhaust generation); then generation is
//! exhausted.
//!
//! The family is kept across redraws and the first restarts so that the level's family mix is
//! close to the uniform one: redrawing the family after every refusal favours the families that
//! are easy to place and starves the hard ones (a peer-to-peer leak, visible only in its
//! receiver's customer cone, was never drawn in 1,000 L2 seeds that way).
//!
//! **Trigger** (what the prompt tells the investigator): at L1 the victim prefix, the victim's
//! ASN and a time within 10 minutes of the start; at L2 the prefix; at L3 the victim's name,
//! ASN and a service address inside the prefix; at L4 only the organisation's name and ASNs.

use std::net::IpAddr;

use ipnet::IpNet;

use super::asrel_noise::{self, AsRelNoise};
use super::dataplane::{Scene, service_address};
use super::family::{self, Family};
use super::incident::{self, Ctx, Incident};
use super::irr::{self, Irr};
use super::level::Level;
use super::routing::stable_states;
use super::timeline::{Change, Timeline};
use super::world::{Knobs, World};
use super::{churn, collectors, distractor, validity};
use crate::error::{Error, Result};
use crate::id::QueryId;
use crate::seed::{Stream, Width};

/// The generator version new ids get.
pub const VERSION: u32 = 3;
/// Knob keys in the order an id lists them.
pub const KNOB_ORDER: &str = "nfcvwt";
/// Redraws of the incident per world.
const REDRAWS: usize = 64;
/// Fresh worlds for the first family drawn; as many again with a fresh family each.
const RESTARTS: usize = 4;

/// What an id asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Spec {
    pub level: Level,
    pub knobs: Knobs,
    pub families: Vec<Family>,
    pub turns: u64,
}

/// What the prompt names as the starting point.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Trigger {
    pub prefix: Option<IpNet>,
    pub asns: Vec<u32>,
    /// The victim's (L3) or its organisation's (L4) name.
    pub name: Option<String>,
    pub address: Option<IpAddr>,
    /// About when it started (L1).
    pub time: Option<u64>,
}

/// A generated task.
#[derive(Debug, Clone)]
pub struct Task {
    pub id: QueryId,
    /// `L2:RL3`.
    pub label: String,
    pub spec: Spec,
    pub world: World,
    pub incident: Incident,
    /// The unrelated second incident (L4 only).
    pub distractor: Option<Incident>,
    /// The background churn changes, in draw order.
    pub churn: Vec<Change>,
    /// The prefixes the churn announces for the first time (generator v2).
    pub fresh: Vec<churn::Fresh>,
    /// The errors of the published as-rel file.
    pub asrel_noise: AsRelNoise,
    /// The timeline of the incident's, the distractor's and the churn's changes, in that order
    /// (so the incident's change indexes are its own).
    pub timeline: Timeline,
    /// The affected vantage points' ASNs, ascending.
    pub affected: Vec<u32>,
    pub trigger: Trigger,
    /// The routing registry's route objects.
    pub irr: Irr,
}

fn bad_knob(key: char, value: &str, reason: impl Into<String>) -> Error {
    Error::BadKnob { app: "bgp".into(), knob: format!("-{key}{value}"), reason: reason.into() }
}

/// Checks an id's application, version, level and knobs.
pub fn spec(id: &QueryId) -> Result<Spec> {
    if id.app != "bgp" {
        return Err(Error::bad_id(&id.to_string(), "not a bgp id"));
    }
    if !super::app::INFO.generates(id.version) {
        return Err(Error::UnknownVersion { app: "bgp".into(), version: id.version, current: VERSION });
    }
    let level = Level::from_number(id.level).ok_or_else(|| Error::BadLevel {
        app: "bgp".into(),
        level: id.level,
        levels: "1, 2, 3, 4".into(),
    })?;
    let mut last = None;
    for k in &id.knobs {
        let pos = KNOB_ORDER.find(k.key).ok_or_else(|| bad_knob(k.key, &k.value, "unknown knob"))?;
        if last.is_some_and(|l| l >= pos) {
            return Err(bad_knob(k.key, &k.value, format!("knobs go once each in the order {KNOB_ORDER}")));
        }
        last = Some(pos);
    }
    let number = |key: char, range: std::ops::RangeInclusive<u64>| -> Result<Option<u64>> {
        let Some(v) = id.knob(key) else { return Ok(None) };
        let n: u64 = v.parse().map_err(|_| bad_knob(key, v, "not a number"))?;
        if !range.contains(&n) || (v.len() > 1 && v.starts_with('0')) {
            return Err(bad_knob(key, v, format!("must be {}..={}", range.start(), range.end())));
        }
        Ok(Some(n))
    };
    let knobs = Knobs {
        ases: number('n', super::level::N_KNOB)?,
        collectors: number('c', super::level::COLLECTOR_KNOB)?,
        vps: number('v', super::level::VP_KNOB)?,
        hours: number('w', super::clock::HOURS_KNOB)?,
    };
    // The cap per collector depends on the world's size; without `-n` the level's largest,
    // which the cap holds at its full 20 (what the draw then uses for the drawn size is the same).
    let ases = knobs.ases.unwrap_or(*level.sizes().ases.end());
    if let Some(v) = knobs.vps
        && collectors::capped(id.version)
        && let Some(why) =
            collectors::too_many(v, knobs.collectors, collectors::max_sessions(level, ases), ases)
    {
        return Err(bad_knob('v', &v.to_string(), why));
    }
    let families = match id.knob('f') {
        Some(v) => family::parse_knob(v, level).map_err(|e| bad_knob('f', v, e))?,
        None => family::offered(level),
    };
    let turns = number('t', 1..=200)?.unwrap_or(if level <= Level::L2 { 20 } else { 30 });
    Ok(Spec { level, knobs, families, turns })
}

impl Task {
    /// Generates the task of `id`.
    pub fn generate(id: &QueryId) -> Result<Task> {
        let spec = spec(id)?;
        let mut kept = None;
        for r in 0..=2 * RESTARTS {
            let mut material = id.seed_material(true);
            if r > 0 {
                material.push_str(&format!("|r{r}"));
            }
            let mut s = Stream::new(&material, Width::W32);
            let world = World::generate(&mut s, spec.level, spec.knobs, id.version)?;
            let fam = match kept {
                Some(f) if r <= RESTARTS => f,
                _ => family::draw(&mut s, spec.level, &spec.families),
            };
            kept.get_or_insert(fam);
            if let Some(task) = attempt(&mut s, id, &spec, world, fam) {
                return Ok(task);
            }
        }
        Err(Error::GenerationExhausted(id.to_string()))
    }
}

/// Up to [`REDRAWS`] incidents of `fam` in `world`; the first valid one makes the task.
fn attempt(s: &mut Stream, id: &QueryId, spec: &Spec, world: World, fam: Family) -> Option<Task> {
    let base = stable_states(&world.graph, &world.vrps, world.topology.baseline_seeds());
    let name = id.to_string();
    for _ in 0..REDRAWS {
        let ctx = Ctx { world: &world, base: &base, name: "target" };
        let Some(mut inc) = incident::draw(s, &ctx, fam) else { continue };
        let mut distractor = if spec.level == Level::L4 {
            let ctx = Ctx { name: "distractor", ..ctx };
            let Some(d) = distractor::draw(s, &ctx, &inc) else { continue };
            Some(d)
        } else {
            None
        };
        let protected: Vec<&Incident> = std::iter::once(&inc).chain(distractor.as_ref()).collect();
        let churn = churn::draw(s, &world, &protected, id.version);
        let asrel_noise = asrel_noise::draw(s, &world.topology, &protected);
        churn.sign(&mut inc);
        if let Some(d) = &mut distractor {
            churn.sign(d);
        }
        let protected: Vec<&Incident> = std::iter::once(&inc).chain(distractor.as_ref()).collect();
        let mut changes: Vec<Change> = inc.changes.clone();
        changes.extend(distractor.iter().flat_map(|d| d.changes.iter().cloned()));
        changes.extend(churn.changes.iter().cloned());
        let timeline = world.timeline(&name, &changes);
        let scene =
            Scene { world: &world, incident: &inc, distractor: distractor.as_ref(), churn: &churn.changes };
        let Ok(vps) = validity::check(&scene, &timeline) else { continue };
        if let Some(d) = &distractor
            && !validity::distractor_visible(&world, d, &timeline, inc.changes.len())
        {
            continue;
        }
        let trigger = trigger(s, &world, &inc);
        let irr = irr::draw(s, &world, &protected, &churn.fresh, id.version);
        let affected = vps.iter().map(|&v| world.topology.ases[world.collectors.vps[v].asx].asn).collect();
        let label = format!("L{}:{}", spec.level.number(), fam.code());
        return Some(Task {
            id: id.clone(),
            label,
            spec: spec.clone(),
            world,
            incident: inc,
            distractor,
            churn: churn.changes,
            fresh: churn.fresh,
            asrel_noise,
            timeline,
            affected,
            trigger,
            irr,
        });
    }
    None
}

fn trigger(s: &mut Stream, w: &World, inc: &Incident) -> Trigger {
    let t = &w.topology;
    let v = &t.ases[inc.victim];
    let skew = s.below(1201);
    let org = &t.orgs[v.org];
    let service = service_address(inc.prefix);
    match t.level {
        Level::L1 => Trigger {
            prefix: Some(inc.prefix),
            asns: vec![v.asn],
            name: None,
            address: None,
            time: Some(inc.start + skew - 600),
        },
        Level::L2 => {
            Trigger { prefix: Some(inc.prefix), asns: Vec::new(), name: None, address: None, time: None }
        }
        Level::L3 => Trigger {
            prefix: None,
            asns: vec![v.asn],
            name: Some(v.handle.clone()),
            address: Some(service),
            time: None,
        },
        Level::L4 => Trigger {
            prefix: None,
            asns: org.ases.iter().map(|&a| t.ases[a].asn).collect(),
            name: Some(org.name.clone()),
            address: None,
            time: None,
        },
    }
}

#[cfg(test)]
mod tests;
