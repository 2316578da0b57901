//! Runs a search to its end with a `fake:PRED` agent (the library's [`Fake`]): the
//! application's baseline outside the predicate, a no-op reply inside it, so the agent's weak
//! region is known exactly.

use netpress::App;
use netpress::adapt::{Fake, Observer, Search, Settings, State};
use netpress::conversation::{Agent, AgentInfo};
use netpress::run::Cancel;

/// Runs a search of `app` to its end with the fake agent of `pred`.
pub fn run(app: &'static dyn App, settings: Settings, pred: &str, jobs: usize) -> State {
    let mut search = Search::new(app, settings, AgentInfo::new("fake", pred)).unwrap();
    assert!(drive(app, &mut search, pred, jobs, &Cancel::new(), &mut netpress::adapt::Quiet));
    search.state().clone()
}

/// Drives `search` with the fake agent of `pred` until it ends or `cancel` stops it; whether
/// it ended.
pub fn drive(
    app: &'static dyn App,
    search: &mut Search<'_>,
    pred: &str,
    jobs: usize,
    cancel: &Cancel,
    observer: &mut dyn Observer,
) -> bool {
    let fake = Fake::parse(app, pred).unwrap();
    let factory = |id: &str| -> Box<dyn Agent> { fake.agent(app, id) };
    netpress::adapt::drive(search, &factory, Default::default(), jobs, cancel, observer).unwrap()
}
