//! The flow model's browser target, measured where it is set: generating a million
//! connections inside a browser worker (docs/flows.md, "Speed in the browser").
//!
//! Native benchmarks (`benches/flows.rs`) cannot say how fast the same code runs as wasm in a
//! worker, and a page-level test times far more than the model (emitting, `F`, the graph). This
//! bench compiles the model for wasm32 and times it with wasm-bindgen-test's port of criterion
//! in a dedicated worker of headless Chrome, on the same tenant as the native bench's
//! "generate N connections" row (a = 4, N = 40, one hour: 1,144,408 connections), so the two
//! figures compare directly. Run it with `bash scripts/flows-wasm-bench.sh`; natively this
//! target is empty.

// A `harness = false` target needs a `main`; on wasm32 the test runner calls the exported
// benchmarks instead, so it is empty there too.
fn main() {}

#[cfg(target_arch = "wasm32")]
mod worker {
    use std::hint::black_box;

    use netpress::flows::{Knobs, Scenario, Tenant, TenantKey, generate};
    use wasm_bindgen_test::{Criterion, wasm_bindgen_bench, wasm_bindgen_test_configure};

    wasm_bindgen_test_configure!(run_in_dedicated_worker);

    /// The native bench's full-size tenant (`benches/flows.rs`, `big`).
    fn big() -> TenantKey {
        let knobs = Knobs { a: 4, n: 40, d: 60, c: 2000, ..Knobs::default() };
        TenantKey { app: "bench".into(), level: 1, seed: 0, knobs }
    }

    /// The figure is meant for a worker: check that the runner put us in one.
    fn in_a_worker() -> bool {
        js_sys::global().constructor().name() == "DedicatedWorkerGlobalScope"
    }

    #[wasm_bindgen_bench]
    fn connections(c: &mut Criterion) {
        assert!(in_a_worker(), "not in a dedicated worker");
        // Half a second a run: ten samples, as the native row takes, rather than a hundred.
        *c = std::mem::take(c).sample_size(10);
        let t = Tenant::new(&big()).unwrap();
        let n = generate(&t, &Scenario::default()).unwrap().connections.len();
        // The same trace natively and here (the goldens check the bytes; this checks the size
        // the figure is divided by).
        assert_eq!(n, 1_144_408, "the bench tenant's connection count changed");
        c.bench_function(&format!("generate {n} connections in a worker"), |b| {
            b.iter(|| black_box(generate(&t, &Scenario::default()).unwrap()))
        });
    }

    #[wasm_bindgen_bench]
    fn plan(c: &mut Criterion) {
        let k = TenantKey { app: "bench".into(), level: 1, seed: 0, knobs: Knobs::default() };
        c.bench_function("tenant plan (default knobs) in a worker", |b| {
            b.iter(|| black_box(Tenant::new(&k).unwrap()))
        });
    }
}
