//! BGP benchmarks (docs/bgp.md, "Speed"): drawing the topology at each level, and every
//! prefix's stable routing state at N = 1000. Run with `cargo bench --bench bgp`.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use netpress::bgp::{Graph, Level, Topology, Vrps, stable_states};
use netpress::seed::{Stream, Width};

fn topology(level: Level, seed: u64, n: Option<u64>) -> Topology {
    let mut s = Stream::new(&format!("netpress|bgp|v1|L{}|s{seed}|i0", level.number()), Width::W32);
    Topology::generate(&mut s, level, n).expect("generates")
}

fn generate(c: &mut Criterion) {
    let mut group = c.benchmark_group("bgp topology");
    let cases = [
        ("L1", Level::L1, None),
        ("L2", Level::L2, None),
        ("L3", Level::L3, None),
        ("L4 n1000", Level::L4, Some(1000)),
        ("L4 n5000", Level::L4, Some(5000)),
    ];
    for (name, level, n) in cases {
        if n == Some(5000) {
            group.sample_size(10);
        }
        // Different seeds per iteration would mix sizes; one seed keeps the figure readable.
        group.bench_function(name, |b| b.iter(|| black_box(topology(level, 0, n))));
    }
    group.finish();
}

fn stable(c: &mut Criterion) {
    let t = topology(Level::L4, 0, Some(1000));
    let g = Graph::from_topology(&t);
    let vrps = Vrps::new(&t.roas);
    let seeds = t.baseline_seeds();
    let name = format!("bgp stable states N=1000 ({} prefixes, {} links)", seeds.len(), t.links.len());
    c.bench_function(&name, |b| b.iter(|| black_box(stable_states(&g, &vrps, seeds.clone()))));
}

criterion_group!(benches, generate, stable);
criterion_main!(benches);
