//! `netpress serve` in-process on 127.0.0.1 with ephemeral ports: routes, errors, lifecycle,
//! limits, security and the records, through a raw HTTP/1.1 client (exact headers) and a
//! blocking WebSocket client.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

use netpress::app::PromptVariant;
use netpress::env::Limits;
use netpress::registry::Registry;
use netpress::run::{RunSettings, run_episode};
use netpress::server::{Config, Server};
use serde_json::{Value, json};
use tungstenite::Message;

pub(crate) fn start(config: Config) -> Server {
    start_with(Registry::standard(), config)
}

fn start_with(registry: &'static Registry, config: Config) -> Server {
    Server::start(registry, Config { bind: "127.0.0.1:0".parse().unwrap(), ..config }).unwrap()
}

pub(crate) struct Answer {
    pub status: u16,
    pub head: String,
    pub body: Value,
}

/// One request on a fresh connection; `headers` replace the default Host when they hold one.
pub(crate) fn http(
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> Answer {
    let mut stream = TcpStream::connect(addr).unwrap();
    stream.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let mut request =
        format!("{method} {path} HTTP/1.1\r\nContent-Length: {}\r\nConnection: close\r\n", body.len());
    if !headers.iter().any(|(k, _)| k.eq_ignore_ascii_case("host")) {
        request.push_str(&format!("Host: {addr}\r\n"));
    }
    for (k, v) in headers {
        request.push_str(&format!("{k}: {v}\r\n"));
    }
    request.push_str("Content-Type: application/json\r\n\r\n");
    stream.write_all(request.as_bytes()).unwrap();
    stream.write_all(body.as_bytes()).unwrap();
    let mut raw = Vec::new();
    let _ = stream.read_to_end(&mut raw);
    let text = String::from_utf8_lossy(&raw).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let status = head.split(' ').nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
    Answer {
        status,
        head: head.to_ascii_lowercase(),
        body: serde_json::from_str(body).unwrap_or(Value::Null),
    }
}

pub(crate) fn post(addr: SocketAddr, path: &str, body: Value) -> Answer {
    http(addr, "POST", path, &[], &body.to_string())
}

fn reason(a: &Answer) -> &str {
    a.body["detail"]["reason"].as_str().unwrap_or("")
}

#[test]
fn http_routes_and_errors() {
    let server = start(Config::default());
    let addr = server.addr();
    let r = post(addr, "/reset", json!({"task_id": "k8s-v1-L1-s0-i0", "episode_id": "ep-1"}));
    assert_eq!((r.status, &r.body["reward"], &r.body["done"]), (200, &Value::Null, &json!(false)));
    assert_eq!(r.body["observation"]["episode_id"], "ep-1");
    let minted = post(addr, "/reset", json!({"task_id": "route-v1-L1-s0-i0"}));
    assert_eq!(minted.body["observation"]["episode_id"].as_str().unwrap().len(), 32);
    let no_id = post(addr, "/step", json!({"action": {"reply": "kubectl get pods -A"}}));
    assert_eq!((no_id.status, reason(&no_id)), (404, "NO_EPISODE_ID"));
    let step = post(
        addr,
        "/step",
        json!({"action": {"reply": "kubectl get pods -A"}, "episode_id": "ep-1", "timeout_s": 5, "request_id": "r1"}),
    );
    assert_eq!(
        (step.status, &step.body["reward"], &step.body["observation"]["turn"]),
        (200, &json!(0.0), &json!(1))
    );
    let state = http(addr, "GET", "/state?episode_id=ep-1", &[], "");
    assert_eq!((state.status, &state.body["step_count"]), (200, &json!(1)));
    assert_eq!(http(addr, "GET", "/health", &[], "").body, json!({"status": "healthy"}));
    assert_eq!(
        http(addr, "GET", "/capacity", &[], "").body,
        json!({"active_sessions": 2, "max_sessions": 4096})
    );
    assert!(http(addr, "GET", "/schema", &[], "").body["observation"]["required"].is_array());
    assert_eq!(http(addr, "GET", "/metadata", &[], "").body["name"], "netpress");
    let cases = [
        (http(addr, "POST", "/reset", &[], "{nope"), 400, "NOT_JSON"),
        (post(addr, "/reset", json!({"task_id": "k8s-v1-L1-s0-i0", "colour": 1})), 422, "UNKNOWN_FIELD"),
        (post(addr, "/reset", json!({"task_id": "k8s-v1-L9-s0-i0"})), 422, "BAD_LEVEL"),
        (
            post(addr, "/step", json!({"action": {"reply": "x".repeat(300_000)}, "episode_id": "ep-1"})),
            413,
            "REPLY_TOO_LARGE",
        ),
        (
            post(addr, "/step", json!({"action": {"reply": "x"}, "episode_id": "nope"})),
            404,
            "UNKNOWN_SESSION",
        ),
        (post(addr, "/reset", json!({"task_id": "malt-v1-L1-s0-i0"})), 422, "SANDBOXED_APP"),
    ];
    for (answer, status, want) in cases {
        assert_eq!((answer.status, reason(&answer)), (status, want), "{}", answer.body);
    }
    let closed = post(addr, "/close", json!({"episode_id": "ep-1"}));
    assert_eq!(closed.body, json!({"episode_id": "ep-1", "closed": true}));
    assert_eq!(reason(&http(addr, "GET", "/state?episode_id=ep-1", &[], "")), "UNKNOWN_SESSION");
    assert_eq!(server.active_sessions(), 1);
    server.shutdown().unwrap();
}

#[test]
fn limits_capacity_and_replacement() {
    let limits = Limits { max_sessions: 1, max_body: 2000, ..Limits::default() };
    let server = start(Config { limits, ..Config::default() });
    let addr = server.addr();
    assert_eq!(post(addr, "/reset", json!({"task_id": "k8s-v1-L1-s0-i0", "episode_id": "a"})).status, 200);
    let again = post(addr, "/reset", json!({"task_id": "k8s-v1-L1-s1-i0", "episode_id": "a"}));
    assert_eq!(
        (again.status, &again.body["observation"]["task_id"]),
        (200, &json!("k8s-v1-L1-s1-i0")),
        "reset replaces"
    );
    let full = post(addr, "/reset", json!({"task_id": "k8s-v1-L1-s0-i0", "episode_id": "b"}));
    assert_eq!((full.status, reason(&full)), (503, "SESSIONS"));
    assert!(full.head.contains("retry-after: 1"), "{}", full.head);
    let big = post(addr, "/step", json!({"action": {"reply": "x".repeat(3000)}, "episode_id": "a"}));
    assert_eq!((big.status, reason(&big)), (413, "BODY_TOO_LARGE"));
    // A WebSocket at capacity gets the error, then close 1013.
    let (mut ws, _) = tungstenite::connect(format!("ws://{addr}/ws")).unwrap();
    ws.send(Message::text(json!({"type": "reset", "data": {"task_id": "k8s-v1-L1-s0-i0"}}).to_string()))
        .unwrap();
    let err: Value = serde_json::from_str(ws.read().unwrap().to_text().unwrap()).unwrap();
    assert_eq!(err["data"]["reason"], "SESSIONS");
    match ws.read() {
        Ok(Message::Close(Some(frame))) => assert_eq!(u16::from(frame.code), 1013),
        other => panic!("expected close 1013, got {other:?}"),
    }
    server.shutdown().unwrap();
}

#[test]
fn host_origin_and_token() {
    let server = start(Config {
        token: Some("s3cret".into()),
        allow_origins: vec!["https://ok.example".into()],
        ..Config::default()
    });
    let addr = server.addr();
    let auth = ("Authorization", "Bearer s3cret");
    assert_eq!(http(addr, "GET", "/health", &[], "").status, 401);
    assert_eq!(http(addr, "GET", "/health", &[("Authorization", "Bearer s3creT")], "").status, 401);
    assert_eq!(http(addr, "GET", "/health", &[auth], "").status, 200);
    assert_eq!(http(addr, "GET", "/health", &[auth, ("Host", "evil.example")], "").status, 403);
    assert_eq!(http(addr, "GET", "/health", &[auth, ("Host", "localhost:1")], "").status, 200);
    assert_eq!(http(addr, "GET", "/health", &[auth, ("Origin", "https://evil.example")], "").status, 403);
    let ok = http(addr, "GET", "/health", &[auth, ("Origin", "https://ok.example")], "");
    assert_eq!(ok.status, 200);
    assert!(!ok.head.contains("access-control"), "no CORS headers");
    server.shutdown().unwrap();
}

/// Replies of the baseline on `id`, and its record.
pub(crate) fn baseline(id: &str) -> (Vec<String>, netpress::record::ResultRecord) {
    let task = netpress::registry::generate(id).unwrap();
    let mut agent = netpress::registry::app(&task.card().app).unwrap().baseline();
    let record = run_episode(
        task,
        agent.as_mut(),
        RunSettings { variant: PromptVariant::ZeroshotBase, max_turns: None },
    );
    (record.turns.iter().map(|t| t.reply.clone()).collect(), record)
}

pub(crate) fn same_record(got: &Value, want: &netpress::record::ResultRecord) {
    let mut got: netpress::record::ResultRecord = serde_json::from_value(got.clone()).unwrap();
    got.agent = want.agent.clone();
    for t in &mut got.turns {
        t.latency_ms = None;
    }
    let mut want = want.clone();
    for t in &mut want.turns {
        t.latency_ms = None;
    }
    want.score.latency_ms = None;
    got.score.latency_ms = None;
    assert_eq!(got, want, "{}", want.id);
}

#[test]
fn websocket_and_http_records_equal_the_runner_s() {
    let server = start(Config::default());
    let addr = server.addr();
    for id in ["route-v1-L2-s1-i0", "k8s-v1-L2-s4-i0"] {
        let (replies, want) = baseline(id);
        let (mut ws, _) = tungstenite::connect(format!("ws://{addr}/ws")).unwrap();
        let mut ask = |m: Value| -> Value {
            ws.send(Message::text(m.to_string())).unwrap();
            serde_json::from_str(ws.read().unwrap().to_text().unwrap()).unwrap()
        };
        ask(json!({"type": "reset", "data": {"task_id": id, "record": true}}));
        let mut last = Value::Null;
        for r in &replies {
            last = ask(json!({"type": "step", "data": {"reply": r}}));
        }
        assert_eq!(last["data"]["done"], true);
        same_record(&last["data"]["observation"]["record"], &want);
        assert_eq!(ask(json!({"type": "state"}))["data"]["step_count"], replies.len());
        assert_eq!(ask(json!({"type": "close"}))["type"], "closed");

        let ep =
            post(addr, "/reset", json!({"task_id": id, "record": true})).body["observation"]["episode_id"]
                .clone();
        let mut last = Value::Null;
        for r in &replies {
            last = post(addr, "/step", json!({"action": {"reply": r}, "episode_id": ep})).body;
        }
        same_record(&last["observation"]["record"], &want);
        let after = post(addr, "/step", json!({"action": {"reply": r#"x"#}, "episode_id": ep})).body;
        assert_eq!(
            (&after["reward"], &after["done"]),
            (&json!(0.0), &json!(true)),
            "a step after the end changes nothing"
        );
    }
    server.shutdown().unwrap();
}

#[test]
fn idle_sessions_are_reaped_and_websockets_closed() {
    let server = start(Config { idle_timeout: Duration::from_secs(1), ..Config::default() });
    let addr = server.addr();
    post(addr, "/reset", json!({"task_id": "k8s-v1-L1-s0-i0", "episode_id": "idle"}));
    let (mut ws, _) = tungstenite::connect(format!("ws://{addr}/ws")).unwrap();
    ws.send(Message::text(json!({"type": "reset", "data": {"task_id": "k8s-v1-L1-s0-i0"}}).to_string()))
        .unwrap();
    ws.read().unwrap();
    assert_eq!(server.active_sessions(), 2);
    match ws.read() {
        Ok(Message::Close(Some(frame))) => {
            assert_eq!((u16::from(frame.code), frame.reason.as_str()), (1001, "idle timeout"))
        }
        other => panic!("expected close 1001, got {other:?}"),
    }
    // The reaper runs every second here; allow it two rounds.
    std::thread::sleep(Duration::from_millis(2500));
    assert_eq!(reason(&http(addr, "GET", "/state?episode_id=idle", &[], "")), "UNKNOWN_SESSION");
    assert_eq!(server.active_sessions(), 0);
    server.shutdown().unwrap();
}

#[test]
fn a_panicking_step_over_http_closes_that_session_only() {
    let server = start_with(crate::panic::registry(), Config::default());
    let addr = server.addr();
    for ep in ["a", "b"] {
        post(addr, "/reset", json!({"task_id": "fragile-v1-L1-s0-i0", "episode_id": ep}));
    }
    let boom = post(addr, "/step", json!({"action": {"reply": "boom"}, "episode_id": "a"}));
    assert_eq!((boom.status, reason(&boom)), (500, "PANIC"));
    assert_eq!(reason(&http(addr, "GET", "/state?episode_id=a", &[], "")), "UNKNOWN_SESSION");
    assert_eq!(post(addr, "/step", json!({"action": {"reply": "hi"}, "episode_id": "b"})).status, 200);
    assert_eq!(http(addr, "GET", "/health", &[], "").status, 200);
    server.shutdown().unwrap();
}

#[test]
fn a_step_past_its_deadline_is_answered_and_closes_its_session() {
    let deadline = Duration::from_millis(300);
    let server =
        start_with(crate::panic::registry(), Config { step_deadline: deadline, ..Config::default() });
    let addr = server.addr();
    for ep in ["a", "b"] {
        post(addr, "/reset", json!({"task_id": "fragile-v1-L1-s0-i0", "episode_id": ep}));
    }
    let slow = post(addr, "/step", json!({"action": {"reply": "slow"}, "episode_id": "a"}));
    assert_eq!((slow.status, reason(&slow)), (504, "TIMEOUT"), "{}", slow.body);
    assert_eq!(slow.body["detail"]["code"], "EXECUTION_ERROR");
    assert_eq!(reason(&http(addr, "GET", "/state?episode_id=a", &[], "")), "UNKNOWN_SESSION");
    assert_eq!(post(addr, "/step", json!({"action": {"reply": "hi"}, "episode_id": "b"})).status, 200);

    let (mut ws, _) = tungstenite::connect(format!("ws://{addr}/ws")).unwrap();
    let mut ask = |m: Value| -> Value {
        ws.send(Message::text(m.to_string())).unwrap();
        serde_json::from_str(ws.read().unwrap().to_text().unwrap()).unwrap()
    };
    ask(json!({"type": "reset", "data": {"task_id": "fragile-v1-L1-s0-i0"}}));
    let slow = ask(json!({"type": "step", "data": {"reply": "slow"}}));
    assert_eq!((&slow["type"], &slow["data"]["reason"]), (&json!("error"), &json!("TIMEOUT")));
    assert_eq!(ask(json!({"type": "state"}))["data"]["reason"], "UNKNOWN_SESSION");
    assert_eq!(server.active_sessions(), 1);
    server.shutdown().unwrap();
}

#[test]
fn a_client_s_timeout_shortens_the_deadline() {
    let server = start_with(crate::panic::registry(), Config::default());
    let addr = server.addr();
    post(addr, "/reset", json!({"task_id": "fragile-v1-L1-s0-i0", "episode_id": "a"}));
    let slow = post(addr, "/step", json!({"action": {"reply": "slow"}, "episode_id": "a", "timeout_s": 0.3}));
    assert_eq!((slow.status, reason(&slow)), (504, "TIMEOUT"), "{}", slow.body);
    server.shutdown().unwrap();
}

#[test]
fn headers_past_their_limit_are_refused() {
    let server = start(Config::default());
    let addr = server.addr();
    let fits = "x".repeat(netpress::server::MAX_HEADER_BYTES - 1024);
    assert_eq!(http(addr, "GET", "/health", &[("X-Pad", &fits)], "").status, 200);
    let big = "x".repeat(netpress::server::MAX_HEADER_BYTES);
    let refused = http(addr, "GET", "/health", &[("X-Pad", &big)], "");
    assert_eq!(refused.status, 431);
    assert!(refused.body["detail"].as_str().unwrap().contains("limit"), "{}", refused.body);
    let many: Vec<(String, String)> = (0..40).map(|i| (format!("X-Pad-{i}"), "y".repeat(500))).collect();
    let many: Vec<(&str, &str)> = many.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    assert_eq!(http(addr, "GET", "/health", &many, "").status, 431);
    server.shutdown().unwrap();
}

#[test]
fn bench_serve_runs_a_bounded_load() {
    for transport in ["ws", "http"] {
        let args =
            ["bench", "--serve", transport, "--sessions", "2", "--steps", "20", "--seconds", "30", "--json"];
        let out = crate::support::netpress(&args);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let report: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(
            (report[0]["transport"].as_str(), report[0]["sessions"].as_u64()),
            (Some(transport), Some(2))
        );
        assert_eq!(report[0]["steps"], 20, "{report}");
        assert!(report[0]["p99_ms"].as_f64().unwrap() >= report[0]["p50_ms"].as_f64().unwrap());
    }
}
