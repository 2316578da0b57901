//! One step of a session, where it must run: a reply to a sandboxed application's episode
//! (agent code) in a sandbox process (`pool`), every other turn here, on the blocking pool.

use serde_json::json;

use super::State;
use crate::conversation::{AgentError, AgentReply};
use crate::env::{EnvError, Reason, Session, StepResult, env_agent, guarded};

/// Steps `session` with `turn` (already under the step deadline's thread).
pub(super) fn run(
    state: &State,
    session: &mut Session,
    turn: Result<AgentReply, AgentError>,
) -> Result<StepResult, EnvError> {
    let sandboxed = state.registry.app(&session.runner().task().card().app).is_ok_and(|a| a.info().sandboxed);
    match turn {
        Ok(reply) if sandboxed && session.finished().is_none() => in_sandbox(state, session, reply),
        turn => guarded(|| session.step(turn)),
    }
}

fn in_sandbox(state: &State, session: &mut Session, reply: AgentReply) -> Result<StepResult, EnvError> {
    let pool = state.pool.as_ref().filter(|_| session.wants_sandbox()).ok_or_else(|| {
        // Resets refuse what cannot get here; a reply is never run in this process.
        EnvError::new(Reason::SandboxedApp, "this episode's replies need the server's sandbox processes")
    })?;
    let card = session.runner().task().card();
    let request = json!({
        "op": "check", "id": card.id, "answer": reply.text, "agent": env_agent(),
        "variant": session.runner().variant(), "latency_ms": reply.latency_ms, "tokens": reply.tokens,
    });
    match pool.run(&request)? {
        Ok(answer) if answer["op"] == "checked" => {
            let record = serde_json::from_value(answer["record"].clone()).map_err(|e| {
                EnvError::new(Reason::Panic, format!("the sandbox process sent an unreadable record: {e}"))
            })?;
            session.adopt(record)
        }
        Ok(answer) => Err(EnvError::new(
            Reason::Panic,
            format!("the sandbox process refused the step: {}", answer["message"].as_str().unwrap_or("?")),
        )),
        Err(lost) => guarded(|| session.step(Err(AgentError::fatal(lost.message())))),
    }
}
