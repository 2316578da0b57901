//! `netpress-worker-microseg`: the browser's worker bundle for microseg's engine and its Python
//! sandbox (monty), loaded when a microseg task opens (feature `worker`, docs/bundles.md). It
//! serves the protocol of `netpress::sandbox::worker` for this one application.

/// The memory limit of the sandbox works only with this allocator, armed during runs.
#[global_allocator]
static ALLOC: monty_alloc::LimitedAllocator = monty_alloc::LimitedAllocator;

fn main() {
    netpress::sandbox::serve(&[&netpress::microseg::MICROSEG]);
}
