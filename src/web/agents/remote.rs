//! The adapter between the page and network agents (OpenAI-compatible chat completions and
//! NetArena-style A2A), so the Endpoint view and the batch runner do not depend on how the
//! clients are written.
//!
//! The clients themselves live in `src/web/endpoint.rs` (the agents work); wiring them in is
//! implementing [`RemoteClient`] for them and returning them from [`connect`].

use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;

use crate::agent::{AgentError, AgentInfo, AgentReply};

use super::super::sandbox::Snapshot;
use super::super::settings::EndpointSettings;

/// A reply on its way.
pub type PendingReply = Pin<Box<dyn Future<Output = Result<AgentReply, AgentError>>>>;

/// A network agent: one call per turn, abortable.
pub trait RemoteClient {
    /// The agent as result files describe it (never the key).
    fn info(&self) -> AgentInfo;

    /// Asks for the next reply to `snapshot.messages` (A2A clients send them as one
    /// transcript). Failures are `AgentError`s (fatal for a bad key or an abort).
    fn call(&self, snapshot: &Snapshot) -> PendingReply;

    /// Aborts the call in flight, which then fails fatally.
    fn abort(&self);
}

/// Problems with the settings that make calling pointless, one line each.
pub fn check(settings: &EndpointSettings) -> Vec<String> {
    let mut problems = Vec::new();
    if !matches!(settings.kind.as_str(), "openai" | "a2a") {
        problems.push(format!("unknown endpoint kind {:?} (openai or a2a)", settings.kind));
    }
    let url = settings.url.trim();
    if !(url.starts_with("http://") || url.starts_with("https://")) {
        problems.push("the URL must start with http:// or https://".into());
    }
    if settings.kind == "openai" && settings.model.trim().is_empty() {
        problems.push("name the model to call".into());
    }
    problems
}

/// A client for the settings (A2A clients first read the agent's card).
pub async fn connect(settings: &EndpointSettings) -> Result<Rc<dyn RemoteClient>, String> {
    let problems = check(settings);
    if !problems.is_empty() {
        return Err(problems.join("; "));
    }
    Err("this build has no endpoint client yet: the OpenAI and A2A clients (src/web/endpoint.rs) \
         arrive with the agents work"
        .into())
}
