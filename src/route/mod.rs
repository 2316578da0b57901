//! Route: repair faults injected into the routers of an emulated Linux network, one shell
//! command per turn (docs/route.md).
//!
//! - [`topology`], [`fault`], [`generate`]: what a task is and how it is drawn.
//! - [`net`]: the emulated kernel state; `engine`: packets, pings and the ping [`matrix`].
//! - [`shell`] and `cmd`: the command line each machine runs, with Linux's output.
//! - [`prompt`], `action`, `episode`, `score`, [`task`]: the agent contract.
//! - `baseline`: the deterministic troubleshooter.

// The lab's building blocks are public: the fidelity tests and fuzz targets drive the
// emulated network, the shell and the ping matrix directly. The agent-facing roles are
// private; surfaces reach them through the registry.
mod action;
mod baseline;
#[cfg(test)]
mod behaviours;
mod cmd;
mod engine;
mod episode;
pub mod fault;
pub mod generate;
#[doc(hidden)]
pub mod golden;
pub mod net;
mod picture;
pub mod prompt;
mod score;
pub mod shell;
mod space;
pub mod task;
mod text;
pub mod topology;

pub use engine::matrix;

use std::sync::Arc;

use crate::app::{AnswerKind, App, AppInfo, AppKind, KnobInfo, LevelInfo, Task};
use crate::error::Result;
use crate::id::QueryId;

/// The Route application.
pub struct RouteApp;

pub static INFO: AppInfo = AppInfo {
    name: "route",
    title: "Route: router fault repair",
    summary: "Faults are injected into the routers of a small emulated Linux network; the agent runs one shell \
command per turn on any machine (ip, ifconfig, route, sysctl, iptables, tc, ping, traceroute, …) until every \
machine can ping every other, without breaking what worked.",
    version: 1,
    older_versions: &[],
    kind: AppKind::Reactive,
    answer: AnswerKind::MachineCommands,
    levels: &[
        LevelInfo { level: 1, summary: "one fault on router r0 (2–8 subnets of 1–4 hosts)" },
        LevelInfo { level: 2, summary: "two faults on router r0" },
        LevelInfo { level: 3, summary: "three faults on 1–4 routers (chain or star, up to 16 subnets)" },
    ],
    knobs: &[
        KnobInfo {
            key: 'n',
            name: "subnets",
            help: "number of subnets (L1/L2 2..8; L3 9..16 with one router, else R..12)",
            values: "2..16",
        },
        KnobInfo { key: 'm', name: "hosts", help: "hosts per subnet", values: "1..4" },
        KnobInfo { key: 'r', name: "routers", help: "routers (level 3 only)", values: "1..4" },
        KnobInfo {
            key: 'f',
            name: "families",
            help: "fault families joined by + in the order DR DI RI DT WR, one per fault",
            values: "DR+DI",
        },
        KnobInfo { key: 't', name: "turns", help: "turn limit", values: "1..50" },
    ],
    default_max_turns: generate::DEFAULT_TURNS,
    sandboxed: false,
    glossary: fault::GLOSSARY,
};

impl App for RouteApp {
    fn info(&self) -> &'static AppInfo {
        &INFO
    }

    fn generate(&self, id: &QueryId) -> Result<Arc<dyn Task>> {
        INFO.check_id(id)?;
        let turns = generate::knobs(id)?.turns;
        let drawn = generate::draw(id)?;
        Ok(task::RouteTask::new(id, drawn, turns))
    }

    fn baseline(&self) -> Box<dyn crate::conversation::Agent> {
        Box::new(baseline::Baseline)
    }

    fn space_of(&self) -> Option<crate::adapt::SpaceOf> {
        Some(space::SPACE)
    }

    fn labels(&self, level: u8) -> Vec<String> {
        generate::combinations(level)
            .into_iter()
            .map(|c| c.iter().map(|f| f.name()).collect::<Vec<_>>().join("+"))
            .collect()
    }
}
