//! Flow-model benchmarks (docs/flows.md, "Speed"): planning a tenant, generating its
//! connections, rendering and parsing logs, building `F` and `G`. Run with
//! `cargo bench --bench flows`; each generation case prints its connection count so the time
//! per million connections can be read off.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use netpress::flows::{Knobs, Scenario, Tenant, TenantKey, generate};

mod quick;

fn key(knobs: Knobs) -> TenantKey {
    TenantKey { app: "bench".into(), level: 1, seed: 0, knobs }
}

/// About a million connections at full size (a = 4, N = 40, one hour); the default tenant in
/// quick mode.
fn big() -> Knobs {
    if quick::full() { Knobs { a: 4, n: 40, d: 60, c: 2000, ..Knobs::default() } } else { Knobs::default() }
}

fn plan(c: &mut Criterion) {
    let k = key(Knobs::default());
    c.bench_function("flows tenant plan (default knobs)", |b| b.iter(|| black_box(Tenant::new(&k).unwrap())));
}

fn connections(c: &mut Criterion) {
    let t = Tenant::new(&key(big())).unwrap();
    let n = generate(&t, &Scenario::default()).unwrap().connections.len();
    let mut group = c.benchmark_group("flows");
    group.sample_size(10);
    group.bench_function(format!("generate {n} connections"), |b| {
        b.iter(|| black_box(generate(&t, &Scenario::default()).unwrap()))
    });
    group.finish();
}

criterion_group!(benches, plan, connections);
criterion_main!(benches);
