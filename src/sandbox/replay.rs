//! The worker's `replay` op on the wire: the turns a server sends and the episode it gets back.
//!
//! A server that runs a sandboxed application's multi-turn episode keeps no episode in its
//! sandbox processes. Each step it sends one of them every turn so far plus the new one; the
//! process runs a fresh episode through them in order and answers with the episode as it
//! stands. Episodes are pure functions of the task and the turns, so the replayed episode is
//! the one a persistent episode would be, any process can serve any step, and a process lost
//! between steps loses nothing. These types are both ends' (the worker in
//! [`super::worker`], the session in `crate::env`), so they live here, outside the worker.

use serde::{Deserialize, Serialize};

use crate::app::Finish;
use crate::conversation::{AgentError, AgentReply, Tokens};
use crate::record::ResultRecord;

/// One turn of a replay: an agent reply `{"text", "latency_ms"?, "tokens"?}` or a failed agent
/// call `{"fail": MESSAGE, "fatal"?}`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReplayTurn {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency_ms: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens: Option<Tokens>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fail: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fatal: Option<bool>,
}

impl ReplayTurn {
    /// The wire form of a turn.
    pub fn of(turn: &Result<AgentReply, AgentError>) -> ReplayTurn {
        match turn {
            Ok(r) => ReplayTurn {
                text: Some(r.text.clone()),
                latency_ms: r.latency_ms,
                tokens: r.tokens,
                ..ReplayTurn::default()
            },
            Err(e) => {
                ReplayTurn { fail: Some(e.message.clone()), fatal: Some(e.fatal), ..ReplayTurn::default() }
            }
        }
    }

    /// The turn this stands for; a turn with both or neither of `text` and `fail`, or a failure
    /// with a latency or tokens, is refused.
    pub fn into_turn(self) -> Result<Result<AgentReply, AgentError>, String> {
        match (self.text, self.fail) {
            (Some(text), None) if self.fatal.is_none() => {
                Ok(Ok(AgentReply { text, latency_ms: self.latency_ms, tokens: self.tokens }))
            }
            (None, Some(message)) if self.latency_ms.is_none() && self.tokens.is_none() => {
                Ok(Err(AgentError { message, fatal: self.fatal.unwrap_or(false) }))
            }
            _ => Err("a replayed turn is {\"text\", \"latency_ms\"?, \"tokens\"?} or {\"fail\", \"fatal\"?}"
                .into()),
        }
    }
}

/// The worker's answer to a replay: the finish (`None` while the episode goes on) and the
/// record of the episode as it stands, its turns, score and progress. Until the episode ends
/// the record's own `finish` is a placeholder (`stopped`); `finished` is the truth.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Replayed {
    pub finished: Option<Finish>,
    pub record: ResultRecord,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn turns_round_trip_and_malformed_ones_are_refused() {
        let turns = [
            Ok(AgentReply { text: "x".into(), latency_ms: Some(2.5), tokens: None }),
            Err(AgentError::retryable("timeout")),
            Err(AgentError::fatal("bad key")),
        ];
        for t in turns {
            let wire: ReplayTurn =
                serde_json::from_value(serde_json::to_value(ReplayTurn::of(&t)).unwrap()).unwrap();
            assert_eq!(wire.into_turn().unwrap(), t);
        }
        for bad in [
            serde_json::json!({}),
            serde_json::json!({"text": "x", "fail": "y"}),
            serde_json::json!({"text": "x", "fatal": true}),
            serde_json::json!({"fail": "y", "latency_ms": 1.0}),
        ] {
            let wire: ReplayTurn = serde_json::from_value(bad.clone()).unwrap();
            assert!(wire.into_turn().is_err(), "{bad}");
        }
        assert!(serde_json::from_value::<ReplayTurn>(serde_json::json!({"reply": "x"})).is_err());
    }
}
