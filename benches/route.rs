//! Route benchmarks (docs/route.md, "Speed"): one episode step (a command plus the full ping matrix)
//! on L2 with 8 subnets of 4 hosts (33 machines, 1,056 pings), and generating 10,000 tasks of
//! mixed levels with their validity checks. Run with `cargo bench --bench route`.

mod quick;

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use netpress::app::App;
use netpress::id::QueryId;
use netpress::route::RouteApp;

fn step(c: &mut Criterion) {
    let id: QueryId = "route-v1-L2-s0-i0-n8-m4".parse().expect("valid id");
    let task = RouteApp.generate(&id).expect("generates");
    let mut episode = task.start(Some(u32::MAX));
    let reply = r#"{"machine": "r0", "command": "ip route"}"#;
    c.bench_function("route step L2 n8 m4 (ip route + 1056 pings)", |b| {
        b.iter(|| black_box(episode.step(black_box(reply))))
    });
}

fn generate(c: &mut Criterion) {
    let mut group = c.benchmark_group("route generate");
    group.sample_size(10);
    group.bench_function("10000 tasks, levels 1-3 mixed", |b| {
        b.iter(|| {
            for i in 0..quick::scaled(10_000) {
                let id = RouteApp.default_id((i % 3) as u8 + 1, i / 3, 0);
                black_box(RouteApp.generate(&id).expect("generates"));
            }
        })
    });
    for level in 1..=3u8 {
        group.bench_function(format!("1000 tasks, level {level}"), |b| {
            b.iter(|| {
                for seed in 0..quick::scaled(1000) {
                    black_box(RouteApp.generate(&RouteApp.default_id(level, seed, 0)).expect("generates"));
                }
            })
        });
    }
    group.finish();
}

criterion_group!(benches, step, generate);
criterion_main!(benches);
