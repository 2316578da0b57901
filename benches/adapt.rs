//! Adaptive mode's own cost (docs/adapt.md, "Cost"): one round's search work on the whole
//! Route space (23,520 cells) with 150 evaluations behind it (fit, 4,096+ candidates, a
//! batch of five by kriging believer), against one Route baseline episode, the unit a round
//! spends 2·B·k of. Run with `cargo bench --bench adapt`. The fixture and the timed call are
//! the library's (`netpress::adapt::route_search_with_history`, `round_work`), which the web
//! app's Benchmark view times in the page too.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use netpress::adapt::{round_work, route_search_with_history};
use netpress::app::App;
use netpress::route::RouteApp;
use netpress::run::{RunSettings, run_episode};

fn round_cost(c: &mut Criterion) {
    let search = route_search_with_history(&RouteApp).unwrap();
    let mut group = c.benchmark_group("adapt");
    group.sample_size(10);
    group.bench_function("search work of one round (route space, 150 evaluations)", |b| {
        b.iter(|| black_box(round_work(&search)))
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
