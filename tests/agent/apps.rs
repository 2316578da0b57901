//! A solve of a real task of every registered application through the OpenAI-compatible mock
//! server on loopback: the replies of its oracle or baseline, scripted, must reach the same score over
//! HTTP as when that agent plays directly, turn for turn (multi-turn for Route and K8s; MALT's
//! contract is one Python answer).

use std::sync::Arc;

use crate::support::solve_through_mock;
use netpress::app::{App, Task};
use netpress::record::ResultRecord;
use netpress::registry;
use netpress::run::{RunSettings, run_episode};

/// The first level-1 task answered correctly in at least `min_turns` turns, by the application's
/// oracle where it has one (micro-segmentation's baseline is built to fail every level-1 policy),
/// else by its baseline.
fn solved_directly(app: &dyn App, min_turns: usize) -> (Arc<dyn Task>, ResultRecord) {
    (0..200u64)
        .flat_map(|seed| (0..3u64).map(move |index| (seed, index)))
        .find_map(|(seed, index)| {
            let id = app.default_id(1, seed, index);
            let task = app.generate(&id).ok()?;
            let mut agent = app.oracle(&id).unwrap_or_else(|| app.baseline());
            let record = run_episode(task.clone(), agent.as_mut(), RunSettings::default());
            (record.score.correct && record.turns.len() >= min_turns).then_some((task, record))
        })
        .unwrap_or_else(|| {
            panic!("{}: no level-1 task its oracle or baseline answers correctly", app.info().name)
        })
}

#[test]
fn every_application_is_solved_through_the_openai_endpoint() {
    for app in registry::apps() {
        let name = app.info().name;
        let min_turns = if app.info().default_max_turns > 1 { 2 } else { 1 };
        let (task, direct) = solved_directly(*app, min_turns);
        let replies: Vec<&str> = direct.turns.iter().map(|t| t.reply.as_str()).collect();
        let (over_http, requests) = solve_through_mock(task, &replies);
        assert!(over_http.score.correct, "{name} {}", direct.id);
        assert_eq!(over_http.finish, direct.finish, "{name}: {:?}", over_http.finish);
        assert_eq!(requests.len(), replies.len(), "{name}: one request per turn");
        assert_eq!(over_http.score.safe, direct.score.safe, "{name}");
        let observations =
            |r: &ResultRecord| r.turns.iter().map(|t| t.observation.clone()).collect::<Vec<_>>();
        assert_eq!(observations(&over_http), observations(&direct), "{name}: same observations");
    }
}
