//! The sandbox worker's message protocol: JSON requests in, JSON responses out, one message
//! each, no I/O. This module doc is the protocol's one description.
//!
//! The browser's Web Worker (`src/bin/worker.rs`) feeds [`Worker::handle`] `postMessage`
//! strings; natively the same binary reads one request per line on stdin and writes each
//! response as a line, so the protocol is tested without a browser and a browser run can be
//! compared with a native one. The worker serves every application of its [`Registry`]: the
//! application is the first word of the task id (`malt-…`, `route-…`), the episode is the
//! library's [`Runner`], and the only application-specific input is the sandbox limits, which
//! reach the task through [`crate::app::App::generate_limited`] (applications without a
//! sandbox ignore them). The page links no engine, so every application's tasks open and run
//! here, each application in a worker bundle of its own (docs/bundles.md); a new application
//! runs in the worker with no change to it.
//!
//! # Requests, page → worker (tag `op`)
//! - `{"op":"start","id":ID,"max_turns":N?,"variant":V?,"limits":L?,"agent":A?}` builds the
//!   task of `ID` and starts an episode, replacing any earlier one (one episode per worker);
//!   `V` is a prompt variant (`zeroshot_base`, the default, `zeroshot_cot`, `fewshot_base`,
//!   `fewshot_cot`), `A` the agent of the record (`{"name":…,"model":…}`, default `paste`).
//!   → `started`.
//! - `{"op":"submit","reply":TEXT,"latency_ms":X?,"tokens":{"prompt":P,"completion":C}?}`
//!   feeds one agent reply. → `turn`, then `result` once the episode is over.
//! - `{"op":"fail","message":TEXT,"fatal":BOOL?}`: the agent call failed; it counts as a
//!   turn, and a fatal failure ends the episode. → `turn` (and `result` if it ended).
//! - `{"op":"stop","reason":TEXT?}` ends the episode early. → `result`.
//! - `{"op":"open","id":ID,"limits":L?}` builds the task of `ID` and describes it for display,
//!   independent of any episode in progress. → `opened`.
//! - `{"op":"compose","target":T?,"line":TEXT}` turns a typed command (for machine `T`, when
//!   the application has machines) into a reply in the application's format, for the
//!   episode in progress. → `composed`.
//! - `{"op":"baseline"}`: the application's built-in agent's next reply to the episode in
//!   progress (the agent is made at the first such request and keeps its state across the
//!   episode's turns); the page submits it like any reply. → `reply`.
//! - `{"op":"check","id":ID,"answer":TEXT,"limits":L?,"agent":A?,"variant":V?,"latency_ms":X?,
//!   "tokens":T?}`: one-shot, one answer as the only turn of a fresh episode (prompt variant `V`,
//!   the answer's latency and tokens as `submit`'s), independent of any episode in progress.
//!   → `checked`.
//! - `{"op":"replay","id":ID,"replies":[TURN,…],"max_turns":N?,"variant":V?,"limits":L?,
//!   "agent":A?}`: a fresh episode of `ID` (settings as `start`'s) fed `TURN`s in order, each
//!   an agent reply `{"text":TEXT,"latency_ms":X?,"tokens":T?}` or a failed call
//!   `{"fail":MESSAGE,"fatal":BOOL?}` ([`super::ReplayTurn`]), independent of any episode in
//!   progress. At least one turn, at most the turn limit, and none after the episode ended.
//!   Episodes are pure functions of the task and the turns, so the answer is the one a
//!   persistent episode fed the same turns one `submit` at a time would give; the environment
//!   server's sandbox processes serve this op, sent every turn of a session so far plus the
//!   new one at each step, so that they hold no episode between steps (docs/env.md says why).
//!   → `replayed`.
//! - `{"op":"bench","app":NAME,"tasks":N}`: the fixed seeded workload of
//!   [`crate::bench::run_app`] for application `NAME` (the same as
//!   `netpress bench --app NAME --tasks N`), timed inside the worker; N is 1..=10,000.
//!   → `benched`.
//! - `{"op":"space","app":NAME}`: application `NAME`'s adaptive-mode task space and its
//!   feasible cells ([`crate::adapt::SpaceSpec`]), for the search the page runs. → `space`.
//! - `{"op":"realise","app":NAME,"cells":[[INDEX,SEED],…]}`: the ids of cells (grid indexes)
//!   on seeds ([`crate::adapt::realise_all`]; `null` where the generator has no task). At most
//!   10,000 pairs. → `realised`.
//! - `{"op":"curriculum","state":STATE,"count":N,"variant":V?}`: the `rl` curriculum export
//!   of an adaptive search's state (the JSON text of `netpress adapt --state`), the lines
//!   `netpress adapt export --format rl` writes ([`crate::adapt::export`]); N is 1..=10,000.
//!   → `curriculum`.
//! - `{"op":"ping"}` → `pong`.
//!
//! `L`, the limit overrides, is `{"time_ms":T,"memory_mb":M,"host_calls":H,"recursion":R}`,
//! each optional ([`LimitOverrides`]; an unknown field is an error).
//!
//! # Responses, worker → page (tag `op`)
//! - `ready` `{version}`: the first message, sent once when the worker starts ([`Worker::ready`]).
//! - `started` `{id, content_hash, prompt, max_turns, question, targets, picture}`: the exact
//!   first message to send the agent, the turn limit in force, the task's question when it has
//!   one, the machines a typed command can address (empty when commands have no target), and
//!   the episode's own picture (`null` when the task's stands).
//! - `opened` `{view}`: a [`crate::task_view::TaskView`] (card, the four prompts, picture,
//!   answer kind, starters, the built-in agent's name).
//! - `composed` `{reply}`: the reply text of a `compose`.
//! - `reply` `{reply}`: the built-in agent's reply text of a `baseline`.
//! - `turn` `{turn, finished, stop_reason, panels, picture}`: the turn record, the finish
//!   (`null` while the episode goes on), why the episode stopped early (`null` unless it did,
//!   such as a fatal agent failure), the emulator's panels after the turn and its own picture
//!   (`null` when the task's picture stands).
//! - `result` `{record, panels}`: the result record of the finished episode.
//! - `checked` `{record, panels, check_ms}`: the record of a `check`, with `check_ms` the time
//!   of the run, diff and scoring measured inside the worker.
//! - `replayed` `{finished, record, check_ms}` ([`super::Replayed`]): the finish of a `replay`
//!   (`null` while the episode goes on) and the record of the episode as it stands (its turns,
//!   score and progress; its `finish` reads `stopped` until the episode ends), with `check_ms`
//!   the time of the whole replay inside the worker.
//! - `benched` `{bench}`: an [`crate::bench::AppBench`].
//! - `space` `{space}`: a [`crate::adapt::SpaceSpec`].
//! - `realised` `{ids}`: one id (or `null`) per pair asked for, in order.
//! - `curriculum` `{text}`: the export's bytes.
//! - `pong` `{}`.
//! - `error` `{message}`: a request that could not be read or served (malformed JSON, an
//!   unknown op or application, a bad id, `submit` with no episode). An `error` is always the
//!   only response to its request, and the episode in progress, if any, is left as it was.
//!
//! Every response also carries `memory_bytes`, the worker's linear memory (0 natively), so the
//! page can retire a worker that grew too large. Why there is a worker at all, and when the
//! page terminates and respawns one, is in docs/sandbox.md.

use std::sync::Arc;

#[cfg(not(target_arch = "wasm32"))]
use std::time::Instant;
#[cfg(target_arch = "wasm32")]
use web_time::Instant;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::app::{App, PromptVariant, Task};
use crate::conversation::{Agent, AgentError, AgentInfo, AgentReply, Tokens};
use crate::id::QueryId;
use crate::registry::Registry;
use crate::run::{RunSettings, Runner};

use super::{LimitOverrides, ReplayTurn, Replayed};

/// The most tasks a `bench` request may ask for.
pub const MAX_BENCH_TASKS: usize = 10_000;

/// A request from the page (see the module doc for each op).
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
    Open {
        id: String,
        #[serde(default)]
        limits: LimitOverrides,
    },
    Compose {
        #[serde(default)]
        target: Option<String>,
        line: String,
    },
    Baseline,
    Check {
        id: String,
        answer: String,
        #[serde(default)]
        limits: LimitOverrides,
        #[serde(default)]
        agent: Option<AgentInfo>,
        #[serde(default)]
        variant: PromptVariant,
        #[serde(default)]
        latency_ms: Option<f64>,
        #[serde(default)]
        tokens: Option<Tokens>,
    },
    Replay {
        id: String,
        replies: Vec<ReplayTurn>,
        #[serde(default)]
        max_turns: Option<u32>,
        #[serde(default)]
        variant: PromptVariant,
        #[serde(default)]
        limits: LimitOverrides,
        #[serde(default)]
        agent: Option<AgentInfo>,
    },
    Bench {
        /// Optional here so that a request without it gets a message naming the field and
        /// the known applications rather than serde's bare "missing field".
        #[serde(default)]
        app: Option<String>,
        tasks: usize,
    },
    Space {
        app: String,
    },
    Realise {
        app: String,
        cells: Vec<(u64, u64)>,
    },
    Curriculum {
        state: String,
        count: usize,
        #[serde(default)]
        variant: PromptVariant,
    },
    Ping,
}

/// The most pairs a `realise` request may ask for (and tasks a `curriculum` request).
pub const MAX_REALISE: usize = 10_000;

/// The command an `rl` line of the Adapt view's curriculum names (the CLI's names its own
/// command line).
pub const CURRICULUM_COMMAND: &str = "netpress web: Adapt view, curriculum (rl)";

/// The worker's state: the applications it serves and at most one episode in progress.
pub struct Worker {
    registry: &'static Registry,
    episode: Option<Live>,
}

/// The episode in progress.
struct Live {
    runner: Runner,
    /// The agent its record names.
    agent: AgentInfo,
    app: &'static dyn App,
    /// The application's built-in agent, once a `baseline` request asked for it.
    baseline: Option<Box<dyn Agent>>,
}

impl Default for Worker {
    /// A worker over the shipped applications.
    fn default() -> Self {
        Worker::new(Registry::standard())
    }
}

fn paste_agent() -> AgentInfo {
    AgentInfo::new("paste", "pasted answer")
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
    /// A worker serving the applications of `registry`.
    pub fn new(registry: &'static Registry) -> Worker {
        Worker { registry, episode: None }
    }

    /// The first message a worker sends.
    pub fn ready() -> String {
        message("ready", json!({"version": crate::VERSION}))
    }

    /// Handles one request; returns the responses in order (never none).
    pub fn handle(&mut self, text: &str) -> Vec<String> {
        let request: Request = match serde_json::from_str(text) {
            Ok(r) => r,
            Err(e) => return vec![error(format!("bad request: {e}"))],
        };
        match request {
            Request::Ping => vec![message("pong", json!({}))],
            Request::Start { id, max_turns, variant, limits, agent } => {
                vec![self.start(&id, RunSettings { variant, max_turns }, limits, agent)]
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
                Some(live) => {
                    live.runner.stop(reason.unwrap_or_else(|| "stopped by the user".into()));
                    vec![self.result()]
                }
            },
            Request::Open { id, limits } => vec![self.open(&id, limits)],
            Request::Compose { target, line } => vec![self.compose(target.as_deref(), &line)],
            Request::Baseline => vec![self.baseline()],
            Request::Check { id, answer, limits, agent, variant, latency_ms, tokens } => {
                let answer = AgentReply { text: answer, latency_ms, tokens };
                vec![self.check(&id, answer, limits, agent, variant)]
            }
            Request::Replay { id, replies, max_turns, variant, limits, agent } => {
                vec![self.replay(&id, replies, RunSettings { variant, max_turns }, limits, agent)]
            }
            Request::Bench { app, tasks } => vec![self.bench(app.as_deref(), tasks)],
            Request::Space { app } => vec![self.space(&app)],
            Request::Realise { app, cells } => vec![self.realise(&app, &cells)],
            Request::Curriculum { state, count, variant } => vec![self.curriculum(&state, count, variant)],
        }
    }

    /// The task `id` names and its application, with the request's limits.
    fn task(&self, id: &str, limits: LimitOverrides) -> Result<(Arc<dyn Task>, &'static dyn App), String> {
        let id: QueryId = id.parse().map_err(|e: crate::Error| e.to_string())?;
        let app = self.registry.app(&id.app).map_err(|e| e.to_string())?;
        Ok((app.generate_limited(&id, &limits.over(app.limits())).map_err(|e| e.to_string())?, app))
    }

    fn open(&self, id: &str, limits: LimitOverrides) -> String {
        match self.task(id, limits) {
            Ok((task, app)) => {
                let view = crate::task_view::TaskView::of(&*task, app.baseline().info());
                message("opened", json!({"view": to_json(&view)}))
            }
            Err(e) => error(e),
        }
    }

    fn compose(&self, target: Option<&str>, line: &str) -> String {
        match &self.episode {
            None => error("no episode in progress: send start first"),
            Some(live) => message("composed", json!({"reply": live.runner.episode().compose(target, line)})),
        }
    }

    fn baseline(&mut self) -> String {
        let Some(live) = self.episode.as_mut() else {
            return error("no episode in progress: send start first");
        };
        let agent = live.baseline.get_or_insert_with(|| live.app.baseline());
        match agent.reply(live.runner.messages()) {
            Ok(r) => message("reply", json!({"reply": r.text})),
            Err(e) => error(format!("the built-in agent failed: {}", e.message)),
        }
    }

    fn start(
        &mut self,
        id: &str,
        settings: RunSettings,
        limits: LimitOverrides,
        agent: Option<AgentInfo>,
    ) -> String {
        let (task, app) = match self.task(id, limits) {
            Ok(t) => t,
            Err(e) => return error(e),
        };
        let runner = Runner::new(task, settings);
        let card = runner.task().card();
        let prompt = runner.messages().first().map(|m| m.content.clone()).unwrap_or_default();
        let started = message(
            "started",
            json!({"id": card.id, "content_hash": card.content_hash, "prompt": prompt,
                   "max_turns": settings.max_turns.unwrap_or(card.max_turns), "question": card.question,
                   "targets": runner.episode().targets(), "picture": to_json(&runner.episode().picture())}),
        );
        let agent = agent.unwrap_or_else(paste_agent);
        self.episode = Some(Live { runner, agent, app, baseline: None });
        started
    }

    fn feed(&mut self, reply: Result<AgentReply, AgentError>) -> Vec<String> {
        let Some(Live { runner, .. }) = self.episode.as_mut() else {
            return vec![error("no episode in progress: send start first")];
        };
        runner.submit(reply);
        let turn = runner.turns().last();
        let finished = runner.finished();
        let panels = runner.episode().panels();
        let picture = runner.episode().picture();
        let mut out = vec![message(
            "turn",
            json!({"turn": to_json(&turn), "finished": to_json(&finished),
                   "stop_reason": runner.stop_reason(), "panels": to_json(&panels),
                   "picture": to_json(&picture)}),
        )];
        if finished.is_some() {
            out.push(self.result());
        }
        out
    }

    fn result(&self) -> String {
        match &self.episode {
            None => error("no episode in progress"),
            Some(Live { runner, agent, .. }) => message(
                "result",
                json!({"record": to_json(&runner.record(agent)), "panels": to_json(&runner.episode().panels())}),
            ),
        }
    }

    /// One answer against one task: the result record, panels and the in-worker check time.
    fn check(
        &self,
        id: &str,
        answer: AgentReply,
        limits: LimitOverrides,
        agent: Option<AgentInfo>,
        variant: PromptVariant,
    ) -> String {
        let task = match self.task(id, limits) {
            Ok((t, _)) => t,
            Err(e) => return error(e),
        };
        let mut runner = Runner::new(task, RunSettings { variant, max_turns: None });
        let start = Instant::now();
        runner.submit(Ok(answer));
        let record = runner.record(&agent.unwrap_or_else(paste_agent));
        let check_ms = start.elapsed().as_secs_f64() * 1000.0;
        let panels = runner.episode().panels();
        message(
            "checked",
            json!({"record": to_json(&record), "panels": to_json(&panels), "check_ms": check_ms}),
        )
    }

    /// A fresh episode fed `replies` in order: its finish and its record as it stands.
    fn replay(
        &self,
        id: &str,
        replies: Vec<ReplayTurn>,
        settings: RunSettings,
        limits: LimitOverrides,
        agent: Option<AgentInfo>,
    ) -> String {
        let task = match self.task(id, limits) {
            Ok((t, _)) => t,
            Err(e) => return error(e),
        };
        let mut runner = Runner::new(task, settings);
        if replies.is_empty() || replies.len() > runner.max_turns() as usize {
            let most = runner.max_turns();
            return error(format!("replay: 1 to {most} turns (the turn limit), not {}", replies.len()));
        }
        let start = Instant::now();
        for (n, turn) in replies.into_iter().enumerate() {
            if runner.finished().is_some() {
                return error(format!("replay: the episode ended after turn {n}; no turn may follow"));
            }
            match turn.into_turn() {
                Ok(turn) => runner.submit(turn),
                Err(e) => return error(format!("replay: turn {}: {e}", n + 1)),
            }
        }
        let replayed = Replayed {
            finished: runner.finished(),
            record: runner.record(&agent.unwrap_or_else(paste_agent)),
        };
        let check_ms = start.elapsed().as_secs_f64() * 1000.0;
        let mut body = to_json(&replayed);
        body["check_ms"] = json!(check_ms);
        message("replayed", body)
    }

    /// The benchmark workload of one application, timed here (in the browser, in the worker).
    fn bench(&self, app: Option<&str>, tasks: usize) -> String {
        let Some(name) = app else {
            let known: Vec<&str> = self.registry.apps().iter().map(|a| a.info().name).collect();
            return error(format!(
                "bench: name the application, e.g. {{\"op\":\"bench\",\"app\":\"{}\",\"tasks\":{tasks}}} (known: {})",
                known.first().copied().unwrap_or("malt"),
                known.join(", ")
            ));
        };
        let app = match self.registry.app(name) {
            Ok(a) => a,
            Err(e) => return error(format!("bench: {e}")),
        };
        if tasks == 0 || tasks > MAX_BENCH_TASKS {
            return error(format!("bench: tasks must be 1..={MAX_BENCH_TASKS}, not {tasks}"));
        }
        let origin = Instant::now();
        let clock = move || origin.elapsed().as_secs_f64() * 1000.0;
        match crate::bench::run_app(app, tasks, &clock) {
            Ok(b) => message("benched", json!({"bench": to_json(&b)})),
            Err(e) => error(format!("bench: {e}")),
        }
    }
}

impl Worker {
    /// An application's adaptive-mode space, for the page's search.
    fn space(&self, app: &str) -> String {
        match self.registry.app(app) {
            Ok(a) => message("space", json!({"space": to_json(&crate::adapt::SpaceSpec::of(a))})),
            Err(e) => error(format!("space: {e}")),
        }
    }

    /// The `rl` curriculum of a state, for the page's download: the tasks are generated here.
    fn curriculum(&self, state: &str, count: usize, variant: PromptVariant) -> String {
        use crate::adapt::{ExportFormat, RlLines, Search, State};
        if !(1..=MAX_REALISE).contains(&count) {
            return error(format!("curriculum: count must be 1..={MAX_REALISE}, not {count}"));
        }
        let rl = RlLines { variant, command: CURRICULUM_COMMAND };
        let text = State::parse(state).and_then(|s| {
            let app = self.registry.app(&s.app)?;
            crate::adapt::export(&Search::from_state(app, s)?, ExportFormat::Rl, count, rl)
        });
        match text {
            Ok(text) => message("curriculum", json!({"text": text})),
            Err(e) => error(format!("curriculum: {e}")),
        }
    }

    /// The ids of cells on seeds, for the page's search.
    fn realise(&self, app: &str, cells: &[(u64, u64)]) -> String {
        if cells.len() > MAX_REALISE {
            return error(format!("realise: at most {MAX_REALISE} cells, not {}", cells.len()));
        }
        match self.registry.app(app).and_then(|a| crate::adapt::realise_all(a, cells)) {
            Ok(ids) => message("realised", json!({"ids": ids})),
            Err(e) => error(format!("realise: {e}")),
        }
    }
}

#[cfg(test)]
mod tests;
