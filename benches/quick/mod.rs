//! Quick mode. `cargo test --benches` (CI) runs each benchmark once, so the benchmarks keep
//! compiling and working without costing minutes of debug-build time; `cargo bench` passes
//! `--bench` to the harness and gets the full workloads whose figures README reports.

/// Whether this run is a real benchmark (`cargo bench`) rather than CI's quick check.
pub fn full() -> bool {
    std::env::args().any(|a| a == "--bench")
}

/// `n` when benchmarking; a hundredth of it (at least one) in quick mode.
#[allow(dead_code)] // not every benchmark scales a workload
pub fn scaled(n: u64) -> u64 {
    if full() { n } else { (n / 100).max(1) }
}
