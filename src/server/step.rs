//! One step of a session, where it must run: a turn of a sandboxed application's episode
//! (agent code) in a sandbox process (`pool`), every other turn here, on the blocking pool.
//!
//! Sandbox processes hold no episode between steps: each step sends one of them every turn of
//! the session so far plus the new one (the worker's `replay`), and the session adopts the
//! episode it answers. Any process serves any step, and one lost between steps costs nothing.

use serde_json::json;

use super::State;
use super::pool::{Lost, SandboxPool};
use crate::conversation::{AgentError, AgentReply};
use crate::env::{EnvError, Reason, Session, StepResult, env_agent, guarded};
use crate::sandbox::{ReplayTurn, Replayed};

/// Steps `session` with `turn` (already under the step deadline's thread).
pub(super) fn run(
    state: &State,
    session: &mut Session,
    turn: Result<AgentReply, AgentError>,
) -> Result<StepResult, EnvError> {
    let sandboxed = state.registry.app(&session.runner().task().card().app).is_ok_and(|a| a.info().sandboxed);
    if sandboxed && session.finished().is_none() {
        return in_sandbox(state, session, turn);
    }
    guarded(|| session.step(turn))
}

fn in_sandbox(
    state: &State,
    session: &mut Session,
    turn: Result<AgentReply, AgentError>,
) -> Result<StepResult, EnvError> {
    let pool = state.pool.as_ref().filter(|_| session.wants_sandbox()).ok_or_else(|| {
        // Resets refuse what cannot get here; a reply is never run in this process.
        EnvError::new(Reason::SandboxedApp, "this episode's replies need the server's sandbox processes")
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
