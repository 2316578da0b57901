//! MALT through `netpress serve`: each reply runs in a sandbox process (`netpress
//! sandbox-worker`), never in the server, and gives `netpress run`'s record; a process that
//! stays silent past its time is replaced and the step observes the loss. Multi-turn episodes:
//! `sandbox_turns.rs`.

use std::time::Duration;

use netpress::server::{Config, SandboxConfig};
use serde_json::{Value, json};
use tungstenite::Message;

use super::serve::{post, start};

fn pool(silence: Duration) -> Option<SandboxConfig> {
    let config = SandboxConfig::new(env!("CARGO_BIN_EXE_netpress").into(), 1);
    Some(SandboxConfig { silence, ..config })
}

#[test]
fn a_malt_episode_runs_in_a_sandbox_process_with_the_runner_s_record() {
    let server = start(Config { sandbox: pool(Duration::from_secs(30)), ..Config::default() });
    let addr = server.addr();
    let id = "malt-v1-L1-s3-i0";
    let (replies, want) = super::serve::baseline(id);
    assert_eq!(replies.len(), 1);
    let (mut ws, _) = tungstenite::connect(format!("ws://{addr}/ws")).unwrap();
    let mut ask = |m: Value| -> Value {
        ws.send(Message::text(m.to_string())).unwrap();
        serde_json::from_str(ws.read().unwrap().to_text().unwrap()).unwrap()
    };
    ask(json!({"type": "reset", "data": {"task_id": id, "record": true}}));
    let last = ask(json!({"type": "step", "data": {"reply": replies[0]}}));
    assert_eq!(last["data"]["done"], true, "{last}");
    super::serve::same_record(&last["data"]["observation"]["record"], &want);
    assert_eq!(ask(json!({"type": "state"}))["data"]["step_count"], 1);

    let ep = post(addr, "/reset", json!({"task_id": id, "record": true})).body["observation"]["episode_id"]
        .clone();
    let last = post(addr, "/step", json!({"action": {"reply": replies[0]}, "episode_id": ep})).body;
    super::serve::same_record(&last["observation"]["record"], &want);
    server.shutdown().unwrap();
}

/// A reply that runs until the sandbox's own time limit (2 s) stops it.
const LOOP: &str = "```python\ndef process_graph(G):\n    while True:\n        pass\n```";

#[test]
fn a_silent_sandbox_process_is_replaced_and_the_step_fails() {
    // The reply loops until the sandbox's own 2 s limit, so the process is silent well past
    // the pool's 300 ms, however fast the machine: a 1 ms silence raced a quick answer.
    let server = start(Config { sandbox: pool(Duration::from_millis(300)), ..Config::default() });
    let addr = server.addr();
    for _ in 0..2 {
        let ep =
            post(addr, "/reset", json!({"task_id": "malt-v1-L1-s0-i0", "record": true})).body["observation"]
                ["episode_id"]
                .clone();
        let r = post(addr, "/step", json!({"action": {"reply": LOOP}, "episode_id": ep})).body;
        assert_eq!((&r["done"], &r["observation"]["finish"]), (&json!(true), &json!("stopped")), "{r}");
        let turn = &r["observation"]["record"]["turns"][0];
        assert_eq!(turn["error"], "TimeoutError: sandbox terminated", "{r}");
    }
    // Other applications' sessions never touch the pool.
    let k8s = post(addr, "/reset", json!({"task_id": "k8s-v1-L1-s0-i0"}));
    assert_eq!(k8s.status, 200);
    server.shutdown().unwrap();
}

#[test]
fn without_sandbox_processes_malt_is_refused() {
    let server = start(Config::default());
    let r = post(server.addr(), "/reset", json!({"task_id": "malt-v1-L1-s0-i0"}));
    assert_eq!((r.status, &r.body["detail"]["reason"]), (422, &json!("SANDBOXED_APP")));
    server.shutdown().unwrap();
}
