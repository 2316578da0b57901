//! NetPress: a seeded, reproducible benchmark for AI agents that operate networks.
//!
//! The library holds everything: task generators, emulators, scorers, agents and statistics.
//! The command-line tool (`src/bin/netpress`) and the web app (`src/web`, built by Trunk) are
//! thin surfaces over it and never reach into an application's internals: they talk to the
//! roles in [`app`] through the [`registry`].
//!
//! Shared building blocks, one concept per module:
//! - [`id`]: query ids such as `route-v1-L2-s42-i7`, parsed and formatted.
//! - [`seed`]: the per-query ChaCha RNG and the stable integer draws every generator uses.
//! - [`hash`]: canonical JSON and content hashes.
//! - [`app`]: the roles every application implements (generator, task, episode, score).
//! - [`params`]: a task's resolved parameters, members shared between tasks.
//! - [`view`]: plain data the UI draws (grids, tables, pictures), produced by the apps.
//! - [`reply`]: lenient extraction of actions from free-form agent replies.
//! - [`record`]: the versioned result record written as JSONL.
//! - [`stats`]: Wilson and bootstrap intervals, overlap, sample-size planning, aggregation.
//! - [`provenance`]: where a published number came from (versions, queries, agents, command).
//! - [`report`]: tables, charts (SVG) and the self-contained HTML report of some results.
//! - [`export`]: the NetArena leaderboard file and SFT/RL JSONL data sets.
//! - [`conversation`]: what passes between an agent and its driver (the [`conversation::Agent`] trait).
//! - [`run`]: running agents on tasks: one episode, a batch, task selection, re-scoring.
//! - [`agent`]: the agents: endpoint clients (OpenAI-compatible, A2A) and replays.

pub mod agent;
pub mod answer;
pub mod app;
pub mod bench;
pub mod bgp;
pub mod conversation;
pub mod error;
pub mod export;
pub mod hash;
pub mod id;
pub mod k8s;
pub mod link;
pub mod malt;
pub mod params;
pub mod provenance;
pub mod record;
pub mod registry;
pub mod reply;
pub mod report;
pub mod route;
pub mod run;
pub mod score;
pub mod seed;
pub mod selfcheck;
mod shell;
pub mod stats;
mod tool_args;
pub mod view;

#[cfg(feature = "web")]
pub mod web;

pub use app::{App, Episode, Task};
pub use error::{Error, Result};
pub use id::QueryId;

/// The NetPress version written into every result and export file.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
