//! The native A2A client against the scripted mock agent over real HTTP: card discovery, a
//! multi-turn solve with every reply shape, polling, failures.
#![cfg(all(feature = "cli", not(target_arch = "wasm32")))]

use crate::support::toy::{self, Toy};
use crate::support::*;
use netpress::agent::Message;
use netpress::agent::client::{Client, EndpointConfig};
use netpress::agent::mock::{A2aShape, Reply, Script};
use netpress::agent::native::{Transport, connect};
use netpress::app::Finish;
use netpress::conversation::transcript;
use netpress::run::{Cancel, RunSettings};

fn shaped(text: &str, shape: A2aShape) -> Reply {
    Reply { text: Some(text.into()), a2a: Some(shape), ..Default::default() }
}

#[test]
fn card_discovery_and_a_multi_turn_solve() {
    let task = toy::task(1, 2);
    let script = Script {
        a2a: vec![
            shaped("show links", A2aShape::Artifact),
            shaped("```\nshow routes\n```", A2aShape::Message),
            Reply {
                text: Some(Toy::solution(&task)),
                a2a: Some(A2aShape::Status),
                working_polls: 2,
                ..Default::default()
            },
        ],
        ..Default::default()
    };
    let server = mock(script);
    let cancel = Cancel::new();
    let client = client(EndpointConfig::A2a(a2a_config(&server)), &cancel);
    let Client::A2a(session) = client.as_ref() else { panic!("an A2A client") };
    assert_eq!(session.rpc_url, format!("{}/a2a", server.url()));
    assert_eq!(session.protocol_version.as_deref(), Some("0.3.0"));

    let (_, record) = run(task.clone(), &client, RunSettings::default(), &cancel);
    assert_eq!((record.finish, record.turns.len()), (Finish::Solved, 3));
    assert_eq!(record.turns[1].action, "show routes");
    assert_eq!(record.agent.label(), "a2a:netpress-mock-agent");
    assert!(record.turns.iter().all(|t| t.latency_ms.is_some() && t.tokens.is_none()));

    let requests = server.requests("");
    let methods: Vec<String> = requests
        .iter()
        .map(|r| match r.method.as_str() {
            "GET" => r.path.clone(),
            _ => serde_json::from_str::<serde_json::Value>(&r.body).unwrap()["method"]
                .as_str()
                .unwrap()
                .to_string(),
        })
        .collect();
    assert_eq!(
        methods,
        [
            "/.well-known/agent-card.json",
            "message/send",
            "message/send",
            "message/send",
            "tasks/get",
            "tasks/get"
        ]
    );
    let third: serde_json::Value = serde_json::from_str(&requests[3].body).unwrap();
    let parts = &third["params"]["message"]["parts"];
    assert_eq!(parts.as_array().unwrap().len(), 1, "one text part per turn");
    let conversation = [
        Message::user(record.prompt.clone()),
        Message::assistant(record.turns[0].reply.clone()),
        Message::user(record.turns[0].observation.clone()),
        Message::assistant(record.turns[1].reply.clone()),
        Message::user(record.turns[1].observation.clone()),
    ];
    assert_eq!(parts[0]["text"], transcript(&conversation));
}

#[test]
fn failed_tasks_and_rpc_errors_follow_the_failure_rule() {
    let script = Script {
        a2a: vec![
            shaped("LLM backend down", A2aShape::Failed),
            Reply { rpc_error: Some((-32603, "Internal error".into())), ..Default::default() },
            Reply { rpc_error: Some((-32601, "Method not found".into())), ..Default::default() },
        ],
        ..Default::default()
    };
    let server = mock(script);
    let cancel = Cancel::new();
    let client = client(EndpointConfig::A2a(a2a_config(&server)), &cancel);
    let (_, record) = run(toy::task(0, 0), &client, RunSettings::default(), &cancel);
    let errors: Vec<&str> = record.turns.iter().map(|t| t.error.as_deref().unwrap()).collect();
    assert_eq!(
        errors,
        [
            "the agent's task ended failed: LLM backend down",
            "the agent answered with JSON-RPC error -32603: Internal error",
            "the agent answered with JSON-RPC error -32601: Method not found",
        ]
    );
    assert_eq!(record.finish, Finish::Stopped);
    assert!(cancel.is_cancelled(), "an agent without message/send cannot serve any episode");
}

#[test]
fn a_missing_card_is_a_clear_connect_error() {
    let server = mock(Script::default());
    let mut config = a2a_config(&server);
    config.url = format!("{}/s/nobody", server.url());
    let err = connect(&EndpointConfig::A2a(config), &Transport::new(Cancel::new())).unwrap_err();
    assert!(
        err.message.starts_with("no agent card: HTTP 404 Not Found from http://127.0.0.1:"),
        "{}",
        err.message
    );
    assert!(
        err.message.contains("/s/nobody/.well-known/agent.json"),
        "tried the legacy path too: {}",
        err.message
    );
}

#[test]
fn bearer_tokens_are_sent_and_scrubbed() {
    let server = mock(Script {
        a2a: vec![Reply {
            status: Some(403),
            body: Some("token tok-12345 refused".into()),
            ..Default::default()
        }],
        ..Default::default()
    });
    let mut config = a2a_config(&server);
    config.bearer = Some("tok-12345".into());
    let cancel = Cancel::new();
    let client = client(EndpointConfig::A2a(config), &cancel);
    let (_, record) = run(toy::task(0, 0), &client, RunSettings::default(), &cancel);
    let requests = server.requests("");
    assert!(requests.iter().all(|r| r.headers["authorization"] == "Bearer tok-12345"));
    let error = record.turns[0].error.as_deref().unwrap();
    assert!(error.contains("token [redacted] refused"), "{error}");
    assert!(!record.to_line().contains("tok-12345"));
}
