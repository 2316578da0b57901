//! The run-wide failure rule for batches of episodes.
//!
//! A single episode stops after three failed calls in a row (see [`super::runner`]). A batch
//! stops when [`MAX_FAILED_EPISODES_IN_A_ROW`] episodes in a row end that way: the endpoint
//! is down, and going on would only write hundreds of empty records. Errors that say the
//! endpoint or key is wrong stop the batch at once (the client cancels the run).
//!
//! [`run_threads`] runs a batch natively on several threads (the CLI's `--jobs`); the browser's
//! single-threaded counterpart is `web::endpoint::run_batch`.

use super::cancel::Cancel;
use super::runner::{Runner, StopCause};

/// Episodes in a row stopped by failed calls after which a batch stops.
pub const MAX_FAILED_EPISODES_IN_A_ROW: u32 = 3;

/// Watches finished episodes of a batch, in completion order.
#[derive(Debug, Default)]
pub struct BatchGuard {
    in_a_row: u32,
}

impl BatchGuard {
    /// Notes a finished episode; cancels the run when the rule says so.
    pub fn observe(&mut self, runner: &Runner, cancel: &Cancel) {
        if cancel.is_cancelled() {
            return;
        }
        if runner.stop_cause() == Some(StopCause::Failures) {
            self.in_a_row += 1;
        } else {
            self.in_a_row = 0;
        }
        if self.in_a_row >= MAX_FAILED_EPISODES_IN_A_ROW {
            let last = runner.stop_reason().unwrap_or_default();
            cancel.cancel(format!(
                "{MAX_FAILED_EPISODES_IN_A_ROW} episodes in a row were {last} (the endpoint seems down)"
            ));
        }
    }

    /// Whether a finished episode's record belongs in the results: episodes cut short by a
    /// cancel are left out, so that `--resume` (or running the batch again) completes them.
    pub fn keep(runner: &Runner, cancel: &Cancel) -> bool {
        !(cancel.is_cancelled() && runner.stop_cause().is_some())
    }
}

/// Makes a fresh agent for the episode of a query id.
#[cfg(not(target_arch = "wasm32"))]
pub type AgentFactory<'a> = dyn Fn(&str) -> Box<dyn super::Agent> + Sync + 'a;

/// Runs `tasks` on `jobs` threads and hands each result to `done` in task order (`None` for
/// an episode a cancel cut short). A cancel stops starting episodes; an error from `done`
/// cancels the batch and is returned.
#[cfg(not(target_arch = "wasm32"))]
pub fn run_threads(
    tasks: Vec<std::sync::Arc<dyn crate::app::Task>>,
    factory: &AgentFactory<'_>,
    settings: super::RunSettings,
    jobs: usize,
    cancel: &Cancel,
    mut done: impl FnMut(Option<crate::record::ResultRecord>) -> std::io::Result<()>,
) -> std::io::Result<()> {
    use std::sync::{Mutex, mpsc};
    let total = tasks.len();
    let queue = Mutex::new(tasks.into_iter().enumerate());
    let guard = Mutex::new(BatchGuard::default());
    let (tx, rx) = mpsc::channel();
    std::thread::scope(|scope| {
        for _ in 0..jobs.clamp(1, total.max(1)) {
            let (tx, queue, guard) = (tx.clone(), &queue, &guard);
            scope.spawn(move || {
                while !cancel.is_cancelled() {
                    let next = queue.lock().map(|mut q| q.next()).unwrap_or(None);
                    let Some((pos, task)) = next else { break };
                    let mut agent = factory(&task.card().id);
                    let mut runner = Runner::new(task, settings);
                    super::runner::drive(&mut runner, agent.as_mut(), cancel);
                    if let Ok(mut g) = guard.lock() {
                        g.observe(&runner, cancel);
                    }
                    let record = BatchGuard::keep(&runner, cancel).then(|| runner.record(&agent.info()));
                    if tx.send((pos, record)).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);
        // Episodes finish out of order; deliver them in task order. Every position taken
        // from the queue is sent, and positions are taken in order, so nothing waits forever.
        let mut pending = std::collections::BTreeMap::new();
        let mut next = 0;
        for (pos, record) in rx {
            pending.insert(pos, record);
            while let Some(record) = pending.remove(&next) {
                next += 1;
                if let Err(e) = done(record) {
                    cancel.cancel(format!("cannot write results: {e}"));
                    return Err(e);
                }
            }
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::runner::tests::toy;
    use crate::agent::{AgentError, AgentReply, RunSettings};

    fn failed_episode() -> Runner {
        let mut r = Runner::new(toy(), RunSettings { max_turns: Some(9), ..Default::default() });
        for _ in 0..3 {
            r.submit(Err(AgentError::retryable("cannot reach http://h/v1/chat/completions")));
        }
        r
    }

    fn solved_episode() -> Runner {
        let mut r = Runner::new(toy(), RunSettings::default());
        r.submit(Ok(AgentReply { text: "fix".into(), ..Default::default() }));
        r
    }

    #[test]
    fn three_failed_episodes_in_a_row_cancel_the_batch() {
        let cancel = Cancel::new();
        let mut guard = BatchGuard::default();
        guard.observe(&failed_episode(), &cancel);
        guard.observe(&failed_episode(), &cancel);
        guard.observe(&solved_episode(), &cancel);
        guard.observe(&failed_episode(), &cancel);
        guard.observe(&failed_episode(), &cancel);
        assert!(!cancel.is_cancelled(), "a success in between resets the count");
        guard.observe(&failed_episode(), &cancel);
        let reason = cancel.reason().unwrap();
        assert!(reason.starts_with("3 episodes in a row were stopped after 3 failed calls"), "{reason}");
    }

    #[cfg(not(target_arch = "wasm32"))]
    #[test]
    fn threads_deliver_in_order_and_stop_on_cancel() {
        use crate::agent::replay::ReplayAgent;
        let tasks = vec![toy(); 6];
        let factory =
            |_: &str| -> Box<dyn crate::agent::Agent> { Box::new(ReplayAgent::new(vec!["fix".into()])) };
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

    #[test]
    fn cancelled_episodes_are_not_kept() {
        let cancel = Cancel::new();
        assert!(BatchGuard::keep(&failed_episode(), &cancel));
        cancel.cancel("Ctrl-C");
        assert!(!BatchGuard::keep(&failed_episode(), &cancel));
        assert!(BatchGuard::keep(&solved_episode(), &cancel), "finished episodes are kept");
    }
}
