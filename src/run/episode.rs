//! One episode: the multi-turn loop, as a state machine without I/O.
//!
//! [`Runner`] owns the conversation: it sends the prompt, passes each reply to the episode,
//! appends the observation and stops when the episode finishes, the turn limit is reached or
//! the agent keeps failing. It never calls the agent itself: a driver asks it for
//! [`Runner::messages`], gets a reply however it can (a blocking call, a `fetch`, a recorded
//! turn) and hands it to [`Runner::submit`]. So one runner serves the CLI's threads
//! ([`drive`], [`run_episode`]), the page's futures and re-scoring ([`super::rescore()`]).
//!
//! Conversation shape: the first user message is the task's prompt in the chosen variant; each
//! assistant reply is followed by a user message holding the episode's observation. The loop
//! ends when the episode finishes (solved, turn limit, single-shot answer) or the agent fails.
//!
//! Failure rule: a failed call (network error, timeout, HTTP error, bad body) is recorded as a
//! turn with its error and counts against the turn limit, but does not step the episode. The
//! run stops at once on a fatal error (bad key, cancel, exhausted replay) and after
//! [`MAX_CONSECUTIVE_FAILURES`] failures in a row. An empty, refused or unparseable *reply*
//! is not a failure of the call: the episode sees it and answers with its parse error (an
//! empty reply also gets a note in the turn record). Which errors are fatal is decided by the
//! clients (`retry.rs`): wrong endpoint or key stops the whole run, a rejected request stops the
//! episode, timeouts and network or server errors (after retries) are failed turns.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::cancel::Cancel;
use crate::app::{Episode, Finish, PromptVariant, Task};
use crate::conversation::{Agent, AgentError, AgentInfo, AgentReply, Message, Tokens, transcript};
use crate::record::{ResultRecord, TurnRecord};

/// Failed calls in a row after which the runner gives up on the agent.
pub const MAX_CONSECUTIVE_FAILURES: u32 = 3;

/// Why the runner stopped an episode before it finished by itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StopCause {
    /// `MAX_CONSECUTIVE_FAILURES` failed calls in a row.
    Failures,
    /// A fatal agent error (rejected request, exhausted replay, cancelled call).
    Fatal,
    /// The caller stopped it (user cancel, end of a recorded episode).
    Caller,
}

/// How to run an episode.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunSettings {
    pub variant: PromptVariant,
    /// Overrides the task's turn limit.
    pub max_turns: Option<u32>,
}

/// One episode in progress with its conversation and turn log.
pub struct Runner {
    task: Arc<dyn Task>,
    episode: Box<dyn Episode>,
    settings: RunSettings,
    max_turns: u32,
    messages: Vec<Message>,
    turns: Vec<TurnRecord>,
    failures_in_a_row: u32,
    stopped: Option<(StopCause, String)>,
}

impl Runner {
    pub fn new(task: Arc<dyn Task>, settings: RunSettings) -> Self {
        let max_turns = settings.max_turns.unwrap_or(task.card().max_turns).max(1);
        let episode = task.start(Some(max_turns));
        let prompt = task.prompt(settings.variant);
        Runner {
            task,
            episode,
            settings,
            max_turns,
            messages: vec![Message::user(prompt)],
            turns: Vec::new(),
            failures_in_a_row: 0,
            stopped: None,
        }
    }

    pub fn task(&self) -> &Arc<dyn Task> {
        &self.task
    }

    pub fn episode(&self) -> &dyn Episode {
        self.episode.as_ref()
    }

    /// The conversation to send next (valid while [`Runner::finished`] is `None`).
    pub fn messages(&self) -> &[Message] {
        &self.messages
    }

    /// The whole conversation as one text, for agents that take a transcript per turn (A2A).
    pub fn transcript(&self) -> String {
        transcript(&self.messages)
    }

    pub fn turns(&self) -> &[TurnRecord] {
        &self.turns
    }

    /// The prompt variant the episode was started with.
    pub fn variant(&self) -> PromptVariant {
        self.settings.variant
    }

    /// The turn limit in force (the settings', else the task's).
    pub fn max_turns(&self) -> u32 {
        self.max_turns
    }

    pub fn finished(&self) -> Option<Finish> {
        if self.stopped.is_some() {
            return Some(Finish::Stopped);
        }
        self.episode.finished()
    }

    /// Why the runner stopped early, if it did.
    pub fn stop_reason(&self) -> Option<&str> {
        self.stopped.as_ref().map(|(_, r)| r.as_str())
    }

    /// What stopped the episode early, if anything did.
    pub fn stop_cause(&self) -> Option<StopCause> {
        self.stopped.as_ref().map(|(c, _)| *c)
    }

    /// Feeds one agent reply (or failure) into the episode. Ignored once finished.
    pub fn submit(&mut self, reply: Result<AgentReply, AgentError>) {
        if self.finished().is_some() {
            return;
        }
        let turn = self.turns.len() as u32 + 1;
        match reply {
            Ok(reply) => self.submit_reply(turn, reply),
            Err(error) => self.submit_failure(turn, error),
        }
        if self.finished().is_none() && self.turns.len() as u32 >= self.max_turns {
            self.episode.stop();
        }
    }

    fn submit_reply(&mut self, turn: u32, reply: AgentReply) {
        self.failures_in_a_row = 0;
        let mut outcome = self.episode.step(&reply.text);
        if reply.text.trim().is_empty() {
            outcome.notes.push("The agent's reply was empty.".to_string());
        }
        self.messages.push(Message::assistant(reply.text.clone()));
        self.messages.push(Message::user(outcome.observation.clone()));
        self.turns.push(TurnRecord {
            turn,
            reply: reply.text,
            action: outcome.action,
            output: outcome.output,
            exit_status: outcome.exit_status,
            observation: outcome.observation,
            notes: outcome.notes,
            error: None,
            latency_ms: reply.latency_ms,
            tokens: reply.tokens,
        });
    }

    fn submit_failure(&mut self, turn: u32, error: AgentError) {
        self.failures_in_a_row += 1;
        let stop = if error.fatal {
            Some((StopCause::Fatal, format!("stopped: {}", error.message)))
        } else if self.failures_in_a_row >= MAX_CONSECUTIVE_FAILURES {
            let reason =
                format!("stopped after {MAX_CONSECUTIVE_FAILURES} failed calls in a row: {}", error.message);
            Some((StopCause::Failures, reason))
        } else {
            None
        };
        self.turns.push(TurnRecord { turn, error: Some(error.message), ..TurnRecord::default() });
        if let Some((cause, reason)) = stop {
            self.stop_with(cause, reason);
        }
    }

    /// Stops the episode if the run was cancelled (before a call); true when it is over.
    pub fn stop_if_cancelled(&mut self, cancel: &Cancel) -> bool {
        if cancel.is_cancelled() {
            let reason = cancel.reason().unwrap_or_else(|| "by the user".into());
            self.stop(format!("cancelled: {reason}"));
        }
        self.finished().is_some()
    }

    /// Ends the episode early (user cancel, end of a recorded episode).
    pub fn stop(&mut self, reason: impl Into<String>) {
        self.stop_with(StopCause::Caller, reason.into());
    }

    fn stop_with(&mut self, cause: StopCause, reason: String) {
        if self.finished().is_none() {
            self.episode.stop();
            self.stopped = Some((cause, reason));
        }
    }

    /// The result record of the episode as it stands.
    pub fn record(&self, agent: &AgentInfo) -> ResultRecord {
        let card = self.task.card();
        let mut score = self.episode.score();
        // Failed calls use turns too (they count against the limit), which the episode never saw.
        score.turns = self.turns.len() as u32;
        score.explanation = with_turns_used(&score.explanation, &self.turns, self.max_turns);
        score.latency_ms = sum_latency(&self.turns);
        score.tokens = sum_tokens(&self.turns);
        if let Some((_, reason)) = &self.stopped {
            score.details.correctness.push(format!("Run {reason}."));
        }
        ResultRecord {
            schema: crate::record::SCHEMA.to_string(),
            netpress_version: crate::VERSION.to_string(),
            id: card.id.clone(),
            content_hash: card.content_hash.clone(),
            app: card.app.clone(),
            level: card.level,
            label: card.label.clone(),
            agent: agent.clone(),
            prompt_variant: self.settings.variant,
            max_turns: self.max_turns,
            prompt: self.messages[0].content.clone(),
            turns: self.turns.clone(),
            finish: self.finished().unwrap_or(Finish::Stopped),
            score,
        }
    }
}

/// The explanation with the one count of turns used (the record's: replies and failed calls
/// alike), so the text and the score card's figure agree.
fn with_turns_used(explanation: &str, turns: &[TurnRecord], max_turns: u32) -> String {
    let count = |n: usize, noun: &str| if n == 1 { format!("1 {noun}") } else { format!("{n} {noun}s") };
    let failed = turns.iter().filter(|t| t.error.is_some()).count();
    let mut sentence = format!("{} of {max_turns} used", count(turns.len(), "turn"));
    if failed > 0 {
        sentence.push_str(&format!(" ({} that ran nothing)", count(failed, "failed agent call")));
    }
    let explanation = explanation.trim_end();
    if explanation.is_empty() { format!("{sentence}.") } else { format!("{explanation} {sentence}.") }
}

/// Summed agent latency; `None` if any turn's latency was not measured.
fn sum_latency(turns: &[TurnRecord]) -> Option<f64> {
    turns.iter().try_fold(0.0, |sum, t| t.latency_ms.map(|ms| sum + ms))
}

/// Summed tokens over the turns that report them; `None` if none do.
fn sum_tokens(turns: &[TurnRecord]) -> Option<u64> {
    let reported: Vec<Tokens> = turns.iter().filter_map(|t| t.tokens).collect();
    (!reported.is_empty()).then(|| reported.iter().map(|t| t.total()).sum())
}

/// Runs one episode to the end with a blocking agent.
pub fn run_episode(task: Arc<dyn Task>, agent: &mut dyn Agent, settings: RunSettings) -> ResultRecord {
    let mut runner = Runner::new(task, settings);
    drive(&mut runner, agent, &Cancel::new());
    runner.record(&agent.info())
}

/// Feeds a blocking agent's replies to the runner until the episode ends or `cancel` is set
/// (checked before every call; the agent should also watch it during a call).
pub fn drive(runner: &mut Runner, agent: &mut dyn Agent, cancel: &Cancel) {
    drive_gated(runner, agent, cancel, None);
}

/// [`drive`], each step under `gate` when there is one (the agent's call outside it).
pub(crate) fn drive_gated(
    runner: &mut Runner,
    agent: &mut dyn Agent,
    cancel: &Cancel,
    gate: Option<&std::sync::Mutex<()>>,
) {
    let held = || gate.map(lock_gate);
    while !{
        let _held = held();
        runner.stop_if_cancelled(cancel)
    } {
        let reply = agent.reply(runner.messages());
        let _held = held();
        runner.submit(reply);
    }
}

/// Takes a gate; a lane that panicked while holding it left nothing to repair, so a poisoned
/// lock is taken as it is.
pub(crate) fn lock_gate(gate: &std::sync::Mutex<()>) -> std::sync::MutexGuard<'_, ()> {
    gate.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::agent::replay::ReplayAgent;
    use crate::app::{Score, StepOutcome, TaskCard};
    use crate::view::Picture;

    /// A toy task: solved when the agent replies `fix`.
    struct Toy(TaskCard);
    struct ToyEpisode {
        turns: u32,
        max: u32,
        solved: bool,
        stopped: bool,
    }

    impl Task for Toy {
        fn card(&self) -> &TaskCard {
            &self.0
        }
        fn prompt(&self, v: PromptVariant) -> String {
            format!("toy prompt ({})", v.as_str())
        }
        fn start(&self, max_turns: Option<u32>) -> Box<dyn Episode> {
            Box::new(ToyEpisode { turns: 0, max: max_turns.unwrap_or(3), solved: false, stopped: false })
        }
        fn picture(&self) -> Picture {
            Picture::default()
        }
    }

    impl Episode for ToyEpisode {
        fn step(&mut self, reply: &str) -> StepOutcome {
            self.turns += 1;
            self.solved = reply.trim() == "fix";
            StepOutcome {
                action: reply.into(),
                observation: format!("state {}", self.solved),
                ..Default::default()
            }
        }
        fn finished(&self) -> Option<Finish> {
            if self.solved {
                Some(Finish::Solved)
            } else if self.stopped || self.turns >= self.max {
                Some(Finish::TurnLimit)
            } else {
                None
            }
        }
        fn turns(&self) -> u32 {
            self.turns
        }
        fn score(&self) -> Score {
            Score {
                correct: self.solved,
                safe: true,
                progress: f64::from(u8::from(self.solved)),
                turns: self.turns,
                ..Default::default()
            }
        }
        fn stop(&mut self) {
            self.stopped = true;
        }
    }

    pub(crate) fn toy() -> Arc<dyn Task> {
        Arc::new(Toy(TaskCard {
            id: "toy-v1-L1-s0-i0".into(),
            app: "toy".into(),
            version: 1,
            level: 1,
            label: "T".into(),
            prompt: "toy prompt (zeroshot_base)".into(),
            content_hash: "00".into(),
            params: Default::default(),
            expected: serde_json::Value::Null,
            question: None,
            max_turns: 3,
        }))
    }

    #[test]
    fn solves_and_records_the_conversation() {
        let mut agent = ReplayAgent::new(vec!["look".into(), "fix".into()]);
        let r = run_episode(toy(), &mut agent, RunSettings::default());
        assert_eq!(r.finish, Finish::Solved);
        assert!(r.score.correct);
        assert_eq!(r.turns.len(), 2);
        assert_eq!(r.turns[1].observation, "state true");
        assert_eq!(r.prompt, "toy prompt (zeroshot_base)");
        assert_eq!(r.score.latency_ms, None, "replay latency is not measured");
    }

    #[test]
    fn turn_limit_from_settings() {
        let mut agent = ReplayAgent::new(vec!["a".into(); 9]);
        let settings = RunSettings { max_turns: Some(2), ..Default::default() };
        let r = run_episode(toy(), &mut agent, settings);
        assert_eq!((r.finish, r.turns.len(), r.max_turns), (Finish::TurnLimit, 2, 2));
    }

    #[test]
    fn failures_are_turns_and_three_in_a_row_stop() {
        let mut runner = Runner::new(toy(), RunSettings { max_turns: Some(10), ..Default::default() });
        for _ in 0..3 {
            runner.submit(Err(AgentError::retryable("timeout after 30 s")));
        }
        assert_eq!(runner.finished(), Some(Finish::Stopped));
        let r = runner.record(&AgentInfo::new("openai", "m"));
        assert_eq!((r.turns.len(), r.score.turns), (3, 3));
        assert_eq!(r.turns[0].error.as_deref(), Some("timeout after 30 s"));
        assert!(r.score.details.correctness.last().unwrap().contains("3 failed calls in a row"));
        // The explanation counts turns as the record does, failed calls included.
        assert!(
            r.score.explanation.ends_with("3 turns of 10 used (3 failed agent calls that ran nothing)."),
            "{}",
            r.score.explanation
        );
    }

    #[test]
    fn failures_count_against_the_limit_and_latency_sums() {
        let mut runner = Runner::new(toy(), RunSettings { max_turns: Some(3), ..Default::default() });
        runner.submit(Err(AgentError::retryable("HTTP 503")));
        runner.submit(Ok(AgentReply {
            text: "look".into(),
            latency_ms: Some(10.0),
            tokens: Some(Tokens { prompt: 5, completion: 2 }),
        }));
        runner.submit(Ok(AgentReply { text: "look".into(), latency_ms: Some(5.5), tokens: None }));
        assert_eq!(runner.finished(), Some(Finish::TurnLimit));
        let r = runner.record(&AgentInfo::new("openai", "m"));
        assert_eq!(r.score.latency_ms, None, "a turn without latency makes the sum unmeasured");
        assert_eq!(r.score.tokens, Some(7));
        assert_eq!(runner.messages().len(), 5);
    }

    #[test]
    fn fatal_error_stops_at_once_and_submit_after_finish_is_ignored() {
        let mut runner = Runner::new(toy(), RunSettings::default());
        runner.submit(Err(AgentError::fatal("HTTP 401: bad key")));
        assert_eq!(runner.stop_reason(), Some("stopped: HTTP 401: bad key"));
        runner.submit(Ok(AgentReply { text: "fix".into(), ..Default::default() }));
        assert_eq!(runner.turns().len(), 1);
    }

    #[test]
    fn transcript_labels_each_message() {
        let mut runner = Runner::new(toy(), RunSettings::default());
        runner.submit(Ok(AgentReply { text: "look".into(), ..Default::default() }));
        let t = runner.transcript();
        assert!(t.starts_with("=== Task ===\ntoy prompt"));
        assert!(t.contains("=== Your reply ===\nlook\n\n=== Observation ===\nstate false"));
    }

    #[test]
    fn stop_causes_and_empty_reply_notes() {
        let mut runner = Runner::new(toy(), RunSettings { max_turns: Some(9), ..Default::default() });
        runner.submit(Ok(AgentReply { text: "  ".into(), ..Default::default() }));
        assert_eq!(runner.turns()[0].notes, vec!["The agent's reply was empty.".to_string()]);
        for _ in 0..3 {
            runner.submit(Err(AgentError::retryable("HTTP 503")));
        }
        assert_eq!(runner.stop_cause(), Some(StopCause::Failures));
        let mut runner = Runner::new(toy(), RunSettings::default());
        runner.submit(Err(AgentError::fatal("HTTP 400")));
        assert_eq!(runner.stop_cause(), Some(StopCause::Fatal));
        let mut runner = Runner::new(toy(), RunSettings::default());
        runner.stop("cancelled: by the user");
        assert_eq!(runner.stop_cause(), Some(StopCause::Caller));
    }

    #[test]
    fn drive_stops_when_cancelled() {
        let cancel = Cancel::new();
        let mut runner = Runner::new(toy(), RunSettings::default());
        let mut agent = ReplayAgent::new(vec!["look".into(); 5]);
        cancel.cancel("Ctrl-C");
        drive(&mut runner, &mut agent, &cancel);
        assert_eq!((runner.turns().len(), runner.stop_reason()), (0, Some("cancelled: Ctrl-C")));
        assert_eq!(runner.record(&agent.info()).finish, Finish::Stopped);
    }
}
