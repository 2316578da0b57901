//! The adapter between the page's views and network agents (OpenAI-compatible chat
//! completions and NetArena-style A2A): the settings form's values become the library's
//! [`EndpointConfig`], and the browser transport ([`crate::web::endpoint`]) makes the calls.
//! The views and the batch runner see only [`RemoteClient`].

use std::cell::Cell;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;

use crate::agent::a2a::A2aConfig;
use crate::agent::client::{Client, EndpointConfig};
use crate::agent::openai::OpenAiConfig;
use crate::agent::{AgentError, AgentInfo, AgentReply};

use super::super::endpoint::{self, Cancel};
use super::super::sandbox::Snapshot;
use super::super::settings::EndpointSettings;
use super::CANCELLED;

/// A reply on its way.
pub type PendingReply = Pin<Box<dyn Future<Output = Result<AgentReply, AgentError>>>>;

/// A network agent: one call per turn, abortable.
pub trait RemoteClient {
    /// The agent as result files describe it (never the key).
    fn info(&self) -> AgentInfo;

    /// Asks for the next reply to `snapshot.messages` (A2A clients send them as one
    /// transcript). Failures are `AgentError`s (fatal for a bad key or an abort).
    fn call(&self, snapshot: &Snapshot) -> PendingReply;

    /// Aborts the calls in flight, which then fail fatally.
    fn abort(&self);

    /// Set when a call said the endpoint or key is wrong: no further call can succeed, so a
    /// batch stops with this reason.
    fn halted(&self) -> Option<String>;
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

/// The library's endpoint configuration for the form's settings.
fn config(s: &EndpointSettings) -> EndpointConfig {
    let key = Some(s.api_key.trim().to_string()).filter(|k| !k.is_empty());
    let timeout_ms = u64::from(s.timeout_s.max(1)) * 1000;
    if s.kind == "a2a" {
        EndpointConfig::A2a(A2aConfig { bearer: key, timeout_ms, ..A2aConfig::new(s.url.trim()) })
    } else {
        EndpointConfig::Openai(OpenAiConfig {
            api_key: key,
            temperature: s.temperature,
            max_tokens: s.max_tokens,
            timeout_ms,
            ..OpenAiConfig::new(s.url.trim(), s.model.trim())
        })
    }
}

/// A connected endpoint with the cancel handle of its calls.
struct EndpointAgent {
    client: Rc<Client>,
    cancel: Cancel,
    /// Prefix of A2A message ids, unique per connection.
    session: String,
    calls: Cell<u64>,
}

impl RemoteClient for EndpointAgent {
    fn info(&self) -> AgentInfo {
        self.client.info()
    }

    fn call(&self, snapshot: &Snapshot) -> PendingReply {
        self.calls.set(self.calls.get() + 1);
        let id = format!("{}-{}", self.session, self.calls.get());
        let (client, cancel, messages) =
            (self.client.clone(), self.cancel.clone(), snapshot.messages.clone());
        Box::pin(async move { endpoint::call(&client, &messages, &id, &cancel).await })
    }

    fn abort(&self) {
        self.cancel.cancel(CANCELLED);
    }

    fn halted(&self) -> Option<String> {
        self.cancel.reason().filter(|r| r != CANCELLED)
    }
}

/// A client for the settings (A2A clients first read the agent's card).
pub async fn connect(settings: &EndpointSettings) -> Result<Rc<dyn RemoteClient>, String> {
    let problems = check(settings);
    if !problems.is_empty() {
        return Err(problems.join("; "));
    }
    let cancel = Cancel::new();
    let client = endpoint::connect(&config(settings), &cancel).await.map_err(|e| e.message)?;
    Ok(adapt(client, cancel))
}

/// The page's agent for a connected library client whose calls `cancel` aborts.
pub fn adapt(client: Client, cancel: Cancel) -> Rc<dyn RemoteClient> {
    let session = format!(
        "np-{:x}-{:x}",
        super::super::util::epoch_ms() as u64,
        super::super::util::random_below(1 << 32)
    );
    Rc::new(EndpointAgent { client: Rc::new(client), cancel, session, calls: Cell::new(0) })
}
