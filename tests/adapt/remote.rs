//! The page's driver ([`netpress::adapt::drive_remote`]): a search whose space, feasibility
//! and ids come from the engine through a [`SpaceSpec`] and [`realise_all`] (as the page gets
//! them from the worker) ends in the same bytes as the native driver's.

use std::future::Future;
use std::pin::pin;
use std::task::{Context, Poll, Waker};

use netpress::App;
use netpress::adapt::{Fake, Host, Pin, Reference, Remote, Search, Settings, SpaceSpec, State, realise_all};
use netpress::conversation::{Agent, AgentInfo};
use netpress::registry::Registry;
use netpress::run::{Cancel, RunSettings, run_threads};

use super::fake::run;

/// Polls a future whose awaits are all ready (the native host never waits).
fn ready<T>(f: impl Future<Output = T>) -> T {
    let mut f = pin!(f);
    let mut cx = Context::from_waker(Waker::noop());
    loop {
        if let Poll::Ready(v) = f.as_mut().poll(&mut cx) {
            return v;
        }
    }
}

/// The engine side natively: ids realised by the application, episodes run by the runner.
struct Native {
    app: &'static dyn App,
    fake: Fake,
    realised: usize,
}

impl Host for Native {
    async fn realise(&mut self, pairs: &[(u64, u64)]) -> Result<Vec<Option<String>>, String> {
        self.realised += pairs.len();
        realise_all(self.app, pairs).map_err(|e| e.to_string())
    }

    async fn scores(&mut self, ids: &[String], reference: bool) -> Result<Option<Vec<f64>>, String> {
        let app = self.app;
        let tasks = ids.iter().map(|id| app.generate(&id.parse().unwrap()).unwrap()).collect();
        let fake = &self.fake;
        let agent =
            |id: &str| -> Box<dyn Agent> { if reference { app.baseline() } else { fake.agent(app, id) } };
        let mut out = Vec::new();
        run_threads(tasks, &agent, RunSettings::default(), 2, &Cancel::new(), |r| {
            out.push(f64::from(u8::from(r.expect("not cancelled").score.correct)));
            Ok(())
        })
        .unwrap();
        Ok(Some(out))
    }
}

fn settings(app: &str, reference: Reference, levels: &[&str]) -> Settings {
    let mut s = Settings::new(reference);
    s.rounds = 2;
    s.k = 3;
    s.seed = 5;
    s.confirm = 8;
    s.pins = vec![Pin { dim: "level".into(), values: levels.iter().map(|l| l.to_string()).collect() }];
    if app != "malt" {
        s.pins.push(Pin { dim: "turns".into(), values: vec!["10".into()] });
    }
    s
}

fn same_as_native(name: &str, pred: &str, reference: Reference, levels: &[&str]) {
    let app = Registry::standard().app(name).unwrap();
    let native: State = run(app, settings(name, reference, levels), pred, 2);

    let spec: SpaceSpec = serde_json::from_str(&serde_json::to_string(&SpaceSpec::of(app)).unwrap()).unwrap();
    let remote = Remote::new(app.info(), &spec).unwrap();
    let mut search =
        Search::new(&remote, settings(name, reference, levels), AgentInfo::new("fake", pred)).unwrap();
    let mut host = Native { app, fake: Fake::parse(app, pred).unwrap(), realised: 0 };
    assert!(ready(netpress::adapt::drive_remote(&mut search, &remote, &mut host)).unwrap());
    assert!(host.realised > 0);
    assert_eq!(search.state().to_json(), native.to_json(), "{name}");
}

#[test]
fn the_page_driver_ends_as_the_native_one() {
    same_as_native("route", "subnets>=6", Reference::Baseline, &["1", "2"]);
    same_as_native("k8s", "level=4", Reference::Baseline, &["3", "4"]);
}
