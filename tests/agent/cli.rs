//! The CLI's endpoint agents end to end: `netpress run --agent openai|a2a` against the mock
//! server (in-process) and `netpress mock-agent` as a separate process.
//!
//! The `run` tests use the first registered application; with none registered they have
//! nothing to run and say so on stderr.
#![cfg(all(feature = "cli", not(target_arch = "wasm32")))]

use std::io::{BufRead, BufReader};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use crate::support::*;
use netpress::agent::mock::{Reply, Script};
use netpress::record::parse_results;

const BIN: &str = env!("CARGO_BIN_EXE_netpress");

fn first_app() -> Option<&'static str> {
    let app = netpress::registry::apps().first().map(|a| a.info().name);
    if app.is_none() {
        eprintln!("no application is registered in this build: nothing for `netpress run` to run");
    }
    app
}

fn netpress(args: &[&str]) -> Output {
    Command::new(BIN).args(args).env_remove("OPENAI_API_KEY").env_remove("OPENAI_BASE_URL").output().unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Replies that parse as nothing in particular, with token counts.
fn chatter(n: usize) -> Vec<Reply> {
    vec![Reply { text: Some("I am not sure yet.".into()), usage: Some([10, 5]), ..Default::default() }; n]
}

#[test]
fn openai_run_writes_records_and_stats_without_the_key() {
    let Some(app) = first_app() else { return };
    let server = mock(Script { openai: chatter(40), ..Default::default() });
    let dir = std::env::temp_dir().join(format!("netpress-agent-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("openai.jsonl");
    let base = format!("{}/v1", server.url());
    let o = netpress(&[
        "run",
        "--app",
        app,
        "--agent",
        "openai",
        "--base-url",
        &base,
        "--model",
        "mock-model",
        "--queries",
        "2",
        "--max-turns",
        "3",
        "--jobs",
        "2",
        "--api-key",
        KEY,
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = std::fs::read_to_string(&out).unwrap();
    let (records, errors) = parse_results(&text);
    assert!(errors.is_empty());
    assert_eq!(records.len(), 2);
    for r in &records {
        assert_eq!((r.agent.kind.as_str(), r.agent.model.as_deref()), ("openai", Some("mock-model")));
        assert!(!r.turns.is_empty() && r.turns.len() <= 3);
        assert!(r.score.tokens.is_some_and(|t| t >= 15));
    }
    assert!(!text.contains(KEY) && !stderr(&o).contains(KEY));
    assert!(stderr(&o).contains("overall"), "{}", stderr(&o));
    assert!(server.requests("").iter().all(|r| r.headers["authorization"] == format!("Bearer {KEY}")));
}

#[test]
fn a2a_run_writes_records() {
    let Some(app) = first_app() else { return };
    let server = mock(Script { a2a: chatter(40), ..Default::default() });
    let o = netpress(&[
        "run",
        "--app",
        app,
        "--agent",
        "a2a",
        "--url",
        server.url(),
        "--queries",
        "1",
        "--max-turns",
        "2",
        "-q",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let (records, _) = parse_results(&String::from_utf8_lossy(&o.stdout));
    assert_eq!(records.len(), 1);
    assert_eq!(records[0].agent.label(), "a2a:netpress-mock-agent");
}

#[test]
fn wrong_key_and_missing_flags_fail_clearly() {
    let Some(app) = first_app() else { return };
    let o = netpress(&["run", "--app", app, "--agent", "openai", "--queries", "1"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--agent openai needs --model NAME"), "{}", stderr(&o));
    let o = netpress(&["run", "--app", app, "--agent", "a2a"]);
    assert!(stderr(&o).contains("--agent a2a needs --url URL"), "{}", stderr(&o));

    let refused = Reply {
        status: Some(401),
        body: Some(format!(r#"{{"error":{{"message":"bad key {KEY}"}}}}"#)),
        ..Default::default()
    };
    let server = mock(Script { openai: vec![refused; 8], ..Default::default() });
    let base = format!("{}/v1", server.url());
    let o = Command::new(BIN)
        .args([
            "run",
            "--app",
            app,
            "--agent",
            "openai",
            "--base-url",
            &base,
            "--model",
            "m",
            "--queries",
            "3",
            "-q",
        ])
        .env("OPENAI_API_KEY", KEY)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(
        err.contains("run stopped: HTTP 401 Unauthorized") && err.contains("0 of 3 episodes written"),
        "{err}"
    );
    assert!(!err.contains(KEY), "{err}");
    assert!(o.stdout.is_empty());
}

#[test]
fn ctrl_c_cancels_and_resume_finishes() {
    let Some(app) = first_app() else { return };
    let slow = Reply { text: Some("thinking".into()), delay_ms: 3000, ..Default::default() };
    let server = mock(Script { openai: vec![slow; 8], ..Default::default() });
    let out = std::env::temp_dir().join(format!("netpress-agent-cli-cancel-{}.jsonl", std::process::id()));
    let _ = std::fs::remove_file(&out);
    let base = format!("{}/v1", server.url());
    let args = [
        "run",
        "--app",
        app,
        "--agent",
        "openai",
        "--base-url",
        &base,
        "--model",
        "m",
        "--queries",
        "2",
        "--max-turns",
        "1",
        "-q",
        "-o",
    ];
    let child = Command::new(BIN).args(args).arg(&out).stderr(Stdio::piped()).spawn().unwrap();
    // Once a call has arrived the run is under way (and its Ctrl-C handler installed).
    let waiting = Instant::now();
    while server.requests("").is_empty() && waiting.elapsed() < Duration::from_secs(20) {
        std::thread::sleep(Duration::from_millis(20));
    }
    let start = Instant::now();
    Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap();
    let o = child.wait_with_output().unwrap();
    assert!(
        start.elapsed() < Duration::from_millis(1500),
        "cancel takes effect at once: {:?}",
        start.elapsed()
    );
    assert_eq!(o.status.code(), Some(130), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("cancelled by the user (Ctrl-C)") && stderr(&o).contains("--resume"),
        "{}",
        stderr(&o)
    );

    let fast = mock(Script { openai: chatter(4), ..Default::default() });
    let base = format!("{}/v1", fast.url());
    let args = [
        "run",
        "--app",
        app,
        "--agent",
        "openai",
        "--base-url",
        &base,
        "--model",
        "m",
        "--queries",
        "2",
        "--max-turns",
        "1",
        "-q",
        "--resume",
        "-o",
    ];
    let o = Command::new(BIN).args(args).arg(&out).output().unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let (records, _) = parse_results(&std::fs::read_to_string(&out).unwrap());
    assert_eq!(records.len(), 2);
}

#[test]
fn mock_agent_subcommand_serves_scripts() {
    let dir = std::env::temp_dir().join(format!("netpress-mock-agent-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let script = dir.join("script.json");
    std::fs::write(&script, r#"{"openai": [{"text": "hello", "usage": [1, 2]}]}"#).unwrap();
    let mut child = Command::new(BIN)
        .args(["mock-agent", "--script"])
        .arg(&script)
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
    let url = line.trim().strip_prefix("listening on ").expect("first line names the URL").to_string();

    let cancel = netpress::run::Cancel::new();
    let config = netpress::agent::openai::OpenAiConfig::new(&format!("{url}/v1"), "m");
    let client = client(netpress::agent::client::EndpointConfig::Openai(config), &cancel);
    let mut agent =
        netpress::agent::native::EndpointAgent::new(client, netpress::agent::native::Transport::new(cancel));
    let reply = netpress::agent::Agent::reply(&mut agent, &[netpress::agent::Message::user("hi")]);
    child.kill().unwrap();
    let _ = child.wait();
    let reply = reply.unwrap();
    assert_eq!((reply.text.as_str(), reply.tokens.map(|t| t.total())), ("hello", Some(3)));

    let o = netpress(&["mock-agent", "--script", "/nonexistent/script.json"]);
    assert!(!o.status.success());
    assert!(stderr(&o).starts_with("netpress: cannot read /nonexistent/script.json"), "{}", stderr(&o));
}
