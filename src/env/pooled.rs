//! One step of a session, where it must run: a turn of a sandboxed application's episode
//! (agent code) in a sandbox process (`pool`), every other turn in the caller's process. Every
//! caller that holds sessions steps them here: the server's HTTP and WebSocket sessions, the
//! stdio dispatcher's, and the assessor's episodes ([`drive`]).
//!
//! Sandbox processes hold no episode between steps: each step sends one of them every turn of
//! the session so far plus the new one (the worker's `replay`), and the session adopts the
//! episode it answers. Any process serves any step, and one lost between steps costs nothing.

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::json;

use super::error::{EnvError, Reason};
use super::params::Resolved;
use super::pool::{Lost, SandboxPool};
use super::session::{Session, StepResult, env_agent};
use super::stdio::guarded;
use crate::app::Task;
use crate::conversation::{Agent, AgentError, AgentReply, Message};
use crate::record::ResultRecord;
use crate::registry::Registry;
use crate::run::RunSettings;
use crate::sandbox::{ReplayTurn, Replayed};

/// Steps `session` with `turn`: in a sandbox process of `pool` when its application is
/// sandboxed, else here under `catch_unwind`. Blocks for as long as the run takes.
pub fn step(
    registry: &Registry,
    pool: Option<&SandboxPool>,
    session: &mut Session,
    turn: Result<AgentReply, AgentError>,
) -> Result<StepResult, EnvError> {
    let sandboxed = registry.app(&session.runner().task().card().app).is_ok_and(|a| a.info().sandboxed);
    if sandboxed && session.finished().is_none() {
        return in_sandbox(pool, session, turn);
    }
    guarded(|| session.step(turn))
}

fn in_sandbox(
    pool: Option<&SandboxPool>,
    session: &mut Session,
    turn: Result<AgentReply, AgentError>,
) -> Result<StepResult, EnvError> {
    let pool = pool.filter(|_| session.wants_sandbox()).ok_or_else(|| {
        // Resets refuse what cannot get here; a reply is never run in this process.
        EnvError::new(Reason::SandboxedApp, "this episode's replies need sandbox processes")
    })?;
    match replay(pool, session, &turn)? {
        Ok(replayed) => session.adopt(turn, replayed),
        Err(lost) => {
            // The new turn lost its process (the memory ceiling, a runaway loop): it becomes the
            // fatal failed turn the browser shows. As the first turn it runs no agent code, so
            // here; after others, replayed after them (they ran before without loss).
            let failed = Err(AgentError::fatal(lost.message()));
            if session.sent().is_empty() {
                return guarded(|| session.step(failed));
            }
            match replay(pool, session, &failed)? {
                Ok(replayed) => session.adopt(failed, replayed),
                Err(again) => Err(EnvError::new(
                    Reason::Panic,
                    format!("the sandbox process was lost twice ({}); the step did not run", again.message()),
                )),
            }
        }
    }
}

/// Asks a sandbox process for the session's episode after its turns so far and `turn`.
fn replay(
    pool: &SandboxPool,
    session: &Session,
    turn: &Result<AgentReply, AgentError>,
) -> Result<Result<Replayed, Lost>, EnvError> {
    let runner = session.runner();
    let replies: Vec<ReplayTurn> = session.sent().iter().chain([turn]).map(ReplayTurn::of).collect();
    let request = json!({
        "op": "replay", "id": runner.task().card().id, "replies": replies, "max_turns": runner.max_turns(),
        "variant": runner.variant(), "agent": env_agent(),
    });
    let answer = match pool.run(&request, replies.len())? {
        Ok(answer) => answer,
        Err(lost) => return Ok(Err(lost)),
    };
    if answer["op"] != "replayed" {
        let why = answer["message"].as_str().unwrap_or("?");
        return Err(EnvError::new(Reason::Panic, format!("the sandbox process refused the step: {why}")));
    }
    serde_json::from_value(answer).map(Ok).map_err(|e| {
        EnvError::new(Reason::Panic, format!("the sandbox process sent an unreadable episode: {e}"))
    })
}

/// How long [`drive`] waits out a full sandbox queue before it gives up on a step.
const BUSY_PATIENCE: Duration = Duration::from_secs(60);

/// Plays `task` against a blocking `agent` to the end, every sandboxed turn in `pool`: the
/// record [`crate::run::run_episode`] gives in-process for the same replies. The agent sees the
/// conversation a runner would hold ([`conversation`], rebuilt from the turns the sandbox
/// processes ran). A full queue is waited out (up to a minute); a lost process is the failed
/// turn [`step`] makes of it.
pub fn drive(
    registry: &Registry,
    pool: &SandboxPool,
    task: Arc<dyn Task>,
    settings: RunSettings,
    agent: &mut dyn Agent,
) -> Result<ResultRecord, EnvError> {
    let resolved = Resolved { task, settings, reward: Default::default(), record: false, episode_id: None };
    let (mut session, _) = Session::start(resolved, String::new);
    while session.finished().is_none() {
        let reply = agent.reply(&conversation(&session.record()));
        let since = Instant::now();
        loop {
            match step(registry, Some(pool), &mut session, reply.clone()) {
                Err(e) if e.reason == Reason::SandboxBusy && since.elapsed() < BUSY_PATIENCE => {
                    std::thread::sleep(Duration::from_millis(100));
                }
                done => break done.map(drop)?,
            };
        }
    }
    let mut record = session.record();
    record.agent = agent.info();
    Ok(record)
}

/// The conversation a runner holds after `record`'s turns: the prompt, then each reply and the
/// observation it got; a failed call adds nothing (as [`crate::run::Runner::submit`]).
pub fn conversation(record: &ResultRecord) -> Vec<Message> {
    let mut messages = vec![Message::user(record.prompt.clone())];
    for t in record.turns.iter().filter(|t| t.error.is_none()) {
        messages.push(Message::assistant(t.reply.clone()));
        messages.push(Message::user(t.observation.clone()));
    }
    messages
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conversation::AgentInfo;
    use crate::run::Runner;

    /// The conversation rebuilt from a record is the runner's own, failed calls and an empty
    /// reply included.
    #[test]
    fn the_conversation_of_a_record_is_the_runner_s() {
        let task = Registry::standard().generate("k8s-v1-L1-s0-i0").unwrap();
        let mut runner = Runner::new(task, RunSettings { max_turns: Some(6), ..RunSettings::default() });
        let reply = |t: &str| Ok(AgentReply { text: t.into(), ..AgentReply::default() });
        for turn in
            [reply("kubectl get pods -A"), Err(AgentError::retryable("timeout")), reply(""), reply("x")]
        {
            runner.submit(turn);
            assert_eq!(conversation(&runner.record(&AgentInfo::new("a", "b"))), runner.messages());
        }
    }
}
