//! `netpress-worker`: the sandbox worker for every registered application (feature `worker`).
//!
//! Natively it is a JSON-lines filter (one request per line on stdin, responses on stdout),
//! for tests and for comparing browser results with native ones. The browser loads each
//! application's own bundle instead (`netpress-worker-<app>`, docs/bundles.md). The protocol,
//! every op and field, is described once, in `netpress::sandbox::worker`; docs/sandbox.md says
//! why the worker exists and when the page respawns one.

/// The memory limit of the sandbox works only with this allocator, armed during runs.
#[global_allocator]
static ALLOC: monty_alloc::LimitedAllocator = monty_alloc::LimitedAllocator;

fn main() {
    netpress::sandbox::serve(netpress::registry::Registry::standard().apps());
}
