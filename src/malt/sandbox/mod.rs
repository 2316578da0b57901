//! The Python sandbox that runs an agent's `process_graph(G)` (docs/malt.md, "Answering and checking").
//!
//! The outcome of a run is plain data every build has, and so are its limits, which are the
//! shared sandbox layer's ([`crate::sandbox::Limits`]); running needs the `sandbox` feature
//! (the `monty` interpreter, `engine`). Without it — the main web bundle,
//! which routes MALT episodes to the sandbox worker — [`run`] returns a clear error instead.

#[cfg(feature = "sandbox")]
mod engine;

use super::api::Py;
use super::graph::Working;

/// The limits of a run (docs/malt.md, "Answering and checking", gives the defaults the agent
/// is told).
pub use crate::sandbox::Limits;

/// Why a run did not return a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Failure {
    Syntax,
    Exception,
    Timeout,
    Memory,
    Recursion,
    HostCalls,
    ResultTooLarge,
    /// This build has no interpreter.
    Unavailable,
}

/// What one run did.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// The returned value, or the traceback the agent sees.
    pub value: Result<Py, String>,
    pub failure: Option<Failure>,
    pub stdout: String,
    pub stdout_truncated: bool,
    pub host_calls: u64,
    pub elapsed_ms: f64,
    /// The working graph as the run left it (also after an error).
    pub graph: Working,
}

/// The message of a build without the interpreter.
pub const UNAVAILABLE: &str = "The Python sandbox is not in this build (feature `sandbox`): MALT answers run \
in the sandbox worker in the browser, or in the native CLI.";

/// Whether this build can run Python.
pub fn available() -> bool {
    cfg!(feature = "sandbox")
}

/// Whether memory limits are enforced (`monty_alloc` is this binary's global allocator).
pub fn memory_limit_enforced() -> bool {
    #[cfg(feature = "sandbox")]
    return engine::memory_limit_enforced();
    #[cfg(not(feature = "sandbox"))]
    false
}

/// Runs `program` (the agent's code with the call appended) against `graph`.
pub fn run(program: &str, graph: Working, limits: &Limits) -> Outcome {
    #[cfg(feature = "sandbox")]
    return engine::run(program, graph, limits);
    #[cfg(not(feature = "sandbox"))]
    {
        let _ = (program, limits);
        Outcome {
            value: Err(UNAVAILABLE.to_string()),
            failure: Some(Failure::Unavailable),
            stdout: String::new(),
            stdout_truncated: false,
            host_calls: 0,
            elapsed_ms: 0.0,
            graph,
        }
    }
}
