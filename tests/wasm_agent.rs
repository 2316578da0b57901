//! Browser half of the agent tests, in headless Chrome: the prompt golden file, and the
//! endpoint transport (`web::endpoint`) against `netpress mock-agent` through real
//! cross-origin HTTP: multi-turn solves (OpenAI and A2A), retries, timeouts, malformed
//! replies, missing CORS, cancellation, batches. Episodes and batches run through the page's
//! own drivers (`web::drive`, `web::run_batch`), the code the views call.
//!
//! Run with `scripts/agent-wasm-test.sh`, which starts the mock server and passes its URL
//! as `NETPRESS_MOCK_URL` at build time.
#![cfg(target_arch = "wasm32")]

#[path = "agent/support/prompts.rs"]
mod prompts;

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;

use netpress::agent::a2a::A2aConfig;
use netpress::agent::client::{Client, EndpointConfig};
use netpress::agent::http::{HttpRequest, Method};
use netpress::agent::openai::OpenAiConfig;
use netpress::agent::retry::RetryPolicy;
use netpress::agent::{Message, Tokens};
use netpress::app::{Finish, PromptVariant, Task};
use netpress::record::ResultRecord;
use netpress::run::RunSettings;
use netpress::web::endpoint::{self, Cancel};
use netpress::web::{self as page, Crew, EpisodeHandle, Pace, PageAgent, Plan, Snapshot, StopFlag, Workers};
use prompts::toy::{self, Toy};
use serde_json::{Value, json};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

const KEY: &str = "sk-browser-secret-42";

fn mock_url() -> &'static str {
    match option_env!("NETPRESS_MOCK_URL") {
        Some(url) => url,
        None => panic!("NETPRESS_MOCK_URL was unset at build time: run scripts/agent-wasm-test.sh"),
    }
}

fn request(method: Method, url: String, body: Option<String>) -> HttpRequest {
    HttpRequest {
        method,
        url,
        headers: vec![("content-type".into(), "application/json".into())],
        body,
        timeout_ms: 5000,
    }
}

/// Loads a script into a fresh namespace and returns its base URL.
async fn namespace(name: &str, script: Value) -> String {
    let url = format!("{}/_mock/{name}", mock_url());
    let r =
        endpoint::send(&request(Method::Post, url, Some(script.to_string())), &Cancel::new()).await.unwrap();
    assert_eq!(r.status, 200, "{}", r.body);
    format!("{}/s/{name}", mock_url())
}

/// What a namespace received.
async fn log(name: &str) -> Vec<Value> {
    let url = format!("{}/_mock/{name}/requests", mock_url());
    let r = endpoint::send(&request(Method::Get, url, None), &Cancel::new()).await.unwrap();
    serde_json::from_str(&r.body).unwrap()
}

fn openai(base: &str) -> OpenAiConfig {
    let mut c = OpenAiConfig::new(&format!("{base}/v1"), "golden-model");
    c.api_key = Some(KEY.into());
    c.retry = RetryPolicy { retries: 2, base_ms: 10, max_ms: 50 };
    c.timeout_ms = 5000;
    c
}

/// Runs `task` in the page against scripted OpenAI replies in namespace `name`, over real
/// HTTP; returns the record and what the server received. For application tests:
/// `solve_in_browser("route", netpress::registry::generate("route-v1-L1-s0-i0").unwrap(), &[...])`.
async fn solve_in_browser(name: &str, task: Arc<dyn Task>, replies: &[&str]) -> (ResultRecord, Vec<Value>) {
    let replies: Vec<Value> = replies.iter().map(|r| json!({"text": r})).collect();
    let base = namespace(name, json!({"openai": replies})).await;
    let client = Client::OpenAi(openai(&base));
    let (_, record) = in_page(task, RunSettings::default(), client, &Cancel::new(), |_| {}).await;
    (record, log(name).await)
}

/// Runs one episode through the page's episode loop with an endpoint client whose calls
/// `cancel` aborts; `on_step` sees every snapshot. Returns the last snapshot and the record.
async fn in_page(
    task: Arc<dyn Task>,
    settings: RunSettings,
    client: Client,
    cancel: &Cancel,
    on_step: impl FnMut(&Snapshot),
) -> (Snapshot, ResultRecord) {
    let mut agent = PageAgent::Remote(page::adapt(client, cancel.clone()));
    let (handle, snapshot) = EpisodeHandle::start_local(task, settings, agent.info());
    let stop = StopFlag::default();
    let last = page::drive(&handle, snapshot, &mut agent, &stop, Pace::Watch(0), on_step).await.unwrap();
    (last, handle.record().unwrap())
}

#[wasm_bindgen_test]
async fn the_helper_solves_a_task_from_scripted_replies() {
    let task = toy::task(5, 3);
    let (record, requests) = solve_in_browser("helper", task.clone(), &["look", &Toy::solution(&task)]).await;
    assert_eq!((record.finish, record.turns.len(), requests.len()), (Finish::Solved, 2, 2));
}

const GOLDEN: &str = include_str!("data/agent_prompts.json");

#[wasm_bindgen_test]
async fn first_request_bodies_match_the_native_golden_file() {
    let mut computed = Vec::new();
    for make in prompts::makers() {
        computed.extend(prompts::digests_of(&make()));
        // A new task of the page's, so the runner's polls are answered between the worlds.
        gloo::timers::future::TimeoutFuture::new(0).await;
    }
    match prompts::compare(GOLDEN, &computed) {
        Ok(n) => assert!(n >= 12, "{n}"),
        Err(errors) => panic!("{} differences:\n{}", errors.len(), errors.join("\n")),
    }
}

#[wasm_bindgen_test]
async fn openai_multi_turn_solve_sends_the_golden_bytes() {
    let task = toy::task(2, 0);
    let script = json!({"openai": [
        {"text": "```\nshow links\n```", "usage": [40, 6]},
        {"text": Toy::solution(&task), "usage": [60, 3], "delay_ms": 20},
    ]});
    let base = namespace("solve", script).await;
    let client = Client::OpenAi(openai(&base));
    let settings = RunSettings { variant: PromptVariant::ZeroshotCot, max_turns: None };
    let turns = Rc::new(RefCell::new(0));
    let seen = turns.clone();
    let (_, record) =
        in_page(task.clone(), settings, client, &Cancel::new(), move |_| *seen.borrow_mut() += 1).await;
    assert_eq!((record.finish, record.turns.len(), *turns.borrow()), (Finish::Solved, 2, 2));
    assert_eq!(record.turns[0].tokens, Some(Tokens { prompt: 40, completion: 6 }));
    assert_eq!(record.score.tokens, Some(109));
    assert!(record.turns[1].latency_ms.unwrap() >= 20.0);
    assert!(!record.to_line().contains(KEY));

    let requests = log("solve").await;
    assert_eq!(requests.len(), 2);
    let body = requests[0]["body"].as_str().unwrap();
    assert_eq!(body, prompts::first_body(&task, PromptVariant::ZeroshotCot));
    let digest = netpress::hash::sha256_hex(body.as_bytes());
    let want = prompts::golden_digest(GOLDEN, &task.card().id, PromptVariant::ZeroshotCot);
    assert_eq!(Some(digest), want, "the browser sends the natively recorded bytes");
    assert_eq!(requests[0]["headers"]["authorization"], format!("Bearer {KEY}"));
    let second: Value = serde_json::from_str(requests[1]["body"].as_str().unwrap()).unwrap();
    assert_eq!(second["messages"][2]["content"], record.turns[0].observation);
}

#[wasm_bindgen_test]
async fn retries_then_succeeds() {
    let script = json!({"openai": [{"status": 503}, {"status": 429, "headers": {"retry-after": "0"}}, {"text": "ok"}]});
    let base = namespace("retry", script).await;
    let reply =
        endpoint::call(&Client::OpenAi(openai(&base)), &[Message::user("hi")], "m", &Cancel::new()).await;
    assert_eq!(reply.unwrap().text, "ok");
    assert_eq!(log("retry").await.len(), 3);
}

#[wasm_bindgen_test]
async fn timeouts_and_malformed_bodies_are_clear_failures() {
    let script = json!({"openai": [{"text": "late", "delay_ms": 3000}, {"body": "<html>gateway</html>"}]});
    let base = namespace("bad", script).await;
    let mut config = openai(&base);
    config.timeout_ms = 300;
    let client = Client::OpenAi(config);
    let start = js_sys::Date::now();
    let err = endpoint::call(&client, &[Message::user("hi")], "m", &Cancel::new()).await.unwrap_err();
    assert!(js_sys::Date::now() - start < 2000.0);
    assert!(!err.fatal && err.message.ends_with("within 0.3 s (timeout)"), "{}", err.message);
    let err = endpoint::call(&client, &[Message::user("hi")], "m", &Cancel::new()).await.unwrap_err();
    assert!(err.message.contains(r#"not JSON (starts "<html>gateway</html>")"#), "{}", err.message);
}

#[wasm_bindgen_test]
async fn a_server_without_cors_is_named_as_the_likely_cause() {
    let base = namespace("nocors", json!({"cors": false, "openai": [{"text": "hidden"}]})).await;
    let err =
        endpoint::call(&Client::OpenAi(openai(&base)), &[Message::user("hi")], "m", &Cancel::new()).await;
    let message = err.unwrap_err().message;
    assert!(message.contains("CORS") && message.contains("gave up after one retry"), "{message}");
}

#[wasm_bindgen_test]
async fn cancel_aborts_the_call_in_flight() {
    let base = namespace("cancel", json!({"openai": [{"text": "late", "delay_ms": 5000}]})).await;
    let cancel = Cancel::new();
    let canceller = cancel.clone();
    gloo::timers::callback::Timeout::new(200, move || canceller.cancel("the user pressed Stop")).forget();
    let start = js_sys::Date::now();
    let client = Client::OpenAi(openai(&base));
    let (last, _) = in_page(toy::task(0, 0), RunSettings::default(), client, &cancel, |_| {}).await;
    assert!(js_sys::Date::now() - start < 1500.0);
    assert_eq!(last.finished, Some(Finish::Stopped));
    assert_eq!(last.turns[0].error.as_deref(), Some("cancelled"));
}

#[wasm_bindgen_test]
async fn a2a_agent_solves_through_its_card() {
    let task = toy::task(1, 0);
    let script = json!({"a2a": [
        {"text": "show links", "a2a": "message"},
        {"text": Toy::solution(&task), "a2a": "artifact", "working_polls": 1},
    ]});
    let base = namespace("a2a", script).await;
    let mut config = A2aConfig::new(&base);
    config.poll_ms = 20;
    let cancel = Cancel::new();
    let client = endpoint::connect(&EndpointConfig::A2a(config), &cancel).await.unwrap();
    assert_eq!(client.info().label(), "a2a:netpress-mock-agent");
    let (last, _) = in_page(task, RunSettings::default(), client, &cancel, |_| {}).await;
    assert_eq!((last.finished, last.turns.len()), (Some(Finish::Solved), 2));
}

#[wasm_bindgen_test]
async fn batches_report_turns_and_records() {
    let replies: Vec<Value> = (0..6).map(|_| json!({"text": "look"})).collect();
    let base = namespace("batch", json!({"openai": replies})).await;
    let app = netpress::registry::app("route").unwrap();
    let ids: Vec<_> = (0..3).map(|s| app.default_id(1, s, 0)).collect();
    let remote = page::adapt(Client::OpenAi(openai(&base)), Cancel::new());
    let agents = move || PageAgent::Remote(remote.clone());
    let crew =
        Crew { agents: &agents, client: None, cancel: StopFlag::default(), workers: Workers::default() };
    let settings = RunSettings { max_turns: Some(2), ..Default::default() };
    let plan = Plan { local: Some(netpress::registry::Registry::standard()), ids, settings, jobs: 2 };
    let finished = Rc::new(RefCell::new(Vec::new()));
    let sink = finished.clone();
    page::run_batch(plan, &crew, move |f| sink.borrow_mut().push(f)).await.unwrap();
    let finished = finished.borrow();
    let turns: usize = finished.iter().filter_map(|f| f.record.as_ref()).map(|r| r.turns.len()).sum();
    let mut done: Vec<usize> = finished
        .iter()
        .filter(|f| f.record.as_ref().is_some_and(|r| r.finish == Finish::TurnLimit))
        .map(|f| f.index)
        .collect();
    done.sort();
    assert_eq!((turns, done), (6, vec![0, 1, 2]));
    assert_eq!(finished.last().map(|f| (f.done, f.total)), Some((3, 3)));
}

/// A known-good level-1 task of `app` with the replies of its oracle where it has one
/// (micro-segmentation's baseline fails every level-1 policy by design), else its baseline,
/// played directly in wasm.
fn baseline_solve(app: &dyn netpress::app::App) -> (Arc<dyn Task>, ResultRecord) {
    let min_turns = if app.info().default_max_turns > 1 { 2 } else { 1 };
    (0..200u64)
        .find_map(|seed| {
            let id = app.default_id(1, seed, 0);
            let task = app.generate(&id).ok()?;
            let mut agent = app.oracle(&id).unwrap_or_else(|| app.baseline());
            let record = netpress::run::run_episode(task.clone(), agent.as_mut(), RunSettings::default());
            (record.score.correct && record.turns.len() >= min_turns).then_some((task, record))
        })
        .expect("the oracle or baseline answers some level-1 task")
}

#[wasm_bindgen_test]
async fn every_application_is_solved_through_the_endpoint_in_the_browser() {
    for app in netpress::registry::apps() {
        let name = app.info().name;
        let (task, direct) = baseline_solve(*app);
        let replies: Vec<&str> = direct.turns.iter().map(|t| t.reply.as_str()).collect();
        let (record, requests) = solve_in_browser(&format!("app-{name}"), task, &replies).await;
        assert!(record.score.correct, "{name} {}", direct.id);
        assert_eq!((record.finish, requests.len()), (direct.finish, replies.len()), "{name}");
        let observations =
            |r: &ResultRecord| r.turns.iter().map(|t| t.observation.clone()).collect::<Vec<_>>();
        assert_eq!(observations(&record), observations(&direct), "{name}: same observations");
    }
}
