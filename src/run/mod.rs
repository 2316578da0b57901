//! Running agents on tasks: one episode, a batch of them, which tasks, and re-scoring.
//!
//! Every surface runs episodes through this module and nothing else: the CLI's `run`, `exec`
//! and `score`, the page's task view and batch view, and (later) the environment server and
//! its Python package. The surfaces differ in how they wait (the CLI blocks on threads, the
//! page awaits futures on one thread), so nothing here waits or does I/O. Each part is a
//! state machine that a driver feeds and asks what to do next:
//!
//! - [`Runner`] (`episode`): one episode. Ask it for the conversation to send, hand it the
//!   reply or the failed call, repeat until [`Runner::finished`]; then take its
//!   [`Runner::record`]. It applies the turn limit and the per-episode failure rule.
//! - [`Batch`] (`batch`): many episodes. Ask it for the next task (it keeps to the
//!   concurrency limit and stops handing out tasks once cancelled), run the episode, hand back
//!   how it [`Ended`]; it applies the batch's stop rule and says which records count.
//! - [`TaskSelection`] (`select`): which ids make up a run, in which order.
//! - [`rescore()`] (module `rescore`): a result record scored again by this build.
//! - [`Cancel`] (`cancel`): the flag the user, the agents and the batch rule share.
//!
//! The blocking drivers live here too because they are only a loop: [`run_episode`] and
//! `run_threads` (native). The page's drivers are in `web::agents` and `web::batch`.
//! docs/agents.md explains the failure rules and docs/results.md re-scoring.

mod batch;
mod cancel;
mod episode;
mod rescore;
mod select;

#[cfg(not(target_arch = "wasm32"))]
pub use batch::{AgentFactory, Named, Planned, run_threads};
pub use batch::{Batch, Ended, Finished};
pub use cancel::Cancel;
pub use episode::{RunSettings, Runner, StopCause, drive, run_episode};
pub use rescore::{differs, rescore};
pub use select::{TaskSelection, parse_filter, parse_seeds, run_order};
