//! The contract between an agent and whatever drives it: messages in, one reply out.
//!
//! These types sit below everything else that talks to agents. Applications need them for
//! their baselines ([`crate::app::App::baseline`] returns an [`Agent`]), result records store
//! [`AgentInfo`] and [`Tokens`], the runner ([`crate::run`]) feeds [`AgentReply`]s and
//! [`AgentError`]s to episodes, and the endpoint clients ([`crate::agent`]) implement
//! [`Agent`]. Keeping the contract in its own module, depending on nothing in the crate, is
//! what lets those dependencies point one way: core, then applications, then runner and
//! agents, then the command line and the page.

use serde::{Deserialize, Serialize};
use serde_json::Value;

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

/// The whole conversation as one text, for agents that take a transcript per turn (A2A):
/// `=== Task ===`, then `=== Your reply ===` and `=== Observation ===` blocks.
pub fn transcript(messages: &[Message]) -> String {
    let mut out = String::new();
    for (i, m) in messages.iter().enumerate() {
        if i > 0 {
            out.push_str("\n\n");
        }
        let who = match m.role {
            Role::System => "System",
            Role::User if i == 0 => "Task",
            Role::User => "Observation",
            Role::Assistant => "Your reply",
        };
        out.push_str(&format!("=== {who} ===\n{}", m.content));
    }
    out
}

/// An agent whose every reply is one fixed Python program: an application's reference answer
/// to one task (MALT's and Traffic's oracles), which must score 100% and so cross-checks the
/// generator, the host objects, the sandbox and the checker against each other.
#[derive(Debug, Clone)]
pub struct Program {
    pub info: AgentInfo,
    pub code: String,
}

impl Agent for Program {
    fn info(&self) -> AgentInfo {
        self.info.clone()
    }

    fn reply(&mut self, _messages: &[Message]) -> Result<AgentReply, AgentError> {
        Ok(AgentReply { text: format!("```python\n{}\n```", self.code), latency_ms: None, tokens: None })
    }
}
