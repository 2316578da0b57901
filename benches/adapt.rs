//! Adaptive mode's own cost (docs/adapt.md, "Cost"): one round's search work on the whole
//! Route space (23,520 cells) with 150 evaluations behind it (fit, 4,096+ candidates, a
//! batch of five by kriging believer), against one Route baseline episode, the unit a round
//! spends 2·B·k of. Run with `cargo bench --bench adapt`.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use netpress::adapt::{Phase, Point, Reference, Search, Settings};
use netpress::app::App;
use netpress::conversation::AgentInfo;
use netpress::id::QueryId;
use netpress::route::RouteApp;
use netpress::run::{RunSettings, run_episode};

/// A search of the full route space with ten rounds of 15 synthetic evaluations.
fn search_with_history() -> Search<'static> {
    let mut search =
        Search::new(&RouteApp, Settings::new(Reference::Baseline), AgentInfo::new("bench", "x")).unwrap();
    let n = search.cells().len();
    let ids = vec![QueryId::new("route", 1, 1, 0, 0); 10];
    for e in 0..150usize {
        let cell = search.cells()[(e * 7919) % n].clone();
        let subnets: u32 = search.space().value(&cell, "subnets").unwrap().parse().unwrap();
        let agent: Vec<f64> = (0..10).map(|i| if subnets >= 9 && i % 3 != 0 { 0.0 } else { 1.0 }).collect();
        let point = Point { round: (e / 15) as u32 + 1, phase: Phase::Random, cell, ids: ids.clone() };
        search.record(&point, agent, vec![1.0; 10]);
    }
    search
}

fn round_cost(c: &mut Criterion) {
    let search = search_with_history();
    let mut group = c.benchmark_group("adapt");
    group.sample_size(10);
    group.bench_function("search work of one round (route space, 150 evaluations)", |b| {
        b.iter(|| black_box(search.pick_guided(10, &[])))
    });
    let task = RouteApp.generate(&"route-v1-L2-s1000001-i0-n7-m2-t10".parse().unwrap()).unwrap();
    group.bench_function("one route baseline episode (L2 n7 m2)", |b| {
        b.iter(|| {
            let mut agent = RouteApp.baseline();
            black_box(run_episode(task.clone(), agent.as_mut(), RunSettings::default()))
        })
    });
    group.finish();
}

criterion_group!(benches, round_cost);
criterion_main!(benches);
