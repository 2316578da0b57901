//! `netpress-worker-malt`: the browser's worker bundle for MALT's engine and its Python sandbox (monty), loaded when a malt task
//! opens (feature `worker`, docs/bundles.md). It serves the protocol of
//! `netpress::sandbox::worker` for MALT and for traffic and microseg, the other applications
//! answered in Python: the interpreter is most of the bundle, so they share it (the loader maps
//! traffic and microseg here) rather than each carry a copy.

/// The memory limit of the sandbox works only with this allocator, armed during runs.
#[global_allocator]
static ALLOC: monty_alloc::LimitedAllocator = monty_alloc::LimitedAllocator;

fn main() {
    netpress::sandbox::serve(&[
        &netpress::malt::MALT,
        &netpress::traffic::TRAFFIC,
        &netpress::microseg::MICROSEG,
    ]);
}
