//! Runs a search to its end with a `fake:PRED` agent (the library's [`Fake`]): the
//! application's baseline outside the predicate, a no-op reply inside it, so the agent's weak
//! region is known exactly.

use netpress::App;
use netpress::adapt::{Fake, Settings, State};
use netpress::conversation::{Agent, AgentInfo};
use netpress::run::Cancel;

/// Runs a search of `app` to its end with the fake agent of `pred`.
pub fn run(app: &'static dyn App, settings: Settings, pred: &str, jobs: usize) -> State {
    let fake = Fake::parse(app, pred).unwrap();
    let factory = |id: &str| -> Box<dyn Agent> { fake.agent(app, id) };
    let mut search = netpress::adapt::Search::new(app, settings, AgentInfo::new("fake", pred)).unwrap();
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
