//! `netpress._core`: the environment protocol's session core, in process, for Python.
//!
//! The Python package (`python/netpress/`) is a thin layer over this module; docs/env.md
//! ("Python package") says why it is an extension rather than a client of `netpress env
//! --stdio`: an episode step costs microseconds, a pipe round trip as much again. Every value
//! crosses the boundary as the protocol's JSON (the same bytes as stdio and the server send),
//! so Python sees exactly the messages of the other transports and this file stays a shim.
//!
//! Beside the sessions it holds the agents a Python caller drives episodes with: each
//! application's scripted baseline and the endpoint agents, OpenAI-compatible and A2A (the
//! core's `native-agents` transport), all as callables over chat messages.
//!
//! Resets, steps and whole baseline episodes run with the GIL released (`Python::detach`), so
//! environments in several Python threads step in parallel. A panic in the core is caught,
//! closes that session and raises `EnvError` with reason `PANIC`, as the server does.
//!
//! Sandboxed applications' turns (agent code) never run in the importing process: they go to
//! the core's sandbox pool, whose processes are this module's worker loop
//! ([`sandbox_worker`], `python -m netpress._sandbox_worker`), as the server's are `netpress
//! sandbox-worker`. The memory limit counts the live bytes of this module's global allocator.

mod alloc;

use std::panic::AssertUnwindSafe;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

use netpress::agent::a2a::A2aConfig;
use netpress::agent::client::{Client, EndpointConfig};
use netpress::agent::http::{CallError, Scope};
use netpress::agent::native::{EndpointAgent as CoreEndpointAgent, Transport, connect};
use netpress::agent::openai::OpenAiConfig;
use netpress::app::PromptVariant;
use netpress::conversation::{Agent, AgentError, AgentReply, Message, Role};
use netpress::env::{
    Action, Code, Defaults, EnvError as CoreError, Reason, ResetParams, SandboxConfig, SandboxPool,
    Session as CoreSession, StepResult, guarded, pooled,
};
use netpress::record::ResultRecord;
use netpress::registry::Registry;
use netpress::run::{Cancel, RunSettings, run_episode};
use pyo3::create_exception;
use pyo3::prelude::*;
use serde_json::Value;

// In a sandbox process, the live bytes the sandbox's memory limit counts (the sandbox's heap
// and the task's, not CPython's own, which the system allocator holds); elsewhere the system
// allocator alone (alloc.rs says why).
#[global_allocator]
static ALLOC: alloc::Allocator = alloc::Allocator;

/// The sandbox processes of this Python process, set when the module is imported (they start
/// only when a sandboxed step needs one).
static POOL: OnceLock<SandboxPool> = OnceLock::new();

create_exception!(
    _core,
    EnvError,
    pyo3::exceptions::PyValueError,
    "A refused request: args are (code, reason, message), the protocol's error fields."
);

/// The Python exception for a protocol error.
fn raise(e: CoreError) -> PyErr {
    let v = serde_json::to_value(&e).unwrap_or(Value::Null);
    let field = |k: &str| v.get(k).and_then(Value::as_str).unwrap_or_default().to_string();
    EnvError::new_err((field("code"), field("reason"), e.message))
}

fn to_json<T: serde::Serialize>(v: &T) -> String {
    serde_json::to_string(v).unwrap_or_else(|_| "null".into())
}

/// A JSON text from Python, as the stdio dispatcher would read it.
fn parse(text: &str) -> Result<Value, CoreError> {
    serde_json::from_str(text).map_err(|e| CoreError::new(Reason::NotJson, format!("not JSON: {e}")))
}

/// 128 random bits in hex, the `episode_id` of a reset that names none.
fn random_id() -> String {
    let mut bytes = [0u8; 16];
    // Without OS randomness (never expected natively) ids repeat across processes only; a
    // Python session is keyed by its object, not its id.
    let _ = getrandom::fill(&mut bytes);
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// One environment session: at most one episode at a time, replaced by each reset.
#[pyclass(frozen, module = "netpress._core")]
struct Session {
    episode: Mutex<Option<CoreSession>>,
    defaults: Defaults,
}

impl Session {
    fn lock(&self) -> MutexGuard<'_, Option<CoreSession>> {
        // A panic is caught inside the lock and closes the episode, so a poisoned lock holds
        // nothing half-changed.
        self.episode.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn reset_json(&self, params: &str) -> Result<String, CoreError> {
        let params = ResetParams::from_value(Some(parse(params)?))?;
        let pool = POOL.get().is_some();
        let resolved = guarded(|| params.resolve_with(Registry::standard(), &self.defaults, pool))??;
        let (session, result) = guarded(|| CoreSession::start(resolved, random_id))?;
        *self.lock() = Some(session);
        Ok(to_json(&result))
    }

    fn step_json(&self, action: &str) -> Result<String, CoreError> {
        self.step_with(action, |r| to_json(&r))
    }

    /// One step; `out` renders its result (as JSON text, or as a value tree for a dict).
    fn step_with<T>(&self, action: &str, out: impl FnOnce(StepResult) -> T) -> Result<T, CoreError> {
        let turn = Action::from_value(Some(parse(action)?))?.into_turn()?;
        self.step_turn_with(turn, out)
    }

    fn step_turn_with<T>(&self, turn: Turn, out: impl FnOnce(StepResult) -> T) -> Result<T, CoreError> {
        let mut guard = self.lock();
        let session = guard.as_mut().ok_or_else(no_episode)?;
        match guarded(AssertUnwindSafe(|| pooled::step(Registry::standard(), POOL.get(), session, turn)))? {
            Ok(result) => Ok(out(result)),
            Err(e) => {
                // A refusal (a full sandbox queue) left the episode as it was.
                if e.code == Code::ExecutionError {
                    *guard = None;
                }
                Err(e)
            }
        }
    }

    fn with<T>(&self, f: impl FnOnce(&CoreSession) -> T) -> Result<T, CoreError> {
        self.lock().as_ref().map(f).ok_or_else(no_episode)
    }
}

/// A step's input: the agent's reply or its failed call.
type Turn = Result<AgentReply, AgentError>;

impl Session {
    /// One step without the GIL, its answer built as a dict once the GIL is back.
    fn step_turn<'py>(&self, py: Python<'py>, turn: Turn) -> PyResult<Bound<'py, PyAny>> {
        // The result is moved out (not serialized) across the GIL hand-back: it borrows nothing.
        let result = py.detach(|| self.step_turn_with(turn, |r| r)).map_err(raise)?;
        // Built as Python objects directly (what `json.loads` of its JSON gives), with no JSON
        // text or `serde_json::Value` tree in between: the answer crosses on every turn.
        Ok(pythonize::pythonize(py, &result)?)
    }
}

fn no_episode() -> CoreError {
    CoreError::new(Reason::UnknownSession, "no episode: reset first (or the session was closed)")
}

#[pymethods]
impl Session {
    /// `app` and `level` are reset defaults, as `--app`/`--level` on the server.
    #[new]
    #[pyo3(signature = (app=None, level=None))]
    fn new(app: Option<String>, level: Option<u8>) -> Self {
        Session { episode: Mutex::new(None), defaults: Defaults { app, level } }
    }

    /// Starts an episode from reset parameters (JSON); returns `{observation, reward, done}`.
    fn reset(&self, py: Python<'_>, params: &str) -> PyResult<String> {
        py.detach(|| self.reset_json(params)).map_err(raise)
    }

    /// One turn from an action (JSON); returns `{observation, reward, done}`.
    fn step(&self, py: Python<'_>, action: &str) -> PyResult<String> {
        py.detach(|| self.step_json(action)).map_err(raise)
    }

    /// `step`'s answer as a dict, serialized straight into Python objects (`json.loads` of an
    /// observation, or a `serde_json::Value` tree in between, costs more than the step itself).
    fn step_dict<'py>(&self, py: Python<'py>, action: &str) -> PyResult<Bound<'py, PyAny>> {
        let turn = py.detach(|| Action::from_value(Some(parse(action)?))?.into_turn()).map_err(raise)?;
        self.step_turn(py, turn)
    }

    /// `step_dict` of a plain reply text: no action JSON to write in Python and parse here.
    fn step_reply<'py>(&self, py: Python<'py>, reply: &str) -> PyResult<Bound<'py, PyAny>> {
        let action = Action { reply: Some(reply.to_string()), ..Action::default() };
        self.step_turn(py, action.into_turn().map_err(raise)?)
    }

    /// The state (JSON).
    fn state(&self) -> PyResult<String> {
        self.with(|s| to_json(&s.state())).map_err(raise)
    }

    /// The result record of the episode as it stands (`netpress.result.v1`, JSON).
    fn record(&self) -> PyResult<String> {
        self.with(|s| to_json(&s.record())).map_err(raise)
    }

    /// `record` as a dict, built straight into Python objects: a record carries the whole
    /// transcript (about 100 KB for a K8s episode), whose `json.loads` is the largest piece of
    /// work done with the GIL held in an episode driven from Python.
    fn record_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let record = py.detach(|| self.with(|s| s.record())).map_err(raise)?;
        Ok(pythonize::pythonize(py, &record)?)
    }

    /// The conversation from message `start` on as `(role, content)` pairs (what an agent
    /// replies to); a caller that keeps the earlier ones asks only for the new.
    #[pyo3(signature = (start=0))]
    fn messages(&self, start: usize) -> PyResult<Vec<(String, String)>> {
        self.with(|s| {
            // A sandboxed episode's turns ran in a worker: its conversation is its record's.
            let replayed = (!s.sent().is_empty()).then(|| pooled::conversation(&s.record()));
            let all = replayed.as_deref().unwrap_or(s.runner().messages());
            all[start.min(all.len())..].iter().map(|m| (role_name(m.role), m.content.clone())).collect()
        })
        .map_err(raise)
    }

    /// Ends the episode; later steps raise `UNKNOWN_SESSION`.
    fn close(&self) {
        *self.lock() = None;
    }
}

fn role_name(role: Role) -> String {
    serde_json::to_value(role).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default()
}

/// Steps `sessions[i]` with `actions[i]` in one call without the GIL; each answer is the step's
/// JSON or `{"error": {code, reason, message}}`.
#[pyfunction]
fn step_many(py: Python<'_>, sessions: Vec<Py<Session>>, actions: Vec<String>) -> PyResult<Vec<String>> {
    if sessions.len() != actions.len() {
        return Err(pyo3::exceptions::PyValueError::new_err(format!(
            "{} sessions and {} actions",
            sessions.len(),
            actions.len()
        )));
    }
    Ok(py.detach(|| {
        sessions
            .iter()
            .zip(&actions)
            .map(|(s, a)| s.get().step_json(a).unwrap_or_else(|e| to_json(&serde_json::json!({"error": e}))))
            .collect()
    }))
}

/// An application's scripted baseline agent as a callable `[(role, content)] -> reply`, and
/// with a conversation of its own (`extend`, `clear`, `reply`) for callers that send only the
/// messages it has not seen: a conversation's early messages (the prompt, long outputs) then
/// cross the boundary once, not on every turn.
#[pyclass(frozen, module = "netpress._core")]
struct Baseline {
    agent: Mutex<Box<dyn Agent>>,
    conversation: Mutex<Vec<Message>>,
}

fn to_messages(messages: Vec<(String, String)>) -> PyResult<Vec<Message>> {
    messages
        .into_iter()
        .map(|(role, content)| {
            let role: Role = serde_json::from_value(Value::String(role.clone()))
                .map_err(|_| pyo3::exceptions::PyValueError::new_err(format!("unknown role {role:?}")))?;
            Ok(Message { role, content })
        })
        .collect()
}

impl Baseline {
    fn answer(&self, py: Python<'_>, messages: &[Message]) -> PyResult<String> {
        let reply = py.detach(|| self.agent.lock().unwrap_or_else(|p| p.into_inner()).reply(messages));
        reply.map(|r| r.text).map_err(|e| pyo3::exceptions::PyRuntimeError::new_err(e.message))
    }

    fn own(&self) -> MutexGuard<'_, Vec<Message>> {
        self.conversation.lock().unwrap_or_else(|p| p.into_inner())
    }
}

#[pymethods]
impl Baseline {
    #[new]
    fn new(app: &str) -> PyResult<Self> {
        let app = Registry::standard().app(app).map_err(|e| raise(CoreError::from_library(&e)))?;
        Ok(Baseline { agent: Mutex::new(app.baseline()), conversation: Mutex::new(Vec::new()) })
    }

    fn __call__(&self, py: Python<'_>, messages: Vec<(String, String)>) -> PyResult<String> {
        self.answer(py, &to_messages(messages)?)
    }

    /// Appends messages to the agent's own conversation.
    fn extend(&self, messages: Vec<(String, String)>) -> PyResult<()> {
        self.own().extend(to_messages(messages)?);
        Ok(())
    }

    /// Empties the agent's own conversation.
    fn clear(&self) {
        self.own().clear();
    }

    /// The reply to the agent's own conversation.
    fn reply(&self, py: Python<'_>) -> PyResult<String> {
        let conversation = self.own();
        self.answer(py, &conversation)
    }
}

/// The result records (JSON) of the application's baseline on `task_ids`, as `netpress run
/// --agent baseline` writes them; runs without the GIL.
#[pyfunction]
#[pyo3(signature = (task_ids, max_turns=None, variant="zeroshot_base"))]
fn run_baseline(
    py: Python<'_>,
    task_ids: Vec<String>,
    max_turns: Option<u32>,
    variant: &str,
) -> PyResult<Vec<String>> {
    Ok(baseline_records(py, &task_ids, max_turns, variant)?.iter().map(to_json).collect())
}

/// `run_baseline`'s records as dicts, built straight into Python objects (what `json.loads` of
/// each gives, for less time with the GIL held, which is what threads contend for).
#[pyfunction]
#[pyo3(signature = (task_ids, max_turns=None, variant="zeroshot_base"))]
fn run_baseline_dicts<'py>(
    py: Python<'py>,
    task_ids: Vec<String>,
    max_turns: Option<u32>,
    variant: &str,
) -> PyResult<Vec<Bound<'py, PyAny>>> {
    let records = baseline_records(py, &task_ids, max_turns, variant)?;
    records.iter().map(|r| Ok(pythonize::pythonize(py, r)?)).collect()
}

/// The baseline's result records on `task_ids`, played without the GIL.
fn baseline_records(
    py: Python<'_>,
    task_ids: &[String],
    max_turns: Option<u32>,
    variant: &str,
) -> PyResult<Vec<ResultRecord>> {
    let variant =
        PromptVariant::parse(variant).map_err(|e| raise(CoreError::new(Reason::BadValue, e.to_string())))?;
    py.detach(|| {
        task_ids
            .iter()
            .map(|id| {
                let task = Registry::standard().generate(id).map_err(|e| CoreError::from_library(&e))?;
                let app =
                    Registry::standard().app(&task.card().app).map_err(|e| CoreError::from_library(&e))?;
                let settings = RunSettings { max_turns, variant };
                let mut agent = app.baseline();
                // A sandboxed application's answers run in the sandbox processes, never here.
                guarded(AssertUnwindSafe(|| match (app.info().sandboxed, POOL.get()) {
                    (true, Some(pool)) => {
                        pooled::drive(Registry::standard(), pool, task, settings, agent.as_mut())
                    }
                    (true, None) => Err(CoreError::new(
                        Reason::SandboxedApp,
                        format!("{id}: this Python process has no sandbox processes (no sys.executable)"),
                    )),
                    (false, _) => Ok(run_episode(task, agent.as_mut(), settings)),
                }))?
            })
            .collect::<Result<Vec<_>, _>>()
    })
    .map_err(raise)
}

create_exception!(
    _core,
    EndpointError,
    pyo3::exceptions::PyRuntimeError,
    "An endpoint agent's failed call: args are (message, fatal); fatal means no later call can
succeed (a refused key, an unknown model), as the runner's failure rules read it."
);

/// An endpoint agent (OpenAI-compatible chat or A2A) as a callable `[(role, content)] -> reply`:
/// the crate's endpoint agent (request, retries, failure rules, key scrubbing) on its blocking
/// transport. An A2A agent's card is fetched on the first call (or `info`), not at construction,
/// so an agent can be built (and pickled) before its server is up.
#[pyclass(frozen, module = "netpress._core")]
struct EndpointAgent {
    config: EndpointConfig,
    client: Mutex<Option<Arc<Client>>>,
    transport: Transport,
}

impl EndpointAgent {
    fn of(config: EndpointConfig) -> Self {
        EndpointAgent { config, client: Mutex::new(None), transport: Transport::new(Cancel::new()) }
    }

    /// The connected client; connecting again after a failed attempt.
    fn client(&self) -> Result<Arc<Client>, CallError> {
        let mut slot = self.client.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(client) = slot.as_ref() {
            return Ok(client.clone());
        }
        let client = Arc::new(connect(&self.config, &self.transport)?);
        *slot = Some(client.clone());
        Ok(client)
    }
}

fn endpoint_error(e: CallError) -> PyErr {
    // A failed connection (no card, a refused token) is fatal, as it ends a `netpress run`.
    EndpointError::new_err((e.message, e.scope == Scope::Run))
}

#[pymethods]
impl EndpointAgent {
    /// An OpenAI-compatible chat endpoint.
    #[staticmethod]
    #[pyo3(signature = (base_url, model, api_key=None, temperature=None, max_tokens=None, timeout_ms=None))]
    fn openai(
        base_url: &str,
        model: &str,
        api_key: Option<String>,
        temperature: Option<f64>,
        max_tokens: Option<u32>,
        timeout_ms: Option<u64>,
    ) -> Self {
        let mut config = OpenAiConfig::new(base_url, model);
        config.api_key = api_key;
        config.temperature = temperature;
        config.max_tokens = max_tokens;
        config.timeout_ms = timeout_ms.unwrap_or(config.timeout_ms);
        Self::of(EndpointConfig::Openai(config))
    }

    /// An A2A 0.3 agent at `url` (its base URL or its card's URL).
    #[staticmethod]
    #[pyo3(signature = (url, bearer=None, timeout_ms=None, poll_ms=None))]
    fn a2a(url: &str, bearer: Option<String>, timeout_ms: Option<u64>, poll_ms: Option<u64>) -> Self {
        let mut config = A2aConfig::new(url);
        config.bearer = bearer;
        config.timeout_ms = timeout_ms.unwrap_or(config.timeout_ms);
        config.poll_ms = poll_ms.unwrap_or(config.poll_ms);
        Self::of(EndpointConfig::A2a(config))
    }

    /// The reply to a conversation; the GIL is released while the endpoint answers.
    fn __call__(&self, py: Python<'_>, messages: Vec<(String, String)>) -> PyResult<String> {
        let messages = to_messages(messages)?;
        // An agent per call: its state is only A2A's message-id prefix and counter (each new
        // agent takes a fresh prefix), and a shared one would make threads wait for each other.
        let reply = py.detach(|| {
            let client = self.client().map_err(|e| (e.message, e.scope == Scope::Run))?;
            endpoint_reply(client, &self.transport, &messages)
        });
        reply.map_err(|(message, fatal)| EndpointError::new_err((message, fatal)))
    }

    /// The agent as results describe it (model or card name, endpoint without credentials;
    /// JSON). An A2A agent is connected first.
    fn info(&self, py: Python<'_>) -> PyResult<String> {
        let client = py.detach(|| self.client()).map_err(endpoint_error)?;
        Ok(to_json(&client.info()))
    }
}

/// One call of a connected endpoint: the reply, or the failure's message and whether it is fatal.
fn endpoint_reply(
    client: Arc<Client>,
    transport: &Transport,
    messages: &[Message],
) -> Result<String, (String, bool)> {
    let reply = CoreEndpointAgent::new(client, transport.clone()).reply(messages);
    reply.map(|r| r.text).map_err(|e| (e.message, e.fatal))
}

/// Task ids `start..start + count` of the curriculum stream of a mixture file's text (the
/// adaptive mode's `netpress.mixture.v1`), as `netpress adapt export --format ids` lists them.
#[pyfunction]
fn mixture_ids(py: Python<'_>, file: &str, start: usize, count: usize) -> PyResult<Vec<String>> {
    py.detach(|| netpress::adapt::mixture_stream(file, start, count))
        .map(|tasks| tasks.into_iter().map(|t| t.id).collect())
        .map_err(|e| raise(CoreError::from_library(&e)))
}

/// The library's fixed benchmark workload of `app` over `tasks` tasks, timed in this process
/// (`netpress bench --app APP --tasks N --json`'s figures for one application): the native side
/// of `python/bench/bench_env.py`'s ratios, from the same build as the extension.
#[pyfunction]
#[pyo3(name = "bench")]
fn bench_app(py: Python<'_>, app: &str, tasks: usize) -> PyResult<String> {
    py.detach(|| {
        let app = Registry::standard().app(app)?;
        let origin = std::time::Instant::now();
        let clock = move || origin.elapsed().as_secs_f64() * 1000.0;
        netpress::bench::run_app(app, tasks, &clock).map(|b| to_json(&b))
    })
    .map_err(|e| raise(CoreError::from_library(&e)))
}

/// The protocol's `info`: apps, levels, knobs, limits (JSON).
#[pyfunction]
fn info() -> String {
    to_json(&netpress::env::info(Registry::standard(), &netpress::env::Limits::default()))
}

/// Every registered application's name, title, generator version, answer kind (as the library
/// serialises it) and sandbox flag, in display order (JSON): what the Python adapters derive
/// their ids and tools from, so an application added to the registry appears in them with no
/// change on the Python side.
#[pyfunction]
fn apps() -> String {
    let apps: Vec<Value> = Registry::standard()
        .apps()
        .iter()
        .map(|app| {
            let i = app.info();
            serde_json::json!({
                "name": i.name, "title": i.title, "version": i.version,
                "answer": i.answer, "sandboxed": i.sandboxed,
            })
        })
        .collect();
    to_json(&apps)
}

/// Serves the sandbox worker's protocol on standard input and output until input ends: the
/// loop of a sandbox process (`python -m netpress._sandbox_worker`).
#[pyfunction]
fn sandbox_worker(py: Python<'_>) {
    py.detach(|| netpress::sandbox::serve(Registry::standard().apps()));
}

/// Sets this process's sandbox processes: `python` (the interpreter running the package) with
/// `-m netpress._sandbox_worker`, `jobs` of them (default: the cores).
#[pyfunction]
#[pyo3(signature = (python, jobs=None))]
fn configure_sandbox(python: String, jobs: Option<usize>) -> bool {
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    let config = SandboxConfig {
        args: vec!["-m".into(), "netpress._sandbox_worker".into()],
        ..SandboxConfig::new(python.into(), jobs.unwrap_or(cores))
    };
    POOL.set(SandboxPool::new(config)).is_ok()
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", netpress::VERSION)?;
    m.add("PROTOCOL", netpress::env::PROTOCOL)?;
    m.add("EnvError", m.py().get_type::<EnvError>())?;
    m.add("EndpointError", m.py().get_type::<EndpointError>())?;
    m.add_class::<Session>()?;
    m.add_class::<Baseline>()?;
    m.add_class::<EndpointAgent>()?;
    m.add_function(wrap_pyfunction!(step_many, m)?)?;
    m.add_function(wrap_pyfunction!(run_baseline, m)?)?;
    m.add_function(wrap_pyfunction!(run_baseline_dicts, m)?)?;
    m.add_function(wrap_pyfunction!(info, m)?)?;
    m.add_function(wrap_pyfunction!(apps, m)?)?;
    m.add_function(wrap_pyfunction!(bench_app, m)?)?;
    m.add_function(wrap_pyfunction!(mixture_ids, m)?)?;
    m.add_function(wrap_pyfunction!(sandbox_worker, m)?)?;
    m.add_function(wrap_pyfunction!(configure_sandbox, m)?)?;
    Ok(())
}
