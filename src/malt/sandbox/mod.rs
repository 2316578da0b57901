//! The Python sandbox that runs an agent's `process_graph(G)` (docs/malt.md, "Answering and checking").
//!
//! The outcome of a run is plain data every build has, and so are its limits, which are the
//! shared sandbox layer's ([`crate::sandbox::Limits`]); running needs the `sandbox` feature
//! (the `monty` interpreter, `engine`). Without it — the main web bundle,
//! which routes MALT episodes to the sandbox worker — [`run`] returns a clear error instead.

#[cfg(feature = "sandbox")]
mod engine;

use super::api::{ApiResult, Budget, Py};
use super::graph::Working;

/// The host objects a program receives as its inputs (MALT's `G`; the traffic application's
/// `F` and `G`). Each is methods only: a call arrives here with the object's index in
/// [`Host::names`], and nothing else about the objects reaches the interpreter.
pub trait Host {
    /// The input names, in the order the program's entry point takes them.
    fn names(&self) -> &'static [&'static str];
    /// The Python class name of input `object` (shown in the interpreter's own errors).
    fn class(&self, object: usize) -> &'static str;
    /// Calls `method` on input `object`.
    fn call(
        &mut self,
        object: usize,
        method: &str,
        args: Vec<Py>,
        kwargs: Vec<(String, Py)>,
        budget: Budget<'_>,
    ) -> ApiResult<Py>;
    /// The `AttributeError` message of a non-call attribute read on input `object`.
    fn attribute_message(&self, object: usize) -> &'static str;
}

/// MALT's one input, the working graph `G`.
impl Host for Working {
    fn names(&self) -> &'static [&'static str] {
        &["G"]
    }
    fn class(&self, _: usize) -> &'static str {
        "Graph"
    }
    fn call(
        &mut self,
        _: usize,
        method: &str,
        args: Vec<Py>,
        kwargs: Vec<(String, Py)>,
        budget: Budget<'_>,
    ) -> ApiResult<Py> {
        super::api::call(self, method, args, kwargs, budget)
    }
    fn attribute_message(&self, _: usize) -> &'static str {
        super::api::ATTRIBUTE_MESSAGE
    }
}

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
pub struct Outcome<H = Working> {
    /// The returned value, or the traceback the agent sees.
    pub value: Result<Py, String>,
    pub failure: Option<Failure>,
    pub stdout: String,
    pub stdout_truncated: bool,
    pub host_calls: u64,
    pub elapsed_ms: f64,
    /// The host objects (MALT's working graph) as the run left them (also after an error).
    pub graph: H,
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

/// Runs `program` (the agent's code with the call appended) against `graph`, whose inputs
/// the program sees under [`Host::names`].
pub fn run<H: Host>(program: &str, graph: H, limits: &Limits) -> Outcome<H> {
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
