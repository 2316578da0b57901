//! The curriculum a search leaves behind: its mixture as a file trainers read
//! (`netpress.mixture.v1`) and as a deterministic stream of task ids.
//!
//! Task `t` of the stream picks a component by its integer weight `⌊w·2³²⌋`
//! ([`Stream::weighted`]), takes the stream's next seed (at or above [`STREAM_SEEDS`], apart from
//! benchmark, search and confirmation seeds), and realises the component's cell for it (the
//! default component: the application's own generator at a uniformly drawn level).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::search::Search;
use super::space::Space;
use super::state::Component;
use crate::app::{App, PromptVariant};
use crate::error::{Error, Result};
use crate::id::QueryId;
use crate::registry::Registry;
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
    sample(search.app(), search.space(), &search.state().mixture, &stream_material(search), 0, count)
}

/// What a curriculum export writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExportFormat {
    /// One task id per line.
    Ids,
    /// `netpress.rl.v1` lines with the task's component (`curriculum: {component, weight, round}`).
    Rl,
    /// The mixture file (`netpress.mixture.v1`).
    Mixture,
}

impl ExportFormat {
    pub fn parse(s: &str) -> Result<ExportFormat> {
        match s {
            "ids" => Ok(ExportFormat::Ids),
            "rl" => Ok(ExportFormat::Rl),
            "mixture" => Ok(ExportFormat::Mixture),
            _ => Err(Error::Invalid(format!("unknown --format {s:?} (ids, rl, mixture)"))),
        }
    }

    /// A file name for a download of this format.
    pub fn file_name(self) -> &'static str {
        match self {
            ExportFormat::Ids => "curriculum.txt",
            ExportFormat::Rl => "curriculum.jsonl",
            ExportFormat::Mixture => "mixture.json",
        }
    }
}

/// How `rl` lines are written: the prompt variant and the command the provenance names.
#[derive(Debug, Clone, Copy)]
pub struct RlLines<'a> {
    pub variant: PromptVariant,
    pub command: &'a str,
}

/// The bytes of a curriculum export of `count` tasks (the mixture file ignores `count`): what
/// `netpress adapt export` writes and the Adapt view downloads, so both give the same file
/// for the same state. `rl` generates every task (the page's search has no engine: its
/// worker writes them, [`crate::sandbox`]'s `curriculum` request).
pub fn export(search: &Search<'_>, format: ExportFormat, count: usize, rl: RlLines<'_>) -> Result<String> {
    let lines: Vec<String> = match format {
        ExportFormat::Mixture => vec![
            serde_json::to_string_pretty(&mixture_json(search)).map_err(|e| Error::Invalid(e.to_string()))?,
        ],
        ExportFormat::Ids => curriculum(search, count)?.into_iter().map(|t| t.id).collect(),
        ExportFormat::Rl => return export_rl(search, count, rl),
    };
    Ok(lines.into_iter().map(|l| l + "\n").collect())
}

/// `netpress.rl.v1` lines of the stream's tasks exactly as `netpress export --rl` writes
/// generated tasks (prompt, expected outcome, content hash), each with its `curriculum` entry
/// `{component, weight, round}`.
fn export_rl(search: &Search<'_>, count: usize, rl: RlLines<'_>) -> Result<String> {
    let app = search.app();
    let tasks = curriculum(search, count)?.into_iter().map(|t| {
        let entry = json!({"component": t.component, "weight": t.weight, "round": t.round});
        (t.id.parse::<QueryId>().and_then(|id| app.generate(&id)), entry)
    });
    let mut out = Vec::new();
    crate::export::rl::write_curriculum(tasks, rl.variant, rl.command, &mut out)
        .map_err(|e| Error::Invalid(e.to_string()))?;
    String::from_utf8(out).map_err(|e| Error::Invalid(e.to_string()))
}

/// A mixture file (`netpress.mixture.v1`) as it is read back.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct MixtureFile {
    schema: String,
    app: String,
    space: String,
    stream_seed: String,
    components: Vec<FileComponent>,
}

#[derive(Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase", deny_unknown_fields)]
enum FileComponent {
    Default { levels: Vec<u8>, weight: f64 },
    Cell { cell: BTreeMap<String, String>, weight: f64, round: u32, gap: f64 },
}

/// Tasks `start..start + count` of the curriculum stream of a mixture file, equal to
/// [`curriculum`]'s for the search that wrote it: what a trainer holding only the file samples.
/// A file of another schema, application or space version is refused by name.
pub fn mixture_stream(file: &str, start: usize, count: usize) -> Result<Vec<StreamTask>> {
    let bad = |m: String| Error::Invalid(format!("mixture file: {m}"));
    let f: MixtureFile = serde_json::from_str(file).map_err(|e| bad(e.to_string()))?;
    if f.schema != MIXTURE_SCHEMA {
        return Err(bad(format!("schema {:?}, expected {MIXTURE_SCHEMA:?}", f.schema)));
    }
    let app = Registry::standard().app(&f.app)?;
    let space = app.space();
    if f.space != space.id {
        return Err(bad(format!("space {:?}, this build has {:?}", f.space, space.id)));
    }
    let mixture = f
        .components
        .into_iter()
        .map(|c| match c {
            FileComponent::Default { levels, weight } => Ok(Component::Default { levels, weight }),
            FileComponent::Cell { cell, weight, round, gap } => {
                let named: Vec<(String, String)> = cell.clone().into_iter().collect();
                let index = space.index(&space.parse_named(&named)?);
                Ok(Component::Cell { cell, index, weight, round, gap })
            }
        })
        .collect::<Result<Vec<_>>>()?;
    sample(app, &space, &mixture, &f.stream_seed, start, count)
}

/// Tasks `start..start + count` of the stream of `mixture` seeded by `material`.
fn sample(
    app: &dyn App,
    space: &Space,
    mixture: &[Component],
    material: &str,
    start: usize,
    count: usize,
) -> Result<Vec<StreamTask>> {
    let weights: Vec<u64> =
        mixture.iter().map(|c| (c.weight().clamp(0.0, 1.0) * 4_294_967_296.0) as u64).collect();
    if weights.iter().all(|&w| w == 0) {
        return Err(Error::Invalid("the mixture has no weight to sample from".into()));
    }
    let mut stream = Stream::new(material, Width::W64);
    let (lo, hi) = STREAM_SEEDS;
    let mut out = Vec::with_capacity(count);
    for t in 0..start + count {
        let i = stream.weighted(&weights);
        let seed = lo + stream.below(hi - lo);
        let (id, round): (QueryId, Option<u32>) = match &mixture[i] {
            Component::Default { levels, .. } => {
                let level = levels.get(stream.index(levels.len().max(1))).copied().unwrap_or(1);
                (app.default_id(level, seed, 0), None)
            }
            Component::Cell { index, round, .. } => {
                (app.realise(space, &space.cell_at(*index), seed)?, Some(*round))
            }
        };
        if t >= start {
            out.push(StreamTask { id: id.to_string(), component: i, weight: mixture[i].weight(), round });
        }
    }
    Ok(out)
}
