//! The protocol exchange by exchange, for MALT, for an application without a sandbox, and for
//! arbitrary input.

use super::*;
use crate::app::App;
use crate::conversation::Message;

fn parse(s: &str) -> Value {
    serde_json::from_str(s).unwrap()
}

fn op(w: &mut Worker, request: &str) -> Value {
    let out = w.handle(request);
    assert_eq!(out.len(), 1, "{request}: {out:?}");
    parse(&out[0])["op"].clone()
}

fn python(body: &str) -> String {
    format!("def process_graph(G):\n{body}")
}

#[test]
fn start_submit_result() {
    let mut w = Worker::default();
    let out = w.handle(r#"{"op":"start","id":"malt-v1-L1-s0-i4","max_turns":2}"#);
    let started = parse(&out[0]);
    assert_eq!(started["op"], "started");
    assert!(started["prompt"].as_str().unwrap().contains("Question: "));
    let out = w.handle(r#"{"op":"submit","reply":"no code"}"#);
    assert_eq!(out.len(), 1);
    assert_eq!(parse(&out[0])["finished"], Value::Null);
    let reply = "```python\\ndef process_graph(G):\\n    return {'type': 'text', 'data': 0}\\n```";
    let out = w.handle(&format!(r#"{{"op":"submit","reply":"{reply}","latency_ms":5}}"#));
    assert_eq!(out.len(), 2);
    let result = parse(&out[1]);
    assert_eq!(result["op"], "result");
    assert_eq!(result["record"]["turns"].as_array().unwrap().len(), 2);
    assert_eq!(result["record"]["finish"], "answered");
}

/// A replay of a session's turns gives the episode that `start` and one `submit` a turn give,
/// whether it ended or not, and refuses turns it cannot run.
#[test]
fn replay_equals_the_persistent_episode() {
    let right = format!("```python\n{}\n```", python("    return {'type': 'text', 'data': 0}"));
    let turns =
        [json!({"text": "no code", "latency_ms": 3}), json!({"fail": "timeout"}), json!({"text": right})];
    let mut live = Worker::default();
    live.handle(r#"{"op":"start","id":"malt-v1-L1-s0-i4","max_turns":3,"variant":"zeroshot_cot"}"#);
    for n in 1..=turns.len() {
        let t = &turns[n - 1];
        let out = match t["fail"].as_str() {
            Some(m) => live.handle(&json!({"op": "fail", "message": m}).to_string()),
            None => live.handle(
                &json!({"op": "submit", "reply": t["text"], "latency_ms": t["latency_ms"]}).to_string(),
            ),
        };
        let turn = parse(&out[0]);
        let request = json!({"op": "replay", "id": "malt-v1-L1-s0-i4", "replies": &turns[..n], "max_turns": 3,
                             "variant": "zeroshot_cot"});
        let replayed = parse(&Worker::default().handle(&request.to_string())[0]);
        assert_eq!(replayed["op"], "replayed", "{replayed}");
        assert_eq!(replayed["finished"], turn["finished"]);
        assert_eq!(replayed["record"]["turns"].as_array().unwrap().len(), n);
        assert_eq!(replayed["record"]["turns"][n - 1], turn["turn"]);
        if n == turns.len() {
            assert_eq!(replayed["record"], parse(&out[1])["record"]);
        }
    }
    let replay = |replies: Value, max: u32| {
        let request = json!({"op": "replay", "id": "malt-v1-L1-s0-i4", "replies": replies, "max_turns": max});
        parse(&Worker::default().handle(&request.to_string())[0])["op"].clone()
    };
    assert_eq!(replay(json!([]), 2), "error");
    assert_eq!(replay(json!([{"text": "a"}, {"text": "b"}]), 1), "error");
    assert_eq!(replay(json!([{"text": right}, {"text": "b"}]), 2), "error");
    assert_eq!(replay(json!([{"text": "a", "fail": "b"}]), 2), "error");
    assert_eq!(replay(json!([{"reply": "a"}]), 2), "error");
}

#[test]
fn check_and_errors() {
    let mut w = Worker::default();
    let request = json!({"op": "check", "id": "malt-v1-L1-s0-i4", "answer": python("    return 1")});
    let checked = parse(&w.handle(&request.to_string())[0]);
    assert_eq!(checked["op"], "checked");
    assert_eq!(checked["record"]["score"]["correct"], false);
    assert!(checked["check_ms"].as_f64().unwrap() >= 0.0);
    assert_eq!(op(&mut w, "{"), "error");
    assert_eq!(op(&mut w, r#"{"op":"submit","reply":"x"}"#), "error");
    assert_eq!(op(&mut w, r#"{"op":"stop"}"#), "error");
    assert_eq!(op(&mut w, r#"{"op":"check","id":"toy-v1-L1-s0-i0","answer":""}"#), "error");
    assert_eq!(op(&mut w, r#"{"op":"start","id":"malt-v9-L1-s0-i0"}"#), "error");
    assert_eq!(
        op(&mut w, r#"{"op":"check","id":"malt-v1-L1-s0-i4","answer":"","limits":{"time":1}}"#),
        "error"
    );
    assert_eq!(op(&mut w, r#"{"op":"ping"}"#), "pong");
}

/// An application without a sandbox runs through the same exchange: the app is the id's.
#[test]
fn a_route_episode_runs_in_the_worker() {
    let mut w = Worker::default();
    let id = "route-v1-L1-s0-i0";
    let started = parse(&w.handle(&json!({"op": "start", "id": id, "max_turns": 1}).to_string())[0]);
    assert_eq!(started["op"], "started", "{started}");
    let prompt = started["prompt"].as_str().unwrap();
    let reply = crate::route::RouteApp.baseline().reply(&[Message::user(prompt)]).unwrap().text;
    let out = w.handle(&json!({"op": "submit", "reply": reply}).to_string());
    assert_eq!(out.len(), 2, "{out:?}");
    let result = parse(&out[1]);
    assert_eq!(result["op"], "result");
    assert_eq!(result["record"]["app"], "route");
    assert_eq!(result["record"]["id"], id);
    assert_eq!(result["record"]["turns"].as_array().unwrap().len(), 1);
}

/// A fatal agent failure ends the episode, and its `turn` says why, as the runner does; a
/// retryable one leaves the episode going with no reason.
#[test]
fn a_fatal_failure_says_why_it_stopped() {
    let mut w = Worker::default();
    w.handle(&json!({"op": "start", "id": "route-v1-L1-s0-i0"}).to_string());
    let out = w.handle(r#"{"op":"fail","message":"timed out"}"#);
    assert_eq!(out.len(), 1, "{out:?}");
    assert_eq!(parse(&out[0])["stop_reason"], Value::Null);
    let out = w.handle(r#"{"op":"fail","message":"gave up after one retry","fatal":true}"#);
    assert_eq!(out.len(), 2, "{out:?}");
    let turn = parse(&out[0]);
    assert_eq!(turn["finished"], "stopped");
    assert!(turn["stop_reason"].as_str().unwrap().contains("gave up after one retry"), "{turn}");
}

/// `open` describes a task as the library's `TaskView` does, with no episode involved.
#[test]
fn open_describes_a_task() {
    let mut w = Worker::default();
    let id = "k8s-v1-L1-s2-i0";
    let opened = parse(&w.handle(&json!({"op": "open", "id": id}).to_string())[0]);
    assert_eq!(opened["op"], "opened", "{opened}");
    let view: crate::task_view::TaskView = serde_json::from_value(opened["view"].clone()).unwrap();
    let task = Registry::standard().generate(id).unwrap();
    assert_eq!(view, crate::task_view::TaskView::of(&*task, crate::k8s::K8sApp.baseline().info()));
    assert_eq!(op(&mut w, r#"{"op":"open","id":"k8s-v1-L9-s0-i0"}"#), "error");
    assert_eq!(op(&mut w, r#"{"op":"compose","line":"ls"}"#), "error");
    assert_eq!(op(&mut w, r#"{"op":"baseline"}"#), "error");
}

/// The worker starts from an application's own limits, not the sandbox's defaults: microseg's
/// prompt states its 10 s and 512 MiB, so a worker that opened it with 2 s and 256 MiB showed
/// the page another task (another content hash) than the CLI for the same id.
#[test]
fn an_opened_task_is_the_one_the_cli_generates() {
    let mut w = Worker::default();
    let id = "microseg-v1-L2-s1887031812-i1";
    let opened = parse(&w.handle(&json!({"op": "open", "id": id}).to_string())[0]);
    assert_eq!(opened["op"], "opened", "{opened}");
    let view: crate::task_view::TaskView = serde_json::from_value(opened["view"].clone()).unwrap();
    let task = Registry::standard().generate(id).unwrap();
    assert_eq!(view.card.content_hash, task.card().content_hash, "{id}");
}

/// The built-in agent plays an episode inside the worker, one `baseline` then `submit` per
/// turn, to the same record as the library's runner gives it natively; `compose` addresses
/// the machines `started` lists.
#[test]
fn the_baseline_plays_in_the_worker() {
    let registry: &'static Registry = Box::leak(Box::new(Registry::empty().with(&crate::route::RouteApp)));
    let mut w = Worker::new(registry);
    let id = "route-v1-L1-s1-i0";
    let started = parse(
        &w.handle(
            &json!({"op": "start", "id": id, "agent": crate::route::RouteApp.baseline().info()}).to_string(),
        )[0],
    );
    let targets: Vec<String> = serde_json::from_value(started["targets"].clone()).unwrap();
    assert!(!targets.is_empty(), "{started}");
    let composed =
        parse(&w.handle(&json!({"op": "compose", "target": targets[0], "line": "ip addr"}).to_string())[0]);
    let task = Registry::standard().generate(id).unwrap();
    assert_eq!(composed["reply"], task.start(None).compose(Some(&targets[0]), "ip addr"));
    let record = loop {
        let reply = parse(&w.handle(r#"{"op":"baseline"}"#)[0]);
        assert_eq!(reply["op"], "reply", "{reply}");
        let out = w.handle(&json!({"op": "submit", "reply": reply["reply"]}).to_string());
        if out.len() == 2 {
            break parse(&out[1])["record"].clone();
        }
    };
    let mut runner = Runner::new(task, RunSettings::default());
    let mut agent = crate::route::RouteApp.baseline();
    while runner.finished().is_none() {
        let reply = agent.reply(runner.messages());
        runner.submit(reply);
    }
    let native = to_json(&runner.record(&agent.info()));
    assert_eq!(record["score"], native["score"]);
    assert_eq!(record["turns"].as_array().map(Vec::len), native["turns"].as_array().map(Vec::len));
    // A worker of one application refuses the others' ids.
    assert_eq!(op(&mut w, r#"{"op":"open","id":"malt-v1-L1-s0-i0"}"#), "error");
}

/// A toy application of the test's own, sandboxed: its one-turn episode reports the time
/// limit it was built with, so a test sees both the registry and the limits reach it.
mod toy {
    use crate::app::{
        AnswerKind, App, AppInfo, AppKind, Episode, Finish, LevelInfo, Score, StepOutcome, TaskCard,
    };
    use crate::conversation::{Agent, AgentError, AgentInfo, AgentReply, Message};
    use crate::view::Picture;

    use super::*;

    pub struct Toy;
    pub static TOY: Toy = Toy;
    static INFO: AppInfo = AppInfo {
        name: "toy",
        title: "Toy",
        summary: "A test's application.",
        version: 1,
        older_versions: &[],
        kind: AppKind::Constructive,
        answer: AnswerKind::Commands,
        levels: &[LevelInfo { level: 1, summary: "one turn" }],
        knobs: &[],
        default_max_turns: 1,
        sandboxed: true,
        glossary: &[],
    };

    struct ToyTask(TaskCard, u128);
    struct ToyEpisode(u128, u32);
    struct Echo;

    impl App for Toy {
        fn info(&self) -> &'static AppInfo {
            &INFO
        }
        fn generate(&self, id: &QueryId) -> crate::Result<Arc<dyn Task>> {
            self.generate_limited(id, &crate::sandbox::Limits::default())
        }
        fn generate_limited(
            &self,
            id: &QueryId,
            limits: &crate::sandbox::Limits,
        ) -> crate::Result<Arc<dyn Task>> {
            INFO.check_id(id)?;
            let card = TaskCard {
                id: id.to_string(),
                app: "toy".into(),
                version: 1,
                level: id.level,
                label: "toy".into(),
                prompt: "Say anything.".into(),
                content_hash: "0".into(),
                params: Default::default(),
                expected: Value::Null,
                question: None,
                max_turns: 1,
            };
            Ok(Arc::new(ToyTask(card, limits.time.as_millis())))
        }
        fn baseline(&self) -> Box<dyn Agent> {
            Box::new(Echo)
        }
    }

    impl Agent for Echo {
        fn info(&self) -> AgentInfo {
            AgentInfo::new("echo", "echo")
        }
        fn reply(&mut self, _: &[Message]) -> Result<AgentReply, AgentError> {
            Ok(AgentReply { text: "done".into(), latency_ms: None, tokens: None })
        }
    }

    impl Task for ToyTask {
        fn card(&self) -> &TaskCard {
            &self.0
        }
        fn prompt(&self, _: PromptVariant) -> String {
            self.0.prompt.clone()
        }
        fn start(&self, _: Option<u32>) -> Box<dyn Episode> {
            Box::new(ToyEpisode(self.1, 0))
        }
        fn picture(&self) -> Picture {
            Picture::default()
        }
    }

    impl Episode for ToyEpisode {
        fn step(&mut self, reply: &str) -> StepOutcome {
            self.1 += 1;
            StepOutcome {
                action: reply.into(),
                observation: format!("time limit {} ms", self.0),
                ..Default::default()
            }
        }
        fn finished(&self) -> Option<Finish> {
            (self.1 > 0).then_some(Finish::Answered)
        }
        fn turns(&self) -> u32 {
            self.1
        }
        fn score(&self) -> Score {
            Score { correct: true, safe: true, progress: 1.0, turns: self.1, ..Default::default() }
        }
        fn stop(&mut self) {}
    }
}

/// An application added to the registry runs in the worker with no change to the protocol,
/// and gets the request's limits.
#[test]
fn a_registered_toy_runs_in_the_worker() {
    let registry: &'static Registry = Box::leak(Box::new(Registry::standard().clone().with(&toy::TOY)));
    let mut w = Worker::new(registry);
    let start = r#"{"op":"start","id":"toy-v1-L1-s0-i0","limits":{"time_ms":70}}"#;
    assert_eq!(op(&mut w, start), "started");
    let out = w.handle(r#"{"op":"submit","reply":"done"}"#);
    assert_eq!(parse(&out[0])["turn"]["observation"], "time limit 70 ms");
    let result = parse(&out[1]);
    assert_eq!(
        (&result["record"]["app"], &result["record"]["score"]["correct"]),
        (&json!("toy"), &json!(true))
    );
    let benched = parse(&w.handle(r#"{"op":"bench","app":"toy","tasks":2}"#)[0]);
    assert_eq!(benched["bench"]["app"], "toy", "{benched}");
    // The standard worker knows no toy.
    assert_eq!(op(&mut Worker::default(), start), "error");
}

#[test]
fn bench_runs_the_library_workload() {
    let mut w = Worker::default();
    let benched = parse(&w.handle(r#"{"op":"bench","app":"malt","tasks":3}"#)[0]);
    assert_eq!(benched["op"], "benched");
    let b: crate::bench::AppBench = serde_json::from_value(benched["bench"].clone()).unwrap();
    assert_eq!((b.app.as_str(), b.tasks), ("malt", 3));
    let native = crate::bench::run_app(&crate::malt::MALT, 3, &|| 0.0).unwrap();
    assert_eq!(b.solved, native.solved);
    let stages: Vec<_> = b.stages.iter().map(|s| (s.stage.clone(), s.samples)).collect();
    let expected: Vec<_> = native.stages.iter().map(|s| (s.stage.clone(), s.samples)).collect();
    assert_eq!(stages, expected);
    assert_eq!(op(&mut w, r#"{"op":"bench","app":"malt","tasks":0}"#), "error");
}

#[test]
fn bench_names_its_application() {
    let mut w = Worker::default();
    let benched = parse(&w.handle(r#"{"op":"bench","app":"route","tasks":2}"#)[0]);
    assert_eq!(benched["op"], "benched", "{benched}");
    assert_eq!(benched["bench"]["app"], "route");
    for request in [r#"{"op":"bench","tasks":2}"#, r#"{"op":"bench","app":"toy","tasks":2}"#] {
        let e = parse(&w.handle(request)[0]);
        assert_eq!(e["op"], "error");
        let text = e["message"].as_str().unwrap();
        assert!(text.contains("malt, route, k8s"), "{text}");
    }
}

#[test]
fn the_adaptive_space_and_ids_come_from_the_engine() {
    let mut w = Worker::default();
    let space = parse(&w.handle(r#"{"op":"space","app":"route"}"#)[0]);
    assert_eq!(space["op"], "space", "{space}");
    let spec: crate::adapt::SpaceSpec = serde_json::from_value(space["space"].clone()).unwrap();
    assert_eq!(spec, crate::adapt::SpaceSpec::of(&crate::route::RouteApp));
    let cell = spec.feasible[7];
    let request = json!({"op": "realise", "app": "route", "cells": [[cell, 1_000_123]]}).to_string();
    let realised = parse(&w.handle(&request)[0]);
    assert_eq!(realised["op"], "realised", "{realised}");
    let want = crate::adapt::realise_all(&crate::route::RouteApp, &[(cell, 1_000_123)]).unwrap();
    assert_eq!(realised["ids"], json!(want));
    for bad in
        [r#"{"op":"space","app":"toy"}"#, r#"{"op":"realise","app":"route","cells":[[99999999999,1]]}"#]
    {
        assert_eq!(op(&mut w, bad), "error", "{bad}");
    }
}

/// A request's limits reach the MALT episode: a 20 ms time limit ends an endless loop long
/// before the default 2 s, in `check` and in an episode alike.
#[test]
fn limit_overrides_reach_a_malt_episode() {
    let mut w = Worker::default();
    let answer = python("    while True:\n        pass");
    let limits = json!({"time_ms": 20});
    let checked = parse(
        &w.handle(
            &json!({"op": "check", "id": "malt-v1-L1-s0-i4", "answer": answer, "limits": limits}).to_string(),
        )[0],
    );
    assert_eq!(checked["op"], "checked");
    assert!(
        checked["record"]["turns"][0]["observation"].as_str().unwrap().contains("TimeoutError"),
        "{checked}"
    );
    assert!(checked["check_ms"].as_f64().unwrap() < 1500.0, "{}", checked["check_ms"]);
    let start = json!({"op": "start", "id": "malt-v1-L1-s0-i4", "limits": limits});
    assert_eq!(op(&mut w, &start.to_string()), "started");
    let out = w.handle(&json!({"op": "submit", "reply": answer}).to_string());
    let turn = parse(&out[0]);
    assert!(turn["turn"]["observation"].as_str().unwrap().contains("TimeoutError"), "{turn}");
}

mod arbitrary {
    use proptest::prelude::*;

    use super::*;

    /// Requests near the protocol's shape: real ops and fields with arbitrary values, mixed
    /// with plain junk, so both the parser and the handlers are exercised.
    fn request() -> impl Strategy<Value = String> {
        let ops = prop::sample::select(vec![
            "start", "submit", "fail", "stop", "check", "replay", "bench", "ping", "nope",
        ]);
        let ids = prop::sample::select(vec![
            "malt-v1-L1-s0-i4",
            "route-v1-L1-s0-i0",
            "k8s-v1-L1-s1-i0",
            "toy-v1-L1-s0-i0",
            "malt-v1-L9-s0-i0",
            "",
        ]);
        let field = prop_oneof![
            ids.prop_map(|id| ("id", json!(id))),
            "[ -~]{0,12}".prop_map(|s| ("reply", json!(s))),
            "[ -~]{0,12}".prop_map(|s| ("answer", json!(s))),
            "[ -~]{0,12}".prop_map(|s| ("replies", json!([{"text": s}, {"fail": s}]))),
            "[ -~]{0,12}".prop_map(|s| ("message", json!(s))),
            (0u32..4).prop_map(|n| ("max_turns", json!(n))),
            (0usize..3).prop_map(|n| ("tasks", json!(n))),
            prop::sample::select(vec!["malt", "route", "toy"]).prop_map(|a| ("app", json!(a))),
            (0u64..30).prop_map(|t| ("limits", json!({"time_ms": t}))),
            any::<bool>().prop_map(|b| ("fatal", json!(b))),
            any::<i64>().prop_map(|n| ("tokens", json!(n))),
        ];
        let shaped = (ops, prop::collection::vec(field, 0..5)).prop_map(|(op, fields)| {
            let mut map = serde_json::Map::new();
            map.insert("op".into(), json!(op));
            for (k, v) in fields {
                map.insert(k.into(), v);
            }
            Value::Object(map).to_string()
        });
        prop_oneof![3 => shaped, 1 => "[ -~]{0,40}"]
    }

    const VALID: [&str; 8] = ["started", "turn", "result", "checked", "replayed", "benched", "pong", "error"];

    proptest! {
        #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

        /// Every request gets exactly one `error`, or responses that are all valid messages.
        #[test]
        fn every_request_gets_one_error_or_valid_responses(requests in prop::collection::vec(request(), 1..6)) {
            let mut w = Worker::default();
            for r in &requests {
                let out = w.handle(r);
                prop_assert!(!out.is_empty(), "{r}: no response");
                let messages: Vec<Value> = out.iter().map(|m| serde_json::from_str(m).unwrap()).collect();
                for m in &messages {
                    let op = m["op"].as_str().unwrap_or_default();
                    prop_assert!(VALID.contains(&op), "{r}: {m}");
                    prop_assert!(m["memory_bytes"].is_u64(), "{r}: {m}");
                }
                let errors = messages.iter().filter(|m| m["op"] == "error").count();
                prop_assert!(errors == 0 || messages.len() == 1, "{r}: {out:?}");
            }
        }
    }
}
