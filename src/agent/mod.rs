//! Agents and the one multi-turn runner that drives every application's episode.
//!
//! An [`Agent`] answers a conversation with one reply. The [`runner::Runner`] owns the
//! conversation: it sends the prompt, passes each reply to the episode, appends the observation
//! and stops when the episode finishes, the turn limit is reached or the agent keeps failing.
//! The runner does no I/O itself, so the same code drives blocking agents (baselines, the CLI's
//! HTTP clients) through [`runner::run_episode`] and asynchronous ones (the browser's fetch)
//! through its step methods.
//!
//! Endpoint agents are split the same way: the protocols ([`openai`], [`a2a`]) and the retry
//! and failure rules ([`retry`], [`http`], [`client`], [`batch`]) are pure and compile for
//! wasm32; the CLI's blocking transport is [`native`] (feature `cli`), the browser's is
//! `web::endpoint` (feature `web`). [`mock`] is a scripted test server for both.

pub mod a2a;
pub mod batch;
pub mod cancel;
pub mod client;
pub mod http;
#[cfg(all(feature = "cli", not(target_arch = "wasm32")))]
pub mod mock;
#[cfg(all(feature = "cli", not(target_arch = "wasm32")))]
pub mod native;
pub mod openai;
pub mod replay;
pub mod retry;
pub mod runner;

use serde::{Deserialize, Serialize};
use serde_json::Value;

pub use cancel::Cancel;
pub use runner::{RunSettings, Runner, run_episode};

/// Who spoke a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    System,
    User,
    Assistant,
}

/// One chat message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Message {
    pub role: Role,
    pub content: String,
}

impl Message {
    pub fn user(content: impl Into<String>) -> Self {
        Message { role: Role::User, content: content.into() }
    }
    pub fn assistant(content: impl Into<String>) -> Self {
        Message { role: Role::Assistant, content: content.into() }
    }
}

/// Token counts an endpoint reported for one call.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tokens {
    pub prompt: u64,
    pub completion: u64,
}

impl Tokens {
    pub fn total(self) -> u64 {
        self.prompt + self.completion
    }
}

/// One reply of an agent.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct AgentReply {
    pub text: String,
    /// Wall time of the call; `None` when not measured (pasted answers).
    pub latency_ms: Option<f64>,
    pub tokens: Option<Tokens>,
}

/// A failed call: network error, timeout, HTTP error, malformed body, cancelled.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AgentError {
    pub message: String,
    /// No point in asking again (bad key, replay exhausted, cancelled): the runner stops.
    pub fatal: bool,
}

impl AgentError {
    pub fn retryable(message: impl Into<String>) -> Self {
        AgentError { message: message.into(), fatal: false }
    }
    pub fn fatal(message: impl Into<String>) -> Self {
        AgentError { message: message.into(), fatal: true }
    }
}

/// A description of an agent for result files. Never holds secrets (keys, tokens).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct AgentInfo {
    /// `baseline`, `replay`, `openai`, `a2a`, `human`, `paste`, …
    pub kind: String,
    /// A short display name, e.g. `route-baseline` or `gpt-4o-mini`.
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub endpoint: Option<String>,
    /// Other settings that change behaviour (temperature, max tokens, …).
    #[serde(default, skip_serializing_if = "Value::is_null")]
    pub settings: Value,
}

impl AgentInfo {
    pub fn new(kind: &str, name: &str) -> Self {
        AgentInfo { kind: kind.to_string(), name: name.to_string(), ..Default::default() }
    }

    /// The label statistics group by: `kind:name`, e.g. `baseline:route-baseline`.
    pub fn label(&self) -> String {
        format!("{}:{}", self.kind, self.name)
    }
}

/// Anything that answers a conversation with one reply, blocking.
pub trait Agent: Send {
    fn info(&self) -> AgentInfo;

    /// The reply to the conversation so far; the last message is the newest observation.
    fn reply(&mut self, messages: &[Message]) -> Result<AgentReply, AgentError>;
}
