//! MALT performance targets (docs/malt.md, "Measured"), with criterion and a percentile
//! table (p50/p95/max, which criterion does not report):
//! - topology build: default (p50 < 20 ms) and xl, over a million nodes (< 2 s);
//! - task generation with ground truth, every family, default topology (p95 < 5 ms);
//! - checking an oracle answer of every mutating family: sandbox run + diff + safety (p95 <
//!   30 ms natively).
//!
//! `cargo bench --bench malt` runs both; `cargo bench --bench malt -- --percentiles` prints only
//! the table (the figures in docs/malt.md).

mod quick;

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group};
use netpress::agent::Agent;
use netpress::app::Episode;
use netpress::malt::generate::generate;
use netpress::malt::oracle;
use netpress::malt::topo::{Shape, TopoKey, Topology, topology};
use netpress::malt::{Family, MaltTask};

#[global_allocator]
static ALLOC: monty_alloc::LimitedAllocator = monty_alloc::LimitedAllocator;

fn id(family: Family, seed: u64) -> String {
    let pos = Family::of_level(family.level()).iter().position(|f| *f == family).unwrap();
    format!("malt-v1-L{}-s{seed}-i{pos}", family.level())
}

/// A task and its oracle's reply.
fn oracle_case(family: Family, seed: u64) -> (MaltTask, String) {
    let id = id(family, seed);
    let task = MaltTask::new(generate(&id.parse().unwrap()).unwrap());
    let reply = oracle::for_id(&id).unwrap().reply(&[]).unwrap().text;
    (task, reply)
}

fn check(task: &MaltTask, reply: &str) -> bool {
    let mut ep = task.start_with(None, Default::default());
    ep.step(reply);
    ep.score().correct
}

fn mutating() -> impl Iterator<Item = Family> {
    Family::ALL.into_iter().filter(|f| !f.read_only())
}

fn criterion_targets(c: &mut Criterion) {
    let mut g = c.benchmark_group("topology");
    g.sample_size(20);
    g.bench_function("build/default", |b| b.iter(|| Topology::build(black_box(TopoKey::default()))));
    g.sample_size(10).measurement_time(Duration::from_secs(20));
    g.bench_function("build/xl", |b| {
        b.iter(|| Topology::build(black_box(TopoKey { shape: Shape::XL, seed: 0 })))
    });
    g.finish();
    topology(TopoKey::default());
    let mut g = c.benchmark_group("generate");
    for family in Family::ALL {
        let mut seed = 0;
        g.bench_function(family.id(), |b| {
            b.iter(|| {
                seed += 1;
                generate(&id(family, seed).parse().unwrap()).unwrap()
            })
        });
    }
    g.finish();
    let mut g = c.benchmark_group("check-oracle");
    for family in mutating() {
        let (task, reply) = oracle_case(family, 1);
        g.bench_function(family.id(), |b| b.iter(|| assert!(check(&task, &reply))));
    }
    g.finish();
}

criterion_group!(benches, criterion_targets);

/// p50, p95 and max of `n` timed runs of `f(i)`, in ms.
fn percentiles(n: u64, mut f: impl FnMut(u64)) -> (f64, f64, f64) {
    let mut ms: Vec<f64> = (0..n)
        .map(|i| {
            let t = Instant::now();
            f(i);
            t.elapsed().as_secs_f64() * 1000.0
        })
        .collect();
    ms.sort_by(f64::total_cmp);
    let at = |q: f64| ms[((ms.len() - 1) as f64 * q).round() as usize];
    (at(0.5), at(0.95), ms[ms.len() - 1])
}

fn row(name: &str, (p50, p95, max): (f64, f64, f64)) {
    println!("{name:<34} {p50:>9.3} {p95:>9.3} {max:>9.3}");
}

fn percentile_table() {
    println!("{:<34} {:>9} {:>9} {:>9}", "target (ms)", "p50", "p95", "max");
    row("topology build default", percentiles(50, |_| drop(Topology::build(TopoKey::default()))));
    row(
        "topology build xl (1,166,929 nodes)",
        percentiles(5, |_| drop(Topology::build(TopoKey { shape: Shape::XL, seed: 0 }))),
    );
    topology(TopoKey::default());
    let mut worst = (0.0f64, 0.0f64, 0.0f64);
    for family in Family::ALL {
        let p = percentiles(200, |i| drop(generate(&id(family, 10_000 + i).parse().unwrap()).unwrap()));
        row(&format!("generate {}", family.id()), p);
        worst = (worst.0.max(p.0), worst.1.max(p.1), worst.2.max(p.2));
    }
    row("generate (worst family)", worst);
    let mut worst = (0.0f64, 0.0f64, 0.0f64);
    for family in mutating() {
        let cases: Vec<(MaltTask, String)> = (0..50).map(|s| oracle_case(family, 20_000 + s)).collect();
        let p = percentiles(cases.len() as u64, |i| {
            let (task, reply) = &cases[i as usize];
            assert!(check(task, reply));
        });
        row(&format!("check oracle {}", family.id()), p);
        worst = (worst.0.max(p.0), worst.1.max(p.1), worst.2.max(p.2));
    }
    row("check oracle (worst family)", worst);
}

fn main() {
    if std::env::args().any(|a| a == "--percentiles") {
        percentile_table();
        return;
    }
    benches();
    Criterion::default().configure_from_args().final_summary();
    if quick::full() {
        percentile_table();
    }
}
