//! Micro-segmentation: infer endpoint roles from a tenant's flow logs and write
//! least-privilege, default-deny policies that must hold on a hidden later window
//! (docs/microseg.md).
//!
//! The tenant, its logs, `F` and `G` are the flows module's; answers are Python run in the
//! sandbox over them (the traffic application's host). One concept per module:
//! - `world`: knobs, level defaults, windows, the cached tenant and trace, the truth (roles, P\*);
//! - `policy`: the neutral policy form and its validity; `allow`: what a policy allows on the
//!   hidden window (the replay membership rule);
//! - `score`: the key sets B, I, A, K and the rates; `judge`: an answer's verdict (partition
//!   agreement from `stats::compare_partitions`);
//! - `family`, `prompt`, `task`: requests, prompts, the task and its episode;
//! - `space`: the task space adaptive mode searches (docs/adapt.md);
//! - `baseline`: `observed`, `portsig`, `oracle`; `tool`: `netpress microseg baselines`;
//!   `logs`: `netpress microseg logs`, a task's flow logs in each provider's format;
//! - `render`: the Azure NSG and AWS security-group forms and what each allows
//!   (docs/microseg-render.md); `repair`: the repair command language (docs/microseg-repair.md);
//!   `fault`: the injected faults; `mend`: what commands do and the report; `repairing`: the
//!   repair episode; `scripted`: the repair baseline;
//! - `forms`: reading a policy answer in any form into an allow function scoring can evaluate;
//!   `write`: a neutral policy written in each form (the oracle's and baselines' renderings);
//! - `fixture` (tests): every metric on a hand-made six-VM tenant.
//!
//! Not built yet: the picture.

pub mod allow;
pub mod baseline;
pub mod family;
pub mod fault;
#[cfg(test)]
mod fixture;
pub mod forms;
pub mod judge;
mod logs;
pub mod mend;
pub mod policy;
mod prompt;
pub mod render;
pub mod repair;
pub mod repairing;
pub mod score;
pub mod scripted;
pub mod space;
pub mod task;
mod tool;
pub mod world;
pub mod write;

use std::sync::Arc;

use crate::app::{AnswerKind, App, AppInfo, AppKind, KnobInfo, LevelInfo, Task, Term, Tool};
use crate::conversation::Agent;
use crate::error::Result;
use crate::id::QueryId;

pub use task::{MicrosegTask, generate};

/// The application's description.
pub const INFO: AppInfo = AppInfo {
    name: "microseg",
    title: "Micro-segmentation",
    summary: "Infer endpoint roles from a cloud tenant's flow logs and write least-privilege, default-deny \
policies between roles: Python over the logs, run in a sandbox; policies are judged on a hidden later window \
with new VMs, reused addresses and injected attacks.",
    version: 1,
    older_versions: &[],
    kind: AppKind::Constructive,
    answer: AnswerKind::Python,
    levels: &[
        LevelInfo { level: 1, summary: "one application, tiered subnets: roles and a policy" },
        LevelInfo { level: 2, summary: "two applications sharing ports, flat subnets; incremental update" },
        LevelInfo { level: 3, summary: "three or four applications, churn and reused addresses" },
        LevelInfo { level: 4, summary: "roles then policy in one answer, with churn" },
    ],
    knobs: &[
        KnobInfo { key: 'a', name: "applications", help: "application VNets", values: "1..4" },
        KnobInfo { key: 'n', name: "scale", help: "instances per role", values: "1..1000" },
        KnobInfo { key: 'd', name: "minutes", help: "trace minutes", values: "15..1440" },
        KnobInfo { key: 'c', name: "clients", help: "Internet clients (default 50·n)", values: "0..100000" },
        KnobInfo { key: 'k', name: "known", help: "percent of VMs with a role tag", values: "0..100" },
        KnobInfo {
            key: 'u',
            name: "churn",
            help: "percent of VMs replaced at a churn point",
            values: "0..50",
        },
        KnobInfo { key: 'l', name: "layout", help: "tier (a /22 per role) or flat", values: "tier|flat" },
        KnobInfo { key: 'f', name: "format", help: "flow-log format", values: "aws2|aws5|nsg2|vnet4|gcp" },
        KnobInfo {
            key: 'r',
            name: "rendering",
            help: "policy form of render and pipeline (default drawn)",
            values: "np|nsg|sg|k8s",
        },
        KnobInfo {
            key: 't',
            name: "turns",
            help: "turn limit; at most 5 allows resubmitting",
            values: "1..50",
        },
    ],
    default_max_turns: 1,
    sandboxed: true,
    glossary: &[
        Term { abbr: "FDR", meaning: "false-deny rate: held-out benign keys the policy denies" },
        Term { abbr: "GDR", meaning: "generalisation false-deny rate: intended keys the policy denies" },
        Term { abbr: "FAR", meaning: "false-allow rate: injected attack keys the policy admits" },
        Term { abbr: "OP", meaning: "over-permissiveness: unintended keys the policy admits" },
        Term { abbr: "CDR", meaning: "critical-deny rate: DNS, NTP, probe and scrape keys denied" },
        Term { abbr: "ARI", meaning: "adjusted Rand index" },
        Term { abbr: "AMI", meaning: "adjusted mutual information" },
    ],
};

/// The micro-segmentation application.
#[derive(Debug, Clone, Copy)]
pub struct Microseg;

/// The instance the registry lists.
pub static MICROSEG: Microseg = Microseg;

impl App for Microseg {
    fn info(&self) -> &'static AppInfo {
        &INFO
    }

    fn limits(&self) -> crate::sandbox::Limits {
        task::limits()
    }

    fn generate(&self, id: &QueryId) -> Result<Arc<dyn Task>> {
        self.generate_limited(id, &self.limits())
    }

    fn generate_limited(&self, id: &QueryId, limits: &crate::sandbox::Limits) -> Result<Arc<dyn Task>> {
        INFO.check_id(id)?;
        Ok(Arc::new(MicrosegTask::new(generate(id)?, *limits)))
    }

    fn baseline(&self) -> Box<dyn Agent> {
        Box::new(baseline::Baseline)
    }

    fn oracle(&self, id: &QueryId) -> Option<Box<dyn Agent>> {
        let g = generate(id).ok()?;
        if g.family == family::Family::Repair {
            return Some(Box::new(baseline::Commands(fault::fix(&score::star_policy(&g.world), &g.faults))));
        }
        let answer = baseline::answer("oracle", &g)?;
        Some(Box::new(baseline::Oracle(answer)))
    }

    fn space_of(&self) -> Option<crate::adapt::SpaceOf> {
        Some(space::SPACE)
    }

    fn labels(&self, level: u8) -> Vec<String> {
        family::Family::of_level(level).iter().map(|f| f.id().to_string()).collect()
    }

    fn tools(&self) -> &'static [Tool] {
        &[tool::BASELINES, logs::LOGS]
    }
}
