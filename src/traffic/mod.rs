//! Traffic analysis: questions and changes on a tenant's communication graph, answered by
//! Python run in the sandbox against the host object `G` (docs/traffic.md).
//!
//! NeMoEval's traffic-analysis half as a benchmark one can trust: a seeded graph, seeded
//! questions in two wordings, a native truth, and checks that compare values exactly and
//! graphs by an id-keyed diff (never by isomorphism, and never on a graph an earlier answer
//! changed). One concept per module:
//! - `mock`: the seeded mock graph; `nemo_mock`: NeMoEval's own generator, seeded; `nemo`: its 24
//!   questions and their readings; `straw`: the same questions in NeMoEval's strawman form (the
//!   graph in the prompt, the answer as JSON); `chain`: all 24 as one episode on a graph that
//!   keeps each answer's changes; `family`: the families, draws, wordings, truth and
//!   reference code; `check`: return contract, value comparison, graph diff;
//! - `prompt`; `task`: generation, the task and its episode, the sandbox host (`F`, `G`);
//!   `picture` and `panels`: what the page draws of a task and of a scored episode;
//! - `prop`: the property families' checks and witnesses, `kmeans` the exact 1-D k-means,
//!   `propcode` their reference Python;
//! - `compose`: level 4, questions made of the other families (change steps then a question;
//!   a question on a time window's communication graph);
//! - `baseline`: the template compiler; `tool`: `netpress traffic export`; `check_tool`:
//!   `netpress traffic check`; `oracle_tool`: `netpress traffic oracle`; `spread_tool`:
//!   `netpress traffic spread`; `space`: the task space adaptive mode searches (docs/adapt.md).

pub mod algo;
mod baseline;
pub mod chain;
pub mod check;
mod check_tool;
mod compose;
pub mod family;
pub mod flowq;
pub mod kmeans;
pub mod mock;
pub mod nemo;
pub mod nemo_check;
pub mod nemo_mock;
mod oracle_tool;
mod panels;
pub mod picture;
mod prompt;
pub mod prop;
mod propcode;
pub mod space;
mod spread_tool;
pub mod straw;
pub mod task;
mod tool;
pub mod wording;

use std::sync::Arc;

use crate::app::{AnswerKind, App, AppInfo, AppKind, KnobInfo, LevelInfo, Task, Tool};
use crate::conversation::{Agent, AgentInfo, Program};
use crate::error::Result;
use crate::id::QueryId;

pub use task::{TrafficHost, TrafficTask};

/// The code the baseline submits for a question's first wording (for tests and figures).
pub fn baseline_code(q: &family::Query) -> String {
    baseline::compile(&family::question(q, 0))
}

/// The application's description.
pub const INFO: AppInfo = AppInfo {
    name: "traffic",
    title: "Traffic analysis",
    summary: "Questions and changes on a tenant's communication graph (NeMoEval's traffic analysis): \
write Python against a graph API, run in a sandbox; values are checked exactly and changes by a \
diff keyed by node address.",
    // v2: the /16 and node forms of count, nbr-count, label-graph and cliques (docs/traffic.md,
    // "Versions"); v1 ids generate as before.
    version: 2,
    older_versions: &[1],
    kind: AppKind::Constructive,
    answer: AnswerKind::Python,
    levels: &[
        LevelInfo { level: 1, summary: "one count, statistic, table, label or colour change" },
        LevelInfo {
            level: 2,
            summary: "rankings, neighbourhoods, threshold edge filters, top talkers and time series from flow logs",
        },
        LevelInfo {
            level: 3,
            summary: "colourings by prefix, bisections, balanced cuts, k-means and heat maps (checked by their \
properties), minimum cuts, maximal cliques, port scans and heavy hitters in flow logs",
        },
        LevelInfo {
            level: 4,
            summary: "two or three changes then a question on the changed graph; a question on the communication \
graph of a time window of the flow logs",
        },
    ],
    knobs: &[
        KnobInfo {
            key: 'g',
            name: "graph",
            help: "graph source: the mock, or the flow tenant's communication graph",
            values: "mock|flows",
        },
        KnobInfo {
            key: 'n',
            name: "nodes",
            help: "nodes of the mock graph (g=flows: the tenant's instance scale, 1..1000)",
            values: "10..100000",
        },
        KnobInfo { key: 'p', name: "prefixes", help: "distinct /16 prefixes of the nodes", values: "1..64" },
        KnobInfo {
            key: 'e',
            name: "density",
            help: "edges per thousand node pairs (default: mean degree about 6)",
            values: "1..1000",
        },
        KnobInfo {
            key: 'm',
            name: "question-mode",
            help: "question mode: std, nemo (NeMoEval's own questions verbatim on its kind of graph, levels 1 \
to 3), straw (the same with NeMoEval's strawman prompt: the graph pasted in, the answer \
written as JSON; n up to 50), or chain (level 4: all 24 in one episode of 24 turns on a graph \
that keeps each answer's changes)",
            values: "std|nemo|straw|chain",
        },
        KnobInfo {
            key: 'a',
            name: "applications",
            help: "applications of the flow questions' tenant",
            values: "1..4",
        },
        KnobInfo { key: 'd', name: "minutes", help: "minutes of the tenant's flow trace", values: "2..1440" },
        KnobInfo { key: 'c', name: "clients", help: "Internet clients of the tenant", values: "0..100000" },
        KnobInfo {
            key: 'k',
            name: "known",
            help: "percent of VMs whose role label is known",
            values: "0..100",
        },
        KnobInfo {
            key: 'f',
            name: "format",
            help: "flow-log format (default vnet4 at levels 1-2, drawn at levels 3-4)",
            values: "aws2|aws5|nsg2|vnet4|gcp",
        },
        KnobInfo {
            key: 't',
            name: "turns",
            help: "turns an episode allows by default (m=chain: 24, one a question)",
            values: "1..5",
        },
    ],
    default_max_turns: 1,
    sandboxed: true,
    glossary: &[],
};

/// The traffic application.
#[derive(Debug, Clone, Copy)]
pub struct Traffic;

/// The instance the registry lists.
pub static TRAFFIC: Traffic = Traffic;

impl App for Traffic {
    fn info(&self) -> &'static AppInfo {
        &INFO
    }

    fn generate(&self, id: &QueryId) -> Result<Arc<dyn Task>> {
        self.generate_limited(id, &self.limits())
    }

    fn generate_limited(&self, id: &QueryId, limits: &crate::sandbox::Limits) -> Result<Arc<dyn Task>> {
        INFO.check_id(id)?;
        Ok(Arc::new(TrafficTask::new(task::generate(id)?, *limits)))
    }

    fn baseline(&self) -> Box<dyn Agent> {
        Box::new(baseline::Baseline)
    }

    /// The reference program of a standard-mode task, the one `netpress traffic oracle` runs;
    /// NeMoEval's modes have none here (their references are checked by the networkx run), so
    /// a caller falls back to the baseline.
    fn oracle(&self, id: &QueryId) -> Option<Box<dyn Agent>> {
        if id.knob('m').is_some_and(|m| m != "std") || INFO.check_id(id).is_err() {
            return None;
        }
        let code = family::code(&task::generate(id).ok()?.query);
        Some(Box::new(Program { info: AgentInfo::new("oracle", "traffic-oracle"), code }))
    }

    fn space_of(&self) -> Option<crate::adapt::SpaceOf> {
        Some(space::SPACE)
    }

    fn labels(&self, level: u8) -> Vec<String> {
        family::Family::of_level(level).iter().map(|f| f.id().to_string()).collect()
    }

    fn tools(&self) -> &'static [Tool] {
        &[tool::EXPORT, check_tool::CHECK, oracle_tool::ORACLE, spread_tool::SPREAD]
    }
}
