//! The repair command language: what an agent types, over several turns, to fix a policy with
//! injected faults (docs/microseg-repair.md).
//!
//! This module only reads: a reply's fenced block becomes a [`Batch`] of typed [`Command`]s,
//! cut at the first line that does not parse, with that line's one-line `error: …` message.
//! Every command prints back (`Display`) as a line that parses to the same command, so the
//! episode can echo and record what it ran. Applying commands needs the policy and the flows
//! and lives with them; [`RepairError`] also carries the errors only that step can find
//! (an unknown group, a rule number out of range), so every message has one wording.

mod ast;
mod error;
mod parse;

pub use ast::{Command, Endpoint, Filter, FlowsQuery, Port, Ports, RuleField, RuleProto, RuleSpec, Show};
pub use error::RepairError;
pub use parse::{Batch, MAX_LINES, RESERVED_GROUPS, parse_command, parse_reply};

#[cfg(test)]
mod tests;
