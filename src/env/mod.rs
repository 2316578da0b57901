//! NetPress as an environment for training and evaluating agents: the episode protocol
//! `netpress.env.v1`, without I/O.
//!
//! Trainers (reinforcement learning loops, evaluation harnesses) want an environment they
//! reset and step, one reply at a time, with a reward. NetPress's episodes already are that:
//! the crate's one episode loop, [`crate::run::Runner`], takes one reply per turn. This module
//! puts the protocol's view on it and nothing more, so that every surface of the protocol
//! gives the same result record as `netpress run` for the same task and replies:
//!
//! - [`ResetParams`] (`params`): which task (an id, or an application with level, seed, index
//!   and knobs), the prompt variant, the turn limit, the reward, the session key; each
//!   refusal has its reason.
//! - [`Session`] (`session`): one episode. A reset builds a runner, a step hands it an
//!   [`Action`] and answers with an [`Observation`], the reward and `done`; [`State`] is
//!   OpenEnv's state plus the task.
//! - [`RewardSpec`] (`reward`): `correct`, `leaderboard` or weights, dense or not.
//! - [`EnvError`] (`error`): OpenEnv's error codes refined by a [`Reason`], with the HTTP
//!   status each maps to.
//! - `message`: the messages' shapes (WebSocket's, and stdio's with `session` and `id`).
//! - [`Dispatcher`] (`stdio`): the stdio protocol on raw lines, which `netpress env --stdio`
//!   reads and writes and the fuzz target `env_protocol` drives.
//!
//! One part does I/O, natively: sandboxed applications' turns (agent code) run in child
//! processes, [`SandboxPool`] (`pool`), and [`pooled::step`] steps any session where its turn
//! must run. Every caller that holds sessions (the server, the stdio dispatcher, the server's
//! assessor through [`pooled::drive`]) shares that one pool implementation.
//!
//! The transports (`netpress env --stdio`, `netpress serve`) live in the command line; they
//! only move bytes and keep sessions. docs/env.md describes the protocol for its users.

mod error;
mod message;
mod params;
// Child processes: native only (the browser runs sandboxed episodes in a Web Worker).
#[cfg(not(target_arch = "wasm32"))]
mod pool;
#[cfg(not(target_arch = "wasm32"))]
pub mod pooled;
mod reward;
mod session;
mod stdio;

pub use error::{Code, EnvError, Reason};
pub use message::{Limits, Parsed, Request, closed, error as error_message, info, observation, parse, state};
pub use params::{Defaults, MAX_EPISODE_ID, MAX_TURNS, ResetParams, Resolved, check_episode_id};
#[cfg(not(target_arch = "wasm32"))]
pub use pool::{Lost, SANDBOX_PROCESS_VAR, SandboxConfig, SandboxPool};
pub use reward::{RewardSpec, Weights};
pub use session::{Action, MAX_REPLY_BYTES, Observation, Session, State, StepResult, env_agent};
pub use stdio::{DEFAULT_SESSION, Dispatcher, counter_ids, guarded};

/// The protocol's name, reported by `info` and recorded as the agent of a session's records.
pub const PROTOCOL: &str = "netpress.env.v1";
