//! A batch of episodes: which task starts next, when the batch stops, which records count.
//!
//! [`Batch`] is the scheduler every surface drives, with no I/O of its own: the CLI's threads
//! ([`run_threads`]) and the page's futures (`web::batch`) ask it for the next task, run the
//! episode however they run episodes, and hand back how it [`Ended`]. It keeps at most `jobs`
//! episodes running, and applies the batch's stop rule:
//!
//! - A single episode stops after three failed calls in a row (see [`super::episode`]). A
//!   batch stops when [`MAX_FAILED_EPISODES_IN_A_ROW`] episodes in a row end that way: the
//!   endpoint is down, and going on would only write hundreds of empty records.
//! - Errors that say the endpoint or key is wrong stop the batch at once: the client cancels
//!   the run's [`Cancel`], which the batch shares.
//! - Once cancelled (by the user, the client or the rule), no task starts, and episodes the
//!   runner stopped early are left out of the results (the one that tripped the rule too), so
//!   that `--resume` (or running the batch again) completes them.
//!
//! Each finished episode is reported as a [`Finished`] event with the batch's progress.

#[cfg(not(target_arch = "wasm32"))]
use std::collections::BTreeMap;
use std::collections::VecDeque;
#[cfg(not(target_arch = "wasm32"))]
use std::sync::Arc;

use super::cancel::Cancel;
use super::episode::{MAX_CONSECUTIVE_FAILURES, Runner, StopCause};
use crate::app::Finish;
#[cfg(not(target_arch = "wasm32"))]
use crate::app::Task;
use crate::conversation::AgentInfo;
use crate::record::ResultRecord;

/// Episodes in a row stopped by failed calls after which a batch stops.
pub const MAX_FAILED_EPISODES_IN_A_ROW: u32 = 3;

/// How an episode of a batch ended: its record, and what stopped it early if anything did.
#[derive(Debug, Clone)]
pub struct Ended {
    pub record: ResultRecord,
    pub cause: Option<StopCause>,
    /// The runner's words for the early stop, when known.
    pub reason: Option<String>,
}

impl Ended {
    /// The end of an episode run by a local [`Runner`].
    pub fn of(runner: &Runner, agent: &AgentInfo) -> Self {
        let reason = runner.stop_reason().map(str::to_string);
        Ended { record: runner.record(agent), cause: runner.stop_cause(), reason }
    }

    /// The end of an episode known only by its record (one run in the sandbox worker): a
    /// stopped episode whose last `MAX_CONSECUTIVE_FAILURES` turns are failed calls was
    /// stopped by failures; any other stopped episode counts as stopped by its caller.
    pub fn from_record(record: ResultRecord) -> Self {
        let failures = MAX_CONSECUTIVE_FAILURES as usize;
        let turns = &record.turns;
        let cause = (record.finish == Finish::Stopped).then(|| {
            let by_failures =
                turns.len() >= failures && turns[turns.len() - failures..].iter().all(|t| t.error.is_some());
            if by_failures { StopCause::Failures } else { StopCause::Caller }
        });
        Ended { record, cause, reason: None }
    }
}

/// One episode of the batch has ended.
#[derive(Debug, Clone)]
pub struct Finished {
    /// The episode's place in the batch's task list.
    pub index: usize,
    /// Its record, or `None` when a cancel cut it short (not a result: run it again).
    pub record: Option<ResultRecord>,
    /// Episodes ended so far, counting this one, of `total`.
    pub done: usize,
    pub total: usize,
}

/// The scheduler of one batch (see the module doc).
#[derive(Debug)]
pub struct Batch<T> {
    queue: VecDeque<(usize, T)>,
    total: usize,
    jobs: usize,
    running: usize,
    done: usize,
    failed_in_a_row: u32,
    cancel: Cancel,
}

impl<T> Batch<T> {
    /// A batch of `tasks` in this order, at most `jobs` (at least one) at a time, stopped by
    /// `cancel`.
    pub fn new(tasks: Vec<T>, jobs: usize, cancel: Cancel) -> Self {
        let total = tasks.len();
        Batch {
            queue: tasks.into_iter().enumerate().collect(),
            total,
            jobs: jobs.max(1),
            running: 0,
            done: 0,
            failed_in_a_row: 0,
            cancel,
        }
    }

    /// How many drivers are worth starting: the concurrency limit, or fewer tasks.
    pub fn lanes(&self) -> usize {
        self.jobs.min(self.total.max(1))
    }

    pub fn total(&self) -> usize {
        self.total
    }

    /// The batch's cancel flag, shared with its agents.
    pub fn cancel(&self) -> &Cancel {
        &self.cancel
    }

    /// The next task to start with its index, while a slot is free, tasks are left and the
    /// batch was not cancelled.
    pub fn start_next(&mut self) -> Option<(usize, T)> {
        if self.cancel.is_cancelled() || self.running >= self.jobs {
            return None;
        }
        let next = self.queue.pop_front()?;
        self.running += 1;
        Some(next)
    }

    /// Nothing runs and nothing more will start.
    pub fn is_over(&self) -> bool {
        self.running == 0 && (self.queue.is_empty() || self.cancel.is_cancelled())
    }

    /// Takes in an ended episode: applies the stop rule and says whether its record counts.
    pub fn finish(&mut self, index: usize, ended: Ended) -> Finished {
        self.end_one();
        if !self.cancel.is_cancelled() {
            self.apply_stop_rule(&ended);
        }
        // After the rule: the episode that trips it was cut short too, and is left out.
        let keep = !(self.cancel.is_cancelled() && ended.cause.is_some());
        Finished { index, record: keep.then_some(ended.record), done: self.done, total: self.total }
    }

    /// Takes back a started task whose episode could not begin (its task failed to generate):
    /// it ends with no record, as a cancelled one does.
    pub fn abandon(&mut self, index: usize) -> Finished {
        self.end_one();
        Finished { index, record: None, done: self.done, total: self.total }
    }

    /// One started task is over, however it ended.
    fn end_one(&mut self) {
        self.running = self.running.saturating_sub(1);
        self.done += 1;
    }

    fn apply_stop_rule(&mut self, ended: &Ended) {
        if ended.cause == Some(StopCause::Failures) {
            self.failed_in_a_row += 1;
        } else {
            self.failed_in_a_row = 0;
        }
        if self.failed_in_a_row >= MAX_FAILED_EPISODES_IN_A_ROW {
            let last = ended.reason.as_deref().unwrap_or("stopped by failed calls");
            self.cancel.cancel(format!(
                "{MAX_FAILED_EPISODES_IN_A_ROW} episodes in a row were {last} (the endpoint seems down)"
            ));
        }
    }
}

/// Puts results that arrive in completion order back into task order (the threads of
/// [`run_threads`]; the page shows results as they come).
#[cfg(not(target_arch = "wasm32"))]
#[derive(Debug)]
struct InOrder<R> {
    next: usize,
    pending: BTreeMap<usize, R>,
}

#[cfg(not(target_arch = "wasm32"))]
impl<R> Default for InOrder<R> {
    fn default() -> Self {
        InOrder { next: 0, pending: BTreeMap::new() }
    }
}

#[cfg(not(target_arch = "wasm32"))]
impl<R> InOrder<R> {
    /// Takes the result of position `index`; returns the results now due, in order.
    fn push(&mut self, index: usize, result: R) -> Vec<R> {
        self.pending.insert(index, result);
        let mut due = Vec::new();
        while let Some(r) = self.pending.remove(&self.next) {
            self.next += 1;
            due.push(r);
        }
        due
    }
}

/// Makes a fresh agent for the episode of a query id.
#[cfg(not(target_arch = "wasm32"))]
pub type AgentFactory<'a> = dyn Fn(&str) -> Box<dyn crate::conversation::Agent> + Sync + 'a;

/// A task of a threaded batch as it waits for its turn: generated already (an
/// `Arc<dyn Task>`), or [`Named`] and generated by the thread that runs its episode.
#[cfg(not(target_arch = "wasm32"))]
pub trait Planned: Send {
    /// The query id, for messages.
    fn id(&self) -> String;
    /// The task, generating it if need be.
    fn task(self) -> crate::Result<Arc<dyn Task>>;
}

#[cfg(not(target_arch = "wasm32"))]
impl Planned for Arc<dyn Task> {
    fn id(&self) -> String {
        self.card().id.clone()
    }

    fn task(self) -> crate::Result<Arc<dyn Task>> {
        Ok(self)
    }
}

/// A task named by its id, generated when its episode starts: a batch of a thousand BGP
/// level-4 Internets then holds the `jobs` running ones, not all of them.
#[cfg(not(target_arch = "wasm32"))]
pub struct Named<'a> {
    pub app: &'a dyn crate::app::App,
    pub id: crate::id::QueryId,
}

#[cfg(not(target_arch = "wasm32"))]
impl Planned for Named<'_> {
    fn id(&self) -> String {
        self.id.to_string()
    }

    fn task(self) -> crate::Result<Arc<dyn Task>> {
        self.app.generate(&self.id)
    }
}

/// Runs `tasks` on `jobs` threads and hands each result to `done` in task order (`None` for
/// an episode a cancel cut short). A cancel stops starting episodes; an error from `done`
/// cancels the batch and is returned, and so does a task that fails to generate.
#[cfg(not(target_arch = "wasm32"))]
pub fn run_threads<T: Planned>(
    tasks: Vec<T>,
    factory: &AgentFactory<'_>,
    settings: super::RunSettings,
    jobs: usize,
    cancel: &Cancel,
    mut done: impl FnMut(Option<ResultRecord>) -> std::io::Result<()>,
) -> std::io::Result<()> {
    use std::sync::{Mutex, mpsc};
    let batch = Batch::new(tasks, jobs, cancel.clone());
    let lanes = batch.lanes();
    let batch = Mutex::new(batch);
    let gate = SandboxGate::new(lanes);
    let (tx, rx) = mpsc::channel();
    std::thread::scope(|scope| {
        for _ in 0..lanes {
            let (tx, batch, gate) = (tx.clone(), &batch, &gate);
            scope.spawn(move || {
                loop {
                    let next = batch.lock().map(|mut b| b.start_next()).unwrap_or(None);
                    let Some((index, planned)) = next else { break };
                    let id = planned.id();
                    let gate = gate.for_task(&id);
                    let planned = gate.hold(|| planned.task());
                    let task = match planned {
                        Ok(task) => task,
                        Err(e) => {
                            cancel.cancel(format!("cannot generate {id}: {e}"));
                            let Ok(finished) = batch.lock().map(|mut b| b.abandon(index)) else { break };
                            let _ = tx.send(finished);
                            continue;
                        }
                    };
                    let mut agent = factory(&id);
                    let mut runner = gate.hold(|| Runner::new(task, settings));
                    super::episode::drive_gated(&mut runner, agent.as_mut(), cancel, gate.mutex());
                    let ended = gate.hold(|| Ended::of(&runner, &agent.info()));
                    gate.hold(|| drop(runner));
                    let Ok(finished) = batch.lock().map(|mut b| b.finish(index, ended)) else { break };
                    if tx.send(finished).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);
        // Every task taken from the batch is sent, and tasks are taken in order, so the
        // reordering never waits for a result that will not come.
        let mut order = InOrder::default();
        for finished in rx {
            for record in order.push(finished.index, finished.record) {
                let id = record.as_ref().map_or(String::new(), |r| r.id.clone());
                if let Err(e) = gate.for_task(&id).hold(|| done(record)) {
                    cancel.cancel(format!("cannot write results: {e}"));
                    return Err(e);
                }
            }
        }
        Ok(())
    })
}

/// One sandboxed step at a time in this process, and nothing else of a sandboxed batch beside it.
///
/// The sandbox's memory limit counts every live byte of the process (`monty_alloc`, the global
/// allocator, keeps one total: docs/sandbox.md, "Native runs"). A lane generating a traffic
/// task of a hundred thousand flow records while another lane's agent code runs would be
/// charged to that code: a spurious `MemoryError`, or, past the limit's small headroom, the
/// allocator ending the whole process. So in a batch of more than one lane, everything a lane
/// does for a sandboxed application's task except waiting for the agent (generating, each step,
/// scoring, writing, dropping) holds one lock. Endpoint agents still overlap their calls, which
/// is where a batch's time goes; other applications are not gated.
#[cfg(not(target_arch = "wasm32"))]
struct SandboxGate {
    lock: Option<std::sync::Mutex<()>>,
}

#[cfg(not(target_arch = "wasm32"))]
impl SandboxGate {
    fn new(lanes: usize) -> Self {
        SandboxGate { lock: (lanes > 1).then(|| std::sync::Mutex::new(())) }
    }

    /// The gate for the task of `id`: shut only for a sandboxed application's task.
    fn for_task(&self, id: &str) -> GateFor<'_> {
        let app = id.parse::<crate::id::QueryId>().map(|q| q.app);
        let sandboxed = app.is_ok_and(|a| crate::registry::info(&a).is_ok_and(|i| i.sandboxed));
        GateFor(self.lock.as_ref().filter(|_| sandboxed))
    }
}

#[cfg(not(target_arch = "wasm32"))]
struct GateFor<'a>(Option<&'a std::sync::Mutex<()>>);

#[cfg(not(target_arch = "wasm32"))]
impl GateFor<'_> {
    fn hold<R>(&self, f: impl FnOnce() -> R) -> R {
        let _held = self.0.map(super::episode::lock_gate);
        f()
    }

    fn mutex(&self) -> Option<&std::sync::Mutex<()>> {
        self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conversation::{AgentError, AgentReply};
    use crate::run::RunSettings;
    use crate::run::episode::tests::toy;

    fn failed_episode() -> Ended {
        let mut r = Runner::new(toy(), RunSettings { max_turns: Some(9), ..Default::default() });
        for _ in 0..3 {
            r.submit(Err(AgentError::retryable("cannot reach http://h/v1/chat/completions")));
        }
        Ended::of(&r, &AgentInfo::new("openai", "m"))
    }

    fn solved_episode() -> Ended {
        let mut r = Runner::new(toy(), RunSettings::default());
        r.submit(Ok(AgentReply { text: "fix".into(), ..Default::default() }));
        Ended::of(&r, &AgentInfo::new("openai", "m"))
    }

    fn batch(n: usize, jobs: usize) -> Batch<usize> {
        Batch::new((0..n).collect(), jobs, Cancel::new())
    }

    #[test]
    fn three_failed_episodes_in_a_row_cancel_the_batch() {
        let mut b = batch(9, 1);
        for ended in
            [failed_episode(), failed_episode(), solved_episode(), failed_episode(), failed_episode()]
        {
            let (i, _) = b.start_next().unwrap();
            b.finish(i, ended);
        }
        assert!(!b.cancel().is_cancelled(), "a success in between resets the count");
        let (i, _) = b.start_next().unwrap();
        let finished = b.finish(i, failed_episode());
        assert!(finished.record.is_none(), "the episode that trips the rule is left for a rerun");
        let reason = b.cancel().reason().unwrap();
        assert!(reason.starts_with("3 episodes in a row were stopped after 3 failed calls"), "{reason}");
        assert!(reason.ends_with("(the endpoint seems down)"), "{reason}");
        assert!(b.start_next().is_none() && b.is_over());
        assert_eq!((finished.done, finished.total), (6, 9));
    }

    #[test]
    fn the_concurrency_limit_holds_and_tasks_come_in_order() {
        let mut b = batch(4, 2);
        assert_eq!(b.lanes(), 2);
        assert_eq!(b.start_next().map(|t| t.0), Some(0));
        assert_eq!(b.start_next().map(|t| t.0), Some(1));
        assert!(b.start_next().is_none(), "two are running");
        b.finish(1, solved_episode());
        assert_eq!(b.start_next().map(|t| t.1), Some(2));
        assert!(!b.is_over());
        assert_eq!(batch(1, 8).lanes(), 1);
    }

    #[test]
    fn cancelled_episodes_are_not_kept() {
        let mut b = batch(3, 3);
        let _ = (b.start_next(), b.start_next(), b.start_next());
        assert!(b.finish(0, failed_episode()).record.is_some());
        b.cancel().cancel("Ctrl-C");
        assert!(b.finish(1, failed_episode()).record.is_none());
        assert!(b.finish(2, solved_episode()).record.is_some(), "finished episodes are kept");
        assert!(b.is_over());
    }

    #[test]
    fn records_tell_failures_from_other_stops() {
        let failed = failed_episode();
        assert_eq!(Ended::from_record(failed.record).cause, Some(StopCause::Failures));
        assert_eq!(Ended::from_record(solved_episode().record).cause, None);
        let mut r = Runner::new(toy(), RunSettings::default());
        r.submit(Err(AgentError::retryable("HTTP 503")));
        r.stop("cancelled: by the user");
        let record = r.record(&AgentInfo::new("openai", "m"));
        assert_eq!(Ended::from_record(record).cause, Some(StopCause::Caller));
    }

    #[test]
    fn results_are_put_back_in_order() {
        let mut order = InOrder::default();
        assert!(order.push(1, 'b').is_empty());
        assert_eq!(order.push(0, 'a'), ['a', 'b']);
        assert_eq!(order.push(2, 'c'), ['c']);
    }

    #[cfg(not(target_arch = "wasm32"))]
    #[test]
    fn threads_deliver_in_order_and_stop_on_cancel() {
        use crate::agent::replay::ReplayAgent;
        let tasks = vec![toy(); 6];
        let factory = |_: &str| -> Box<dyn crate::conversation::Agent> {
            Box::new(ReplayAgent::new(vec!["fix".into()]))
        };
        let cancel = Cancel::new();
        let mut seen = 0;
        run_threads(tasks.clone(), &factory, RunSettings::default(), 3, &cancel, |r| {
            assert_eq!(r.unwrap().finish, crate::app::Finish::Solved);
            seen += 1;
            Ok(())
        })
        .unwrap();
        assert_eq!(seen, 6);
        let err = run_threads(tasks, &factory, RunSettings::default(), 2, &cancel.clone(), |_| {
            Err(std::io::Error::other("disk full"))
        });
        assert_eq!(err.unwrap_err().to_string(), "disk full");
        assert_eq!(cancel.reason().as_deref(), Some("cannot write results: disk full"));
    }
}
