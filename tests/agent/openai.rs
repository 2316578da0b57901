//! The runner and the native OpenAI-compatible client against the scripted mock server over
//! real HTTP: multi-turn solves, retries, timeouts, malformed replies, run-wide errors,
//! cancellation, batches.
#![cfg(all(feature = "cli", not(target_arch = "wasm32")))]

use std::time::{Duration, Instant};

use crate::support::toy::{self, Toy};
use crate::support::*;
use netpress::agent::client::EndpointConfig;
use netpress::agent::mock::{Reply, Script};
use netpress::agent::native::{EndpointAgent, Transport};
use netpress::agent::{Agent, Message, Tokens};
use netpress::app::{Finish, PromptVariant};
use netpress::run::run_threads;
use netpress::run::{Cancel, RunSettings};

fn status(code: u16) -> Reply {
    Reply { status: Some(code), ..Default::default() }
}

#[test]
fn multi_turn_solve_records_prompts_replies_tokens_and_latency() {
    let task = toy::task(3, 1);
    let solution = Toy::solution(&task);
    let script = Script {
        openai: vec![
            Reply {
                text: Some("Let me look.\n```bash\nshow links\n```".into()),
                usage: Some([50, 7]),
                ..Default::default()
            },
            Reply { text: Some(solution.clone()), usage: Some([80, 4]), delay_ms: 30, ..Default::default() },
        ],
        ..Default::default()
    };
    let server = mock(script);
    let cancel = Cancel::new();
    let config = openai_config(&server);
    let client = client(EndpointConfig::Openai(config.clone()), &cancel);
    let settings = RunSettings { variant: PromptVariant::FewshotCot, max_turns: None };
    let (_, record) = run(task.clone(), &client, settings, &cancel);

    assert_eq!((record.finish, record.score.correct, record.turns.len()), (Finish::Solved, true, 2));
    assert_eq!(record.turns[0].action, "show links");
    assert_eq!(record.turns[1].reply, solution);
    assert_eq!(record.turns[0].tokens, Some(Tokens { prompt: 50, completion: 7 }));
    assert_eq!(record.score.tokens, Some(141));
    assert!(record.turns[1].latency_ms.unwrap() >= 30.0);
    assert!(record.score.latency_ms.is_some());
    assert_eq!(record.prompt, task.prompt(PromptVariant::FewshotCot));
    assert_eq!((record.agent.kind.as_str(), record.agent.name.as_str()), ("openai", "mock-model"));

    let requests = server.requests("");
    assert_eq!(requests.len(), 2);
    let first = &requests[0];
    assert_eq!((first.method.as_str(), first.path.as_str()), ("POST", "/v1/chat/completions"));
    assert_eq!(first.body, config.body(&[Message::user(record.prompt.clone())]), "exact bytes");
    assert_eq!(first.headers["authorization"], format!("Bearer {KEY}"));
    assert_eq!(first.headers["content-type"], "application/json");
    let second: serde_json::Value = serde_json::from_str(&requests[1].body).unwrap();
    let contents: Vec<&str> =
        second["messages"].as_array().unwrap().iter().map(|m| m["content"].as_str().unwrap()).collect();
    assert_eq!(
        contents,
        vec![record.prompt.as_str(), record.turns[0].reply.as_str(), record.turns[0].observation.as_str()]
    );

    let line = record.to_line();
    assert!(!line.contains(KEY) && !line.contains("sk-test"), "no key in the record");
}

#[test]
fn the_lead_helper_solves_any_task_by_scripted_replies() {
    let task = toy::task(0, 0);
    let (record, requests) = solve_through_mock(task.clone(), &["nothing", &Toy::solution(&task)]);
    assert!(record.score.correct);
    assert_eq!(requests.len(), 2);
}

#[test]
fn retries_429_and_5xx_with_backoff_then_succeeds() {
    let task = toy::task(0, 0);
    let mut throttled = status(429);
    throttled.headers.insert("retry-after".into(), "0".into());
    let script = Script {
        openai: vec![status(503), throttled, Reply::text(Toy::solution(&task))],
        ..Default::default()
    };
    let server = mock(script);
    let cancel = Cancel::new();
    let client = client(EndpointConfig::Openai(openai_config(&server)), &cancel);
    let (_, record) = run(task, &client, RunSettings::default(), &cancel);
    assert_eq!((record.finish, record.turns.len()), (Finish::Solved, 1));
    assert_eq!(server.requests("").len(), 3, "two retries");
}

#[test]
fn exhausted_retries_are_failed_turns_and_three_stop_the_episode() {
    let server = mock(Script { openai: vec![status(500); 9], ..Default::default() });
    let cancel = Cancel::new();
    let client = client(EndpointConfig::Openai(openai_config(&server)), &cancel);
    let (runner, record) =
        run(toy::task(0, 0), &client, RunSettings { max_turns: Some(10), ..Default::default() }, &cancel);
    assert_eq!(record.turns.len(), 3);
    let error = record.turns[0].error.as_deref().unwrap();
    assert!(error.starts_with("HTTP 500 Internal Server Error from http://127.0.0.1:"), "{error}");
    assert!(error.ends_with("scripted HTTP 500 (gave up after 2 retries)"), "{error}");
    assert_eq!(runner.stop_cause(), Some(netpress::run::StopCause::Failures));
    assert_eq!(server.requests("").len(), 9);
    assert!(!cancel.is_cancelled(), "a failing episode alone does not stop the run");
}

#[test]
fn timeouts_fail_the_turn_without_hanging() {
    let task = toy::task(0, 0);
    let slow = Reply { text: Some("late".into()), delay_ms: 3000, ..Default::default() };
    let server = mock(Script { openai: vec![slow, Reply::text(Toy::solution(&task))], ..Default::default() });
    let cancel = Cancel::new();
    let mut config = openai_config(&server);
    config.timeout_ms = 300;
    let client = client(EndpointConfig::Openai(config), &cancel);
    let start = Instant::now();
    let (_, record) = run(task, &client, RunSettings::default(), &cancel);
    assert!(start.elapsed() < Duration::from_millis(2500), "{:?}", start.elapsed());
    let error = record.turns[0].error.as_deref().unwrap();
    assert!(error.ends_with("within 0.3 s (timeout)"), "{error}");
    assert_eq!((record.finish, record.turns.len()), (Finish::Solved, 2), "the next turn goes on");
}

#[test]
fn malformed_empty_and_refused_replies_are_recorded_turns() {
    let task = toy::task(0, 0);
    let script = Script {
        openai: vec![
            Reply { body: Some("<html>proxy error</html>".into()), ..Default::default() },
            Reply { body: Some(r#"{"choices":[]}"#.into()), ..Default::default() },
            Reply::text(""),
            Reply { refusal: Some("I can't help with that.".into()), ..Default::default() },
        ],
        ..Default::default()
    };
    let server = mock(script);
    let cancel = Cancel::new();
    let client = client(EndpointConfig::Openai(openai_config(&server)), &cancel);
    let (_, record) = run(task, &client, RunSettings::default(), &cancel);
    let t = &record.turns;
    assert_eq!(t.len(), 4);
    assert!(
        t[0].error.as_deref().unwrap().contains(r#"not JSON (starts "<html>proxy error</html>")"#),
        "{:?}",
        t[0]
    );
    assert_eq!(t[1].error.as_deref(), Some("the response has no choices[0].message"));
    assert_eq!(t[2].notes, vec!["The agent's reply was empty.".to_string()]);
    assert!(t[2].observation.starts_with("Error: could not parse"));
    assert_eq!(t[3].reply, "I can't help with that.");
    assert_eq!(record.finish, Finish::TurnLimit);
}

#[test]
fn wrong_key_stops_the_run_and_the_key_never_shows() {
    let body = format!(r#"{{"error":{{"message":"Incorrect API key provided: {KEY}"}}}}"#);
    let server = mock(Script {
        openai: vec![Reply { status: Some(401), body: Some(body), ..Default::default() }],
        ..Default::default()
    });
    let cancel = Cancel::new();
    let client = client(EndpointConfig::Openai(openai_config(&server)), &cancel);
    let (_, record) = run(toy::task(0, 0), &client, RunSettings::default(), &cancel);
    assert_eq!((record.finish, record.turns.len()), (Finish::Stopped, 1));
    let reason = cancel.reason().unwrap();
    assert!(reason.contains("HTTP 401 Unauthorized") && reason.ends_with("(check the API key)"), "{reason}");
    assert!(!reason.contains(KEY) && reason.contains("[redacted]"), "{reason}");
    assert!(!record.to_line().contains(KEY));
}

#[test]
fn cancel_interrupts_a_call_in_flight() {
    let slow = Reply { text: Some("late".into()), delay_ms: 5000, ..Default::default() };
    let server = mock(Script { openai: vec![slow], ..Default::default() });
    let cancel = Cancel::new();
    let client = client(EndpointConfig::Openai(openai_config(&server)), &cancel);
    let canceller = cancel.clone();
    std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(200));
        canceller.cancel("cancelled by the user (Ctrl-C)");
    });
    let start = Instant::now();
    let (_, record) = run(toy::task(0, 0), &client, RunSettings::default(), &cancel);
    assert!(start.elapsed() < Duration::from_millis(1500), "{:?}", start.elapsed());
    assert_eq!(record.finish, Finish::Stopped);
    assert_eq!(record.turns[0].error.as_deref(), Some("cancelled"));
}

#[test]
fn unreachable_endpoint_fails_fast_and_stops_the_run() {
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    // The default policy (3 retries, 1 s doubling) took ~7 s per call, ~21 s per episode.
    let config = netpress::agent::openai::OpenAiConfig::new(&format!("http://127.0.0.1:{port}/v1"), "m");
    let cancel = Cancel::new();
    let mut agent =
        EndpointAgent::new(client(EndpointConfig::Openai(config), &cancel), Transport::new(cancel.clone()));
    let start = Instant::now();
    let err = agent.reply(&[Message::user("hi")]).unwrap_err();
    assert!(start.elapsed() < Duration::from_secs(3), "took {:?}", start.elapsed());
    assert!(err.fatal, "a refused connection stops the run: {}", err.message);
    assert!(cancel.is_cancelled(), "and cancels the rest of the run");
    assert!(
        err.message.starts_with(&format!("cannot reach http://127.0.0.1:{port}/v1/chat/completions: ")),
        "{}",
        err.message
    );
    assert!(err.message.ends_with("gave up after one retry)"), "{}", err.message);
}

#[test]
fn batches_run_concurrently_in_order_and_stop_when_the_endpoint_is_down() {
    let tasks: Vec<_> = (0..4).map(|i| toy::task(i, 0)).collect();
    let server = mock(Script { openai: vec![Reply::text("look"); 16], ..Default::default() });
    let cancel = Cancel::new();
    let up = client(EndpointConfig::Openai(openai_config(&server)), &cancel);
    let factory = |_: &str| -> Box<dyn Agent> {
        Box::new(EndpointAgent::new(up.clone(), Transport::new(cancel.clone())))
    };
    let mut ids = Vec::new();
    run_threads(tasks.clone(), &factory, RunSettings::default(), 3, &cancel, |r| {
        ids.push(r.unwrap().id);
        Ok(())
    })
    .unwrap();
    let want: Vec<String> = tasks.iter().map(|t| t.card().id.clone()).collect();
    assert_eq!(ids, want);
    assert_eq!(server.requests("").len(), 16);

    // Every call now fails (the script is exhausted: HTTP 410 rejects the request, a fatal
    // episode error), so episodes stop after one turn but the run goes on...
    let mut kept = 0;
    run_threads(tasks.clone(), &factory, RunSettings::default(), 1, &cancel, |r| {
        kept += usize::from(r.is_some());
        Ok(())
    })
    .unwrap();
    assert_eq!((kept, cancel.is_cancelled()), (4, false));
    // ...while 5xx after retries are failed turns, and three such episodes stop the batch.
    let server = mock(Script { openai: vec![status(502); 99], ..Default::default() });
    let mut config = openai_config(&server);
    config.retry.retries = 0;
    let down = client(EndpointConfig::Openai(config), &cancel);
    let factory = |_: &str| -> Box<dyn Agent> {
        Box::new(EndpointAgent::new(down.clone(), Transport::new(cancel.clone())))
    };
    let mut seen = Vec::new();
    let tasks: Vec<_> = (0..6).map(|i| toy::task(i, 0)).collect();
    run_threads(tasks, &factory, RunSettings { max_turns: Some(9), ..Default::default() }, 1, &cancel, |r| {
        seen.push(r.is_some());
        Ok(())
    })
    .unwrap();
    assert_eq!(
        seen,
        vec![true, true, false],
        "the third failing episode stops the batch and is left for --resume"
    );
    assert!(cancel.reason().unwrap().starts_with("3 episodes in a row were stopped after 3 failed calls"));
}
