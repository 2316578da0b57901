//! The replay agent: replies recorded earlier, for regression tests and shared trajectories.
//!
//! A replay source is one of:
//! - a results file (JSONL of [`ResultRecord`](crate::record::ResultRecord)s): each query id replays the raw replies of its
//!   recorded turns, in order (failed calls are skipped);
//! - a JSON array of strings: the same replies for every query;
//! - plain text: split as the answer kind pastes ([`Pasting`]): a program is one reply;
//!   otherwise one reply per non-empty line, lines starting with `#` ignored.
//!
//! When its replies run out the agent fails fatally, which ends the episode as `stopped`.

use std::collections::BTreeMap;

use super::{Agent, AgentError, AgentInfo, AgentReply, Message};
use crate::answer::{AnswerKind, Pasting};
use crate::error::{Error, Result};
use crate::record::parse_results;

/// Parsed replay material.
#[derive(Debug, Clone, PartialEq)]
pub enum ReplaySource {
    /// Replies per query id, from a results file.
    ById(BTreeMap<String, Vec<String>>),
    /// The same replies for every query.
    Same(Vec<String>),
}

impl ReplaySource {
    /// Parses replay material; `answer` says how plain text splits into replies.
    pub fn parse(text: &str, answer: AnswerKind) -> Result<Self> {
        let trimmed = text.trim_start();
        if trimmed.starts_with('[') {
            let replies: Vec<String> = serde_json::from_str(trimmed)
                .map_err(|e| Error::Invalid(format!("replay: not a JSON array of strings: {e}")))?;
            return Ok(ReplaySource::Same(replies));
        }
        if trimmed.starts_with('{') {
            let (records, errors) = parse_results(text);
            if let Some(first) = errors.first() {
                return Err(Error::Invalid(format!("replay: {first}")));
            }
            let mut by_id = BTreeMap::new();
            for r in records {
                let replies = r.turns.into_iter().filter(|t| t.error.is_none()).map(|t| t.reply);
                by_id.insert(r.id, replies.collect());
            }
            return Ok(ReplaySource::ById(by_id));
        }
        let replies = match answer.pasting() {
            Pasting::Whole => crate::paste::whole_replies(text),
            Pasting::PerTurn => text
                .lines()
                .map(str::trim)
                .filter(|l| !l.is_empty() && !l.starts_with('#'))
                .map(str::to_string)
                .collect(),
        };
        Ok(ReplaySource::Same(replies))
    }

    /// An agent replaying this source for one query.
    pub fn agent_for(&self, id: &str) -> ReplayAgent {
        let replies = match self {
            ReplaySource::ById(map) => map.get(id).cloned().unwrap_or_default(),
            ReplaySource::Same(replies) => replies.clone(),
        };
        ReplayAgent { replies, next: 0 }
    }
}

/// Replies a fixed list in order.
#[derive(Debug, Clone)]
pub struct ReplayAgent {
    replies: Vec<String>,
    next: usize,
}

impl ReplayAgent {
    pub fn new(replies: Vec<String>) -> Self {
        ReplayAgent { replies, next: 0 }
    }
}

impl Agent for ReplayAgent {
    fn info(&self) -> AgentInfo {
        AgentInfo::new("replay", "replay")
    }

    fn reply(&mut self, _messages: &[Message]) -> Result<AgentReply, AgentError> {
        let text = self.replies.get(self.next).cloned().ok_or_else(|| {
            AgentError::fatal(format!("replay exhausted after {} replies", self.replies.len()))
        })?;
        self.next += 1;
        Ok(AgentReply { text, latency_ms: None, tokens: None })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_text_is_one_reply_per_line() {
        let src = ReplaySource::parse(
            "# fix\nr0: ip link set r0-eth1 up\n\nh1: ping -c1 r0\n",
            AnswerKind::MachineCommands,
        )
        .unwrap();
        assert_eq!(
            src,
            ReplaySource::Same(vec!["r0: ip link set r0-eth1 up".into(), "h1: ping -c1 r0".into()])
        );
    }

    #[test]
    fn python_is_one_reply() {
        let code = "def process_graph(G):\n    return {}\n";
        let src = ReplaySource::parse(code, AnswerKind::Python).unwrap();
        assert_eq!(src, ReplaySource::Same(vec![code.into()]));
    }

    #[test]
    fn an_investigation_replays_line_by_line() {
        let kind = AnswerKind::Investigation { final_answer: &[] };
        let src = ReplaySource::parse("whois AS7\n{\"final_answer\": {}}\n", kind).unwrap();
        assert_eq!(src, ReplaySource::Same(vec!["whois AS7".into(), "{\"final_answer\": {}}".into()]));
    }

    #[test]
    fn json_array_and_exhaustion() {
        let src = ReplaySource::parse(r#"["a", "b"]"#, AnswerKind::Commands).unwrap();
        let mut agent = src.agent_for("any");
        assert_eq!(agent.reply(&[]).unwrap().text, "a");
        assert_eq!(agent.reply(&[]).unwrap().text, "b");
        let err = agent.reply(&[]).unwrap_err();
        assert!(err.fatal);
        assert_eq!(err.message, "replay exhausted after 2 replies");
    }

    #[test]
    fn bad_json_is_a_clear_error() {
        let err = ReplaySource::parse("[1, 2]", AnswerKind::Commands).unwrap_err();
        assert!(err.to_string().starts_with("replay: not a JSON array of strings"));
    }
}
