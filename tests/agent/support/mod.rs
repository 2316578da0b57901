//! Helpers of the native agent tests: a mock server per test, clients pointed at it, and
//! [`solve_through_mock`], which runs any task (an application's, by id) against scripted
//! replies through real HTTP.
#![allow(dead_code)] // each test file uses a part

pub mod prompts;

use std::sync::Arc;

#[allow(unused_imports)]
pub use prompts::toy;

use netpress::agent::Agent;
use netpress::agent::a2a::A2aConfig;
use netpress::agent::client::{Client, EndpointConfig};
use netpress::agent::mock::{Logged, MockServer, Reply, Script};
use netpress::agent::native::{EndpointAgent, Transport, connect};
use netpress::agent::openai::OpenAiConfig;
use netpress::agent::retry::RetryPolicy;
use netpress::app::Task;
use netpress::record::ResultRecord;
use netpress::run::{Cancel, RunSettings, Runner, drive};

pub const KEY: &str = "sk-test-secret-0123";

/// A mock server on a free loopback port.
pub fn mock(script: Script) -> MockServer {
    MockServer::start("127.0.0.1:0", script).expect("mock server starts")
}

/// A script of plain OpenAI replies.
pub fn openai_script(replies: &[&str]) -> Script {
    Script { openai: replies.iter().map(|r| Reply::text(*r)).collect(), ..Default::default() }
}

/// Fast retries so the tests stay quick.
pub fn quick_retry() -> RetryPolicy {
    RetryPolicy { retries: 2, base_ms: 10, max_ms: 50 }
}

/// An OpenAI config for the mock, with a key.
pub fn openai_config(server: &MockServer) -> OpenAiConfig {
    let mut c = OpenAiConfig::new(&format!("{}/v1", server.url()), "mock-model");
    c.api_key = Some(KEY.into());
    c.retry = quick_retry();
    c.timeout_ms = 5000;
    c
}

/// An A2A config for the mock.
pub fn a2a_config(server: &MockServer) -> A2aConfig {
    let mut c = A2aConfig::new(server.url());
    c.retry = quick_retry();
    c.timeout_ms = 5000;
    c.poll_ms = 20;
    c
}

/// Connects natively (A2A reads its card).
pub fn client(config: EndpointConfig, cancel: &Cancel) -> Arc<Client> {
    Arc::new(connect(&config, &Transport::new(cancel.clone())).expect("connects"))
}

/// Runs one episode with an endpoint client; returns the runner for inspection.
pub fn run(
    task: Arc<dyn Task>,
    client: &Arc<Client>,
    settings: RunSettings,
    cancel: &Cancel,
) -> (Runner, ResultRecord) {
    let mut agent = EndpointAgent::new(client.clone(), Transport::new(cancel.clone()));
    let mut runner = Runner::new(task, settings);
    drive(&mut runner, &mut agent, cancel);
    let record = runner.record(&agent.info());
    (runner, record)
}

/// Runs `task` through a fresh mock whose OpenAI replies are `replies`, over real HTTP, and
/// returns the record and what the server received. For application tests:
/// `solve_through_mock(netpress::registry::generate("route-v1-L1-s0-i0")?, &[...])`.
pub fn solve_through_mock(task: Arc<dyn Task>, replies: &[&str]) -> (ResultRecord, Vec<Logged>) {
    let server = mock(openai_script(replies));
    let cancel = Cancel::new();
    let client = client(EndpointConfig::Openai(openai_config(&server)), &cancel);
    let (_, record) = run(task, &client, RunSettings::default(), &cancel);
    (record, server.requests(""))
}
