//! `netpress-worker-bgp`: the browser's worker bundle for BGP's engine, loaded when a bgp task
//! opens (feature `worker`, docs/bundles.md). It serves the protocol of
//! `netpress::sandbox::worker` for this one application, so it links no other engine.

/// The memory limit of the sandbox works only with this allocator, armed during runs.
#[global_allocator]
static ALLOC: monty_alloc::LimitedAllocator = monty_alloc::LimitedAllocator;

fn main() {
    netpress::sandbox::serve(&[&netpress::bgp::BgpApp]);
}
