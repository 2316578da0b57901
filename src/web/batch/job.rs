//! The batch job: N tasks run by one agent, a few at a time, in time slices so the page stays
//! responsive.
//!
//! Which task starts next, when the batch stops and which records count is the library's
//! [`Batch`] scheduler, the one the CLI's threads drive; [`run_batch`] is only the page's
//! driver of it: futures on the page's one thread instead of threads, episodes through an
//! [`EpisodeHandle`] (local, or in the sandbox worker). The browser tests call [`run_batch`]
//! too, so they exercise what the page ships.
//!
//! The job lives above the views, in a Yew context ([`JobProvider`]), so moving between views
//! does not stop it; views read it and redraw as it progresses with [`use_job`].

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use yew::prelude::*;

use super::super::agents::{CANCELLED, Cancel, Pace, PageAgent, drive, remote};
use super::super::sandbox::{EpisodeHandle, Opened, Workers};
use super::super::settings::EndpointSettings;
use super::super::store::{self, RunMeta, Source};
use super::super::util::{Slicer, now_ms};
use crate::QueryId;
use crate::agent::AgentInfo;
use crate::link::BatchLink;
use crate::record::ResultRecord;
use crate::registry::Registry;
use crate::run::{self, Batch, Ended, Finished, RunSettings};

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
    /// The page's Stop flag; [`run_batch`] passes it on to the library's batch.
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

/// The page's job slot: the current (or last) job, and a count of its redraws.
#[derive(Default)]
pub struct Jobs {
    job: Option<Shared>,
    redraws: u64,
}

impl PartialEq for Jobs {
    fn eq(&self, other: &Self) -> bool {
        self.redraws == other.redraws
            && match (&self.job, &other.job) {
                (Some(a), Some(b)) => Rc::ptr_eq(a, b),
                (a, b) => a.is_none() && b.is_none(),
            }
    }
}

/// What changes the slot: a new job, or progress of the one there.
pub enum JobAction {
    Start(Shared),
    Redraw,
}

impl Reducible for Jobs {
    type Action = JobAction;
    fn reduce(self: Rc<Self>, action: JobAction) -> Rc<Self> {
        let job = match action {
            JobAction::Start(job) => Some(job),
            JobAction::Redraw => self.job.clone(),
        };
        Rc::new(Jobs { job, redraws: self.redraws + 1 })
    }
}

impl Jobs {
    /// The current (or last) job.
    pub fn job_now(&self) -> Option<Shared> {
        self.job.clone()
    }
}

/// The context handle views read the job from.
pub type JobContext = UseReducerHandle<Jobs>;

#[derive(Properties, PartialEq)]
pub struct ProviderProps {
    pub children: Children,
}

/// Holds the job slot for the views below it (the whole page).
#[function_component(JobProvider)]
pub fn job_provider(props: &ProviderProps) -> Html {
    let jobs = use_reducer(Jobs::default);
    html! { <ContextProvider<JobContext> context={jobs}>{ props.children.clone() }</ContextProvider<JobContext>> }
}

/// The job slot (outside a [`JobProvider`]: a detached one nobody shares).
#[hook]
pub fn use_jobs() -> JobContext {
    let own = use_reducer(Jobs::default);
    use_context::<JobContext>().unwrap_or(own)
}

/// The current job; the component redraws whenever it progresses.
#[hook]
pub fn use_job() -> Option<Shared> {
    use_jobs().job_now()
}

type Agents = Box<dyn Fn() -> PageAgent>;

/// The agent a batch link asks for, made fresh per task (the built-in agent, `baseline`, is
/// made anew in the worker for each episode), and the network client behind it if any
/// (reached through `endpoint`).
async fn make_agent(
    baseline: AgentInfo,
    link: &BatchLink,
    endpoint: &EndpointSettings,
) -> Result<(Agents, Option<Rc<dyn remote::RemoteClient>>), String> {
    match link.agent.as_str() {
        "baseline" => Ok((Box::new(move || PageAgent::Builtin(baseline.clone())), None)),
        "endpoint" => {
            let client = remote::connect(endpoint).await?;
            let shared = client.clone();
            Ok((Box::new(move || PageAgent::Remote(shared.clone())), Some(client)))
        }
        other => Err(format!("unknown agent {other:?} (baseline or endpoint)")),
    }
}

/// Starts a job for the link in the page's slot, replacing a finished one; an endpoint agent
/// is reached through `endpoint`. Errors (bad settings) are returned before anything runs.
pub async fn start(
    jobs: JobContext,
    workers: Workers,
    link: BatchLink,
    endpoint: EndpointSettings,
) -> Result<(), String> {
    if jobs.job.as_ref().is_some_and(|j| j.borrow().running()) {
        return Err("a batch is already running; cancel it first".into());
    }
    let info = match &link.app {
        Some(name) => crate::registry::info(name).map_err(|e| e.to_string())?,
        None => *crate::registry::catalog().first().ok_or("no application is registered")?,
    };
    link.selection()?.check(info).map_err(|e| e.to_string())?;
    let ids = link.ids(info)?;
    // Open the first task, in the application's worker: a knob typo fails here and not N
    // times, and the view names the built-in agent.
    let baseline = match ids.first() {
        Some(first) => Opened::open(&workers, &first.to_string()).await?.view.baseline.clone(),
        None => AgentInfo::new("baseline", info.name),
    };
    let (agents, client) = make_agent(baseline, &link, &endpoint).await?;
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
        client: client.clone(),
        link,
    }));
    jobs.dispatch(JobAction::Start(job.clone()));
    let redraw = jobs.dispatcher();
    wasm_bindgen_futures::spawn_local(async move {
        let link = job.borrow().link.clone();
        let plan = Plan {
            local: None,
            ids,
            settings: RunSettings { variant: link.variant, max_turns: link.max_turns },
            jobs: link.jobs as usize,
        };
        let crew = Crew { agents: &agents, client, cancel: job.borrow().cancel.clone(), workers };
        let last_redraw = Cell::new(now_ms());
        let outcome = run_batch(plan, &crew, |finished| {
            if let Some(record) = finished.record {
                let mut j = job.borrow_mut();
                j.records.push(record);
                j.positions.push(finished.index);
            }
            if now_ms() - last_redraw.get() > REDRAW_MS {
                redraw.dispatch(JobAction::Redraw);
                last_redraw.set(now_ms());
            }
        })
        .await;
        finish(&job, outcome.err()).await;
        redraw.dispatch(JobAction::Redraw);
    });
    Ok(())
}

/// Redraw at most this often while a job runs; fast baselines finish many tasks per frame.
const REDRAW_MS: f64 = 150.0;

/// The tasks of a batch and how to run them.
pub struct Plan<'a> {
    /// Where the tasks run: `None` in their applications' workers (the page, which links no
    /// engine); a registry of engines the build links to run them in the page's thread
    /// (browser tests).
    pub local: Option<&'a Registry>,
    /// The tasks in run order ([`BatchLink::ids`]); each is generated when its turn comes.
    pub ids: Vec<QueryId>,
    pub settings: RunSettings,
    /// Episodes at once.
    pub jobs: usize,
}

/// Who runs a batch's episodes.
pub struct Crew<'a> {
    /// A fresh agent per episode.
    pub agents: &'a dyn Fn() -> PageAgent,
    /// The network client behind the agents, if any: a cancel aborts its calls, and a client
    /// that found the endpoint or key wrong stops the batch.
    pub client: Option<Rc<dyn remote::RemoteClient>>,
    /// The user's Stop.
    pub cancel: Cancel,
    /// The page's sandbox workers, for episodes of sandboxed applications.
    pub workers: Workers,
}

/// Runs a batch with the library's scheduler, reporting each finished episode. `Err` says why
/// the batch stopped early when the user did not stop it (a task failed, the endpoint is down
/// or refused the key); a user's stop is `Ok`, and `crew.cancel` is set.
pub async fn run_batch(
    plan: Plan<'_>,
    crew: &Crew<'_>,
    on_finished: impl FnMut(Finished),
) -> Result<(), String> {
    let batch = RefCell::new(Batch::new(plan.ids, plan.jobs, run::Cancel::new()));
    let lanes = batch.borrow().lanes();
    let on_finished = RefCell::new(on_finished);
    let failure = RefCell::new(None::<String>);
    let lane = || async {
        let mut slicer = Slicer::new(12.0);
        loop {
            stop_if_told(&batch.borrow(), crew);
            let next = batch.borrow_mut().start_next();
            let Some((index, id)) = next else { return };
            match one(plan.local, &id, plan.settings, crew, &mut slicer).await {
                Ok(ended) => {
                    let finished = {
                        let mut b = batch.borrow_mut();
                        stop_if_told(&b, crew);
                        b.finish(index, ended)
                    };
                    (on_finished.borrow_mut())(finished);
                }
                Err(e) => {
                    let reason = format!("{id}: {e}");
                    batch.borrow().cancel().cancel(reason.clone());
                    failure.borrow_mut().get_or_insert(reason);
                }
            }
            // The batch's rule or a failed task stops the others' calls in flight too.
            if batch.borrow().cancel().is_cancelled()
                && !crew.cancel.get()
                && let Some(c) = &crew.client
            {
                c.abort();
            }
            slicer.tick().await;
        }
    };
    futures::future::join_all((0..lanes).map(|_| lane())).await;
    let reason = batch.borrow().cancel().reason();
    match failure.take().or(reason) {
        Some(reason) if reason != CANCELLED => Err(reason),
        _ => Ok(()),
    }
}

/// Passes the user's Stop and a client's run-wide error on to the batch.
fn stop_if_told<T>(batch: &Batch<T>, crew: &Crew<'_>) {
    if crew.cancel.get() {
        batch.cancel().cancel(CANCELLED);
    }
    if let Some(reason) = crew.client.as_ref().and_then(|c| c.halted()) {
        batch.cancel().cancel(reason);
    }
}

/// Runs one task to its end (a cancel ends it early; the batch then leaves it out).
async fn one(
    local: Option<&Registry>,
    id: &QueryId,
    settings: RunSettings,
    crew: &Crew<'_>,
    slicer: &mut Slicer,
) -> Result<Ended, String> {
    let mut agent = (crew.agents)();
    let (handle, snapshot) = match local {
        None => {
            EpisodeHandle::start_in_worker(&crew.workers, &id.to_string(), settings, agent.info()).await?
        }
        Some(registry) => {
            let task = registry.generate(&id.to_string()).map_err(|e| e.to_string())?;
            EpisodeHandle::start_local(task, settings, agent.info())
        }
    };
    drive(&handle, snapshot, &mut agent, &crew.cancel, Pace::Slices(slicer), |_| {}).await?;
    Ok(Ended::from_record(handle.record()?))
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
}
