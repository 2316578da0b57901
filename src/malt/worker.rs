//! The sandbox worker's message protocol (feature `sandbox`): JSON requests in, JSON responses
//! out, one message each, no I/O. The browser's Web Worker (`src/bin/worker.rs`) feeds it
//! `postMessage` strings; natively the same binary reads JSON lines on stdin, so the protocol
//! is tested without a browser and a browser run can be compared with a native one.
//!
//! Requests (`op` tags):
//! - `{"op":"start","id":ID,"max_turns":N?,"variant":"zeroshot_base"?,"limits":L?,"agent":A?}`
//!   builds the task (and caches its topology), starts an [`crate::run::Runner`]; → `started`
//!   with the exact prompt to send.
//! - `{"op":"submit","reply":TEXT,"latency_ms":X?,"tokens":{"prompt":P,"completion":C}?}`
//!   feeds one agent reply; → `turn` (the turn record, `finished`, the state panels), then
//!   `result` once the episode is over.
//! - `{"op":"fail","message":TEXT,"fatal":BOOL?}`: the agent call failed (counts as a turn).
//! - `{"op":"stop","reason":TEXT?}`: ends the episode; → `result`.
//! - `{"op":"check","id":ID,"answer":TEXT,"limits":L?,"agent":A?}`: one-shot: runs one answer
//!   and scores it; → `checked` with the result record, the panels and `check_ms`, the time
//!   of the sandbox run, the diff and the safety check measured inside the worker.
//! - `{"op":"bench","tasks":N}`: the fixed seeded workload of [`crate::bench::run_app`] on MALT
//!   (the same as `netpress bench --app malt --tasks N`), timed in the worker; → `benched` with
//!   `bench` (an [`crate::bench::AppBench`]). N is at most 10,000.
//! - `{"op":"ping"}` → `pong`.
//!
//! `L` overrides limits: `{"time_ms":2000,"memory_mb":256,"host_calls":100000,"recursion":1000}`
//! (each optional). Every response carries `memory_bytes`, the worker's linear memory (wasm) so
//! the page can respawn a worker past 1 GiB; a malformed request gets `{"op":"error"}`.

use std::sync::Arc;
use std::time::Duration;

#[cfg(not(target_arch = "wasm32"))]
use std::time::Instant;
#[cfg(target_arch = "wasm32")]
use web_time::Instant;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::app::{Episode, PromptVariant, Task, TaskCard};
use crate::conversation::{AgentError, AgentInfo, AgentReply, Tokens};
use crate::run::{RunSettings, Runner};
use crate::view::{Panel, Picture};

use super::generate::generate;
use super::sandbox::Limits;
use super::task::MaltTask;

/// Limit overrides of a request.
#[derive(Debug, Clone, Copy, Default, PartialEq, Deserialize)]
pub struct LimitOverrides {
    pub time_ms: Option<u64>,
    pub memory_mb: Option<usize>,
    pub host_calls: Option<u64>,
    pub recursion: Option<usize>,
}

impl LimitOverrides {
    fn apply(self) -> Limits {
        let d = Limits::default();
        Limits {
            time: self.time_ms.map_or(d.time, Duration::from_millis),
            memory: self.memory_mb.map_or(d.memory, |m| m * 1024 * 1024),
            host_calls: self.host_calls.unwrap_or(d.host_calls),
            recursion: self.recursion.unwrap_or(d.recursion),
            ..d
        }
    }
}

/// A request from the page.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum Request {
    Start {
        id: String,
        #[serde(default)]
        max_turns: Option<u32>,
        #[serde(default)]
        variant: PromptVariant,
        #[serde(default)]
        limits: LimitOverrides,
        #[serde(default)]
        agent: Option<AgentInfo>,
    },
    Submit {
        reply: String,
        #[serde(default)]
        latency_ms: Option<f64>,
        #[serde(default)]
        tokens: Option<Tokens>,
    },
    Fail {
        message: String,
        #[serde(default)]
        fatal: bool,
    },
    Stop {
        #[serde(default)]
        reason: Option<String>,
    },
    Check {
        id: String,
        answer: String,
        #[serde(default)]
        limits: LimitOverrides,
        #[serde(default)]
        agent: Option<AgentInfo>,
    },
    Bench {
        tasks: usize,
    },
    Ping,
}

/// A MALT task whose episodes use given limits.
struct Limited {
    task: MaltTask,
    limits: Limits,
}

impl Task for Limited {
    fn card(&self) -> &TaskCard {
        self.task.card()
    }
    fn prompt(&self, variant: PromptVariant) -> String {
        self.task.prompt(variant)
    }
    fn start(&self, max_turns: Option<u32>) -> Box<dyn Episode> {
        Box::new(self.task.start_with(max_turns, self.limits))
    }
    fn picture(&self) -> Picture {
        self.task.picture()
    }
}

/// The worker's state: at most one episode in progress.
#[derive(Default)]
pub struct Worker {
    episode: Option<(Runner, AgentInfo)>,
}

fn paste_agent() -> AgentInfo {
    AgentInfo::new("paste", "pasted answer")
}

fn task(id: &str, limits: LimitOverrides) -> Result<Arc<dyn Task>, String> {
    let id: crate::QueryId = id.parse().map_err(|e: crate::Error| e.to_string())?;
    super::check_id(&id).map_err(|e| e.to_string())?;
    let task = MaltTask::new(generate(&id).map_err(|e| e.to_string())?);
    Ok(Arc::new(Limited { task, limits: limits.apply() }))
}

/// The size of the worker's linear memory (0 natively).
fn memory_bytes() -> u64 {
    #[cfg(target_arch = "wasm32")]
    return core::arch::wasm32::memory_size(0) as u64 * 65_536;
    #[cfg(not(target_arch = "wasm32"))]
    0
}

fn message(op: &str, body: Value) -> String {
    let mut v = body;
    if let Value::Object(map) = &mut v {
        map.insert("op".into(), json!(op));
        map.insert("memory_bytes".into(), json!(memory_bytes()));
    }
    v.to_string()
}

fn error(text: impl Into<String>) -> String {
    message("error", json!({"message": text.into()}))
}

fn to_json<T: Serialize>(v: &T) -> Value {
    serde_json::to_value(v).unwrap_or(Value::Null)
}

impl Worker {
    /// The first message a worker sends.
    pub fn ready() -> String {
        message("ready", json!({"version": crate::VERSION}))
    }

    /// Handles one request; returns the responses in order.
    pub fn handle(&mut self, text: &str) -> Vec<String> {
        let request: Request = match serde_json::from_str(text) {
            Ok(r) => r,
            Err(e) => return vec![error(format!("bad request: {e}"))],
        };
        match request {
            Request::Ping => vec![message("pong", json!({}))],
            Request::Start { id, max_turns, variant, limits, agent } => {
                self.start(&id, max_turns, variant, limits, agent)
            }
            Request::Submit { reply, latency_ms, tokens } => {
                self.feed(Ok(AgentReply { text: reply, latency_ms, tokens }))
            }
            Request::Fail { message, fatal } => {
                let e = if fatal { AgentError::fatal(message) } else { AgentError::retryable(message) };
                self.feed(Err(e))
            }
            Request::Stop { reason } => match self.episode.as_mut() {
                None => vec![error("no episode in progress")],
                Some((runner, _)) => {
                    runner.stop(reason.unwrap_or_else(|| "stopped by the user".into()));
                    vec![self.result()]
                }
            },
            Request::Check { id, answer, limits, agent } => vec![check(&id, &answer, limits, agent)],
            Request::Bench { tasks } => vec![bench(tasks)],
        }
    }

    fn start(
        &mut self,
        id: &str,
        max_turns: Option<u32>,
        variant: PromptVariant,
        limits: LimitOverrides,
        agent: Option<AgentInfo>,
    ) -> Vec<String> {
        let task = match task(id, limits) {
            Ok(t) => t,
            Err(e) => return vec![error(e)],
        };
        let runner = Runner::new(task, RunSettings { variant, max_turns });
        let card = runner.task().card().clone();
        let started = message(
            "started",
            json!({"id": card.id, "content_hash": card.content_hash, "prompt": runner.messages()[0].content,
                   "max_turns": max_turns.unwrap_or(card.max_turns), "question": card.question}),
        );
        self.episode = Some((runner, agent.unwrap_or_else(paste_agent)));
        vec![started]
    }

    fn feed(&mut self, reply: Result<AgentReply, AgentError>) -> Vec<String> {
        let Some((runner, _)) = self.episode.as_mut() else {
            return vec![error("no episode in progress: send start first")];
        };
        runner.submit(reply);
        let turn = runner.turns().last().cloned();
        let finished = runner.finished();
        let panels = runner.episode().panels();
        let mut out = vec![message(
            "turn",
            json!({"turn": to_json(&turn), "finished": to_json(&finished), "panels": to_json(&panels)}),
        )];
        if finished.is_some() {
            out.push(self.result());
        }
        out
    }

    fn result(&self) -> String {
        match &self.episode {
            None => error("no episode in progress"),
            Some((runner, agent)) => {
                let panels: Vec<Panel> = runner.episode().panels();
                message(
                    "result",
                    json!({"record": to_json(&runner.record(agent)), "panels": to_json(&panels)}),
                )
            }
        }
    }
}

/// One answer against one task: the result record, panels and the in-worker check time.
fn check(id: &str, answer: &str, limits: LimitOverrides, agent: Option<AgentInfo>) -> String {
    let task = match task(id, limits) {
        Ok(t) => t,
        Err(e) => return error(e),
    };
    let mut runner = Runner::new(task, RunSettings::default());
    let start = Instant::now();
    runner.submit(Ok(AgentReply { text: answer.to_string(), latency_ms: None, tokens: None }));
    let record = runner.record(&agent.unwrap_or_else(paste_agent));
    let check_ms = start.elapsed().as_secs_f64() * 1000.0;
    let panels = runner.episode().panels();
    message("checked", json!({"record": to_json(&record), "panels": to_json(&panels), "check_ms": check_ms}))
}

/// The benchmark workload on MALT, timed here (in the browser, inside the worker).
fn bench(tasks: usize) -> String {
    if tasks == 0 || tasks > 10_000 {
        return error(format!("bench: tasks must be 1..=10000, not {tasks}"));
    }
    let origin = Instant::now();
    let clock = move || origin.elapsed().as_secs_f64() * 1000.0;
    match crate::bench::run_app(&super::MALT, tasks, &clock) {
        Ok(b) => message("benched", json!({"bench": to_json(&b)})),
        Err(e) => error(format!("bench: {e}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> Value {
        serde_json::from_str(s).unwrap()
    }

    #[test]
    fn start_submit_result() {
        let mut w = Worker::default();
        let out = w.handle(r#"{"op":"start","id":"malt-v1-L1-s0-i4","max_turns":2}"#);
        let started = parse(&out[0]);
        assert_eq!(started["op"], "started");
        assert!(started["prompt"].as_str().unwrap().contains("Question: "));
        let out = w.handle(r#"{"op":"submit","reply":"no code"}"#);
        assert_eq!(out.len(), 1);
        assert_eq!(parse(&out[0])["finished"], Value::Null);
        let reply = "```python\\ndef process_graph(G):\\n    return {'type': 'text', 'data': 0}\\n```";
        let out = w.handle(&format!(r#"{{"op":"submit","reply":"{reply}","latency_ms":5}}"#));
        assert_eq!(out.len(), 2);
        let result = parse(&out[1]);
        assert_eq!(result["op"], "result");
        assert_eq!(result["record"]["turns"].as_array().unwrap().len(), 2);
        assert_eq!(result["record"]["finish"], "answered");
    }

    #[test]
    fn check_and_errors() {
        let mut w = Worker::default();
        let out = w.handle(
            r#"{"op":"check","id":"malt-v1-L1-s0-i4","answer":"def process_graph(G):\n    return 1"}"#,
        );
        let checked = parse(&out[0]);
        assert_eq!(checked["op"], "checked");
        assert_eq!(checked["record"]["score"]["correct"], false);
        assert!(checked["check_ms"].as_f64().unwrap() >= 0.0);
        assert_eq!(parse(&w.handle("{")[0])["op"], "error");
        assert_eq!(parse(&w.handle(r#"{"op":"submit","reply":"x"}"#)[0])["op"], "error");
        assert_eq!(
            parse(&w.handle(r#"{"op":"check","id":"route-v1-L1-s0-i0","answer":""}"#)[0])["op"],
            "error"
        );
        assert_eq!(parse(&w.handle(r#"{"op":"ping"}"#)[0])["op"], "pong");
    }

    #[test]
    fn bench_runs_the_library_workload() {
        let mut w = Worker::default();
        let benched = parse(&w.handle(r#"{"op":"bench","tasks":3}"#)[0]);
        assert_eq!(benched["op"], "benched");
        let b: crate::bench::AppBench = serde_json::from_value(benched["bench"].clone()).unwrap();
        assert_eq!((b.app.as_str(), b.tasks), ("malt", 3));
        let native = crate::bench::run_app(&crate::malt::MALT, 3, &|| 0.0).unwrap();
        assert_eq!(b.solved, native.solved);
        let stages: Vec<_> = b.stages.iter().map(|s| (s.stage.clone(), s.samples)).collect();
        let expected: Vec<_> = native.stages.iter().map(|s| (s.stage.clone(), s.samples)).collect();
        assert_eq!(stages, expected);
        assert_eq!(parse(&w.handle(r#"{"op":"bench","tasks":0}"#)[0])["op"], "error");
    }
}
