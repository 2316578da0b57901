//! K8s: NetworkPolicy repair on an emulated Online Boutique cluster (docs/k8s.md).
//!
//! Faults are injected into the NetworkPolicies of a healthy, emulated Kubernetes 1.34
//! cluster; the agent repairs them with an emulated `kubectl` in a small shell; a probe matrix
//! computed by our NetworkPolicy evaluator is the oracle. Everything is pure (no I/O, no
//! clock), so the same code runs natively and in the browser.
//!
//! Modules, one concept each: [`cluster`] (the model), [`labels`] and [`policy`] (API
//! types), [`decode`] and [`validate`] (the API server's admission), [`eval`] (the
//! evaluator), [`probe`] (the oracle), [`intent`], [`fault`], [`generate`] and `fix` (task
//! generation), [`kubectl`] and [`shell`] (the agent's tools), `prompt`, [`task`],
//! `episode`, `hygiene` and `view` (the roles), `baseline` (the scripted agent) and
//! `analyzer` (the stand-alone connectivity tool).

pub mod admin;
mod analyzer;
mod baseline;
pub mod cluster;
pub mod conformance;
pub mod decode;
mod episode;
pub mod eval;
pub mod fault;
mod fix;
pub mod generate;
mod hygiene;
pub mod intent;
pub mod kubectl;
pub mod labels;
pub mod meta;
mod objects;
mod output;
pub mod policy;
pub mod probe;
mod prompt;
pub mod shell;
mod space;
pub mod task;
pub mod tenancy;
pub mod tiers;
pub mod validate;
mod view;
pub mod yaml;

use std::sync::Arc;

use crate::app::{AnswerKind, App, AppInfo, AppKind, KnobInfo, LevelInfo, Task, Tool};
use crate::error::Result;
use crate::id::QueryId;

/// The application's description.
pub const INFO: AppInfo = AppInfo {
    name: "k8s",
    title: "K8s NetworkPolicy repair",
    summary: "Faults are injected into the NetworkPolicies of an emulated Kubernetes 1.34 cluster running Online Boutique; the agent repairs them with an emulated kubectl in a small shell, judged by a probe matrix computed by a NetworkPolicy evaluator.",
    version: 1,
    older_versions: &[],
    kind: AppKind::Reactive,
    answer: AnswerKind::Commands,
    levels: &[
        LevelInfo { level: 1, summary: "one fault of the reference's five types (RI, AI, CP, CPR, AE)" },
        LevelInfo { level: 2, summary: "two faults of distinct reference types" },
        LevelInfo {
            level: 3,
            summary: "three faults of distinct types, at least one of WPS, ADA, WNS, NP, EDNS, PTC",
        },
        LevelInfo {
            level: 4,
            summary: "under admin network policies: one reference fault and one of SHD, PSA, BOV, SSM, PRO",
        },
    ],
    knobs: &[
        KnobInfo { key: 't', name: "turns", help: "turn limit of an episode (default 10)", values: "1..50" },
        KnobInfo {
            key: 'v',
            name: "verbs",
            help: "optional kubectl verbs the task allows: a=apply, c=create, d=delete (default none)",
            values: "a, c, d, ac, ad, cd, acd",
        },
    ],
    default_max_turns: 10,
    sandboxed: false,
    glossary: fault::GLOSSARY,
};

/// The K8s application.
#[derive(Debug, Clone, Copy, Default)]
pub struct K8sApp;

impl App for K8sApp {
    fn info(&self) -> &'static AppInfo {
        &INFO
    }

    fn generate(&self, id: &QueryId) -> Result<Arc<dyn Task>> {
        INFO.check_id(id)?;
        Ok(Arc::new(task::build(id)?))
    }

    fn baseline(&self) -> Box<dyn crate::conversation::Agent> {
        Box::new(baseline::ScriptedOperator)
    }

    fn labels(&self, level: u8) -> Vec<String> {
        if level == 4 {
            return tenancy::type_sets().into_iter().map(|(np, a)| tenancy::label(np, a)).collect();
        }
        generate::type_sets(level).iter().map(|s| generate::label(level, s)).collect()
    }

    fn space_of(&self) -> Option<crate::adapt::SpaceOf> {
        Some(space::SPACE)
    }

    fn tools(&self) -> &'static [Tool] {
        &[analyzer::TOOL]
    }
}
