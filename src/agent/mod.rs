//! Agents: the endpoint clients and the replay of recorded answers.
//!
//! What an agent is (the [`Agent`] trait, messages, replies, failures) is defined below
//! everything in [`crate::conversation`]; how episodes and batches are run with one is
//! [`crate::run`]. This module holds the agents themselves.
//!
//! Endpoint agents are split like the runner: the protocols ([`openai`], [`a2a`]) and the
//! retry and failure rules ([`retry`], [`http`], [`client`]) are pure and compile for wasm32;
//! the native blocking transport is [`native`] (feature `native-agents`, which `cli`
//! includes; the Python package enables it alone), the browser's is
//! `web::endpoint` (feature `web`). [`mock`] is a scripted test server for both. [`replay`]
//! plays back replies from a results file or a pasted text.

pub mod a2a;
pub mod client;
pub mod http;
#[cfg(all(feature = "cli", not(target_arch = "wasm32")))]
pub mod mock;
#[cfg(all(feature = "native-agents", not(target_arch = "wasm32")))]
pub mod native;
pub mod openai;
pub mod replay;
pub mod retry;

/// The contract every agent here implements, re-exported because every user of an agent
/// needs it beside the agent.
pub use crate::conversation::{Agent, AgentError, AgentInfo, AgentReply, Message, Role, Tokens};
