//! The page's driver ([`netpress::adapt::drive_remote`]): a search whose space, feasibility
//! and ids come from the engine through a [`SpaceSpec`] and [`realise_all`] (as the page gets
//! them from the worker) ends in the same bytes as the native driver's, and its state hash is
//! the one the wasm test (`tests/wasm_determinism.rs`) gets in the browser.

use netpress::adapt::{
    Fake, Linked, Pin, Reference, Remote, ScoreKind, Search, Settings, SpaceSpec, State, drive_linked,
};
use netpress::conversation::{Agent, AgentInfo};
use netpress::registry::Registry;

use super::fake::run;

fn settings(app: &str, reference: Reference, levels: &[&str]) -> Settings {
    let mut s = Settings::new(reference);
    s.rounds = 2;
    s.k = 3;
    s.budget = 4;
    s.random = Settings::random_of(4);
    s.seed = 5;
    s.confirm = 6;
    s.pins = vec![Pin { dim: "level".into(), values: levels.iter().map(|l| l.to_string()).collect() }];
    if app != "malt" {
        s.pins.push(Pin { dim: "turns".into(), values: vec!["10".into()] });
    }
    s
}

/// The search run as the page runs it, the engine linked in this thread.
fn page_path(name: &str, pred: &str, reference: Reference, levels: &[&str]) -> State {
    let app = Registry::standard().app(name).unwrap();
    let spec: SpaceSpec = serde_json::from_str(&serde_json::to_string(&SpaceSpec::of(app)).unwrap()).unwrap();
    let remote = Remote::new(app.info(), &spec).unwrap();
    let mut search =
        Search::new(&remote, settings(name, reference, levels), AgentInfo::new("fake", pred)).unwrap();
    let fake = Fake::parse(app, pred).unwrap();
    let agent = |id: &str| -> Box<dyn Agent> { fake.agent(app, id) };
    let mut host = Linked { app, agent: &agent, settings: Default::default(), score: ScoreKind::Correct };
    assert!(drive_linked(&mut search, &remote, &mut host).unwrap());
    search.state().clone()
}

#[test]
fn the_page_driver_ends_as_the_native_one() {
    for (name, pred, levels) in
        [("route", "subnets>=6", &["1", "2"][..]), ("k8s", "level=4", &["3", "4"][..])]
    {
        let app = Registry::standard().app(name).unwrap();
        let native = run(app, settings(name, Reference::Baseline, levels), pred, 2);
        assert_eq!(page_path(name, pred, Reference::Baseline, levels).to_json(), native.to_json(), "{name}");
    }
}

#[test]
fn the_state_hash_is_the_one_the_browser_gets() {
    let mut state = page_path("route", "subnets>=6", Reference::Baseline, &["1"]);
    // The version is left out, so a release does not change the golden.
    state.netpress_version.clear();
    let golden = include_str!("../data/adapt/state_hash.txt").trim();
    assert_eq!(state.hash(), golden, "tests/data/adapt/state_hash.txt");
}
