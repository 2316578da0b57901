//! The agent of a `run`: `--agent baseline`, `replay:FILE`, `openai` or `a2a`, as a factory
//! that makes a fresh agent for each episode (episodes run on several threads at once).
//!
//! Endpoint settings come from flags, then from the variables `OPENAI_BASE_URL` and
//! `OPENAI_API_KEY`; a key never reaches a record, a log or `Debug` output ([`Secret`]).
//! Baselines do not time themselves, so [`Timed`] measures their replies' latency as the
//! endpoint clients do theirs.

use std::sync::Arc;
use std::time::Instant;

use clap::Args;

use super::{CliResult, Fail};
use crate::agent::a2a::A2aConfig;
use crate::agent::client::EndpointConfig;
use crate::agent::native::{EndpointAgent, Transport, connect};
use crate::agent::openai::OpenAiConfig;
use crate::agent::replay::ReplaySource;
use crate::agent::retry::RetryPolicy;
use crate::agent::{Agent, AgentError, AgentInfo, AgentReply, Message};
use crate::app::App;
use crate::run::AgentFactory;
use crate::run::Cancel;

/// Settings of `--agent openai` and `--agent a2a`.
#[derive(Args, Debug)]
#[command(next_help_heading = "Endpoint agents (--agent openai | a2a)")]
pub struct EndpointArgs {
    /// OpenAI-compatible API base, e.g. http://127.0.0.1:11434/v1 (default: $OPENAI_BASE_URL or
    /// https://api.openai.com/v1).
    #[arg(long, value_name = "URL")]
    pub base_url: Option<String>,
    /// Model name sent with each request.
    #[arg(long)]
    pub model: Option<String>,
    /// Bearer key (default: $OPENAI_API_KEY for openai). Prefer the variable: arguments are
    /// visible to other users of the machine. Never written to results or logs.
    #[arg(long, value_name = "KEY")]
    pub api_key: Option<Secret>,
    /// Sampling temperature (default: the server's).
    #[arg(long)]
    pub temperature: Option<f64>,
    /// Largest reply in tokens (default: the server's).
    #[arg(long)]
    pub max_tokens: Option<u32>,
    /// A2A agent base URL (its card is read from /.well-known/agent-card.json).
    #[arg(long, value_name = "URL")]
    pub url: Option<String>,
    /// Seconds to wait for one reply (default 120 for openai, 300 for a2a).
    #[arg(long, value_name = "SECS")]
    pub timeout: Option<f64>,
    /// Retries of a call after HTTP 408/425/429/5xx or a network error, with exponential
    /// backoff from 1 s (or the server's Retry-After) up to 30 s.
    #[arg(long, default_value_t = 3)]
    pub retries: u32,
}

/// A key given on the command line; `Debug` never shows it.
#[derive(Clone)]
pub struct Secret(String);

impl std::str::FromStr for Secret {
    type Err = std::convert::Infallible;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Ok(Secret(s.to_string()))
    }
}

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Secret([redacted])")
    }
}

/// The factory of the agent `spec` names for `app`; endpoint agents share one client and
/// stop when `cancel` is set.
pub fn agent_factory(
    app: &'static dyn App,
    spec: &str,
    endpoint: &EndpointArgs,
    cancel: &Cancel,
) -> CliResult<Box<AgentFactory<'static>>> {
    if spec == "baseline" {
        return Ok(Box::new(move |_id: &str| -> Box<dyn Agent> { Box::new(Timed(app.baseline())) }));
    }
    // Hidden from the list below: test support and demos, not a way to evaluate (docs/adapt.md).
    if let Some(pred) = spec.strip_prefix("fake:") {
        let fake =
            crate::adapt::Fake::parse(app, pred).map_err(|e| Fail { message: e.to_string(), code: 2 })?;
        return Ok(Box::new(move |id: &str| -> Box<dyn Agent> { fake.agent(app, id) }));
    }
    if let Some(path) = spec.strip_prefix("replay:") {
        let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {path}: {e}"))?;
        let source = ReplaySource::parse(&text, app.info().answer)?;
        return Ok(Box::new(move |id: &str| -> Box<dyn Agent> { Box::new(source.agent_for(id)) }));
    }
    if spec == "openai" || spec == "a2a" {
        let config = endpoint_config(spec, endpoint)?;
        let transport = Transport::new(cancel.clone());
        let client =
            Arc::new(connect(&config, &transport).map_err(|e| format!("cannot use the {spec} agent: {e}"))?);
        return Ok(Box::new(move |_id: &str| -> Box<dyn Agent> {
            Box::new(EndpointAgent::new(client.clone(), transport.clone()))
        }));
    }
    Err(Fail {
        message: format!("unknown agent {spec:?} (use baseline, replay:FILE, openai or a2a)"),
        code: 2,
    })
}

/// The endpoint settings of `--agent openai` / `--agent a2a` from flags and variables.
fn endpoint_config(spec: &str, args: &EndpointArgs) -> CliResult<EndpointConfig> {
    let usage = |m: &str| Fail { message: m.to_string(), code: 2 };
    let timeout_ms = match args.timeout {
        Some(s) if s.is_finite() && s > 0.0 => Some((s * 1000.0).round() as u64),
        Some(_) => return Err(usage("--timeout must be a positive number of seconds")),
        None => None,
    };
    let retry = RetryPolicy { retries: args.retries, ..RetryPolicy::default() };
    let key = args.api_key.as_ref().map(|k| k.0.clone());
    if spec == "a2a" {
        let url =
            args.url.as_deref().ok_or_else(|| usage("--agent a2a needs --url URL (the agent's base URL)"))?;
        let mut config = A2aConfig::new(url);
        config.bearer = key;
        config.retry = retry;
        config.timeout_ms = timeout_ms.unwrap_or(config.timeout_ms);
        return Ok(EndpointConfig::A2a(config));
    }
    let model = args.model.as_deref().ok_or_else(|| usage("--agent openai needs --model NAME"))?;
    let base = args
        .base_url
        .clone()
        .or_else(|| std::env::var("OPENAI_BASE_URL").ok().filter(|v| !v.trim().is_empty()))
        .unwrap_or_else(|| "https://api.openai.com/v1".to_string());
    if !(base.starts_with("http://") || base.starts_with("https://")) {
        return Err(usage("--base-url must start with http:// or https://"));
    }
    if args.temperature.is_some_and(|t| !t.is_finite() || t < 0.0) {
        return Err(usage("--temperature must be a number >= 0"));
    }
    let mut config = OpenAiConfig::new(&base, model);
    config.api_key = key.or_else(|| std::env::var("OPENAI_API_KEY").ok().filter(|k| !k.trim().is_empty()));
    config.temperature = args.temperature;
    config.max_tokens = args.max_tokens;
    config.retry = retry;
    config.timeout_ms = timeout_ms.unwrap_or(config.timeout_ms);
    Ok(EndpointConfig::Openai(config))
}

/// Measures the wall time of an agent that does not measure itself (the baselines).
struct Timed(Box<dyn Agent>);

impl Agent for Timed {
    fn info(&self) -> AgentInfo {
        self.0.info()
    }
    fn reply(&mut self, messages: &[Message]) -> Result<AgentReply, AgentError> {
        let start = Instant::now();
        let mut reply = self.0.reply(messages)?;
        reply.latency_ms.get_or_insert(start.elapsed().as_secs_f64() * 1000.0);
        Ok(reply)
    }
}
