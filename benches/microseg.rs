//! Micro-segmentation benchmarks (docs/microseg.md, "Speed"): building a task's world (tenant,
//! trace, truth, key sets), scoring one policy in the neutral form and as each rendering, and
//! one repair turn (parse, apply, report). Run with `cargo bench --bench microseg`.

use std::hint::black_box;
use std::sync::Arc;

use criterion::{Criterion, criterion_group, criterion_main};
use netpress::app::Episode;
use netpress::microseg::baseline::answer;
use netpress::microseg::family::Family;
use netpress::microseg::forms::{Form, score};
use netpress::microseg::generate;
use netpress::microseg::repairing::RepairEpisode;
use netpress::microseg::score::{evaluate, star_policy};
use netpress::microseg::scripted::scripted;
use netpress::microseg::world::{Shape, build, setup};

mod quick;

/// The default level-2 tenant (d = 30); about 1,000 VMs (a = 4, N = 64) in full mode.
const DEFAULT: &str = "microseg-v1-L2-s0-i2";
const BIG: &str = "microseg-v1-L2-s0-i2-a4-n64";

fn world(c: &mut Criterion) {
    let mut group = c.benchmark_group("microseg");
    group.sample_size(10);
    let ids: &[&str] = if quick::full() { &[DEFAULT, BIG] } else { &[DEFAULT] };
    for id in ids {
        let s = setup(&id.parse().unwrap()).unwrap();
        group.bench_function(format!("world + key sets {id}"), |b| {
            b.iter(|| {
                let w = build(&s, Shape::Split).unwrap();
                black_box(w.sets().a.len())
            })
        });
        let w = build(&s, Shape::Split).unwrap();
        let p = star_policy(&w);
        w.sets();
        group.bench_function(format!("score P* {id}"), |b| b.iter(|| black_box(evaluate(&w, w.sets(), &p))));
    }
    group.finish();
}

fn renderings(c: &mut Criterion) {
    let mut group = c.benchmark_group("microseg");
    group.sample_size(10);
    for form in Form::RENDERED {
        let g = generate(&format!("microseg-v1-L2-s0-i3-r{}", form.name()).parse().unwrap()).unwrap();
        let data = answer("oracle", &g).unwrap()["data"].clone();
        g.world.sets();
        group.bench_function(format!("score P* as {}", form.name()), |b| {
            b.iter(|| black_box(score(&g.world, form, &data).unwrap()))
        });
    }
    group.finish();
}

fn repair(c: &mut Criterion) {
    let g = Arc::new(generate(&"microseg-v1-L2-s0-i4".parse().unwrap()).unwrap());
    assert_eq!(g.family, Family::Repair);
    let reply = scripted(&g.given);
    c.bench_function("microseg repair step (scripted turn)", |b| {
        b.iter(|| {
            let mut e = RepairEpisode::new(g.clone(), g.start.clone(), 10);
            black_box(e.step(&reply))
        })
    });
}

criterion_group!(benches, world, renderings, repair);
criterion_main!(benches);
