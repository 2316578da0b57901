//! Adaptive mode's integration tests, one binary (one link of the library; see
//! `tests/route/main.rs`): the task spaces of the applications, and the search driven end to
//! end through the runner with deterministic fake agents whose weak region is known.

mod cli;
mod fake;
mod mixture;
mod remote;
mod resume;
mod search;
mod spaces;
