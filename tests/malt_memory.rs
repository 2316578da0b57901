//! Memory limits (docs/malt.md, "Answering and checking"): they work only when `monty_alloc` is the global
//! allocator, as in every final binary that runs the sandbox. One test, so no other test's
//! allocations share the process-wide budget while it is armed.

use netpress::malt::graph::Working;
use netpress::malt::sandbox::{self, Failure, Limits};
use netpress::malt::topo::{TopoKey, topology};

#[global_allocator]
static ALLOC: monty_alloc::LimitedAllocator = monty_alloc::LimitedAllocator;

#[test]
fn huge_and_gradual_allocations_are_memory_errors() {
    let graph = || Working::new(topology(TopoKey::default()));
    assert!(sandbox::memory_limit_enforced());
    let cases = [
        "    x = [0] * 10**8\n    return 1",
        "    x = []\n    while True:\n        x.append('y' * 1000)",
        "    x = 'a' * (300 * 1024 * 1024)\n    return 1",
        "    n = G.nodes(data=True)\n    m = [G.nodes(data=True) for i in range(1000)]\n    return 1",
    ];
    // Generous time, so the memory limit is what stops each case even in a debug build.
    let limits = Limits { time: std::time::Duration::from_secs(300), ..Limits::default() };
    for body in cases {
        let program = format!("def process_graph(G):\n{body}\n\nprocess_graph(G)\n");
        let o = sandbox::run(&program, graph(), &limits);
        assert_eq!(o.failure, Some(Failure::Memory), "{body}: {:?}", o.value);
        assert!(o.value.unwrap_err().contains("MemoryError"));
    }
    let ok = sandbox::run(
        "def process_graph(G):\n    return 1\n\nprocess_graph(G)\n",
        graph(),
        &Limits::default(),
    );
    assert!(ok.value.is_ok(), "the limit is lifted and re-armed between runs");
}
