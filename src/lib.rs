//! NetPress: a seeded, reproducible benchmark for AI agents that operate networks.
//!
//! The library holds everything: task generators, emulators, scorers, agents and statistics.
//! The command-line tool (`cli`, which `src/bin/netpress` runs) and the web app (`src/web`,
//! built by Trunk) are thin surfaces over it and never reach into an application's internals:
//! they talk to the roles in [`app`] through a [`registry::Registry`].
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
//! - [`history`]: saved runs as data: a run's summary and the JSONL export/import of runs.
//! - [`paste`]: how typed and pasted text becomes replies (the web app's terminal and paste box).
//! - [`stats`]: Wilson and bootstrap intervals, overlap, sample-size planning, aggregation.
//! - [`provenance`]: where a published number came from (versions, queries, agents, command).
//! - [`report`]: tables, charts (SVG) and the self-contained HTML report of some results.
//! - [`export`]: the NetArena leaderboard file and SFT/RL JSONL data sets.
//! - [`conversation`]: what passes between an agent and its driver (the [`conversation::Agent`] trait).
//! - [`run`]: running agents on tasks: one episode, a batch, task selection, re-scoring.
//! - [`adapt`]: adaptive mode, a search of a task space for an agent's weak regions.
//! - [`agent`]: the agents: endpoint clients (OpenAI-compatible, A2A) and replays.
//! - [`env`](mod@env): the episode protocol `netpress.env.v1` (reset, step, rewards) for trainers.
//! - `shell`: the one command line every shell-driven application registers its commands in.
//! - [`score`]: reactive scoring over an application's behaviour matrix and typed refusals.
//! - [`sandbox`]: limits and the worker protocol that runs any application's episodes in a
//!   Web Worker (or a native JSON-lines filter).
//!
//! The applications: [`route`], [`k8s`], [`malt`], listed once in [`registry`]. [`bgp`] is
//! the next one in the making (its emulated Internet and routing model; not registered yet).
//! [`flows`] is the seeded cloud tenant and flow-log model the traffic and micro-segmentation
//! applications will share (not an application itself).

pub mod adapt;
pub mod agent;
pub mod answer;
pub mod app;
pub mod bench;
pub mod bgp;
// Native only: it blocks on threads and files, and its crates (clap, ureq) are native ones.
#[cfg(all(feature = "cli", not(target_arch = "wasm32")))]
pub mod cli;
pub mod conversation;
pub mod env;
pub mod error;
pub mod export;
pub mod flows;
pub mod hash;
pub mod history;
pub mod id;
pub mod k8s;
pub mod link;
pub mod malt;
pub mod microseg;
pub mod params;
pub mod paste;
pub mod provenance;
pub mod record;
pub mod registry;
pub mod reply;
pub mod report;
pub mod route;
pub mod run;
pub mod sandbox;
pub mod score;
pub mod seed;
pub mod selfcheck;
// Native only, like `cli`: the environment server on tokio and axum.
#[cfg(all(feature = "server", not(target_arch = "wasm32")))]
pub mod server;
mod shell;
pub mod stats;
pub mod task_view;
mod tool_args;
pub mod traffic;
pub mod view;

#[cfg(feature = "web")]
pub mod web;

pub use app::{App, Episode, Task};
pub use error::{Error, Result};
pub use id::QueryId;

/// The NetPress version written into every result and export file.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
