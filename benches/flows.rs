//! Flow-model benchmarks (docs/flows.md, "Speed"): planning a tenant, generating its
//! connections, rendering and parsing logs, building `F` and `G`. Run with
//! `cargo bench --bench flows`; each generation case prints its connection count so the time
//! per million connections can be read off.

use std::hint::black_box;
use std::sync::Arc;

use criterion::{Criterion, criterion_group, criterion_main};
use netpress::flows::format::{self, Inventory, Options, Record};
use netpress::flows::graph::Graph;
use netpress::flows::table::{self, RawSource, Table};
use netpress::flows::{Format, Knobs, Scenario, Tenant, TenantKey, generate};
use netpress::malt::api::{Py, unlimited};

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

fn logs(c: &mut Criterion) {
    let t = Tenant::new(&key(big())).unwrap();
    let tr = generate(&t, &Scenario::default()).unwrap();
    let n = tr.connections.len();
    let inv = Inventory::new(&tr.vms);
    let mut group = c.benchmark_group("flows");
    group.sample_size(10);
    // Emitting and rendering apart (the speed targets name rendering), and together.
    for f in [Format::Aws2, Format::Vnet4] {
        group.bench_function(format!("emit {} for {n} connections", f.name()), |b| {
            b.iter(|| black_box(format::emit(f, &t, &tr, Options::default())))
        });
        let e = format::emit(f, &t, &tr, Options::default());
        group.bench_function(format!("render {} ({} records)", f.name(), e.len()), |b| {
            b.iter(|| black_box(format::render(f, &t, &tr, &e)))
        });
        // The same text handed on a block at a time (what `microseg logs` writes to a file):
        // rendering without first touching hundreds of megabytes of fresh memory.
        group.bench_function(format!("write {} to a sink ({} records)", f.name(), e.len()), |b| {
            b.iter(|| format::write(f, &t, &tr, &e, &mut std::io::sink()).unwrap())
        });
        group.bench_function(format!("emit+render {} for {n} connections", f.name()), |b| {
            b.iter(|| {
                let e = format::emit(f, &t, &tr, Options::default());
                black_box(format::render(f, &t, &tr, &e))
            })
        });
    }
    let e = format::emit(Format::Aws2, &t, &tr, Options::default());
    let text = format::render(Format::Aws2, &t, &tr, &e);
    let records = e.len();
    group.bench_function(format!("parse+F aws2 ({records} records)"), |b| {
        b.iter(|| {
            black_box(Table::new(
                Format::Aws2,
                format::parse(Format::Aws2, &text, &inv).unwrap(),
                &inv,
                vec![],
            ))
        })
    });
    // What the traffic tasks do (`traffic::flowq`): F straight from the emitted records, the
    // text written only if a raw row is read (never here).
    let rows: Vec<Record> = e.iter().map(|e| e.record).collect();
    let never: RawSource = Arc::new(|| unreachable!("the bench reads no raw row"));
    group.bench_function(format!("F from records aws2 ({records} records)"), |b| {
        b.iter(|| black_box(Table::from_records(Format::Aws2, &rows, &inv, vec![], never.clone())))
    });
    let f =
        Table::new(Format::Aws2, format::parse(Format::Aws2, &text, &inv).unwrap(), &inv, vec![]).unwrap();
    let aggs = Py::List(vec![
        Py::Tuple(vec![Py::Str("count".into()), Py::None]),
        Py::Tuple(vec![Py::Str("sum".into()), Py::Str("bytes".into())]),
    ]);
    group.bench_function(format!("F.group by dport ({records} rows)"), |b| {
        b.iter(|| {
            black_box(table::call(
                &f,
                "group",
                vec![Py::Str("dport".into()), aggs.clone()],
                vec![],
                &unlimited,
            ))
        })
    });
    group.bench_function(format!("graph from {n} connections"), |b| {
        b.iter(|| black_box(Graph::from_trace(&t, &tr, false, None)))
    });
    group.finish();
}

criterion_group!(benches, plan, connections, logs);
criterion_main!(benches);
