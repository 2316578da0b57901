//! The exports against their published JSON Schemas (docs/schemas/), their reproducibility
//! (same input, same bytes) and what they must and must not contain.

use std::sync::Arc;

use crate::common::{Toy, record, run_of};
use netpress::app::{App, AppKind, PromptVariant, Task};
use netpress::export::leaderboard::{self, LeaderboardOptions};
use netpress::export::{rl, sft};
use netpress::provenance::Provenance;
use netpress::record::ResultRecord;
use netpress::{QueryId, Result};
use serde_json::Value;

fn validator(file: &str) -> jsonschema::Validator {
    let path = format!("{}/docs/schemas/{file}", env!("CARGO_MANIFEST_DIR"));
    let schema: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    jsonschema::validator_for(&schema).unwrap_or_else(|e| panic!("{file}: {e}"))
}

fn assert_valid(v: &jsonschema::Validator, doc: &Value) {
    let errors: Vec<String> = v.iter_errors(doc).map(|e| format!("{} at {}", e, e.instance_path())).collect();
    assert!(errors.is_empty(), "{errors:#?}\n{doc:#}");
}

fn lines(bytes: &[u8]) -> Vec<Value> {
    std::str::from_utf8(bytes).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

fn records() -> Vec<ResultRecord> {
    let mut rs = run_of("a", &[true, false, true], &[true, true, false]);
    for r in &mut rs {
        r.agent.endpoint = Some("https://key:secret@llm.example/v1?api_key=sk-123".into());
        r.agent.settings = serde_json::json!({"temperature": 0.0, "api_key": "sk-123"});
    }
    rs[2].turns[0].error = Some("HTTP 503".into());
    rs
}

#[test]
fn sft_lines_match_the_schema_in_every_mode() {
    let v = validator("netpress.sft.v1.schema.json");
    for per in [sft::Granularity::Episode, sft::Granularity::Turn] {
        for assistant in [sft::AssistantText::Reply, sft::AssistantText::Action] {
            for system in [None, Some("sys".to_string())] {
                let opts =
                    sft::SftOptions { per, assistant, system, successful_only: false, command: "c".into() };
                let mut out = Vec::new();
                let n = sft::write(&records(), &opts, &mut out).unwrap();
                let ls = lines(&out);
                assert_eq!(ls.len(), n);
                assert_eq!(n, if per == sft::Granularity::Episode { 3 } else { 5 });
                ls.iter().for_each(|l| assert_valid(&v, l));
            }
        }
    }
}

#[test]
fn rl_lines_match_the_schema_from_records_and_from_generation() {
    let v = validator("netpress.rl.v1.schema.json");
    let mut out = Vec::new();
    rl::write_records(&records(), "c", &mut out).unwrap();
    lines(&out).iter().for_each(|l| assert_valid(&v, l));
    let mut out = Vec::new();
    let n = rl::write_tasks(toy_tasks(1, 0..=9), PromptVariant::FewshotCot, "c", &mut out).unwrap();
    assert_eq!(n, 10);
    let ls = lines(&out);
    ls.iter().for_each(|l| assert_valid(&v, l));
    assert_eq!(ls[3]["prompt"], "Say 3. (fewshot_cot)");
    assert_eq!(ls[3]["expected"], serde_json::json!({"answer": 3}));
    assert_eq!(ls[3]["netpress"]["generator"], "toy-v1");
    assert_eq!(ls[3]["reward"], Value::Null);
}

fn toy_tasks(level: u8, seeds: std::ops::RangeInclusive<u64>) -> impl Iterator<Item = Result<Arc<dyn Task>>> {
    seeds.map(move |seed| Toy.generate(&QueryId::new("toy", 1, level, seed, 0)))
}

#[test]
fn generated_rl_is_reproducible_from_seeds_and_stops_on_a_bad_id() {
    let export = || {
        let mut out = Vec::new();
        rl::write_tasks(toy_tasks(2, 0..=99), PromptVariant::ZeroshotBase, "c", &mut out).unwrap();
        out
    };
    assert_eq!(export(), export());
    let bad = toy_tasks(3, 0..=1); // the toy has no level 3
    let err = rl::write_tasks(bad, PromptVariant::ZeroshotBase, "c", &mut Vec::new()).unwrap_err();
    assert_eq!(err.to_string(), "toy has no level 3 (levels: 1, 2)");
}

#[test]
fn exports_are_byte_identical_for_the_same_input() {
    let a = records();
    let mut b = records();
    // Latency differs from run to run and is not part of SFT or RL lines.
    b.iter_mut().for_each(|r| r.score.latency_ms = Some(1234.5));
    let sft_of = |rs: &[ResultRecord]| {
        let mut out = Vec::new();
        sft::write(rs, &sft::SftOptions::default(), &mut out).unwrap();
        out
    };
    let rl_of = |rs: &[ResultRecord]| {
        let mut out = Vec::new();
        rl::write_records(rs, "c", &mut out).unwrap();
        out
    };
    assert_eq!(sft_of(&a), sft_of(&b));
    assert_eq!(rl_of(&a), rl_of(&b));
}

#[test]
fn no_secret_reaches_an_export() {
    let rs = records();
    let mut out = Vec::new();
    sft::write(&rs, &sft::SftOptions::default(), &mut out).unwrap();
    rl::write_records(&rs, "c", &mut out).unwrap();
    let doc = export_leaderboard(&rs, AppKind::Reactive);
    let all = format!("{}{doc}", String::from_utf8(out).unwrap());
    assert!(!all.contains("sk-123") && !all.contains("secret"), "{all}");
    assert!(all.contains("https://llm.example/v1"));
}

fn export_leaderboard(rs: &[ResultRecord], kind: AppKind) -> Value {
    let opts =
        LeaderboardOptions { kind, participant: "route_operator".into(), participant_id: "0199-test".into() };
    leaderboard::export(
        rs,
        &opts,
        &|_| None,
        &Provenance::of_records(rs, "netpress export --leaderboard", vec![]),
    )
    .unwrap()
}

#[test]
fn leaderboard_files_match_the_schema_in_both_shapes() {
    let v = validator("netarena.leaderboard.schema.json");
    let rs = records();
    for kind in [AppKind::Reactive, AppKind::Constructive] {
        let doc = export_leaderboard(&rs, kind);
        assert_valid(&v, &doc);
        let results = doc["results"].as_array().unwrap();
        assert_eq!(results.len(), rs.len() + 1);
        let last = results.last().unwrap();
        assert!((last["avg_correctness"].as_f64().unwrap() - 2.0 / 3.0).abs() < 1e-12);
        assert!((last["avg_safety"].as_f64().unwrap() - 2.0 / 3.0).abs() < 1e-12);
        match kind {
            AppKind::Reactive => assert_eq!(last["avg_iterations"], 2.0),
            AppKind::Constructive => assert_eq!(last["avg_latency_s"], 0.05),
        }
    }
    // A mixed shape is rejected by the schema: a reactive dict under constructive averages.
    let mut doc = export_leaderboard(&rs, AppKind::Reactive);
    doc["results"][3] = serde_json::json!({"avg_correctness": 0.5, "avg_safety": 0.5, "avg_latency_s": 1.0});
    assert!(!v.is_valid(&doc));
}

#[test]
fn leaderboard_uses_the_task_when_this_build_can_generate_it() {
    let mut r = record(4, "a", "odd", true, true);
    r.id = "toy-v1-L1-s4-i0".into();
    let lookup = |id: &str| Toy.generate(&id.parse().ok()?).ok().map(|t| t.card().clone());
    let opts = LeaderboardOptions {
        kind: AppKind::Reactive,
        participant: "toy_operator".into(),
        participant_id: "x".into(),
    };
    let doc = leaderboard::export(&[r], &opts, &lookup, &Provenance::of_records(&[], "c", vec![])).unwrap();
    assert_eq!(doc["results"][0]["error_detail"], serde_json::json!({"seed": 4}));
}
