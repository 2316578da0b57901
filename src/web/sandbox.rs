//! Tasks and episodes as the page drives them: one async handle for every application.
//!
//! The page links no application engine (docs/bundles.md). Each application's engine is a
//! worker bundle of its own (`netpress-worker-<app>`), which the page loads the first time one
//! of its tasks opens: [`Opened::open`] asks it for the task's [`TaskView`] (card, prompts,
//! picture, starters), and [`EpisodeHandle::start`] runs an episode there. Views do not care
//! where an engine runs: they hold an [`Opened`] task and an [`EpisodeHandle`] and await its
//! methods, which return a [`Snapshot`] of the conversation and emulator state. Only a browser
//! test that links engines itself makes a task in the page's thread ([`Opened::local`]), to
//! drive the same handle, agents and batch loops the page ships.
//!
//! The worker speaks the protocol of [`crate::sandbox::worker`] (JSON text both ways, one
//! episode per worker). Workers are pooled per application ([`Workers`], held in Yew context
//! by a [`WorkersProvider`] above every view): an episode borrows one and returns it when
//! dropped, so a batch reuses one worker while the task view can hold another.
//!
//! A watchdog terminates a worker silent past a request's deadline (the sandbox's 2 s limit
//! plus 3 s for a step), or one that crashed (a trap at the memory ceiling). The episode is
//! then rebuilt in a fresh worker by replaying its earlier replies (episodes are
//! deterministic) and ended with the reason as a failed turn, so the user still gets a scored
//! record. A worker whose linear memory passed 1 GiB is not reused.

use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::rc::{Rc, Weak};
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use yew::prelude::*;

use crate::agent::{AgentError, AgentInfo, AgentReply, Message};
use crate::app::{Finish, Task};
use crate::record::{ResultRecord, TurnRecord};
use crate::run::{RunSettings, Runner};
use crate::task_view::TaskView;
use crate::view::{Panel, Picture};

/// The entry script of the worker bundles (www/netpress-worker_loader.js, copied by Trunk),
/// relative to the page so the site works from any path. The worker's name is the application
/// whose bundle it loads: one exact URL for every application, which the offline service
/// worker serves from its cache (a query string would be lost there, docs/bundles.md).
const WORKER_URL: &str = "./netpress-worker_loader.js";

/// Deadline for a fresh worker to load and for a task to be built (large topologies).
const START_DEADLINE_MS: u32 = 30_000;

/// Deadline for one step: the sandbox's 2 s wall-time limit, plus 3 s for what surrounds the
/// run (building the working graph, the diff, the score, the message) on a slow machine. A
/// worker silent past it is stuck in one call the time limit cannot reach (docs/sandbox.md).
const STEP_DEADLINE_MS: u32 = 5_000;

/// Deadline for one step of an application without a sandbox (Route, K8s, BGP): its engine
/// runs no agent code, so only a bug could keep it silent, and a tight watchdog would only
/// misfire on a loaded machine, ending an episode with a failed turn that a native run of the
/// same task never has (an adaptive search in the page would then part from the CLI's).
const ENGINE_STEP_DEADLINE_MS: u32 = 60_000;

/// A worker past this much linear memory is not reused: wasm memory never shrinks, so a
/// worker that once grew near the 4 GiB ceiling would fail the next large answer
/// (docs/sandbox.md, "Respawning").
const RETIRE_BYTES: u64 = 1 << 30;

/// The state of an episode after a call: what views draw and what agents read.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Snapshot {
    pub turns: Vec<TurnRecord>,
    pub finished: Option<Finish>,
    /// Why the page stopped the episode, when it did.
    pub stop_reason: Option<String>,
    pub panels: Vec<Panel>,
    pub picture: Option<Picture>,
    pub targets: Vec<String>,
    /// The conversation to send next (endpoint clients turn it into their protocol's form).
    pub messages: Vec<Message>,
}

impl Snapshot {
    fn of(runner: &Runner) -> Self {
        let episode = runner.episode();
        Snapshot {
            turns: runner.turns().to_vec(),
            finished: runner.finished(),
            stop_reason: runner.stop_reason().map(str::to_string),
            panels: episode.panels(),
            picture: episode.picture(),
            targets: episode.targets(),
            messages: runner.messages().to_vec(),
        }
    }
}

/// A task the page opened: what it shows, and where its episodes run. Cheap to clone; equal
/// when it is the same opening.
#[derive(Clone)]
pub struct Opened {
    pub view: Rc<TaskView>,
    engine: Engine,
}

#[derive(Clone)]
enum Engine {
    /// The application's worker bundle (the page, which links no engine).
    Worker,
    /// The page's own thread: a task a browser test generated with an engine it links.
    Local(Arc<dyn Task>),
}

impl PartialEq for Opened {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.view, &other.view)
    }
}

impl Opened {
    /// Opens the task `id` in its application's worker (loaded on first use).
    pub async fn open(workers: &Workers, id: &str) -> Result<Opened, String> {
        let app = app_of(id)?;
        let worker = workers.take(&app).await?;
        let answer = worker.call(&json!({"op": "open", "id": id}), START_DEADLINE_MS).await;
        workers.give_back(worker);
        let opened = expect(answer?, "opened")?;
        let view: TaskView = from(&opened["view"])?;
        Ok(Opened { view: Rc::new(view), engine: Engine::Worker })
    }

    /// A task generated in the page's thread, whose application's built-in agent is
    /// `baseline` (for browser tests, which link the engines they test).
    pub fn local(task: Arc<dyn Task>, baseline: AgentInfo) -> Opened {
        Opened { view: Rc::new(TaskView::of(&*task, baseline)), engine: Engine::Local(task) }
    }
}

/// The application an id names (its first word), known to the page's catalog.
fn app_of(id: &str) -> Result<String, String> {
    let app = id.split('-').next().unwrap_or_default();
    crate::registry::info(app).map(|info| info.name.to_string()).map_err(|e| e.to_string())
}

/// A live episode, local or in a worker. Cheap to clone (shared).
#[derive(Clone)]
pub struct EpisodeHandle(Rc<Backend>);

enum Backend {
    Local(RefCell<Runner>, AgentInfo),
    Worker(Box<WorkerEpisode>),
}

impl PartialEq for EpisodeHandle {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }
}

impl EpisodeHandle {
    /// Starts an episode of `task` played by `agent`, where the task's engine runs.
    pub async fn start(
        workers: &Workers,
        task: &Opened,
        settings: RunSettings,
        agent: AgentInfo,
    ) -> Result<(Self, Snapshot), String> {
        match &task.engine {
            Engine::Worker => Self::start_in_worker(workers, &task.view.card.id, settings, agent).await,
            Engine::Local(task) => Ok(Self::start_local(task.clone(), settings, agent)),
        }
    }

    /// Starts an episode of the task `id` in its application's worker, without opening the
    /// task first (a batch needs no view of its tasks).
    pub async fn start_in_worker(
        workers: &Workers,
        id: &str,
        settings: RunSettings,
        agent: AgentInfo,
    ) -> Result<(Self, Snapshot), String> {
        let episode = WorkerEpisode::start(workers.clone(), id, settings, agent).await?;
        let snapshot = episode.state.borrow().clone();
        Ok((EpisodeHandle(Rc::new(Backend::Worker(Box::new(episode)))), snapshot))
    }

    /// Starts an episode of a task generated in the page's thread (browser tests).
    pub fn start_local(task: Arc<dyn Task>, settings: RunSettings, agent: AgentInfo) -> (Self, Snapshot) {
        let runner = Runner::new(task, settings);
        let snapshot = Snapshot::of(&runner);
        (EpisodeHandle(Rc::new(Backend::Local(RefCell::new(runner), agent))), snapshot)
    }

    /// Feeds one reply (or failed call) to the episode.
    pub async fn submit(&self, reply: Result<AgentReply, AgentError>) -> Result<Snapshot, String> {
        match &*self.0 {
            Backend::Local(runner, _) => {
                runner.borrow_mut().submit(reply);
                Ok(Snapshot::of(&runner.borrow()))
            }
            Backend::Worker(w) => w.submit(reply).await,
        }
    }

    /// Turns a typed command into a reply in the application's format.
    pub async fn compose(&self, target: Option<&str>, line: &str) -> Result<String, String> {
        match &*self.0 {
            Backend::Local(runner, _) => Ok(runner.borrow().episode().compose(target, line)),
            Backend::Worker(w) => {
                let request = json!({"op": "compose", "target": target, "line": line});
                w.ask(&request, "composed").await
            }
        }
    }

    /// The next reply of the application's built-in agent, which runs beside the engine.
    pub async fn builtin_reply(&self) -> Result<AgentReply, AgentError> {
        let text = match &*self.0 {
            Backend::Local(..) => Err("the built-in agent runs with the engine in its worker".to_string()),
            Backend::Worker(w) => w.ask(&json!({"op": "baseline"}), "reply").await,
        };
        text.map(|text| AgentReply { text, latency_ms: None, tokens: None }).map_err(AgentError::fatal)
    }

    /// Ends the episode early with a reason.
    pub async fn stop(&self, reason: &str) -> Result<Snapshot, String> {
        match &*self.0 {
            Backend::Local(runner, _) => {
                runner.borrow_mut().stop(reason);
                Ok(Snapshot::of(&runner.borrow()))
            }
            Backend::Worker(w) => w.stop(reason).await,
        }
    }

    /// The result record of a finished episode.
    pub fn record(&self) -> Result<ResultRecord, String> {
        match &*self.0 {
            Backend::Local(runner, agent) => Ok(runner.borrow().record(agent)),
            Backend::Worker(w) => {
                w.record.borrow().clone().ok_or_else(|| "the episode has not finished".into())
            }
        }
    }
}

/// An episode held by a worker, with what the page needs to rebuild it after a restart.
struct WorkerEpisode {
    /// The pool the worker came from and goes back to, and the application it serves.
    pool: Workers,
    app: String,
    worker: RefCell<Option<Rc<SandboxWorker>>>,
    start: Value,
    /// The `submit` and `fail` requests sent so far, for replay into a fresh worker.
    sent: RefCell<Vec<Value>>,
    state: RefCell<Snapshot>,
    record: RefCell<Option<ResultRecord>>,
}

impl Drop for WorkerEpisode {
    fn drop(&mut self) {
        if let Some(worker) = self.worker.borrow_mut().take() {
            self.pool.give_back(worker);
        }
    }
}

impl WorkerEpisode {
    async fn start(pool: Workers, id: &str, settings: RunSettings, agent: AgentInfo) -> Result<Self, String> {
        let start = json!({
            "op": "start", "id": id, "max_turns": settings.max_turns,
            "variant": settings.variant, "agent": agent,
        });
        let episode = WorkerEpisode {
            pool,
            app: app_of(id)?,
            worker: RefCell::new(None),
            start,
            sent: RefCell::default(),
            state: RefCell::default(),
            record: RefCell::default(),
        };
        episode.begin().await?;
        Ok(episode)
    }

    /// Starts the episode in a worker from the pool and resets the page's copy of it.
    async fn begin(&self) -> Result<(), String> {
        let worker = self.pool.take(&self.app).await?;
        *self.worker.borrow_mut() = Some(worker.clone());
        let started = worker.call(&self.start, START_DEADLINE_MS).await?;
        let started = expect(started, "started")?;
        let messages = vec![Message::user(started["prompt"].as_str().unwrap_or_default())];
        let targets = from(&started["targets"]).unwrap_or_default();
        let picture = from(&started["picture"]).unwrap_or_default();
        *self.state.borrow_mut() = Snapshot { messages, targets, picture, ..Snapshot::default() };
        *self.record.borrow_mut() = None;
        Ok(())
    }

    fn worker(&self) -> Result<Rc<SandboxWorker>, String> {
        self.worker.borrow().clone().ok_or_else(|| "the sandbox worker is gone".into())
    }

    /// A request that leaves the episode as it is, and the text field `reply` of its answer.
    async fn ask(&self, request: &Value, op: &str) -> Result<String, String> {
        let worker = self.worker()?;
        let answer = worker.call(request, worker.step_deadline()).await.map_err(String::from)?;
        Ok(expect(answer, op)?["reply"].as_str().unwrap_or_default().to_string())
    }

    async fn submit(&self, reply: Result<AgentReply, AgentError>) -> Result<Snapshot, String> {
        if self.state.borrow().finished.is_some() {
            return Ok(self.state.borrow().clone());
        }
        let request = match reply {
            Ok(r) => json!({"op": "submit", "reply": r.text, "latency_ms": r.latency_ms, "tokens": r.tokens}),
            Err(e) => json!({"op": "fail", "message": e.message, "fatal": e.fatal}),
        };
        match self.step(&request).await {
            Err(Call::Lost(reason)) => self.recover(&reason).await,
            Err(Call::Failed(e)) => Err(e),
            Ok(()) => {
                self.sent.borrow_mut().push(request);
                Ok(self.state.borrow().clone())
            }
        }
    }

    /// Sends one `submit` or `fail` and takes in its `turn` (and `result`, if it ends).
    async fn step(&self, request: &Value) -> Result<(), Call> {
        let worker = self.worker().map_err(Call::Failed)?;
        let turn =
            expect(worker.call(request, worker.step_deadline()).await?, "turn").map_err(Call::Failed)?;
        let record: TurnRecord = from(&turn["turn"]).map_err(Call::Failed)?;
        let finished: Option<Finish> = from(&turn["finished"]).map_err(Call::Failed)?;
        {
            let mut s = self.state.borrow_mut();
            if record.error.is_none() {
                s.messages.push(Message::assistant(record.reply.clone()));
                s.messages.push(Message::user(record.observation.clone()));
            }
            s.turns.push(record);
            s.finished = finished;
            if let Some(reason) = turn["stop_reason"].as_str() {
                s.stop_reason = Some(reason.to_string());
            }
            s.panels = from(&turn["panels"]).unwrap_or_default();
            s.picture = from(&turn["picture"]).unwrap_or_default();
        }
        if finished.is_some() {
            self.take_result(worker.next(worker.step_deadline()).await?).map_err(Call::Failed)?;
        }
        Ok(())
    }

    fn take_result(&self, message: Value) -> Result<(), String> {
        let result = expect(message, "result")?;
        let record: ResultRecord = from(&result["record"])?;
        self.state.borrow_mut().finished = Some(record.finish);
        *self.record.borrow_mut() = Some(record);
        Ok(())
    }

    async fn stop(&self, reason: &str) -> Result<Snapshot, String> {
        if self.state.borrow().finished.is_none() {
            let worker = self.worker()?;
            match worker.call(&json!({"op": "stop", "reason": reason}), worker.step_deadline()).await {
                Ok(message) => self.take_result(message)?,
                Err(Call::Lost(lost)) => return self.recover(&lost).await,
                Err(Call::Failed(e)) => return Err(e),
            }
            self.state.borrow_mut().stop_reason = Some(reason.to_string());
        }
        Ok(self.state.borrow().clone())
    }

    /// Rebuilds the episode in a fresh worker from the requests that completed, then ends
    /// it with `reason` as a failed turn.
    async fn recover(&self, reason: &str) -> Result<Snapshot, String> {
        self.begin().await?;
        let sent = self.sent.borrow().clone();
        for request in &sent {
            self.step(request).await.map_err(String::from)?;
        }
        let fail = json!({"op": "fail", "message": reason, "fatal": true});
        self.step(&fail).await.map_err(String::from)?;
        self.state.borrow_mut().stop_reason = Some(reason.to_string());
        Ok(self.state.borrow().clone())
    }
}

/// Runs the benchmark workload of application `app` ([`crate::bench::run_app`]) inside its
/// worker, where its engine runs, and returns the worker's figures.
pub async fn bench_in_worker(
    workers: &Workers,
    app: &str,
    tasks: usize,
) -> Result<crate::bench::AppBench, String> {
    let worker = workers.take(app).await?;
    // The worker stays silent while it works: allow for the slowest tasks.
    let deadline =
        START_DEADLINE_MS.saturating_add(u32::try_from(tasks).unwrap_or(u32::MAX).saturating_mul(500));
    let answer = worker.call(&json!({"op": "bench", "app": app, "tasks": tasks}), deadline).await;
    workers.give_back(worker);
    let benched = expect(answer?, "benched")?;
    let bench: crate::bench::AppBench = from(&benched["bench"])?;
    if bench.app != app {
        return Err(format!("the sandbox worker measured {}, not {app}", bench.app));
    }
    Ok(bench)
}

/// Sends one request to a worker of application `app` and returns its answer if it is `op`
/// (the adaptive view's `space` and `realise`, see `crate::sandbox::worker`).
pub async fn ask_worker(workers: &Workers, app: &str, request: &Value, op: &str) -> Result<Value, String> {
    let worker = workers.take(app).await?;
    let answer = worker.call(request, START_DEADLINE_MS).await;
    workers.give_back(worker);
    expect(answer?, op)
}

/// Why a worker call failed.
enum Call {
    /// The worker was terminated or crashed: its episodes are gone.
    Lost(String),
    /// The worker answered with an error, or could not be reached.
    Failed(String),
}

impl From<Call> for String {
    fn from(c: Call) -> String {
        match c {
            Call::Lost(m) | Call::Failed(m) => m,
        }
    }
}

impl From<String> for Call {
    fn from(e: String) -> Call {
        Call::Failed(e)
    }
}

fn from<T: serde::de::DeserializeOwned>(v: &Value) -> Result<T, String> {
    serde_json::from_value(v.clone()).map_err(|e| format!("the sandbox sent something unreadable: {e}"))
}

/// The message if it is `op`; the worker's error message otherwise.
fn expect(message: Value, op: &str) -> Result<Value, String> {
    match message["op"].as_str() {
        Some(o) if o == op => Ok(message),
        Some("error") => Err(message["message"].as_str().unwrap_or("the sandbox failed").to_string()),
        other => Err(format!("the sandbox answered {other:?} where {op:?} was expected")),
    }
}

/// The page's pool of workers free for the next episode, each serving one application. Cheap
/// to clone (shared); equal when it is the same pool.
#[derive(Clone, Default)]
pub struct Workers(Rc<RefCell<Vec<Rc<SandboxWorker>>>>);

impl PartialEq for Workers {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }
}

impl Workers {
    /// A worker of application `app`: an idle one, or a new one (its bundle loaded on first
    /// use only).
    async fn take(&self, app: &str) -> Result<Rc<SandboxWorker>, String> {
        let idle = {
            let mut pool = self.0.borrow_mut();
            pool.iter().rposition(|w| w.app == app).map(|i| pool.remove(i))
        };
        match idle {
            Some(w) => Ok(w),
            None => SandboxWorker::spawn(app).await,
        }
    }

    /// Returns a worker to the pool, unless it died or grew too large.
    fn give_back(&self, worker: Rc<SandboxWorker>) {
        if worker.dead.get() || worker.memory.get() > RETIRE_BYTES {
            worker.kill("retired");
        } else {
            self.0.borrow_mut().push(worker);
        }
    }
}

#[derive(Properties, PartialEq)]
pub struct WorkersProps {
    pub children: Children,
}

/// Holds the page's worker pool for the views below it (the whole page), so every view's
/// episodes share idle workers.
#[function_component(WorkersProvider)]
pub fn workers_provider(props: &WorkersProps) -> Html {
    let workers = use_state(Workers::default);
    html! { <ContextProvider<Workers> context={(*workers).clone()}>{ props.children.clone() }</ContextProvider<Workers>> }
}

/// The page's worker pool (outside a [`WorkersProvider`]: one of the component's own).
#[hook]
pub fn use_workers() -> Workers {
    let own = use_state(Workers::default);
    use_context::<Workers>().unwrap_or_else(|| (*own).clone())
}

/// One Web Worker and its inbox.
struct SandboxWorker {
    worker: web_sys::Worker,
    /// The application whose bundle it runs.
    app: String,
    inbox: RefCell<VecDeque<String>>,
    /// The `(resolve, reject)` of the pending [`SandboxWorker::next`].
    waiting: RefCell<Option<(js_sys::Function, js_sys::Function)>>,
    dead: Cell<bool>,
    /// Whether the worker has sent anything (its `ready` first).
    started: Cell<bool>,
    /// The worker's linear memory, as its last message said.
    memory: Cell<u64>,
    _on_message: Closure<dyn FnMut(web_sys::MessageEvent)>,
    _on_error: Closure<dyn FnMut(web_sys::Event)>,
}

impl SandboxWorker {
    /// Starts a worker and waits for its `ready`.
    async fn spawn(app: &str) -> Result<Rc<Self>, String> {
        let options = web_sys::WorkerOptions::new();
        options.set_name(app);
        let worker = web_sys::Worker::new_with_options(WORKER_URL, &options)
            .map_err(|_| format!("could not start the {app} worker"))?;
        let this = Rc::new_cyclic(|me: &Weak<SandboxWorker>| {
            let (me_msg, me_err) = (me.clone(), me.clone());
            let on_message =
                Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |e: web_sys::MessageEvent| {
                    if let Some(w) = me_msg.upgrade() {
                        w.deliver(e.data().as_string().unwrap_or_default());
                    }
                });
            let on_error = Closure::<dyn FnMut(web_sys::Event)>::new(move |e: web_sys::Event| {
                e.prevent_default();
                if let Some(w) = me_err.upgrade() {
                    // Before its `ready` the worker never ran: its script or wasm did not load.
                    let reason = if !w.started.get() {
                        format!(
                            "the {} worker failed to load (its bundle could not be fetched or started)",
                            w.app
                        )
                    } else {
                        crate::sandbox::Lost::Crashed.message().to_string()
                    };
                    w.kill(&reason);
                }
            });
            worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
            worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
            SandboxWorker {
                worker,
                app: app.to_string(),
                inbox: RefCell::default(),
                waiting: RefCell::default(),
                dead: Cell::new(false),
                started: Cell::new(false),
                memory: Cell::new(0),
                _on_message: on_message,
                _on_error: on_error,
            }
        });
        expect(this.next(START_DEADLINE_MS).await.map_err(String::from)?, "ready")?;
        Ok(this)
    }

    /// How long one step may keep this worker silent (see [`STEP_DEADLINE_MS`]).
    fn step_deadline(&self) -> u32 {
        match crate::registry::info(&self.app) {
            Ok(info) if !info.sandboxed => ENGINE_STEP_DEADLINE_MS,
            _ => STEP_DEADLINE_MS,
        }
    }

    fn deliver(&self, text: String) {
        self.started.set(true);
        if let Some(bytes) =
            serde_json::from_str::<Value>(&text).ok().and_then(|v| v["memory_bytes"].as_u64())
        {
            self.memory.set(bytes);
        }
        match self.waiting.borrow_mut().take() {
            Some((resolve, _)) => {
                let _ = resolve.call1(&JsValue::NULL, &JsValue::from_str(&text));
            }
            None => self.inbox.borrow_mut().push_back(text),
        }
    }

    /// Terminates the worker and fails the pending read with `reason`.
    fn kill(&self, reason: &str) {
        self.dead.set(true);
        self.worker.terminate();
        if let Some((_, reject)) = self.waiting.borrow_mut().take() {
            let _ = reject.call1(&JsValue::NULL, &JsValue::from_str(reason));
        }
    }

    /// Sends a request and reads its first response.
    async fn call(self: &Rc<Self>, request: &Value, deadline_ms: u32) -> Result<Value, Call> {
        if self.dead.get() {
            return Err(Call::Lost("the sandbox worker was restarted".into()));
        }
        self.worker
            .post_message(&JsValue::from_str(&request.to_string()))
            .map_err(|_| Call::Failed("could not reach the sandbox worker".into()))?;
        self.next(deadline_ms).await
    }

    /// The next message, or `Lost` if the worker stays silent past the deadline or dies.
    async fn next(self: &Rc<Self>, deadline_ms: u32) -> Result<Value, Call> {
        let queued = self.inbox.borrow_mut().pop_front();
        let text = match queued {
            Some(text) => text,
            None => self.wait(deadline_ms).await?,
        };
        serde_json::from_str(&text).map_err(|_| Call::Failed("the sandbox sent an unreadable message".into()))
    }

    async fn wait(self: &Rc<Self>, deadline_ms: u32) -> Result<String, Call> {
        if self.dead.get() {
            return Err(Call::Lost("the sandbox worker was restarted".into()));
        }
        let promise = js_sys::Promise::new(&mut |resolve, reject| {
            *self.waiting.borrow_mut() = Some((resolve, reject));
        });
        // The watchdog: a worker silent past the deadline is terminated, which fails the read.
        let me = Rc::downgrade(self);
        let watchdog = gloo::timers::callback::Timeout::new(deadline_ms, move || {
            if let Some(w) = me.upgrade() {
                w.kill(crate::sandbox::Lost::Silent.message());
            }
        });
        let outcome = JsFuture::from(promise).await;
        drop(watchdog);
        outcome
            .map(|v| v.as_string().unwrap_or_default())
            .map_err(|e| Call::Lost(e.as_string().unwrap_or_else(|| "the sandbox worker was lost".into())))
    }
}
