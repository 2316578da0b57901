//! `netpress-worker-malt`: the browser's worker bundle for MALT's engine and its Python sandbox
//! (monty), loaded when a malt task opens (feature `worker`, docs/bundles.md). It serves the
//! protocol of `netpress::sandbox::worker` for this one application; traffic and microseg, the
//! other applications answered in Python, have bundles of their own with their own copy of the
//! interpreter, so that one engine's growth does not spend the others' size budget.

/// The memory limit of the sandbox works only with this allocator, armed during runs.
#[global_allocator]
static ALLOC: monty_alloc::LimitedAllocator = monty_alloc::LimitedAllocator;

fn main() {
    netpress::sandbox::serve(&[&netpress::malt::MALT]);
}
