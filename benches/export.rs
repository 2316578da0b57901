//! How long exports take natively (the issue's target: 100,000 records in seconds).
//!
//! - `sft` and `rl-results`: 100,000 result records of realistic size (a 3 kB prompt, five turns
//!   with replies and observations) converted to SFT JSONL (per episode and per turn) and RL
//!   JSONL, written to a sink.
//! - `rl-generate/<app>`: RL JSONL straight from each registered application's generator,
//!   10,000 tasks per iteration (multiply by ten for 100,000).
//! - `report`: the tables, charts and HTML report of 10,000 episodes of two agents.
//!
//! Run with `cargo bench --bench export`.

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use netpress::agent::AgentInfo;
use netpress::app::{Finish, PromptVariant, Score};
use netpress::export::{rl, sft};
use netpress::provenance::Provenance;
use netpress::record::{ResultRecord, SCHEMA, TurnRecord};
use netpress::report::{self, html};
use netpress::{QueryId, registry};

/// Episode `i` of agent `agent`: deterministic content of realistic size.
fn record(i: u64, agent: &str) -> ResultRecord {
    let prompt =
        format!("Task {i}: hosts cannot reach each other. {}", "Topology line of the prompt. ".repeat(100));
    let turns: Vec<TurnRecord> = (1..=5)
        .map(|t| TurnRecord {
            turn: t,
            reply: format!("Let me look at the routes.\n```\nr0: ip route show table main {t}\n```"),
            action: format!("r0: ip route show table main {t}"),
            output: "192.168.1.0/24 dev r0-eth1 proto kernel scope link src 192.168.1.1\n".repeat(3),
            observation: format!("{}\nPing matrix: 4/6 pairs reachable.", "route output line\n".repeat(8)),
            latency_ms: Some(850.0),
            ..Default::default()
        })
        .collect();
    ResultRecord {
        schema: SCHEMA.into(),
        netpress_version: netpress::VERSION.into(),
        id: format!("route-v1-L{}-s{}-i0", 1 + i % 3, i),
        content_hash: format!("{:064x}", i),
        app: "route".into(),
        level: 1 + (i % 3) as u8,
        label: ["DR", "DI", "RI", "DR+DI"][(i % 4) as usize].into(),
        agent: AgentInfo::new("openai", agent),
        prompt_variant: PromptVariant::ZeroshotBase,
        max_turns: 10,
        prompt,
        turns,
        finish: if i.is_multiple_of(3) { Finish::Solved } else { Finish::TurnLimit },
        score: Score {
            correct: i.is_multiple_of(3),
            safe: !i.is_multiple_of(5),
            progress: 0.5,
            turns: 5,
            latency_ms: Some(4250.0),
            ..Default::default()
        },
    }
}

fn exports(c: &mut Criterion) {
    const N: u64 = 100_000;
    let records: Vec<ResultRecord> = (0..N).map(|i| record(i, "model")).collect();
    let mut group = c.benchmark_group("export-100k");
    group.sample_size(10).measurement_time(Duration::from_secs(20)).throughput(Throughput::Elements(N));
    group.bench_function("sft-per-episode", |b| {
        let opts = sft::SftOptions::default();
        b.iter(|| sft::write(&records, &opts, &mut std::io::sink()).unwrap())
    });
    group.bench_function("sft-per-turn", |b| {
        let opts = sft::SftOptions { per: sft::Granularity::Turn, ..Default::default() };
        b.iter(|| sft::write(&records, &opts, &mut std::io::sink()).unwrap())
    });
    group.bench_function("rl-results", |b| {
        b.iter(|| rl::write_records(&records, "bench", &mut std::io::sink()).unwrap())
    });
    group.finish();
}

fn generation(c: &mut Criterion) {
    const N: u64 = 10_000;
    let mut group = c.benchmark_group("rl-generate-10k");
    group.sample_size(10).throughput(Throughput::Elements(N));
    for app in registry::apps() {
        let info = app.info();
        let level = info.levels[0].level;
        group.bench_function(info.name, |b| {
            b.iter(|| {
                let tasks = (0..N).map(|seed| app.generate(&QueryId { seed, ..app.default_id(level, 0, 0) }));
                rl::write_tasks(tasks, PromptVariant::ZeroshotBase, "bench", &mut std::io::sink()).unwrap()
            })
        });
    }
    group.finish();
}

fn reports(c: &mut Criterion) {
    let records: Vec<ResultRecord> =
        (0..5_000).map(|i| record(i, "a")).chain((0..5_000).map(|i| record(i + 1, "b"))).collect();
    let mut group = c.benchmark_group("report-10k");
    group.sample_size(10);
    group.bench_function("tables-charts-html", |b| {
        b.iter(|| {
            let (tables, charts) = report::build(&records, Provenance::of_records(&records, "bench", vec![]));
            black_box(html::document("bench", &tables, &charts).len())
        })
    });
    group.finish();
}

criterion_group!(benches, exports, generation, reports);
criterion_main!(benches);
