//! A fourth application through every surface, with nothing changed but the registry line.
//!
//! The toy application (`support::toy::ToyApp`: a generator, an episode, a baseline) is
//! added to the standard registry here, not in the library, and the command line runs
//! in-process over that registry: `list`, `generate`, `run`, `stats` and `score` must all
//! take it as they take the shipped three. The library's batch runner then runs the same
//! toy tasks on one thread and on two, and must write the same records, and the sandbox
//! worker's protocol (what the page's Web Worker speaks) runs a toy episode and benches the
//! toy as it does MALT.
#![cfg(all(feature = "cli", not(target_arch = "wasm32")))]

use std::path::PathBuf;
use std::sync::OnceLock;

use netpress::cli::Console;
use netpress::record::{ResultRecord, parse_results};
use netpress::registry::Registry;
use netpress::run::run_threads;
use netpress::run::{Cancel, RunSettings, TaskSelection};
use netpress::sandbox::worker::Worker;
use serde_json::Value;

use crate::support::toy::TOY;

/// The standard registry and the toy: the one line a new application adds.
fn registry() -> &'static Registry {
    static WITH_TOY: OnceLock<Registry> = OnceLock::new();
    WITH_TOY.get_or_init(|| Registry::standard().clone().with(&TOY))
}

/// What one in-process run of the command line printed, and its exit code.
struct Ran {
    code: u8,
    stdout: String,
    stderr: String,
}

fn netpress(args: &[&str]) -> Ran {
    let (mut stdout, mut stderr) = (Vec::new(), Vec::new());
    let argv = std::iter::once("netpress").chain(args.iter().copied());
    let code = netpress::cli::main(registry(), argv, Console::new(&b""[..], &mut stdout, &mut stderr));
    let text = |b: Vec<u8>| String::from_utf8(b).expect("UTF-8 output");
    Ran { code, stdout: text(stdout), stderr: text(stderr) }
}

/// Runs and insists on success.
fn ok(args: &[&str]) -> Ran {
    let ran = netpress(args);
    assert_eq!(ran.code, 0, "netpress {args:?} failed: {}", ran.stderr);
    ran
}

fn tmp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("netpress-toy-app-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir.join(name)
}

fn records(path: &PathBuf) -> Vec<ResultRecord> {
    let (records, errors) = parse_results(&std::fs::read_to_string(path).expect("results written"));
    assert!(errors.is_empty(), "{errors:?}");
    records
}

#[test]
fn list_shows_the_toy_after_the_shipped_applications() {
    let out = ok(&["list"]).stdout;
    assert!(out.contains("toy (v1): Toy network\n"), "{out}");
    assert!(
        out.contains("  level 2: `show` names the broken link\n  example id: toy-v1-L1-s42-i0\n"),
        "{out}"
    );
    assert!(out.find("route (v1)").unwrap() < out.find("toy (v1)").unwrap());
    // The standard registry, as the binary has it, does not know the toy.
    let (mut stdout, mut stderr) = (Vec::new(), Vec::new());
    let console = Console::new(&b""[..], &mut stdout, &mut stderr);
    assert_eq!(netpress::cli::main(Registry::standard(), ["netpress", "list"], console), 0);
    assert!(!String::from_utf8_lossy(&stdout).contains("toy (v1)"));
}

#[test]
fn generate_writes_the_same_toy_tasks_twice() {
    let args = ["generate", "--app", "toy", "--level", "2", "--seed", "3", "--count", "5"];
    let first = ok(&args).stdout;
    assert_eq!(first, ok(&args).stdout, "generation is deterministic");
    let cards: Vec<serde_json::Value> = first.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let ids: Vec<&str> = cards.iter().map(|c| c["id"].as_str().unwrap()).collect();
    assert_eq!(ids, (0..5).map(|i| format!("toy-v1-L2-s3-i{i}")).collect::<Vec<_>>());
    assert!(cards.iter().all(|c| c["app"] == "toy" && c["label"] == "S"));
    let labelled = ok(&["generate", "--app", "toy", "--level", "1", "--label", "T", "--count", "2"]).stdout;
    assert_eq!(labelled.lines().count(), 2);
    let one = ok(&["generate", "--id", "toy-v1-L2-s3-i4"]).stdout;
    assert_eq!(serde_json::from_str::<serde_json::Value>(&one).unwrap(), cards[4]);
    let refused = netpress(&["generate", "--app", "toy", "--level", "3"]);
    assert_eq!(refused.code, 1);
    assert!(refused.stderr.starts_with("netpress: ") && refused.stderr.contains("toy"), "{}", refused.stderr);
}

#[test]
fn run_stats_and_score_take_the_toy() {
    let out = tmp("baseline.jsonl");
    let path = out.to_str().unwrap();
    let ran = ok(&["run", "--app", "toy", "--agent", "baseline", "--seeds", "0..4", "-o", path]);
    assert!(ran.stdout.is_empty(), "records go to the file: {}", ran.stdout);
    assert!(ran.stderr.contains("toy L2 "), "{}", ran.stderr);
    let records = records(&out);
    assert_eq!(records.len(), 10, "five seeds of two levels");
    assert!(records.iter().all(|r| r.app == "toy" && r.score.correct && r.score.safe));
    assert!(records.iter().filter(|r| r.level == 2).all(|r| r.turns.len() == 2), "level 2 asks `show` first");

    let stats = ok(&["stats", path]).stdout;
    assert!(stats.lines().any(|l| l.contains("toy") && l.contains("100.0")), "{stats}");

    let score = ok(&["score", path]);
    assert!(
        score.stderr.starts_with("10 records re-scored, 0 differ from their recorded score\n"),
        "{}",
        score.stderr
    );
}

#[test]
fn the_batch_runner_gives_the_same_toy_records_on_one_thread_and_two() {
    let selection =
        TaskSelection { seeds: (0, 5), per_seed: 2, interleave: true, ..TaskSelection::default() };
    let tasks = selection.tasks(&TOY).expect("toy tasks");
    assert_eq!(tasks.len(), 24);
    let factory = |_: &str| -> Box<dyn netpress::conversation::Agent> { netpress::App::baseline(&TOY) };
    let run = |jobs: usize| {
        let mut lines = Vec::new();
        run_threads(tasks.clone(), &factory, RunSettings::default(), jobs, &Cancel::new(), |record| {
            lines.push(record.expect("not cancelled").to_line());
            Ok(())
        })
        .expect("batch runs");
        lines
    };
    let one = run(1);
    assert_eq!(one.len(), 24);
    assert_eq!(one, run(2), "the same records, in the same order");
}

/// One request to the worker; every response parsed.
fn ask(worker: &mut Worker, request: Value) -> Vec<Value> {
    worker
        .handle(&request.to_string())
        .iter()
        .map(|r| serde_json::from_str(r).expect("JSON response"))
        .collect()
}

#[test]
fn the_sandbox_worker_runs_and_benches_the_toy() {
    let mut worker = Worker::new(registry());
    let id = "toy-v1-L2-s3-i1";
    let started = ask(&mut worker, serde_json::json!({"op": "start", "id": id}));
    assert_eq!(started[0]["op"], "started", "{started:?}");
    let prompt = started[0]["prompt"].as_str().expect("prompt").to_string();
    // The toy's own baseline, fed what the worker shows, answers through the protocol.
    let mut baseline = netpress::App::baseline(&TOY);
    let mut messages = vec![netpress::conversation::Message::user(prompt)];
    let mut result = None;
    for _ in 0..4 {
        let reply = baseline.reply(&messages).expect("the baseline replies").text;
        let out = ask(&mut worker, serde_json::json!({"op": "submit", "reply": reply}));
        assert_eq!(out[0]["op"], "turn", "{out:?}");
        messages.push(netpress::conversation::Message::assistant(reply));
        messages.push(netpress::conversation::Message::user(
            out[0]["turn"]["observation"].as_str().expect("observation").to_string(),
        ));
        if let Some(r) = out.get(1) {
            result = Some(r.clone());
            break;
        }
    }
    let result = result.expect("the episode ends within the turn limit");
    assert_eq!(result["op"], "result");
    assert_eq!(result["record"]["app"], "toy");
    assert_eq!(result["record"]["id"], id);
    assert_eq!(result["record"]["score"]["correct"], true);
    // The same record as the library's runner gives natively, turns aside (latency is timed).
    let native = netpress::run::run_episode(
        registry().generate(id).expect("toy task"),
        &mut *netpress::App::baseline(&TOY),
        RunSettings::default(),
    );
    assert_eq!(result["record"]["score"]["explanation"], native.score.explanation.as_str());
    assert_eq!(result["record"]["turns"].as_array().map(Vec::len), Some(native.turns.len()));

    let benched = ask(&mut worker, serde_json::json!({"op": "bench", "app": "toy", "tasks": 3}));
    assert_eq!(benched[0]["op"], "benched", "{benched:?}");
    assert_eq!(benched[0]["bench"]["app"], "toy");
    assert_eq!(benched[0]["bench"]["tasks"], 3);
}
