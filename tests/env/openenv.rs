//! The server against OpenEnv's own message types, transcribed as JSON Schemas at a pinned
//! commit (tests/data/openenv/types.json names it): OpenEnv's request examples are accepted,
//! and every response validates against the model OpenEnv's client reads it with.

use std::net::SocketAddr;

use netpress::env::Defaults;
use netpress::server::Config;
use serde_json::{Value, json};
use tungstenite::Message;

use crate::serve::{http, post, start};

fn openenv(name: &str) -> jsonschema::Validator {
    let text = std::fs::read_to_string("tests/data/openenv/types.json").unwrap();
    let file: Value = serde_json::from_str(&text).unwrap();
    let schema = &file["schemas"][name];
    assert!(schema.is_object(), "no schema {name}");
    jsonschema::validator_for(schema).unwrap_or_else(|e| panic!("{name}: {e}"))
}

#[track_caller]
fn valid(name: &str, doc: &Value) {
    let v = openenv(name);
    let errors: Vec<String> = v.iter_errors(doc).map(|e| e.to_string()).collect();
    assert!(errors.is_empty(), "{name}: {errors:?}\n{doc}");
}

fn server() -> (netpress::server::Server, SocketAddr) {
    let defaults = Defaults { app: Some("k8s".into()), level: Some(1) };
    let server = start(Config { defaults, ..Config::default() });
    let addr = server.addr();
    (server, addr)
}

#[test]
fn http_requests_and_responses_are_openenv_s() {
    let (server, addr) = server();
    // OpenEnv's own ResetRequest examples, as its HTTP client sends them.
    for body in [json!({"seed": 42, "episode_id": "episode-001"}), json!({})] {
        valid("ResetRequest", &body);
        let r = post(addr, "/reset", body.clone());
        assert_eq!(r.status, 200, "{body}: {}", r.body);
        valid("ResetResponse", &r.body);
    }
    let step = json!({"action": {"reply": "kubectl get pods -A"}, "timeout_s": 30.0,
        "request_id": "r-1", "episode_id": "episode-001"});
    valid("StepRequest", &step);
    let r = post(addr, "/step", step);
    assert_eq!(r.status, 200, "{}", r.body);
    valid("StepResponse", &r.body);
    valid("State", &http(addr, "GET", "/state?episode_id=episode-001", &[], "").body);
    valid("HealthResponse", &http(addr, "GET", "/health", &[], "").body);
    valid("EnvironmentMetadata", &http(addr, "GET", "/metadata", &[], "").body);
    valid("ServerCapacityStatus", &http(addr, "GET", "/capacity", &[], "").body);
    let schemas = http(addr, "GET", "/schema", &[], "").body;
    valid("SchemaResponse", &schemas);
    // Our own schemas are schemas, and describe what we send.
    for part in ["action", "observation", "state"] {
        jsonschema::validator_for(&schemas[part]).unwrap_or_else(|e| panic!("{part}: {e}"));
    }
    let ours = jsonschema::validator_for(&schemas["observation"]).unwrap();
    assert!(ours.is_valid(&r.body["observation"]), "{}", r.body);

    let codes = openenv("WSErrorCode");
    let bad = [
        http(addr, "POST", "/reset", &[], "{nope"),
        post(addr, "/reset", json!({"seed": -1})),
        post(addr, "/step", json!({"action": {"reply": "x"}})),
        post(addr, "/step", json!({"action": {"reply": "x"}, "episode_id": "none"})),
        post(addr, "/reset", json!({"task_id": "malt-v1-L1-s0-i0"})),
    ];
    for answer in bad {
        assert!(answer.status >= 400, "{}", answer.body);
        assert!(codes.is_valid(&answer.body["detail"]["code"]), "{}", answer.body);
    }
    server.shutdown().unwrap();
}

#[test]
fn websocket_messages_are_openenv_s() {
    let (server, addr) = server();
    let (mut ws, _) = tungstenite::connect(format!("ws://{addr}/ws")).unwrap();
    let mut ask = |kind: &str, m: Value| -> Value {
        valid(kind, &m);
        ws.send(Message::text(m.to_string())).unwrap();
        serde_json::from_str(ws.read().unwrap().to_text().unwrap()).unwrap()
    };
    let reset = ask("WSResetMessage", json!({"type": "reset", "data": {"seed": 3}}));
    valid("WSObservationResponse", &reset);
    valid("ResetResponse", &reset["data"]);
    let step = ask("WSStepMessage", json!({"type": "step", "data": {"reply": "kubectl get pods -A"}}));
    valid("WSObservationResponse", &step);
    valid("StepResponse", &step["data"]);
    let state = ask("WSStateMessage", json!({"type": "state"}));
    valid("WSStateResponse", &state);
    valid("State", &state["data"]);
    let error = ask("WSStepMessage", json!({"type": "step", "data": {"colour": 1}}));
    valid("WSErrorResponse", &error);
    assert!(openenv("WSErrorCode").is_valid(&error["data"]["code"]), "{error}");
    // `close` is answered `{type: "closed"}`: NetPress's own, OpenEnv's types define no answer to it.
    let closed = ask("WSCloseMessage", json!({"type": "close"}));
    assert_eq!(closed["type"], "closed");
    server.shutdown().unwrap();
}
