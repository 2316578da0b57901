//! The `oracle` agent (docs/malt.md, "Agents without a language model"): answers with the reference solution rendered from the
//! task's resolved plan. It must score 100% correct and safe, which cross-checks the
//! generator, the G API, the sandbox and the checker against each other.
//!
//! Unlike the baseline it needs the task, not just the conversation: build it from the id
//! with [`OracleAgent::for_id`] (the CLI's agent factory receives each task's id).

use crate::conversation::{Agent, AgentError, AgentInfo, AgentReply, Message};
use crate::error::Result;

use super::generate::{Generated, generate};
use super::python;

/// The reference solution of a generated task.
pub fn solution(task: &Generated) -> String {
    python::render(&task.plan)
}

/// Replies with one task's reference solution.
#[derive(Debug, Clone)]
pub struct OracleAgent {
    code: String,
}

impl OracleAgent {
    pub fn new(task: &Generated) -> OracleAgent {
        OracleAgent { code: solution(task) }
    }

    /// The oracle of the task an id names.
    pub fn for_id(id: &str) -> Result<OracleAgent> {
        let id: crate::QueryId = id.parse()?;
        super::MALT_INFO.check_id(&id)?;
        Ok(OracleAgent::new(&generate(&id)?))
    }
}

impl Agent for OracleAgent {
    fn info(&self) -> AgentInfo {
        AgentInfo::new("oracle", "malt-oracle")
    }

    fn reply(&mut self, _messages: &[Message]) -> Result<AgentReply, AgentError> {
        Ok(AgentReply { text: format!("```python\n{}\n```", self.code), latency_ms: None, tokens: None })
    }
}
