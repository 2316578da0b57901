//! The other callers of the sandbox pool: `netpress env --stdio` and the A2A assessor run a
//! sandboxed application's turns in sandbox processes, as `netpress serve`'s sessions do
//! (`sandbox_turns.rs`), and give the runner's record for the same replies.

use netpress::agent::mock::{MockServer, Reply, Script};
use netpress::registry::Registry;
use netpress::server::{AssessorConfig, Config, SandboxConfig, Server};
use serde_json::{Value, json};

use super::sandbox_turns::{MALT, runner_record, wrong_then_right};
use super::serve::same_record;
use super::support::stdio;

#[test]
fn a_two_turn_malt_episode_over_stdio_equals_the_runner_s_record() {
    let replies = wrong_then_right();
    let want = runner_record(MALT, &replies, Some(2));
    assert_eq!((want.turns.len(), want.score.correct), (2, true), "{:?}", want.score);
    let lines = [
        json!({"type": "reset", "data": {"task_id": MALT, "max_turns": 2, "record": true}}),
        json!({"type": "step", "data": {"reply": replies[0]}}),
        json!({"type": "step", "data": {"reply": replies[1]}}),
        json!({"type": "state"}),
    ];
    let input: String = lines.iter().map(|l| format!("{l}\n")).collect();
    let (answers, out) = stdio(&["--sandbox-jobs", "1"], input.as_bytes());
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let kinds: Vec<&str> = answers.iter().map(|a| a["type"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["observation", "observation", "observation", "state"], "{answers:?}");
    let first = &answers[1]["data"];
    assert_eq!((&first["done"], &first["observation"]["turn"]), (&json!(false), &json!(1)));
    assert_eq!(first["observation"]["text"], want.turns[0].observation);
    let last = &answers[2]["data"];
    assert_eq!((&last["done"], &last["reward"]), (&json!(true), &json!(1.0)), "{last}");
    same_record(&last["observation"]["record"], &want);
    assert_eq!(answers[3]["data"]["step_count"], 2);
}

/// The assessor over a MALT task: the participant (the scripted A2A agent) answers wrong, then
/// right; the query's dict is the one of the runner's record for those replies, and the second
/// call carried the observation of the first turn (the conversation a runner would send).
#[test]
fn the_assessor_runs_a_malt_task_in_sandbox_processes() {
    let replies = wrong_then_right();
    let purple = MockServer::start("127.0.0.1:0", Script::default()).unwrap();
    let script =
        Script { a2a: replies.iter().map(|r| Reply::text(r.clone())).collect(), ..Script::default() };
    purple.set_script("malt", script);
    let config = Config {
        bind: "127.0.0.1:0".parse().unwrap(),
        assessor: Some(AssessorConfig::default()),
        sandbox: Some(SandboxConfig::new(env!("CARGO_BIN_EXE_netpress").into(), 1)),
        ..Config::default()
    };
    let server = Server::start(Registry::standard(), config).unwrap();
    let eval = json!({"participants": {"malt_operator": format!("{}/s/malt", purple.url())},
        "config": {"task_ids": [MALT], "max_iterations": 2, "prompt_type": "zeroshot_base"}});
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "message/send", "params": {"message": {
        "kind": "message", "role": "user", "messageId": "m1", "parts": [{"kind": "text", "text": eval.to_string()}]}}});
    let answer: Value = ureq::post(&format!("http://{}/", server.addr()))
        .header("content-type", "application/json")
        .send(body.to_string())
        .unwrap()
        .body_mut()
        .read_json()
        .unwrap();
    let task = &answer["result"];
    assert_eq!(task["status"]["state"], "completed", "{answer}");
    let artifacts = task["artifacts"].as_array().unwrap();
    assert_eq!(artifacts.len(), 2, "{answer}");

    let want = runner_record(MALT, &replies, Some(2));
    let opts = netpress::export::leaderboard::LeaderboardOptions {
        kind: netpress::app::AppKind::Constructive,
        participant: "malt_operator".into(),
        participant_id: String::new(),
    };
    let task_card = netpress::registry::generate(MALT).unwrap();
    let mut expected = netpress::export::leaderboard::query_dict(&want, &opts, Some(task_card.card()));
    let mut got = artifacts[0]["parts"][0]["data"].clone();
    for dict in [&mut expected, &mut got] {
        let map = dict.as_object_mut().unwrap();
        map.remove("Result-Latency");
        map.remove("agent_info");
    }
    assert_eq!(got, expected);
    assert_eq!(got["Result-Correctness"], "Pass");
    assert_eq!(artifacts[1]["parts"][0]["data"]["avg_correctness"].as_f64(), Some(1.0));

    let calls: Vec<_> = purple.requests("malt").into_iter().filter(|c| c.method == "POST").collect();
    assert_eq!(calls.len(), 2, "{calls:?}");
    let sent: Value = serde_json::from_str(&calls[1].body).unwrap();
    let text = sent["params"]["message"]["parts"][0]["text"].as_str().unwrap();
    assert!(text.contains(want.turns[0].observation.trim()), "{text}");
    server.shutdown().unwrap();
}
