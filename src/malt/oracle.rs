//! The `oracle` agent (docs/malt.md, "Agents without a language model"): answers with the reference solution rendered from the
//! task's resolved plan. It must score 100% correct and safe, which cross-checks the
//! generator, the G API, the sandbox and the checker against each other.
//!
//! Unlike the baseline it needs the task, not just the conversation: build it from the id
//! with [`for_id`] (the CLI's agent factory receives each task's id).

use crate::conversation::{AgentInfo, Program};
use crate::error::Result;

use super::generate::{Generated, generate};
use super::python;

/// The reference solution of a generated task.
pub fn solution(task: &Generated) -> String {
    python::render(&task.plan)
}

/// The agent replying with one task's reference solution.
pub fn agent(task: &Generated) -> Program {
    Program { info: AgentInfo::new("oracle", "malt-oracle"), code: solution(task) }
}

/// The oracle of the task an id names.
pub fn for_id(id: &str) -> Result<Program> {
    let id: crate::QueryId = id.parse()?;
    super::MALT_INFO.check_id(&id)?;
    Ok(agent(&generate(&id)?))
}
