//! The batch job: N tasks run one after another by one agent, in time slices so the page stays
//! responsive. The job lives outside any view, so moving between views does not stop it; views
//! subscribe to its progress with [`use_job`].

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use yew::prelude::*;

use super::super::agents::{CANCELLED, Cancel, Pace, PageAgent, drive, remote};
use super::super::sandbox::EpisodeHandle;
use super::super::settings;
use super::super::store::{self, RunMeta, Source};
use super::super::util::{Slicer, now_ms};
use crate::agent::{AgentInfo, RunSettings};
use crate::app::App;
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
    pub records: Vec<ResultRecord>,
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

async fn run(job: Shared, app: &'static dyn App, ids: Vec<crate::QueryId>, agents: Agents) {
    let (cancel, link) = {
        let j = job.borrow();
        (j.cancel.clone(), j.link.clone())
    };
    let settings = RunSettings { variant: link.variant, max_turns: link.max_turns };
    let mut slicer = Slicer::new(12.0);
    let mut last_redraw = now_ms();
    let mut failure = None;
    for id in ids {
        if cancel.get() {
            break;
        }
        match one(app, &id, settings, &agents, &cancel, &mut slicer).await {
            Ok(Some(record)) => job.borrow_mut().records.push(record),
            Ok(None) => break,
            Err(e) => {
                failure = Some(format!("{id}: {e}"));
                break;
            }
        }
        if now_ms() - last_redraw > REDRAW_MS {
            notify();
            last_redraw = now_ms();
        }
        slicer.tick().await;
    }
    finish(&job, failure).await;
}

/// Runs one task; `None` when it was cancelled midway (its partial record is dropped).
async fn one(
    app: &dyn App,
    id: &crate::QueryId,
    settings: RunSettings,
    agents: &dyn Fn() -> PageAgent,
    cancel: &Cancel,
    slicer: &mut Slicer,
) -> Result<Option<ResultRecord>, String> {
    let task = app.generate(id).map_err(|e| e.to_string())?;
    let mut agent = agents();
    let (handle, snapshot) = EpisodeHandle::start(task, settings, agent.info()).await?;
    let last = drive(&handle, snapshot, &mut agent, cancel, Pace::Slices(slicer), |_| {}).await?;
    if last.stop_reason.as_deref() == Some(CANCELLED) {
        return Ok(None);
    }
    handle.record().map(Some)
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
            name.push_str(&format!(" · {}", l.variant.as_str()));
        }
        if let Some(t) = l.max_turns {
            name.push_str(&format!(" · {t} turns"));
        }
        if j.phase != Phase::Done {
            name.push_str(&format!(" (stopped at {}/{})", j.done(), j.total));
        }
        (name, j.records.clone())
    };
    if !records.is_empty() {
        match store::save(&name, Source::Batch, &records).await {
            Ok(meta) => job.borrow_mut().saved = Some(meta),
            Err(e) => job.borrow_mut().phase = Phase::Failed(format!("not saved to the history: {e}")),
        }
    }
    notify();
}
