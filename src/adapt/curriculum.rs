//! The curriculum a search leaves behind: its mixture as a file trainers read
//! (`netpress.mixture.v1`) and as a deterministic stream of task ids.
//!
//! Task `t` of the stream picks a component by its integer weight `⌊w·2³²⌋`
//! ([`Stream::weighted`]), takes the stream's next seed (at or above [`STREAM_SEEDS`], apart from
//! benchmark, search and confirmation seeds), and realises the component's cell for it (the
//! default component: the application's own generator at a uniformly drawn level).

use serde::Serialize;
use serde_json::{Value, json};

use super::search::Search;
use super::state::Component;
use crate::error::Result;
use crate::id::QueryId;
use crate::seed::{Stream, Width};

pub const MIXTURE_SCHEMA: &str = "netpress.mixture.v1";
/// Curriculum seeds lie in `[STREAM_SEEDS.0, STREAM_SEEDS.1)`.
pub const STREAM_SEEDS: (u64, u64) = (2_000_000_000, 1 << 62);

/// One task of a curriculum stream.
#[derive(Debug, Clone, Serialize)]
pub struct StreamTask {
    pub id: String,
    /// The component's position in the mixture.
    pub component: usize,
    pub weight: f64,
    /// The round the component was promoted in (none for the default).
    pub round: Option<u32>,
}

fn stream_material(search: &Search<'_>) -> String {
    let s = search.state();
    format!("netpress|adapt|v1|{}|s{}|stream|{}", s.app, s.settings.seed, s.hash())
}

/// The mixture file.
pub fn mixture_json(search: &Search<'_>) -> Value {
    let s = search.state();
    let components: Vec<Value> = s
        .mixture
        .iter()
        .map(|c| match c {
            Component::Default { levels, weight } => {
                json!({"kind": "default", "levels": levels, "weight": weight})
            }
            Component::Cell { cell, weight, round, gap, .. } => {
                json!({"kind": "cell", "cell": cell, "weight": weight, "round": round, "gap": gap})
            }
        })
        .collect();
    json!({
        "schema": MIXTURE_SCHEMA,
        "app": s.app,
        "space": s.space,
        "stream_seed": stream_material(search),
        "components": components,
    })
}

/// The first `count` tasks of the curriculum stream.
pub fn curriculum(search: &Search<'_>, count: usize) -> Result<Vec<StreamTask>> {
    let state = search.state();
    let weights: Vec<u64> =
        state.mixture.iter().map(|c| (c.weight().clamp(0.0, 1.0) * 4_294_967_296.0) as u64).collect();
    if weights.iter().all(|&w| w == 0) {
        return Err(crate::error::Error::Invalid("the mixture has no weight to sample from".into()));
    }
    let mut stream = Stream::new(&stream_material(search), Width::W64);
    let app = search.app();
    let (lo, hi) = STREAM_SEEDS;
    let mut out = Vec::with_capacity(count);
    for _ in 0..count {
        let i = stream.weighted(&weights);
        let seed = lo + stream.below(hi - lo);
        let (id, round): (QueryId, Option<u32>) = match &state.mixture[i] {
            Component::Default { levels, .. } => {
                let level = levels.get(stream.index(levels.len().max(1))).copied().unwrap_or(1);
                (app.default_id(level, seed, 0), None)
            }
            Component::Cell { index, round, .. } => {
                (app.realise(search.space(), &search.space().cell_at(*index), seed)?, Some(*round))
            }
        };
        out.push(StreamTask { id: id.to_string(), component: i, weight: state.mixture[i].weight(), round });
    }
    Ok(out)
}
