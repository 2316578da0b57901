//! `netpress-worker-traffic`: the browser's worker bundle for traffic's engine and its Python
//! sandbox (monty), loaded when a traffic task opens (feature `worker`, docs/bundles.md). It
//! serves the protocol of `netpress::sandbox::worker` for this one application.

/// The memory limit of the sandbox works only with this allocator, armed during runs.
#[global_allocator]
static ALLOC: monty_alloc::LimitedAllocator = monty_alloc::LimitedAllocator;

fn main() {
    netpress::sandbox::serve(&[&netpress::traffic::TRAFFIC]);
}
