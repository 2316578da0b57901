//! The native driver: runs a [`Search`]'s episodes through [`run::run_threads`] (the
//! runner every surface uses), caches the reference's scores by id, and tells an
//! [`Observer`] about every record, every saved state and every finished round.

use std::collections::BTreeMap;
use std::io;
use std::sync::Arc;
use std::time::Instant;

use super::search::{Next, Point, Search};
use super::space::Reference;
use super::state::State;
use crate::app::Task;
use crate::record::ResultRecord;
use crate::run::{self, AgentFactory, Cancel, RunSettings};

/// What the driver reports as it goes. Every method has a no-op default.
pub trait Observer {
    /// An episode's record (`reference`: run by the reference agent).
    fn record(&mut self, _record: &ResultRecord, _reference: bool) -> io::Result<()> {
        Ok(())
    }
    /// The state after an evaluation, a round or the confirmation.
    fn save(&mut self, _state: &State) -> io::Result<()> {
        Ok(())
    }
    /// One line per finished round.
    fn round(&mut self, _line: &str) {}
}

/// An observer that ignores everything.
pub struct Quiet;
impl Observer for Quiet {}

/// Runs the search to its end (or until `cancel`); returns whether it finished.
/// `settings` applies to the agent's episodes, held to the state's turn limit
/// (`Settings::max_turns`) when it has one; the reference's run with the tasks' own.
pub fn drive(
    search: &mut Search<'_>,
    agent: &AgentFactory<'_>,
    settings: RunSettings,
    jobs: usize,
    cancel: &Cancel,
    observer: &mut dyn Observer,
) -> io::Result<bool> {
    let held = search.state().settings.max_turns;
    let settings = RunSettings { max_turns: held.or(settings.max_turns), ..settings };
    let mut reference: BTreeMap<String, f64> = BTreeMap::new();
    let mut search_ms = 0.0;
    let mut episodes = (0usize, 0usize);
    loop {
        let rounds_before = search.state().rounds.len();
        let t = Instant::now();
        let next = search.next_step().map_err(io::Error::other)?;
        search_ms += t.elapsed().as_secs_f64() * 1e3;
        if search.state().rounds.len() > rounds_before {
            observer.save(search.state())?;
            observer.round(&round_line(search, search_ms, episodes));
            (search_ms, episodes) = (0.0, (0, 0));
        }
        match next {
            Next::Done => return Ok(true),
            Next::Evaluate(point) => {
                let Some((a, r, ran)) =
                    evaluate(search, &point, (agent, settings), jobs, cancel, &mut reference, observer)?
                else {
                    return Ok(false);
                };
                episodes.0 += point.ids.len();
                episodes.1 += ran;
                let t = Instant::now();
                search.record(&point, a, r);
                search_ms += t.elapsed().as_secs_f64() * 1e3;
                observer.save(search.state())?;
            }
            Next::Confirm(points) => {
                let mut runs = Vec::new();
                for point in points {
                    let Some((a, r, _)) =
                        evaluate(search, &point, (agent, settings), jobs, cancel, &mut reference, observer)?
                    else {
                        return Ok(false);
                    };
                    runs.push((point, a, r));
                }
                search.confirm(&runs);
                observer.save(search.state())?;
            }
        }
    }
}

/// The agent's and the reference's scores of a point, and the reference episodes run.
type Scores = (Vec<f64>, Vec<f64>, usize);

/// The agent's and the reference's scores on a point's ids, and how many reference episodes
/// ran (the others were cached); `None` when cancelled.
fn evaluate(
    search: &Search<'_>,
    point: &Point,
    (agent, settings): (&AgentFactory<'_>, RunSettings),
    jobs: usize,
    cancel: &Cancel,
    cache: &mut BTreeMap<String, f64>,
    observer: &mut dyn Observer,
) -> io::Result<Option<Scores>> {
    let ids: Vec<String> = point.ids.iter().map(ToString::to_string).collect();
    let kind = search.state().settings.score;
    let Some(a) = scores(search, &ids, (agent, settings), jobs, cancel, |r| observer.record(r, false))?
    else {
        return Ok(None);
    };
    let a: Vec<f64> = a.iter().map(|r| kind.of(&r.score)).collect();
    if search.state().settings.reference == Reference::Oracle {
        return Ok(Some((a, vec![1.0; ids.len()], 0)));
    }
    {
        let missing: Vec<String> = ids.iter().filter(|id| !cache.contains_key(*id)).cloned().collect();
        let app = search.app();
        let baseline = |_: &str| app.baseline();
        let reference = (&baseline as &AgentFactory<'_>, RunSettings::default());
        let Some(r) = scores(search, &missing, reference, jobs, cancel, |r| observer.record(r, true))? else {
            return Ok(None);
        };
        let ran = missing.len();
        for (id, record) in missing.into_iter().zip(r) {
            cache.insert(id, kind.of(&record.score));
        }
        let r = ids.iter().map(|id| cache.get(id).copied().unwrap_or(0.0)).collect();
        Ok(Some((a, r, ran)))
    }
}

/// Runs `ids` with `factory` through the runner, in order; `None` when a cancel cut one short.
fn scores(
    search: &Search<'_>,
    ids: &[String],
    (factory, settings): (&AgentFactory<'_>, RunSettings),
    jobs: usize,
    cancel: &Cancel,
    mut each: impl FnMut(&ResultRecord) -> io::Result<()>,
) -> io::Result<Option<Vec<ResultRecord>>> {
    let app = search.app();
    let tasks = ids
        .iter()
        .map(|id| id.parse().and_then(|q| app.generate(&q)))
        .collect::<crate::Result<Vec<Arc<dyn Task>>>>()
        .map_err(io::Error::other)?;
    let mut out = Vec::with_capacity(ids.len());
    let mut complete = true;
    run::run_threads(tasks, factory, settings, jobs, cancel, |r| {
        match r {
            Some(r) => {
                each(&r)?;
                out.push(r);
            }
            None => complete = false,
        }
        Ok(())
    })?;
    Ok((complete && out.len() == ids.len()).then_some(out))
}

/// `round 2/5: 15 points (10 random, 5 guided), 75+75 episodes, best gap 0.80 at … →
/// promoted 0.30; default 0.49, …; search 41 ms`.
fn round_line(search: &Search<'_>, search_ms: f64, episodes: (usize, usize)) -> String {
    let state = search.state();
    let Some(note) = state.rounds.last() else { return String::new() };
    let evals: Vec<_> = state.evaluations.iter().filter(|e| e.round == note.round).collect();
    let random = evals.iter().filter(|e| e.phase == super::state::Phase::Random).count();
    let cell = search.space().label(&search.space().cell_at(note.best_index));
    let promoted = if note.promoted {
        format!("promoted {:.2}", state.settings.weight)
    } else {
        "nothing promoted".into()
    };
    let weights: Vec<String> = state
        .mixture
        .iter()
        .map(|c| match c {
            super::state::Component::Default { weight, .. } => format!("default {weight:.2}"),
            super::state::Component::Cell { index, weight, .. } => {
                format!("{} {weight:.2}", search.space().label(&search.space().cell_at(*index)))
            }
        })
        .collect();
    format!(
        "round {}/{}: {} points ({random} random, {} guided), {}+{} episodes, best gap {:.2} at {cell} → {promoted}; {}; search {:.0} ms",
        note.round,
        state.settings.rounds,
        evals.len(),
        evals.len() - random,
        episodes.0,
        episodes.1,
        note.gap,
        weights.join(", "),
        search_ms
    )
}
