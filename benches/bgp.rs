//! BGP benchmarks (docs/bgp.md, "Speed"), one per performance target the design sets:
//! - the topology alone at each level (the first draw of generation);
//! - a whole task (world, incident, timeline, validity rules: what `netpress generate` does)
//!   at each level, and at N = 1000 and N = 5000 ASes;
//! - every prefix's stable routing state at N = 1000;
//! - one tool call at L3 and at L4 (N = 1000): the largest updates file through `bgpdump -m`, a
//!   RIPEstat `bgp-updates` query on the incident's prefix, and the largest RIB dump through
//!   `bgpdump -m | grep | head`, the heaviest line an agent can type;
//! - scoring a finished episode.
//!
//! Run with `cargo bench --bench bgp`. Generation cycles over a few seeds so that the figure is
//! a level's typical task, not one seed's (sizes within a level vary about threefold). In quick
//! mode (`cargo test --benches`, CI) the large worlds have 200 ASes, whatever their names say:
//! unoptimised, the 5,000-AS task and the 1,000-AS tool calls' setup took minutes.

mod quick;

use std::cell::Cell;
use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use netpress::app::{App, PromptVariant};
use netpress::bgp::task::Task;
use netpress::bgp::tools;
use netpress::bgp::{BgpApp, Graph, Level, Topology, Vrps, stable_states};
use netpress::conversation::Message;
use netpress::id::{Knob, QueryId};
use netpress::seed::{Stream, Width};

fn topology(level: Level, seed: u64, n: Option<u64>) -> Topology {
    let mut s = Stream::new(&format!("netpress|bgp|v1|L{}|s{seed}|i0", level.number()), Width::W32);
    Topology::generate(&mut s, level, n).expect("generates")
}

/// `n` ASes when benchmarking, 200 in quick mode.
fn ases(n: u64) -> u64 {
    if quick::full() { n } else { 200 }
}

/// The current generator's id of a level and seed, with the `n` (number of ASes) knob.
fn id(level: u8, seed: u64, n: Option<u64>) -> QueryId {
    let mut id = BgpApp.default_id(level, seed, 0);
    id.knobs.extend(n.map(|n| Knob { key: 'n', value: n.to_string() }));
    id
}

fn topologies(c: &mut Criterion) {
    let mut group = c.benchmark_group("bgp topology");
    let cases = [
        ("L1", Level::L1, None),
        ("L2", Level::L2, None),
        ("L3", Level::L3, None),
        ("L4 n1000", Level::L4, Some(ases(1000))),
        ("L4 n5000", Level::L4, Some(ases(5000))),
    ];
    for (name, level, n) in cases {
        if n == Some(ases(5000)) {
            group.sample_size(10);
        }
        // Different seeds per iteration would mix sizes; one seed keeps the figure readable.
        group.bench_function(name, |b| b.iter(|| black_box(topology(level, 0, n))));
    }
    group.finish();
}

fn tasks(c: &mut Criterion) {
    let mut group = c.benchmark_group("bgp generate");
    let cases: [(&str, u8, Option<u64>, u64); 5] = [
        ("L1 (seeds 0-19)", 1, None, 20),
        ("L2 (seeds 0-19)", 2, None, 20),
        ("L3 (seeds 0-19)", 3, None, 20),
        ("L4 n1000 (seeds 0-3)", 4, Some(ases(1000)), 4),
        ("L4 n5000 (seed 0)", 4, Some(ases(5000)), 1),
    ];
    for (name, level, n, seeds) in cases {
        if level == 4 {
            group.sample_size(10);
        }
        let ids: Vec<QueryId> = (0..seeds).map(|s| id(level, s, n)).collect();
        let next = Cell::new(0usize);
        group.bench_function(name, |b| {
            b.iter(|| {
                let i = next.get();
                next.set((i + 1) % ids.len());
                black_box(BgpApp.generate(&ids[i]).expect("generates"))
            })
        });
    }
    group.finish();
}

fn stable(c: &mut Criterion) {
    let t = topology(Level::L4, 0, Some(ases(1000)));
    let g = Graph::from_topology(&t);
    let vrps = Vrps::new(&t.roas);
    let seeds = t.baseline_seeds();
    let name = format!("bgp stable states N=1000 ({} prefixes, {} links)", seeds.len(), t.links.len());
    c.bench_function(&name, |b| b.iter(|| black_box(stable_states(&g, &vrps, seeds.clone()))));
}

/// The collectors' files of a task as `rcNN/file` paths.
fn files(task: &Task) -> Vec<String> {
    let dirs = tools::run(task, 1, "ls").output;
    dirs.lines()
        .flat_map(|d| {
            let list = tools::run(task, 1, &format!("ls {d}")).output;
            list.lines().map(|f| format!("{d}/{f}")).collect::<Vec<_>>()
        })
        .collect()
}

/// The file of `prefix` (`bview.` or `updates.`) whose `bgpdump -m` output is longest.
fn largest(task: &Task, all: &[String], prefix: &str) -> String {
    let size = |f: &String| tools::run(task, 1, &format!("bgpdump -m {f}")).output.len();
    let of_kind = all.iter().filter(|f| f.split('/').nth(1).is_some_and(|n| n.starts_with(prefix)));
    of_kind.max_by_key(|f| size(f)).expect("the collectors have such a file").clone()
}

fn tool_calls(c: &mut Criterion) {
    let mut group = c.benchmark_group("bgp tool call");
    for (name, level, n) in [("L3", 3, None), ("L4 n1000", 4, Some(ases(1000)))] {
        let task = Task::generate(&id(level, 0, n)).expect("generates");
        let all = files(&task);
        let updates = largest(&task, &all, "updates.");
        let bview = largest(&task, &all, "bview.");
        let prefix = task.incident.prefix;
        let origin = task.world.topology.ases[task.incident.victim].asn;
        let lines = [
            ("bgpdump -m <largest updates file>", format!("bgpdump -m {updates}")),
            ("ripestat bgp-updates <incident prefix>", format!("ripestat bgp-updates resource={prefix}")),
            (
                "bgpdump -m <largest bview> | grep | head",
                format!("bgpdump -m {bview} | grep '|{origin}|' | head"),
            ),
        ];
        for (what, line) in lines {
            group.bench_function(format!("{name}: {what}"), |b| {
                b.iter(|| black_box(tools::run(&task, 2, &line)))
            });
        }
    }
    group.finish();
}

fn scoring(c: &mut Criterion) {
    let mut group = c.benchmark_group("bgp score");
    for level in 1..=3u8 {
        let task = BgpApp.generate(&id(level, 0, None)).expect("generates");
        let mut episode = task.start(None);
        let mut agent = BgpApp.baseline();
        let mut messages = vec![Message::user(task.prompt(PromptVariant::ZeroshotBase))];
        while episode.finished().is_none() {
            let reply = agent.reply(&messages).expect("the baseline replies").text;
            let outcome = episode.step(&reply);
            messages.push(Message::assistant(reply));
            messages.push(Message::user(outcome.observation));
        }
        group.bench_function(format!("L{level} finished baseline episode"), |b| {
            b.iter(|| black_box(episode.score()))
        });
    }
    group.finish();
}

criterion_group!(benches, topologies, tasks, stable, tool_calls, scoring);
criterion_main!(benches);
