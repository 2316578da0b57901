//! A search stopped part-way and resumed from its saved state ends byte-identical to one run
//! without a stop: every point and seed is a function of the settings and the evaluations so
//! far, so the state file is all a resume needs (docs/adapt.md, "State and resume").

use netpress::adapt::{Observer, Pin, Reference, Search, Settings, State};
use netpress::conversation::AgentInfo;
use netpress::registry::Registry;
use netpress::run::Cancel;

use super::fake::{drive, run};

const PRED: &str = "subnets>=6";

fn settings() -> Settings {
    let mut s = Settings::new(Reference::Baseline);
    s.rounds = 3;
    s.k = 3;
    s.seed = 11;
    s.confirm = 10;
    s.pins = vec![
        Pin { dim: "level".into(), values: vec!["1".into(), "2".into()] },
        Pin { dim: "turns".into(), values: vec!["10".into()] },
    ];
    s
}

/// Keeps the state file as the CLI writes it, and stops the run once `stop_after`
/// evaluations are in it (as Ctrl-C does: the evaluation in flight is lost).
struct StopAfter<'a> {
    stop_after: usize,
    cancel: &'a Cancel,
    file: String,
}

impl Observer for StopAfter<'_> {
    fn save(&mut self, state: &State) -> std::io::Result<()> {
        self.file = state.to_json();
        if state.evaluations.len() >= self.stop_after {
            self.cancel.cancel("stopped by the test");
        }
        Ok(())
    }
}

#[test]
fn runs_cancelled_after_evaluations_7_18_31_and_resumed_end_identical() {
    let app = Registry::standard().app("route").unwrap();
    let whole = run(app, settings(), PRED, 2);
    assert_eq!(whole.evaluations.len(), 45, "3 rounds of 15 points");

    let agent = AgentInfo::new("fake", PRED);
    let mut file: Option<String> = None;
    for stop_after in [7, 18, 31, usize::MAX] {
        let mut search = match &file {
            None => Search::new(app, settings(), agent.clone()).unwrap(),
            Some(text) => Search::resume(app, State::parse(text).unwrap(), &settings()).unwrap(),
        };
        let cancel = Cancel::new();
        let mut observer = StopAfter { stop_after, cancel: &cancel, file: String::new() };
        let ended = drive(app, &mut search, PRED, 2, &cancel, &mut observer);
        assert_eq!(ended, stop_after == usize::MAX, "stop after {stop_after}");
        if !ended {
            let saved = State::parse(&observer.file).unwrap();
            assert_eq!(saved.evaluations.len(), stop_after, "the state holds exactly what ran");
        }
        file = Some(observer.file);
    }
    assert_eq!(file.unwrap(), whole.to_json());
}

#[test]
fn a_state_travels_in_a_link_token() {
    let app = Registry::standard().app("route").unwrap();
    let state = run(app, settings(), PRED, 2);
    let token = state.token();
    assert!(token.len() <= netpress::adapt::MAX_TOKEN, "{} bytes", token.len());
    assert!(token.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_'));
    assert_eq!(State::from_token(&token).unwrap().to_json(), state.to_json());
    let cut = &token[..token.len() / 2];
    assert!(State::from_token(cut).unwrap_err().to_string().contains("damaged"));
    assert!(State::from_token("not a token!").unwrap_err().to_string().contains("damaged"));
}
