//! `netpress serve --a2a-assessor` against the scripted A2A agent (`agent::mock`) as the
//! participant, both on loopback: the assessment's per-query dicts are the leaderboard dicts of
//! the same episodes played directly, over `message/send` and `message/stream` alike.

use std::sync::Arc;

use netpress::agent::mock::{MockServer, Reply, Script};
use netpress::registry::Registry;
use netpress::run::{RunSettings, run_episode};
use netpress::server::{AssessorConfig, Config, Server};
use serde_json::{Value, json};

const IDS: [&str; 2] = ["k8s-v1-L1-s0-i0", "k8s-v1-L2-s3-i0"];

/// The K8s baseline's replies on `IDS`, in order, and whether each episode was correct.
fn baseline_script() -> (Vec<Reply>, Vec<bool>) {
    let app = Registry::standard().app("k8s").unwrap();
    let mut replies = Vec::new();
    let mut correct = Vec::new();
    for id in IDS {
        let task = Registry::standard().generate(id).unwrap();
        let record = run_episode(task, app.baseline().as_mut(), RunSettings::default());
        replies.extend(record.turns.iter().map(|t| Reply::text(t.reply.clone())));
        correct.push(record.score.correct);
    }
    (replies, correct)
}

fn servers(name: &str) -> (MockServer, Server, Vec<bool>) {
    let (replies, correct) = baseline_script();
    let purple = MockServer::start("127.0.0.1:0", Script::default()).unwrap();
    purple.set_script(name, Script { a2a: replies, ..Script::default() });
    let config = Config {
        bind: "127.0.0.1:0".parse().unwrap(),
        assessor: Some(AssessorConfig::default()),
        ..Config::default()
    };
    (purple, Server::start(Registry::standard(), config).unwrap(), correct)
}

fn request(method: &str, purple: &str, config: Value) -> String {
    let eval = json!({"participants": {"k8s_operator": purple}, "config": config});
    json!({"jsonrpc": "2.0", "id": 7, "method": method, "params": {"message": {"kind": "message",
        "role": "user", "messageId": "m1", "parts": [{"kind": "text", "text": eval.to_string()}]}}})
    .to_string()
}

fn post(server: &Server, body: &str) -> String {
    let url = format!("http://{}/", server.addr());
    let mut response = ureq::post(&url).header("content-type", "application/json").send(body).unwrap();
    response.body_mut().read_to_string().unwrap()
}

fn config() -> Value {
    json!({"task_ids": IDS, "prompt_type": "zeroshot_base", "output_dir": "dump"})
}

fn check_queries(artifacts: &[Value], correct: &[bool]) {
    let names: Vec<&str> = artifacts.iter().map(|a| a["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["Query 1", "Query 2", "Result"]);
    for (a, (id, ok)) in artifacts.iter().zip(IDS.iter().zip(correct)) {
        let data = &a["parts"][0]["data"];
        assert_eq!((data["netpress_id"].as_str(), data["success"].as_bool()), (Some(*id), Some(*ok)));
        assert_eq!(data["agent_info"]["name"], "k8s_operator");
    }
    let result = &artifacts[2]["parts"][0]["data"];
    let rate = correct.iter().filter(|c| **c).count() as f64 / correct.len() as f64;
    assert_eq!(result["avg_correctness"].as_f64(), Some(rate));
    assert!(result["avg_iterations"].as_f64().unwrap() >= 1.0);
}

#[test]
fn message_send_answers_the_finished_assessment() {
    let (purple, server, correct) = servers("send");
    let card: Value = ureq::get(&format!("http://{}/.well-known/agent-card.json", server.addr()))
        .call()
        .unwrap()
        .body_mut()
        .read_json()
        .unwrap();
    assert_eq!(
        (card["protocolVersion"].as_str(), card["capabilities"]["streaming"].as_bool()),
        (Some("0.3.0"), Some(true))
    );
    let answer: Value = serde_json::from_str(&post(
        &server,
        &request("message/send", &format!("{}/s/send", purple.url()), config()),
    ))
    .unwrap();
    let task = &answer["result"];
    assert_eq!(
        (answer["id"].as_i64(), task["status"]["state"].as_str()),
        (Some(7), Some("completed")),
        "{answer}"
    );
    check_queries(task["artifacts"].as_array().unwrap(), &correct);
    let said: Vec<&str> = task["history"].as_array().unwrap()[1..]
        .iter()
        .map(|m| m["parts"][0]["text"].as_str().unwrap())
        .collect();
    assert!(said[0].contains("ignored: output_dir"), "{}", said[0]);
    assert_eq!(&said[1..3], ["Query 1 processed", "Query 2 processed"]);
    let got: Value = serde_json::from_str(&post(
        &server,
        &json!({"jsonrpc": "2.0", "id": 8, "method": "tasks/get",
        "params": {"id": task["id"]}})
        .to_string(),
    ))
    .unwrap();
    assert_eq!(&got["result"], task);
}

#[test]
fn message_stream_sends_each_query_as_it_ends() {
    let (purple, server, correct) = servers("stream");
    let text = post(&server, &request("message/stream", &format!("{}/s/stream", purple.url()), config()));
    let events: Vec<Value> = text
        .lines()
        .filter_map(|l| l.strip_prefix("data: "))
        .map(|l| serde_json::from_str::<Value>(l).unwrap()["result"].clone())
        .collect();
    let kinds: Vec<&str> = events.iter().map(|e| e["kind"].as_str().unwrap()).collect();
    assert_eq!(
        kinds,
        [
            "task",
            "status-update",
            "artifact-update",
            "status-update",
            "artifact-update",
            "status-update",
            "artifact-update",
            "status-update"
        ]
    );
    let artifacts: Vec<Value> =
        events.iter().filter(|e| e["kind"] == "artifact-update").map(|e| e["artifact"].clone()).collect();
    check_queries(&artifacts, &correct);
    let last = events.last().unwrap();
    assert_eq!((last["status"]["state"].as_str(), last["final"].as_bool()), (Some("completed"), Some(true)));
}

#[test]
fn bad_requests_get_json_rpc_errors_and_an_unreachable_participant_fails_the_task() {
    let (_purple, server, _) = servers("bad");
    let call = |body: &str| serde_json::from_str::<Value>(&post(&server, body)).unwrap();
    assert_eq!(call("not json")["error"]["code"], -32700);
    assert_eq!(call(r#"{"jsonrpc":"2.0","id":1,"method":"nope"}"#)["error"]["code"], -32601);
    let refused =
        call(&request("message/send", "http://127.0.0.1:9", json!({"complexity_level": ["level9"]})));
    assert_eq!(refused["error"]["code"], -32602);
    assert!(refused["error"]["message"].as_str().unwrap().contains("no level 9"), "{refused}");
    // Port 9 (discard) has no listener on a test machine: the card fetch is refused.
    let failed = call(&request("message/send", "http://127.0.0.1:9", json!({"task_ids": [IDS[0]]})));
    assert_eq!(failed["result"]["status"]["state"], "failed", "{failed}");
    let without: Arc<Server> = Arc::new(
        Server::start(
            Registry::standard(),
            Config { bind: "127.0.0.1:0".parse().unwrap(), ..Config::default() },
        )
        .unwrap(),
    );
    let status = ureq::post(&format!("http://{}/", without.addr()))
        .config()
        .http_status_as_error(false)
        .build()
        .send("{}")
        .unwrap()
        .status();
    assert_eq!(status.as_u16(), 404, "no assessor routes unless asked");
}
