//! One session: an episode of the runner, its reward and the observation last sent.
//!
//! A session is the one episode loop of the crate ([`Runner`]) with the protocol's view on
//! it: a reset builds a runner, a step hands it one reply (or one failed call) and answers
//! with an [`Observation`] and the reward earned. Nothing here waits or does I/O; every
//! transport (stdio, HTTP, WebSocket) holds sessions of this type.

use serde::{Deserialize, Serialize};

use super::error::{EnvError, Reason};
use super::params::Resolved;
use super::reward::RewardSpec;
use crate::app::{Finish, Score};
use crate::conversation::{AgentError, AgentInfo, AgentReply, Tokens};
use crate::record::{ResultRecord, TurnRecord};
use crate::run::Runner;
use crate::sandbox::Replayed;

/// The largest reply a step accepts, in bytes.
pub const MAX_REPLY_BYTES: usize = 256 * 1024;

/// A step's action as sent: `{"reply", "latency_ms"?, "tokens"?}` or `{"error", "fatal"?}`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Action {
    pub reply: Option<String>,
    pub latency_ms: Option<f64>,
    pub tokens: Option<Tokens>,
    pub error: Option<String>,
    pub fatal: Option<bool>,
}

impl Action {
    /// Parses an action from a message's `data`.
    pub fn from_value(data: Option<serde_json::Value>) -> Result<Self, EnvError> {
        let data = data
            .ok_or_else(|| EnvError::new(Reason::MissingField, "step needs an action: {\"reply\": TEXT}"))?;
        serde_json::from_value(data).map_err(|e| EnvError::from_serde("action", &e))
    }

    /// The reply or failed call this action stands for.
    pub fn into_turn(self) -> Result<Result<AgentReply, AgentError>, EnvError> {
        match (self.reply, self.error) {
            (Some(_), Some(_)) => {
                Err(EnvError::new(Reason::BadValue, "an action has a reply or an error, not both"))
            }
            (None, None) => {
                Err(EnvError::new(Reason::MissingField, "an action needs \"reply\" (or \"error\")"))
            }
            (Some(text), None) if text.len() > MAX_REPLY_BYTES => Err(EnvError::new(
                Reason::ReplyTooLarge,
                format!("the reply has {} bytes; the limit is {MAX_REPLY_BYTES}", text.len()),
            )),
            (Some(text), None) => {
                Ok(Ok(AgentReply { text, latency_ms: self.latency_ms, tokens: self.tokens }))
            }
            (None, Some(message)) => Ok(Err(AgentError { message, fatal: self.fatal.unwrap_or(false) })),
        }
    }
}

/// What the agent sees after a reset or a step. Every field is top level (OpenEnv drops a
/// `metadata` field when it serialises an observation).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Observation {
    /// The prompt after a reset, else the text the agent sees next.
    pub text: String,
    pub episode_id: String,
    pub task_id: String,
    pub content_hash: String,
    pub app: String,
    pub level: u8,
    pub label: String,
    /// Turns used.
    pub turn: u32,
    pub max_turns: u32,
    pub finish: Option<Finish>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub action: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exit_status: Option<i32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub notes: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub score: Option<Score>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub record: Option<Box<ResultRecord>>,
}

/// An observation with its envelope: `{observation, reward, done}`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StepResult {
    pub observation: Observation,
    /// `null` after a reset.
    pub reward: Option<f64>,
    pub done: bool,
}

/// A session's state (`GET /state`, `{"type": "state"}`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct State {
    pub episode_id: String,
    pub step_count: u32,
    pub task_id: String,
    pub content_hash: String,
    pub label: String,
    pub max_turns: u32,
    pub finish: Option<Finish>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub score: Option<Score>,
}

/// The agent a session's result record names.
pub fn env_agent() -> AgentInfo {
    AgentInfo::new("env", super::PROTOCOL)
}

/// One episode behind the protocol.
pub struct Session {
    episode_id: String,
    runner: Runner,
    reward: RewardSpec,
    record: bool,
    /// The episode's progress after the last step (for dense rewards).
    progress: f64,
    /// The score card once the episode is over, kept: scoring walks the whole episode (a
    /// record), and every later step, state and observation reports the same card.
    final_score: Option<Score>,
    /// The turns a sandbox worker ran so far (a sandboxed application's turn runs agent code,
    /// which runs in a worker process, not here), sent again with every later step.
    sent: Vec<Result<AgentReply, AgentError>>,
    /// The episode as the worker last replayed it: from then on the episode's truth.
    remote: Option<Replayed>,
}

impl Session {
    /// Starts the episode `resolved` names under `episode_id` (the client's, else `minted`).
    pub fn start(resolved: Resolved, minted: impl FnOnce() -> String) -> (Session, StepResult) {
        let episode_id = resolved.episode_id.unwrap_or_else(minted);
        let runner = Runner::new(resolved.task, resolved.settings);
        let progress =
            if resolved.reward.dense_weight().is_some() { runner.episode().score().progress } else { 0.0 };
        let mut session = Session {
            episode_id,
            runner,
            reward: resolved.reward,
            record: resolved.record,
            progress,
            final_score: None,
            sent: Vec::new(),
            remote: None,
        };
        session.keep_score();
        let text = session.runner.messages()[0].content.clone();
        let observation = session.observation(text);
        (session, StepResult { observation, reward: None, done: false })
    }

    pub fn episode_id(&self) -> &str {
        &self.episode_id
    }

    pub fn runner(&self) -> &Runner {
        &self.runner
    }

    pub fn finished(&self) -> Option<Finish> {
        match &self.remote {
            Some(r) => r.finished,
            None => self.runner.finished(),
        }
    }

    /// The turns so far (the worker's, once one ran the episode).
    fn turns(&self) -> &[TurnRecord] {
        self.remote.as_ref().map_or(self.runner.turns(), |r| &r.record.turns)
    }

    fn progress(&self) -> f64 {
        self.remote
            .as_ref()
            .map_or_else(|| self.runner.episode().score().progress, |r| r.record.score.progress)
    }

    /// Whether a turn goes to [`Session::adopt`] through a sandbox worker rather than to
    /// [`Session::step`]: the episode is still open and no turn of it ran here.
    pub fn wants_sandbox(&self) -> bool {
        self.finished().is_none() && self.runner.turns().is_empty()
    }

    /// The turns a sandbox worker ran so far, in order: a worker replays them, then the next.
    pub fn sent(&self) -> &[Result<AgentReply, AgentError>] {
        &self.sent
    }

    /// The step of `turn` that a sandbox worker ran: `replayed` is its episode of this task,
    /// prompt variant and turn limit fed [`Session::sent`] then `turn`. An answer for another
    /// task or settings, with another number of turns, whose earlier turns differ from the ones
    /// adopted before, or that claims to go on past the turn limit, is refused (the session is
    /// left as it was).
    pub fn adopt(
        &mut self,
        turn: Result<AgentReply, AgentError>,
        replayed: Replayed,
    ) -> Result<StepResult, EnvError> {
        let card = self.runner.task().card();
        let r = &replayed.record;
        let n = self.sent.len();
        let fits = self.wants_sandbox()
            && r.id == card.id
            && r.content_hash == card.content_hash
            && r.prompt_variant == self.runner.variant()
            && r.max_turns == self.max_turns()
            && r.turns.len() == n + 1
            && r.turns[..n] == *self.turns()
            && (replayed.finished.is_some() || r.turns.len() < self.max_turns() as usize);
        if !fits {
            return Err(EnvError::new(
                Reason::Panic,
                format!(
                    "the sandbox worker answered for another episode ({}, {} turns)",
                    r.id,
                    r.turns.len()
                ),
            ));
        }
        self.sent.push(turn);
        self.remote = Some(replayed);
        Ok(self.after_turn())
    }

    /// One turn: the reply (or failed call) goes to the runner; the reward is the final one on
    /// the step that ends the episode, plus the shaping term when the reward is dense. A step
    /// after the end changes nothing and says so.
    pub fn step(&mut self, turn: Result<AgentReply, AgentError>) -> StepResult {
        if let Some(finish) = self.finished() {
            let text = format!(
                "The episode is over ({}); this step changed nothing. Send reset to start another.",
                finish_name(finish)
            );
            let mut observation = self.observation(text);
            observation.notes = Some(vec!["step after the end of the episode: ignored".into()]);
            return StepResult { observation, reward: Some(0.0), done: true };
        }
        self.runner.submit(turn);
        self.after_turn()
    }

    /// The answer to the turn just taken (here or in a sandbox worker).
    fn after_turn(&mut self) -> StepResult {
        self.keep_score();
        let mut reward = 0.0;
        if let Some(alpha) = self.reward.dense_weight() {
            let progress = self.progress();
            reward += alpha * (progress - self.progress);
            self.progress = progress;
        }
        let last = self.turns().last().cloned().unwrap_or_default();
        let text = match &last.error {
            None => last.observation.clone(),
            Some(e) => format!("The agent call failed ({e}); the episode did not step."),
        };
        let mut observation = self.observation(text);
        observation.action = Some(last.action);
        observation.output = Some(last.output);
        observation.exit_status = last.exit_status;
        observation.notes = Some(last.notes);
        let done = self.finished().is_some();
        if done {
            let score = observation.score.as_ref().expect("a finished observation has its score");
            reward += self.reward.final_reward(score, observation.turn, observation.max_turns);
        }
        StepResult { observation, reward: Some(reward), done }
    }

    /// Scores the episode once, when it has just finished.
    fn keep_score(&mut self) {
        if self.final_score.is_none() && self.finished().is_some() {
            self.final_score = Some(self.record().score);
        }
    }

    /// The observation of the episode as it stands, with `text`.
    fn observation(&self, text: String) -> Observation {
        let card = self.runner.task().card();
        let finish = self.finished();
        Observation {
            text,
            episode_id: self.episode_id.clone(),
            task_id: card.id.clone(),
            content_hash: card.content_hash.clone(),
            app: card.app.clone(),
            level: card.level,
            label: card.label.clone(),
            turn: self.turns().len() as u32,
            max_turns: self.max_turns(),
            finish,
            action: None,
            output: None,
            exit_status: None,
            notes: None,
            score: self.final_score.clone(),
            record: self.final_score.as_ref().filter(|_| self.record).map(|_| Box::new(self.record())),
        }
    }

    fn max_turns(&self) -> u32 {
        self.runner.max_turns()
    }

    /// The session's state.
    pub fn state(&self) -> State {
        let card = self.runner.task().card();
        let finish = self.finished();
        State {
            episode_id: self.episode_id.clone(),
            step_count: self.turns().len() as u32,
            task_id: card.id.clone(),
            content_hash: card.content_hash.clone(),
            label: card.label.clone(),
            max_turns: self.max_turns(),
            finish,
            score: self.final_score.clone(),
        }
    }

    /// The result record of the episode as it stands (`netpress.result.v1`).
    pub fn record(&self) -> ResultRecord {
        match &self.remote {
            Some(r) => r.record.clone(),
            None => self.runner.record(&env_agent()),
        }
    }
}

fn finish_name(finish: Finish) -> String {
    serde_json::to_value(finish).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;
    use crate::env::{Defaults, ResetParams};
    use crate::registry::Registry;
    use crate::sandbox::ReplayTurn;
    use crate::sandbox::worker::Worker;

    fn session(id: &str) -> Session {
        let p: ResetParams = serde_json::from_value(json!({"task_id": id, "max_turns": 3})).unwrap();
        Session::start(p.resolve_with(Registry::standard(), &Defaults::default(), true).unwrap(), || {
            "e".into()
        })
        .0
    }

    /// What a worker answers to a replay of `turns` on `id`.
    fn replayed(id: &str, turns: &[Result<AgentReply, AgentError>]) -> Replayed {
        let replies: Vec<ReplayTurn> = turns.iter().map(ReplayTurn::of).collect();
        let request =
            json!({"op": "replay", "id": id, "replies": replies, "max_turns": 3, "agent": env_agent()});
        let answer: Value = serde_json::from_str(&Worker::default().handle(&request.to_string())[0]).unwrap();
        serde_json::from_value(answer).unwrap()
    }

    /// The session takes a replay of its own turns plus one, and refuses another task's or one
    /// whose earlier turns differ, staying as it was.
    #[test]
    fn adopt_takes_its_own_episode_only() {
        let id = "malt-v1-L1-s0-i4";
        let mut s = session(id);
        let first: Result<AgentReply, AgentError> =
            Ok(AgentReply { text: "no code".into(), ..Default::default() });
        let r = s.adopt(first.clone(), replayed(id, std::slice::from_ref(&first))).unwrap();
        assert_eq!((r.observation.turn, r.done, r.reward), (1, false, Some(0.0)));
        let second = Err(AgentError::retryable("timeout"));
        let other = replayed("malt-v1-L1-s1-i4", &[first.clone(), second.clone()]);
        assert_eq!(s.adopt(second.clone(), other).unwrap_err().reason, Reason::Panic);
        let rewritten = replayed(id, &[Err(AgentError::retryable("x")), second.clone()]);
        assert_eq!(s.adopt(second.clone(), rewritten).unwrap_err().reason, Reason::Panic);
        assert_eq!((s.state().step_count, s.sent().len()), (1, 1));
        let r = s.adopt(second.clone(), replayed(id, &[first, second])).unwrap();
        assert_eq!((r.observation.turn, r.done), (2, false));
    }
}
