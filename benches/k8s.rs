//! K8s performance targets (docs/k8s.md, "Speed"): the full probe matrix under 200 µs, one agent step
//! with a patch (parse, `kubectl patch`, re-evaluation) under 1 ms, and 10,000 tasks of mixed
//! levels, visibility checks included, under 1 s. Level 4 (admin network policies around the
//! NetworkPolicies) has its own matrix, step and generation entries against the same targets.
//!
//!     cargo bench --bench k8s

mod quick;

use std::hint::black_box;

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use netpress::app::App;
use netpress::k8s::K8sApp;
use netpress::k8s::fault::intended_set;
use netpress::k8s::probe::evaluate_cluster;
use netpress::k8s::task::inject_cluster;

fn matrix(c: &mut Criterion) {
    let cluster = inject_cluster(&intended_set());
    c.bench_function("k8s full probe matrix (385 probes)", |b| {
        b.iter(|| evaluate_cluster(black_box(&cluster)))
    });
}

/// Level 4: the matrix of a task's injected cluster (ANPs and the BANP around the
/// NetworkPolicies) and one step that patches an admin policy.
fn level4(c: &mut Criterion) {
    let id = "k8s-v1-L4-s0-i0".parse().expect("id");
    let built = netpress::k8s::task::build(&id).expect("task");
    c.bench_function("k8s L4 full probe matrix (385 probes, 4 ANPs and the BANP)", |b| {
        b.iter(|| evaluate_cluster(black_box(&built.0.cluster)))
    });
    let task = K8sApp.generate(&id).expect("task");
    let reply = "```bash\nkubectl patch adminnetworkpolicy redis-deny-others --type=merge -p '{\"spec\":{\"priority\":8}}'\n```";
    c.bench_function("k8s L4 one step (kubectl patch anp + layered re-evaluation)", |b| {
        b.iter_batched(|| task.start(None), |mut ep| ep.step(black_box(reply)), BatchSize::SmallInput)
    });
    let mut group = c.benchmark_group("k8s L4 generation");
    group.sample_size(10);
    group.bench_function("1,000 level-4 tasks", |b| {
        b.iter(|| {
            for i in 0..quick::scaled(1_000) {
                black_box(K8sApp.generate(&K8sApp.default_id(4, i, 0)).expect("task"));
            }
        })
    });
    group.finish();
}

fn step(c: &mut Criterion) {
    let task = K8sApp.generate(&"k8s-v1-L1-s0-i0".parse().expect("id")).expect("task");
    let reply =
        "```bash\nkubectl patch networkpolicy adservice --type=merge -p '{\"spec\":{\"egress\":[{}]}}'\n```";
    c.bench_function("k8s one step (parse + kubectl patch + re-evaluation)", |b| {
        b.iter_batched(|| task.start(None), |mut ep| ep.step(black_box(reply)), BatchSize::SmallInput)
    });
}

fn generate(c: &mut Criterion) {
    let mut group = c.benchmark_group("k8s generation");
    group.sample_size(10);
    group.bench_function("10,000 tasks, levels 1-3 mixed", |b| {
        b.iter(|| {
            for i in 0..quick::scaled(10_000) {
                let level = (i % 3) as u8 + 1;
                black_box(K8sApp.generate(&K8sApp.default_id(level, i / 3, 0)).expect("task"));
            }
        })
    });
    group.finish();
}

criterion_group!(benches, matrix, step, generate, level4);
criterion_main!(benches);
