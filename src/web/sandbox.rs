//! Episodes as the page drives them: one async handle for every application.
//!
//! Applications whose episodes run untrusted code (`AppInfo::sandboxed`, MALT's Python) are
//! built into the page without the sandbox, so their episodes run in the sandbox Web Worker, a
//! wasm bundle of its own that the page loads the first time such an episode starts. Every
//! other application's episode runs here, in a library [`Runner`]. Views do not care which:
//! they hold an [`EpisodeHandle`] and await its methods, which all return a [`Snapshot`] of the
//! conversation and emulator state.
//!
//! ## Worker protocol (JSON text over `postMessage`, one reply per request, in order)
//!
//! Requests carry `seq` (echoed in the reply) and `episode` (the page's number for one
//! episode; the worker keeps a `Runner` per number):
//!
//! | request `op` | fields | reply |
//! |---|---|---|
//! | `start` | `id` (query id), `settings` (`RunSettings`) | `{"snapshot": Snapshot}` |
//! | `submit` | `reply`: `{"Ok": AgentReply}` or `{"Err": AgentError}` | `{"snapshot": …}` |
//! | `compose` | `target` (string or null), `line` | `{"composed": "…"}` |
//! | `stop` | `reason` | `{"snapshot": …}` |
//! | `record` | `agent` (`AgentInfo`) | `{"record": ResultRecord}` |
//! | `drop` | | `{"dropped": true}` |
//!
//! Any request may instead get `{"seq": n, "error": "…"}`. A watchdog terminates a worker
//! that stays silent past a request's deadline (the sandbox's own 2 s limit plus 3 s for a
//! step) or that crashes; the episodes it held are rebuilt in a fresh worker by replaying
//! their earlier replies (episodes are deterministic) and stopped with the reason, so the
//! user still gets a scored record of what happened.

use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::rc::Rc;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

use crate::agent::{AgentError, AgentInfo, AgentReply, Message, RunSettings, Runner};
use crate::app::{Finish, Task};
use crate::record::{ResultRecord, TurnRecord};
use crate::view::{Panel, Picture};

/// The worker script Trunk emits for the `netpress-worker` binary (`data-loader-shim`).
const WORKER_URL: &str = "./netpress-worker_loader.js";

/// Deadline for building a task in the worker (large topologies take a moment).
const START_DEADLINE_MS: u32 = 30_000;

/// Deadline for one step: the sandbox's 2 s wall-time limit plus 3 s (malt.md §5).
const STEP_DEADLINE_MS: u32 = 5_000;

/// The state of an episode after a call: what views draw and what agents read.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Snapshot {
    pub turns: Vec<TurnRecord>,
    pub finished: Option<Finish>,
    #[serde(default)]
    pub stop_reason: Option<String>,
    #[serde(default)]
    pub panels: Vec<Panel>,
    #[serde(default)]
    pub picture: Option<Picture>,
    #[serde(default)]
    pub targets: Vec<String>,
    /// The conversation to send next (chat endpoints).
    #[serde(default)]
    pub messages: Vec<Message>,
    /// The same conversation as one text (A2A agents).
    #[serde(default)]
    pub transcript: String,
}

impl Snapshot {
    /// The snapshot of a runner; also what the worker computes on its side.
    pub fn of(runner: &Runner) -> Self {
        let episode = runner.episode();
        Snapshot {
            turns: runner.turns().to_vec(),
            finished: runner.finished(),
            stop_reason: runner.stop_reason().map(str::to_string),
            panels: episode.panels(),
            picture: episode.picture(),
            targets: episode.targets(),
            messages: runner.messages().to_vec(),
            transcript: runner.transcript(),
        }
    }
}

/// A live episode, local or in the sandbox worker. Cheap to clone (shared).
#[derive(Clone)]
pub struct EpisodeHandle(Rc<Backend>);

enum Backend {
    Local(RefCell<Runner>),
    Worker(WorkerEpisode),
}

impl PartialEq for EpisodeHandle {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }
}

impl EpisodeHandle {
    /// Starts an episode of `task`: in the worker if its application is sandboxed.
    pub async fn start(task: Arc<dyn Task>, settings: RunSettings) -> Result<(Self, Snapshot), String> {
        let app = crate::registry::app(&task.card().app).map_err(|e| e.to_string())?;
        if app.info().sandboxed {
            let episode = WorkerEpisode::start(task.card().id.clone(), settings).await?;
            let snapshot = episode.snapshot.borrow().clone();
            Ok((EpisodeHandle(Rc::new(Backend::Worker(episode))), snapshot))
        } else {
            let runner = Runner::new(task, settings);
            let snapshot = Snapshot::of(&runner);
            Ok((EpisodeHandle(Rc::new(Backend::Local(RefCell::new(runner)))), snapshot))
        }
    }

    /// Feeds one reply (or failed call) to the episode.
    pub async fn submit(&self, reply: Result<AgentReply, AgentError>) -> Result<Snapshot, String> {
        match &*self.0 {
            Backend::Local(runner) => {
                runner.borrow_mut().submit(reply);
                Ok(Snapshot::of(&runner.borrow()))
            }
            Backend::Worker(w) => w.submit(reply).await,
        }
    }

    /// Turns a typed command into a reply in the application's format.
    pub async fn compose(&self, target: Option<String>, line: String) -> Result<String, String> {
        match &*self.0 {
            Backend::Local(runner) => Ok(runner.borrow().episode().compose(target.as_deref(), &line)),
            Backend::Worker(w) => w.compose(target, line).await,
        }
    }

    /// Ends the episode early with a reason.
    pub async fn stop(&self, reason: &str) -> Result<Snapshot, String> {
        match &*self.0 {
            Backend::Local(runner) => {
                runner.borrow_mut().stop(reason);
                Ok(Snapshot::of(&runner.borrow()))
            }
            Backend::Worker(w) => w.stop(reason).await,
        }
    }

    /// The result record as the episode stands.
    pub async fn record(&self, agent: &AgentInfo) -> Result<ResultRecord, String> {
        match &*self.0 {
            Backend::Local(runner) => Ok(runner.borrow().record(agent)),
            Backend::Worker(w) => w.record(agent).await,
        }
    }
}

/// An episode held by the worker, with what the page needs to rebuild it after a restart.
struct WorkerEpisode {
    number: u32,
    id: String,
    settings: RunSettings,
    /// Every reply submitted so far, for replay into a fresh worker.
    replies: RefCell<Vec<Result<AgentReply, AgentError>>>,
    snapshot: RefCell<Snapshot>,
}

impl Drop for WorkerEpisode {
    fn drop(&mut self) {
        let number = self.number;
        let held =
            SANDBOX.with(|s| s.borrow().as_ref().is_some_and(|s| s.episodes.borrow().contains(&number)));
        if !held {
            return;
        }
        wasm_bindgen_futures::spawn_local(async move {
            let _ = call(number, "drop", json!({}), STEP_DEADLINE_MS).await;
        });
    }
}

impl WorkerEpisode {
    async fn start(id: String, settings: RunSettings) -> Result<Self, String> {
        let number = NEXT_EPISODE.with(|n| n.replace(n.get() + 1));
        let reply =
            call(number, "start", json!({ "id": id, "settings": settings }), START_DEADLINE_MS).await?;
        let snapshot = field(reply, "snapshot")?;
        Ok(WorkerEpisode {
            number,
            id,
            settings,
            replies: RefCell::default(),
            snapshot: RefCell::new(snapshot),
        })
    }

    async fn submit(&self, reply: Result<AgentReply, AgentError>) -> Result<Snapshot, String> {
        self.replies.borrow_mut().push(reply.clone());
        let fields = json!({ "reply": reply });
        match call(self.number, "submit", fields, STEP_DEADLINE_MS).await {
            Ok(answer) => self.keep(field(answer, "snapshot")?),
            Err(CallError::Lost(reason)) => {
                // The reply that hung the sandbox must not run again.
                self.replies.borrow_mut().pop();
                self.rebuild(&reason).await
            }
            Err(e) => Err(e.into()),
        }
    }

    async fn compose(&self, target: Option<String>, line: String) -> Result<String, String> {
        let answer = self.call_rebuilding("compose", json!({ "target": target, "line": line })).await?;
        field(answer, "composed")
    }

    async fn stop(&self, reason: &str) -> Result<Snapshot, String> {
        let answer = self.call_rebuilding("stop", json!({ "reason": reason })).await?;
        self.keep(field(answer, "snapshot")?)
    }

    async fn record(&self, agent: &AgentInfo) -> Result<ResultRecord, String> {
        let answer = self.call_rebuilding("record", json!({ "agent": agent })).await?;
        field(answer, "record")
    }

    fn keep(&self, snapshot: Snapshot) -> Result<Snapshot, String> {
        *self.snapshot.borrow_mut() = snapshot.clone();
        Ok(snapshot)
    }

    /// A call that, if the worker was lost meanwhile, first rebuilds the episode.
    async fn call_rebuilding(&self, op: &str, fields: Value) -> Result<Value, String> {
        match call(self.number, op, fields.clone(), STEP_DEADLINE_MS).await {
            Err(CallError::Lost(reason)) | Err(CallError::Unknown(reason)) => {
                self.rebuild(&reason).await?;
                call(self.number, op, fields, STEP_DEADLINE_MS).await.map_err(String::from)
            }
            other => other.map_err(String::from),
        }
    }

    /// Re-creates the episode in a fresh worker from its earlier replies and stops it with
    /// the reason it was lost.
    async fn rebuild(&self, reason: &str) -> Result<Snapshot, String> {
        let fields = json!({ "id": self.id, "settings": self.settings });
        call(self.number, "start", fields, START_DEADLINE_MS).await?;
        let replies = self.replies.borrow().clone();
        for reply in replies {
            call(self.number, "submit", json!({ "reply": reply }), STEP_DEADLINE_MS).await?;
        }
        let answer = call(self.number, "stop", json!({ "reason": reason }), STEP_DEADLINE_MS).await?;
        self.keep(field(answer, "snapshot")?)
    }
}

/// Why a worker call failed.
enum CallError {
    /// The worker was terminated or crashed during the call.
    Lost(String),
    /// The worker does not know the episode (it was restarted for another episode).
    Unknown(String),
    /// The worker answered with an error, or could not be started.
    Failed(String),
}

impl From<CallError> for String {
    fn from(e: CallError) -> String {
        match e {
            CallError::Lost(m) | CallError::Unknown(m) | CallError::Failed(m) => m,
        }
    }
}

fn field<T: serde::de::DeserializeOwned>(mut answer: Value, key: &str) -> Result<T, String> {
    serde_json::from_value(answer[key].take()).map_err(|e| format!("the sandbox sent a bad {key}: {e}"))
}

thread_local! {
    static SANDBOX: RefCell<Option<Rc<Sandbox>>> = const { RefCell::new(None) };
    static NEXT_EPISODE: Cell<u32> = const { Cell::new(1) };
}

/// The running worker, its pending calls and its event handlers.
struct Sandbox {
    worker: web_sys::Worker,
    next_seq: Cell<u32>,
    pending: RefCell<BTreeMap<u32, (js_sys::Function, js_sys::Function)>>,
    /// Episode numbers started in this worker (others must be rebuilt).
    episodes: RefCell<Vec<u32>>,
    _on_message: Closure<dyn FnMut(web_sys::MessageEvent)>,
    _on_error: Closure<dyn FnMut(web_sys::Event)>,
}

impl Sandbox {
    /// The worker, spawning it on first use.
    fn get() -> Result<Rc<Sandbox>, String> {
        if let Some(s) = SANDBOX.with(|s| s.borrow().clone()) {
            return Ok(s);
        }
        let worker =
            web_sys::Worker::new(WORKER_URL).map_err(|_| "could not start the sandbox worker".to_string())?;
        let on_message = Closure::<dyn FnMut(web_sys::MessageEvent)>::new(|e: web_sys::MessageEvent| {
            if let Some(s) = SANDBOX.with(|s| s.borrow().clone()) {
                s.answer(e.data().as_string().unwrap_or_default());
            }
        });
        let on_error = Closure::<dyn FnMut(web_sys::Event)>::new(|_| {
            Sandbox::kill("sandbox crashed (memory)");
        });
        worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
        let sandbox = Rc::new(Sandbox {
            worker,
            next_seq: Cell::new(1),
            pending: RefCell::default(),
            episodes: RefCell::default(),
            _on_message: on_message,
            _on_error: on_error,
        });
        SANDBOX.with(|s| *s.borrow_mut() = Some(sandbox.clone()));
        Ok(sandbox)
    }

    fn answer(&self, text: String) {
        let seq = serde_json::from_str::<Value>(&text).ok().and_then(|v| v["seq"].as_u64());
        let waiting = seq.and_then(|seq| self.pending.borrow_mut().remove(&(seq as u32)));
        if let Some((resolve, _)) = waiting {
            let _ = resolve.call1(&JsValue::NULL, &JsValue::from_str(&text));
        }
    }

    /// Terminates the worker and fails every pending call with `reason`.
    fn kill(reason: &str) {
        let Some(sandbox) = SANDBOX.with(|s| s.borrow_mut().take()) else { return };
        sandbox.worker.terminate();
        for (_, (_, reject)) in std::mem::take(&mut *sandbox.pending.borrow_mut()) {
            let _ = reject.call1(&JsValue::NULL, &JsValue::from_str(reason));
        }
    }
}

/// Sends one request for `episode` and awaits its reply within `deadline_ms`.
async fn call(episode: u32, op: &str, mut fields: Value, deadline_ms: u32) -> Result<Value, CallError> {
    let sandbox = Sandbox::get().map_err(CallError::Failed)?;
    if op != "start" && !sandbox.episodes.borrow().contains(&episode) {
        return Err(CallError::Unknown("the sandbox was restarted".into()));
    }
    let seq = sandbox.next_seq.replace(sandbox.next_seq.get() + 1);
    fields["seq"] = seq.into();
    fields["episode"] = episode.into();
    fields["op"] = op.into();
    let promise = js_sys::Promise::new(&mut |resolve, reject| {
        sandbox.pending.borrow_mut().insert(seq, (resolve, reject));
    });
    sandbox
        .worker
        .post_message(&JsValue::from_str(&fields.to_string()))
        .map_err(|_| CallError::Failed("could not reach the sandbox worker".into()))?;
    let watchdog = gloo::timers::callback::Timeout::new(deadline_ms, move || {
        let still_waiting = SANDBOX
            .with(|s| s.borrow().as_ref().map(|s| s.pending.borrow().contains_key(&seq)))
            .unwrap_or(false);
        if still_waiting {
            Sandbox::kill("TimeoutError: sandbox terminated");
        }
    });
    let result = JsFuture::from(promise).await;
    drop(watchdog);
    let text = result.map_err(|e| CallError::Lost(e.as_string().unwrap_or_else(|| "sandbox lost".into())))?;
    let answer: Value = serde_json::from_str(&text.as_string().unwrap_or_default())
        .map_err(|_| CallError::Failed("the sandbox sent an unreadable reply".into()))?;
    if let Some(error) = answer["error"].as_str() {
        return Err(CallError::Failed(error.to_string()));
    }
    let mut episodes = sandbox.episodes.borrow_mut();
    match op {
        "start" if !episodes.contains(&episode) => episodes.push(episode),
        "drop" => episodes.retain(|e| *e != episode),
        _ => {}
    }
    Ok(answer)
}
