//! The generator (docs/malt.md, "Tasks"): id → knobs, family, wording and parameters → plan → native
//! ground truth, expected net diff and safety check.
//!
//! Ids are `malt-v2-L{level}-s{seed}-i{index}` (v1 ids still generate v1's tasks), plus `-k{S}x{A}x{W}x{P}` and `-t{t}` when not
//! the defaults (a preset name such as `-kxl` is accepted and written out). The RNG is
//! `ChaCha20Rng::from_seed(SHA-256(id))` with 64-bit draws ([`crate::seed`]). Draw order: the
//! wording `w = below(3)`, then the family's parameters in table order; a violated constraint
//! or an expected state failing safety redraws the parameters (not `w`), at most 64 times.

use std::sync::Arc;

use serde_json::{Map, Value, json};

use super::check::Expected;
use super::family::words::Words;
use super::family::{Ctx, Family};
use super::graph::Working;
use super::plan::Plan;
use super::safety;
use super::topo::{Shape, TopoKey, Topology, topology};
use crate::error::{Error, Result};
use crate::id::QueryId;
use crate::seed::{Stream, Width};

/// Redraws allowed before generation gives up.
pub const MAX_ATTEMPTS: u32 = 64;

/// A generated task with everything resolved.
#[derive(Debug, Clone)]
pub struct Generated {
    /// The canonical id.
    pub id: QueryId,
    pub family: Family,
    /// 1, 2 or 3.
    pub wording: u8,
    pub key: TopoKey,
    pub question: String,
    pub plan: Plan,
    /// Every resolved choice (family, wording, knobs, drawn parameters, plan).
    pub params: Value,
    pub expected: Expected,
    pub content_hash: String,
    pub topology: Arc<Topology>,
}

fn knob_error(knob: &str, reason: impl Into<String>) -> Error {
    Error::BadKnob { app: "malt".into(), knob: knob.into(), reason: reason.into() }
}

/// The topology knobs of an id (`-k`, `-t`), defaults when absent.
pub fn topo_key(id: &QueryId) -> Result<TopoKey> {
    let mut key = TopoKey::default();
    if let Some(k) = id.knob('k') {
        key.shape = Shape::parse(k).map_err(|e| knob_error(&format!("-k{k}"), e))?;
    }
    if let Some(t) = id.knob('t') {
        key.seed = t.parse().map_err(|_| knob_error(&format!("-t{t}"), "the topology seed is a number"))?;
    }
    Ok(key)
}

/// The id with its knobs written canonically: defaults omitted, shapes as `SxAxWxP`.
pub fn canonical(id: &QueryId, key: TopoKey) -> QueryId {
    let mut id = QueryId { knobs: Vec::new(), ..id.clone() };
    if key.shape != Shape::DEFAULT {
        id = id.with_knob('k', key.shape.to_string(), "kt");
    }
    if key.seed != 0 {
        id = id.with_knob('t', key.seed.to_string(), "kt");
    }
    id
}

/// The family of an id: families(level)[index mod F].
pub fn family_of(level: u8, index: u64) -> Family {
    let families = Family::of_level(level);
    families[(index % families.len() as u64) as usize]
}

/// The first draw of every task: its wording, 1..=3.
fn draw_wording(rng: &mut Stream) -> u8 {
    rng.below(3) as u8 + 1
}

/// The wording of a canonical id without generating the task.
pub fn wording(id: &QueryId) -> u8 {
    draw_wording(&mut Stream::new(&id.to_string(), Width::W64))
}

/// Generates the task of a checked id.
pub fn generate(id: &QueryId) -> Result<Generated> {
    let key = topo_key(id)?;
    let id = canonical(id, key);
    let family = family_of(id.level, id.index);
    let mut rng = Stream::new(&id.to_string(), Width::W64);
    let wording = draw_wording(&mut rng);
    let topo = topology(key);
    let base = Working::new(topo.clone());
    for _ in 0..MAX_ATTEMPTS {
        let mut ctx = Ctx::new(&mut rng, &base, Words(wording), id.version);
        let Ok(draft) = family.draw(&mut ctx) else { continue };
        let drawn = ctx.params;
        let Some(expected) = ground_truth(&base, family, &draft.plan) else { continue };
        let params = params(family, wording, key, drawn, &draft.plan);
        let content_hash = crate::hash::content_hash(&draft.question, &expected_json(&expected));
        return Ok(Generated {
            id,
            family,
            wording,
            key,
            question: draft.question,
            plan: draft.plan,
            params,
            expected,
            content_hash,
            topology: topo,
        });
    }
    Err(Error::GenerationExhausted(id.to_string()))
}

/// Applies the plan to a fresh working graph; `None` when it fails, touches a read-only
/// family's graph or breaks a safety rule.
pub fn ground_truth(base: &Working, family: Family, plan: &Plan) -> Option<Expected> {
    let mut g = base.clone();
    let truth = plan.run(&mut g).ok()?;
    let diff = g.net_diff();
    let read_only = family.read_only();
    if read_only && !diff.is_empty() {
        return None;
    }
    if !safety::check(&g, &diff, &diff, read_only).is_empty() {
        return None;
    }
    Some(Expected { ty: truth.ty, value: truth.value, ordered: truth.ordered, diff, read_only })
}

/// The expected outcome as the JSON the card and the content hash use.
pub fn expected_json(expected: &Expected) -> Value {
    serde_json::to_value(expected).unwrap_or(Value::Null)
}

fn params(family: Family, wording: u8, key: TopoKey, drawn: Map<String, Value>, plan: &Plan) -> Value {
    let mut params = Map::new();
    params.insert("family".into(), json!(family.id()));
    params.insert("wording".into(), json!(wording));
    params.insert("shape".into(), json!(key.shape.to_string()));
    params.insert("topo_seed".into(), json!(key.seed));
    params.extend(drawn);
    params.insert("plan".into(), serde_json::to_value(plan).unwrap_or(Value::Null));
    Value::Object(params)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gen_id(s: &str) -> Generated {
        generate(&s.parse().unwrap()).unwrap()
    }

    #[test]
    fn ids_are_canonical_and_deterministic() {
        let a = gen_id("malt-v1-L1-s3-i4");
        let b = gen_id("malt-v1-L1-s3-i4-k4x4x16x16-t0");
        assert_eq!(a.id.to_string(), "malt-v1-L1-s3-i4");
        assert_eq!((a.question.clone(), a.content_hash.clone()), (b.question, b.content_hash));
        let small = gen_id("malt-v1-L1-s3-i4-ksmall");
        assert_eq!(small.id.to_string(), "malt-v1-L1-s3-i4-k2x2x4x4");
        assert_eq!(family_of(1, 4), Family::L1Count);
        assert_eq!(family_of(4, 6), Family::L4Least);
    }

    #[test]
    fn bad_knobs_are_clear() {
        let err = generate(&"malt-v1-L1-s0-i0-k9x9".parse().unwrap()).unwrap_err().to_string();
        assert!(err.contains("SxAxWxP"), "{err}");
        let err = generate(&"malt-v1-L1-s0-i0-tx".parse().unwrap()).unwrap_err().to_string();
        assert!(err.contains("topology seed"), "{err}");
    }

    #[test]
    fn every_family_generates_with_params() {
        for level in 1..=4 {
            for index in 0..Family::of_level(level).len() as u64 {
                let g = gen_id(&format!("malt-v1-L{level}-s1-i{index}"));
                assert_eq!(g.params["family"], json!(g.family.id()));
                assert!((1..=3).contains(&g.wording));
                assert_eq!(g.expected.read_only, g.family.read_only());
                assert!(!g.expected.read_only || g.expected.diff.is_empty());
            }
        }
    }
}
