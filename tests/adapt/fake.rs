//! Fake agents for the search tests: the application's baseline outside a predicate on the
//! id, a no-op reply inside it, so the agent's weak region is known exactly.

use netpress::adapt::{Settings, State};
use netpress::conversation::{Agent, AgentError, AgentInfo, AgentReply, Message};
use netpress::run::Cancel;
use netpress::{App, QueryId};

/// Replies the same no-op every turn.
pub struct Noop(pub &'static str);

impl Agent for Noop {
    fn info(&self) -> AgentInfo {
        AgentInfo::new("fake", "noop")
    }
    fn reply(&mut self, _: &[Message]) -> Result<AgentReply, AgentError> {
        Ok(AgentReply { text: self.0.to_string(), ..Default::default() })
    }
}

/// The no-op reply of an application.
pub fn noop(app: &str) -> &'static str {
    match app {
        "route" => r#"{"machine": "r0", "command": "true"}"#,
        "k8s" => "kubectl get pods",
        _ => "def process_graph(G):\n    return None",
    }
}

/// A knob of an id as a number (0 when absent).
pub fn knob(id: &QueryId, key: char) -> u32 {
    id.knob(key).and_then(|v| v.parse().ok()).unwrap_or(0)
}

/// Fails at random with probability `p` by a hash of the id.
pub fn random_fail(id: &QueryId, p: f64) -> bool {
    let h = netpress::seed::seed_bytes(&id.to_string());
    (u16::from_le_bytes([h[0], h[1]]) as f64) < p * 65536.0
}

/// Runs a search of `app` to its end with the fake agent of `fails`.
pub fn run(
    app: &'static dyn App,
    settings: Settings,
    fails: impl Fn(&QueryId) -> bool + Sync,
    jobs: usize,
) -> State {
    let name = app.info().name;
    let factory = |id: &str| -> Box<dyn Agent> {
        let q: QueryId = id.parse().expect("an id the search made");
        if fails(&q) { Box::new(Noop(noop(name))) } else { app.baseline() }
    };
    let mut search = netpress::adapt::Search::new(app, settings, AgentInfo::new("fake", "pred")).unwrap();
    let done = netpress::adapt::drive(
        &mut search,
        &factory,
        Default::default(),
        jobs,
        &Cancel::new(),
        &mut netpress::adapt::Quiet,
    )
    .unwrap();
    assert!(done);
    search.state().clone()
}
