//! The batch job: N tasks run one after another by one agent, in time slices so the page stays
//! responsive. The job lives outside any view, so moving between views does not stop it; views
//! subscribe to its progress with [`use_job`].

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use yew::prelude::*;

use super::super::agents::{CANCELLED, Cancel, Pace, PageAgent, drive, remote};
use super::super::sandbox::{EpisodeHandle, Snapshot};
use super::super::settings;
use super::super::store::{self, RunMeta, Source};
use super::super::util::{Slicer, now_ms};
use crate::agent::batch::MAX_FAILED_EPISODES_IN_A_ROW;
use crate::agent::runner::MAX_CONSECUTIVE_FAILURES;
use crate::agent::{AgentInfo, RunSettings};
use crate::app::App;
use crate::app::Finish;
use crate::link::BatchLink;
use crate::record::ResultRecord;

/// Where a job stands.
#[derive(Debug, Clone, PartialEq)]
pub enum Phase {
    Running,
    Done,
    Cancelled,
    Failed(String),
}

pub struct Job {
    pub link: BatchLink,
    pub app: String,
    pub agent: AgentInfo,
    pub total: usize,
    /// Results in the order episodes finished (several run at once).
    pub records: Vec<ResultRecord>,
    /// Each record's place in the batch's task order, for saving in that order.
    positions: Vec<usize>,
    started: f64,
    /// Milliseconds from start to the end (set when it ends).
    ended: Option<f64>,
    pub phase: Phase,
    pub saved: Option<RunMeta>,
    cancel: Cancel,
    /// The network client, whose call in flight a cancel aborts.
    client: Option<Rc<dyn remote::RemoteClient>>,
}

impl Job {
    pub fn running(&self) -> bool {
        self.phase == Phase::Running
    }

    pub fn done(&self) -> usize {
        self.records.len()
    }

    pub fn elapsed_ms(&self) -> f64 {
        self.ended.unwrap_or_else(|| now_ms() - self.started)
    }

    /// Time left at the pace so far; `None` before the first task ends.
    pub fn eta_ms(&self) -> Option<f64> {
        let done = self.done();
        (done > 0 && self.running()).then(|| self.elapsed_ms() / done as f64 * (self.total - done) as f64)
    }

    pub fn cancel(&self) {
        self.cancel.set(true);
        if let Some(c) = &self.client {
            c.abort();
        }
    }
}

pub type Shared = Rc<RefCell<Job>>;

/// A subscribed view's redraw.
type Listener = Rc<dyn Fn()>;

thread_local! {
    static CURRENT: RefCell<Option<Shared>> = const { RefCell::new(None) };
    static LISTENERS: RefCell<Vec<(u32, Listener)>> = const { RefCell::new(Vec::new()) };
    static NEXT_LISTENER: Cell<u32> = const { Cell::new(0) };
}

/// The current (or last) job.
pub fn current() -> Option<Shared> {
    CURRENT.with(|c| c.borrow().clone())
}

fn notify() {
    let listeners: Vec<Listener> = LISTENERS.with(|l| l.borrow().iter().map(|(_, f)| f.clone()).collect());
    for f in listeners {
        f();
    }
}

/// The current job, redrawing the component whenever it progresses.
#[hook]
pub fn use_job() -> Option<Shared> {
    let redraw = use_force_update();
    use_effect_with((), move |_| {
        let id = NEXT_LISTENER.with(|n| n.replace(n.get() + 1));
        LISTENERS.with(|l| l.borrow_mut().push((id, Rc::new(move || redraw.force_update()))));
        move || LISTENERS.with(|l| l.borrow_mut().retain(|(i, _)| *i != id))
    });
    current()
}

type Agents = Box<dyn Fn() -> PageAgent>;

/// The agent a batch link asks for, made fresh per task (baselines keep per-task state), and
/// the network client behind it if any.
async fn make_agent(
    app: &'static dyn App,
    link: &BatchLink,
) -> Result<(Agents, Option<Rc<dyn remote::RemoteClient>>), String> {
    match link.agent.as_str() {
        "baseline" => Ok((Box::new(move || PageAgent::Local(app.baseline())), None)),
        "endpoint" => {
            let client = remote::connect(&settings::load().endpoint).await?;
            let shared = client.clone();
            Ok((Box::new(move || PageAgent::Remote(shared.clone())), Some(client)))
        }
        other => Err(format!("unknown agent {other:?} (baseline or endpoint)")),
    }
}

/// Starts a job for the link, replacing a finished one. Errors (bad settings) are returned
/// before anything runs.
pub async fn start(link: BatchLink) -> Result<(), String> {
    if current().is_some_and(|j| j.borrow().running()) {
        return Err("a batch is already running; cancel it first".into());
    }
    let app = match &link.app {
        Some(name) => crate::registry::app(name).map_err(|e| e.to_string())?,
        None => *crate::registry::apps().first().ok_or("no application is registered")?,
    };
    let info = app.info();
    let levels: Vec<u8> = info.levels.iter().map(|l| l.level).collect();
    if let Some(bad) = link.levels.iter().find(|l| !levels.contains(l)) {
        return Err(format!("{} has no level {bad}", info.name));
    }
    let ids = link.ids(info.name, info.version, &levels)?;
    // Check the knobs once on the first id, so a typo fails here and not N times.
    if let Some(first) = ids.first() {
        app.generate(first).map_err(|e| e.to_string())?;
    }
    let (agents, client) = make_agent(app, &link).await?;
    let job = Rc::new(RefCell::new(Job {
        agent: agents().info(),
        app: info.name.to_string(),
        total: ids.len(),
        records: Vec::new(),
        positions: Vec::new(),
        started: now_ms(),
        ended: None,
        phase: Phase::Running,
        saved: None,
        cancel: Rc::new(Cell::new(false)),
        client,
        link,
    }));
    CURRENT.with(|c| *c.borrow_mut() = Some(job.clone()));
    notify();
    wasm_bindgen_futures::spawn_local(run(job, app, ids, agents));
    Ok(())
}

/// Redraw at most this often while a job runs; fast baselines finish many tasks per frame.
const REDRAW_MS: f64 = 150.0;

/// What the episodes of a job share while they run.
struct Lanes<'a> {
    job: &'a Shared,
    app: &'static dyn App,
    settings: RunSettings,
    agents: &'a Agents,
    queue: RefCell<std::iter::Enumerate<std::vec::IntoIter<crate::QueryId>>>,
    /// Set when the job must stop: a task failed, or the endpoint is gone.
    failure: RefCell<Option<String>>,
    /// Episodes in a row stopped by failed calls.
    failed_in_a_row: Cell<u32>,
    last_redraw: Cell<f64>,
}

async fn run(job: Shared, app: &'static dyn App, ids: Vec<crate::QueryId>, agents: Agents) {
    let link = job.borrow().link.clone();
    let state = Lanes {
        job: &job,
        app,
        settings: RunSettings { variant: link.variant, max_turns: link.max_turns },
        agents: &agents,
        queue: RefCell::new(ids.into_iter().enumerate()),
        failure: RefCell::default(),
        failed_in_a_row: Cell::new(0),
        last_redraw: Cell::new(now_ms()),
    };
    let lanes = (0..link.jobs.max(1)).map(|_| lane(&state));
    futures::future::join_all(lanes).await;
    let failure = state.failure.take();
    finish(&job, failure).await;
}

/// One of the job's concurrent lanes: takes the next task until none is left or the job
/// stops.
async fn lane(s: &Lanes<'_>) {
    let cancel = s.job.borrow().cancel.clone();
    let mut slicer = Slicer::new(12.0);
    loop {
        if cancel.get() || s.failure.borrow().is_some() {
            return;
        }
        let next = s.queue.borrow_mut().next();
        let Some((position, id)) = next else { return };
        match one(s.app, &id, s.settings, s.agents, &cancel, &mut slicer).await {
            Ok(Some((record, last))) => {
                if !s.halted_by(&last) {
                    let mut j = s.job.borrow_mut();
                    j.records.push(record);
                    j.positions.push(position);
                }
            }
            Ok(None) => return,
            Err(e) => {
                s.failure.borrow_mut().get_or_insert(format!("{id}: {e}"));
                return;
            }
        }
        if now_ms() - s.last_redraw.get() > REDRAW_MS {
            notify();
            s.last_redraw.set(now_ms());
        }
        slicer.tick().await;
    }
}

impl Lanes<'_> {
    /// Applies the batch rule of the agent clients (`agent::batch`) to a finished episode:
    /// an endpoint that said the key or URL is wrong stops the job, and so do
    /// [`MAX_FAILED_EPISODES_IN_A_ROW`] episodes in a row stopped by failed calls. The rule is
    /// restated here because sandboxed episodes run in the worker, out of reach of
    /// `BatchGuard`, which reads a local `Runner`. Returns whether the episode was cut short
    /// by the stop and so is left out of the results.
    fn halted_by(&self, last: &Snapshot) -> bool {
        let client = self.job.borrow().client.clone();
        if let Some(reason) = client.as_ref().and_then(|c| c.halted()) {
            self.failure.borrow_mut().get_or_insert(reason);
            return last.finished == Some(Finish::Stopped);
        }
        let failures = MAX_CONSECUTIVE_FAILURES as usize;
        let by_failures = last.finished == Some(Finish::Stopped)
            && last.turns.len() >= failures
            && last.turns[last.turns.len() - failures..].iter().all(|t| t.error.is_some());
        let in_a_row = if by_failures { self.failed_in_a_row.get() + 1 } else { 0 };
        self.failed_in_a_row.set(in_a_row);
        if in_a_row >= MAX_FAILED_EPISODES_IN_A_ROW {
            self.failure.borrow_mut().get_or_insert(format!(
                "{MAX_FAILED_EPISODES_IN_A_ROW} episodes in a row were stopped by failed calls (the endpoint seems down)"
            ));
            if let Some(c) = client {
                c.abort();
            }
        }
        false
    }
}

/// Runs one task; `None` when it was cancelled midway (its partial record is dropped).
async fn one(
    app: &dyn App,
    id: &crate::QueryId,
    settings: RunSettings,
    agents: &dyn Fn() -> PageAgent,
    cancel: &Cancel,
    slicer: &mut Slicer,
) -> Result<Option<(ResultRecord, Snapshot)>, String> {
    let task = app.generate(id).map_err(|e| e.to_string())?;
    let mut agent = agents();
    let (handle, snapshot) = EpisodeHandle::start(task, settings, agent.info()).await?;
    let last = drive(&handle, snapshot, &mut agent, cancel, Pace::Slices(slicer), |_| {}).await?;
    if last.stop_reason.as_deref() == Some(CANCELLED) {
        return Ok(None);
    }
    Ok(Some((handle.record()?, last)))
}

/// Marks the job ended and saves what it ran as a history run.
async fn finish(job: &Shared, failure: Option<String>) {
    let (name, records) = {
        let mut j = job.borrow_mut();
        j.ended = Some(now_ms() - j.started);
        j.phase = match failure {
            Some(e) => Phase::Failed(e),
            None if j.cancel.get() => Phase::Cancelled,
            None => Phase::Done,
        };
        let l = &j.link;
        let levels = if l.levels.is_empty() {
            "all levels".to_string()
        } else {
            l.levels.iter().map(|l| format!("L{l}")).collect::<Vec<_>>().join("+")
        };
        let mut name = format!("{} · {} {levels} s{}..{}", j.agent.label(), j.app, l.seeds.0, l.seeds.1);
        if !l.knobs.is_empty() {
            name.push_str(&format!(" {}", l.knobs));
        }
        if l.variant != crate::app::PromptVariant::default() {
            name.push_str(&format!(" · {}", l.variant.title()));
        }
        if let Some(t) = l.max_turns {
            name.push_str(&format!(" · {}", crate::view::count(t, "turn", "turns")));
        }
        if j.phase != Phase::Done {
            name.push_str(&format!(" (stopped at {}/{})", j.done(), j.total));
        }
        let mut ordered: Vec<(usize, ResultRecord)> =
            j.positions.iter().copied().zip(j.records.iter().cloned()).collect();
        ordered.sort_by_key(|(position, _)| *position);
        (name, ordered.into_iter().map(|(_, r)| r).collect::<Vec<_>>())
    };
    if !records.is_empty() {
        match store::save(&name, Source::Batch, &records).await {
            Ok(meta) => job.borrow_mut().saved = Some(meta),
            Err(e) => job.borrow_mut().phase = Phase::Failed(format!("not saved to the history: {e}")),
        }
    }
    notify();
}
