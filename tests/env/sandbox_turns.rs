//! Multi-turn sandboxed episodes through `netpress serve`: every step replays the session's
//! turns in a sandbox process, so the record equals the runner's for the same replies, a
//! process killed between turns costs nothing, and a full sandbox queue refuses a step without
//! touching its session.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use netpress::app::PromptVariant;
use netpress::record::ResultRecord;
use netpress::run::{RunSettings, Runner};
use netpress::server::{Config, SandboxConfig, Server};
use serde_json::{Value, json};
use tungstenite::Message;

use super::serve::{post, same_record, start};

pub(crate) const MALT: &str = "malt-v1-L1-s3-i0";

fn pool(jobs: usize) -> Option<SandboxConfig> {
    Some(SandboxConfig::new(env!("CARGO_BIN_EXE_netpress").into(), jobs))
}

/// The runner's record of `id` fed `replies`, in this process.
pub(crate) fn runner_record(id: &str, replies: &[String], max_turns: Option<u32>) -> ResultRecord {
    let task = netpress::registry::generate(id).unwrap();
    let mut runner = Runner::new(task, RunSettings { variant: PromptVariant::ZeroshotBase, max_turns });
    for r in replies {
        runner.submit(Ok(netpress::conversation::AgentReply { text: r.clone(), ..Default::default() }));
    }
    runner.record(&netpress::conversation::AgentInfo::new("x", "x"))
}

/// A wrong answer (no code: a parse error, a turn used) and then MALT's baseline answer.
pub(crate) fn wrong_then_right() -> Vec<String> {
    vec!["no code".to_string(), super::serve::baseline(MALT).0.remove(0)]
}

fn ws_episode(addr: SocketAddr, reset: Value, replies: &[String]) -> Vec<Value> {
    let (mut ws, _) = tungstenite::connect(format!("ws://{addr}/ws")).unwrap();
    let mut ask = |m: Value| -> Value {
        ws.send(Message::text(m.to_string())).unwrap();
        serde_json::from_str(ws.read().unwrap().to_text().unwrap()).unwrap()
    };
    ask(json!({"type": "reset", "data": reset}));
    replies.iter().map(|r| ask(json!({"type": "step", "data": {"reply": r}}))["data"].clone()).collect()
}

fn http_step(addr: SocketAddr, ep: &Value, reply: &str) -> Value {
    post(addr, "/step", json!({"action": {"reply": reply}, "episode_id": ep})).body
}

#[test]
fn a_multi_turn_malt_episode_equals_the_runner_s_record() {
    let server = start(Config { sandbox: pool(1), ..Config::default() });
    let addr = server.addr();
    let replies = wrong_then_right();
    let want = runner_record(MALT, &replies, Some(2));
    assert_eq!((want.turns.len(), want.score.correct), (2, true), "{:?}", want.score);
    let steps = ws_episode(addr, json!({"task_id": MALT, "max_turns": 2, "record": true}), &replies);
    assert_eq!(
        (&steps[0]["done"], &steps[0]["reward"], &steps[0]["observation"]["turn"]),
        (&json!(false), &json!(0.0), &json!(1))
    );
    assert_eq!(steps[0]["observation"]["text"], want.turns[0].observation);
    assert_eq!((&steps[1]["done"], &steps[1]["reward"]), (&json!(true), &json!(1.0)), "{}", steps[1]);
    same_record(&steps[1]["observation"]["record"], &want);

    let ep = post(addr, "/reset", json!({"task_id": MALT, "max_turns": 2, "record": true})).body["observation"]
        ["episode_id"]
        .clone();
    assert_eq!(http_step(addr, &ep, &replies[0])["done"], false);
    let last = http_step(addr, &ep, &replies[1]);
    same_record(&last["observation"]["record"], &want);
    let after = http_step(addr, &ep, "more");
    assert_eq!((&after["done"], &after["reward"]), (&json!(true), &json!(0.0)));
    server.shutdown().unwrap();
}

/// Microseg (another sandboxed application, the same path): a wrong and then the baseline's
/// answer.
#[test]
fn a_multi_turn_microseg_episode_equals_the_runner_s_record() {
    let server = start(Config { sandbox: pool(1), ..Config::default() });
    let id = "microseg-v1-L1-s0-i0";
    let replies = vec!["no code".to_string(), super::serve::baseline(id).0.remove(0)];
    let want = runner_record(id, &replies, Some(2));
    assert_eq!((want.turns.len(), want.finish), (2, netpress::app::Finish::Answered), "{:?}", want.score);
    let steps = ws_episode(server.addr(), json!({"task_id": id, "max_turns": 2, "record": true}), &replies);
    assert_eq!(steps[0]["done"], false);
    same_record(&steps[1]["observation"]["record"], &want);
    server.shutdown().unwrap();
}

/// Microseg's repair family, multi-turn by design: the scripted baseline's commands, one per
/// turn, each step replaying the earlier ones in a sandbox process, end in the runner's record.
#[test]
fn a_microseg_repair_episode_equals_the_runner_s_record() {
    let server = start(Config { sandbox: pool(1), ..Config::default() });
    let id = "microseg-v1-L2-s0-i4";
    let (replies, want) = super::serve::baseline(id);
    assert!(
        replies.len() >= 2 && want.score.correct,
        "a repair the baseline solves in turns: {:?}",
        want.score
    );
    let steps = ws_episode(server.addr(), json!({"task_id": id, "record": true}), &replies);
    assert!(steps[..steps.len() - 1].iter().all(|s| s["done"] == false));
    same_record(&steps[steps.len() - 1]["observation"]["record"], &runner_record(id, &replies, None));
    server.shutdown().unwrap();
}

/// Kills `pid` and waits until it has exited (a zombie of the pool, not yet reaped).
fn kill(pid: u32) {
    let ok = std::process::Command::new("kill").args(["-9", &pid.to_string()]).status().unwrap();
    assert!(ok.success());
    let stat = PathBuf::from(format!("/proc/{pid}/stat"));
    let deadline = Instant::now() + Duration::from_secs(10);
    while std::fs::read_to_string(&stat).is_ok_and(|s| !s.contains(") Z ")) {
        assert!(Instant::now() < deadline, "process {pid} still runs");
        std::thread::sleep(Duration::from_millis(5));
    }
}

#[test]
fn a_sandbox_process_killed_between_turns_is_replaced_and_the_episode_goes_on() {
    let server = start(Config { sandbox: pool(1), ..Config::default() });
    let addr = server.addr();
    let replies = [vec!["still no code".to_string()], wrong_then_right()].concat();
    let want = runner_record(MALT, &replies, Some(3));
    let ep = post(addr, "/reset", json!({"task_id": MALT, "max_turns": 3, "record": true})).body["observation"]
        ["episode_id"]
        .clone();
    let mut last = Value::Null;
    for reply in &replies {
        let pids = server.sandbox_idle_pids();
        for &pid in &pids {
            kill(pid);
        }
        last = http_step(addr, &ep, reply);
        assert!(last["observation"]["output"].is_string(), "{last}");
        assert!(server.sandbox_idle_pids().iter().all(|p| !pids.contains(p)));
    }
    same_record(&last["observation"]["record"], &want);
    server.shutdown().unwrap();
}

/// A sandbox process that says it is ready only once `gate` exists: steps wait for it, so the
/// queue fills deterministically, and it is the real worker once let go.
fn gated(gate: &Path) -> Option<SandboxConfig> {
    let script = format!(
        "while [ ! -e '{}' ]; do sleep 0.02; done; exec '{}' sandbox-worker",
        gate.display(),
        env!("CARGO_BIN_EXE_netpress")
    );
    let config = SandboxConfig::new("sh".into(), 1);
    Some(SandboxConfig { args: vec!["-c".into(), script], ..config })
}

fn state(server: &Server, ep: &Value) -> Value {
    let path = format!("/state?episode_id={}", ep.as_str().unwrap());
    super::serve::http(server.addr(), "GET", &path, &[], "").body
}

#[test]
fn a_full_sandbox_queue_refuses_a_step_and_leaves_its_session_as_it_was() {
    let dir = super::support::scratch("sandbox-busy");
    let gate = dir.join("gate");
    std::fs::write(&gate, "").unwrap();
    let server = start(Config { sandbox: gated(&gate), ..Config::default() });
    let addr = server.addr();
    let replies = wrong_then_right();
    let reset = json!({"task_id": MALT, "max_turns": 3, "record": true});
    let ep = post(addr, "/reset", reset.clone()).body["observation"]["episode_id"].clone();
    assert_eq!(http_step(addr, &ep, &replies[0])["observation"]["turn"], 1);
    let before = state(&server, &ep);

    // No process, and the next one waits at the gate: 1 job + 4 × 1 waiting fill the queue.
    std::fs::remove_file(&gate).unwrap();
    server.sandbox_idle_pids().into_iter().for_each(kill);
    let fillers: Vec<_> = (0..5)
        .map(|_| {
            let ep = post(addr, "/reset", reset.clone()).body["observation"]["episode_id"].clone();
            std::thread::spawn(move || http_step(addr, &ep, "no code"))
        })
        .collect();
    let deadline = Instant::now() + Duration::from_secs(5);
    while server.sandbox_queued() < 5 {
        assert!(Instant::now() < deadline, "the queue did not fill: {}", server.sandbox_queued());
        std::thread::sleep(Duration::from_millis(5));
    }
    let busy = post(addr, "/step", json!({"action": {"reply": replies[1]}, "episode_id": ep}));
    assert_eq!((busy.status, &busy.body["detail"]["reason"]), (503, &json!("SANDBOX_BUSY")), "{}", busy.body);
    assert!(busy.head.contains("retry-after: 1"), "{}", busy.head);
    assert_eq!(state(&server, &ep), before);

    std::fs::write(&gate, "").unwrap();
    for f in fillers {
        assert_eq!(f.join().unwrap()["observation"]["turn"], 1);
    }
    let last = http_step(addr, &ep, &replies[1]);
    same_record(&last["observation"]["record"], &runner_record(MALT, &replies, Some(3)));
    server.shutdown().unwrap();
    let _ = std::fs::remove_dir_all(dir);
}
