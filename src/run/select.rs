//! Which tasks make up a run, and in which order.
//!
//! A [`TaskSelection`] says it once for every surface: the CLI's `run` flags fill one, a
//! batch link of the page fills another (`link::BatchLink::selection`), and both get the same
//! ids in the same order. The order matters beyond tidiness: a run stopped early, or cut with
//! `max_tasks` (`run --queries N`, `stats --at N`), is a prefix of it, so with `interleave`
//! the tasks go seed by seed with every level of a seed together, and any prefix mixes the
//! levels instead of holding only the first.
//!
//! Tasks are named by ids `(level, seed, index)` with the selection's knobs. By default each
//! (level, seed) contributes indexes `0..per_seed`; with `per_label` it contributes `k` tasks
//! of every label the level can produce instead, found by scanning indexes `0, 1, …` (the
//! generator decides labels from the seed material, so there is no faster way to find them);
//! with `label` too, only that label is scanned for, which is how `generate --label` picks
//! its tasks. [`TaskSelection::stream`] generates them one at a time as they are asked for.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::Value;

use crate::app::{App, AppInfo, Task};
use crate::error::{Error, Result};
use crate::id::{Knob, QueryId};

/// Indexes scanned per wanted task before `per_label` gives up on a label.
const PER_LABEL_SCAN: u64 = 1000;

/// The tasks of a run (see the module doc).
#[derive(Debug, Clone, PartialEq)]
pub struct TaskSelection {
    /// Levels in run order; empty means every level of the application.
    pub levels: Vec<u8>,
    /// First and last seed, inclusive.
    pub seeds: (u64, u64),
    /// Tasks per (level, seed): indexes `0..per_seed`.
    pub per_seed: u64,
    /// Instead of `per_seed`: this many tasks of every label the level can produce.
    pub per_label: Option<u64>,
    /// Keep only tasks with this label.
    pub label: Option<String>,
    /// Keep only tasks whose resolved parameter `key` equals the value.
    pub filters: Vec<(String, Value)>,
    /// Knobs of every id, in the application's order.
    pub knobs: Vec<Knob>,
    /// Seed by seed (every level of a seed together) instead of level by level.
    pub interleave: bool,
    /// Stop after this many tasks in all.
    pub max_tasks: Option<usize>,
}

impl Default for TaskSelection {
    fn default() -> Self {
        TaskSelection {
            levels: Vec::new(),
            seeds: (0, 9),
            per_seed: 1,
            per_label: None,
            label: None,
            filters: Vec::new(),
            knobs: Vec::new(),
            interleave: false,
            max_tasks: None,
        }
    }
}

impl TaskSelection {
    /// The levels of the run for an application.
    pub fn levels_of(&self, info: &AppInfo) -> Vec<u8> {
        if self.levels.is_empty() {
            info.levels.iter().map(|l| l.level).collect()
        } else {
            self.levels.clone()
        }
    }

    /// How many ids the plain plan names (`per_seed` per level and seed), before filters.
    pub fn count(&self, app_levels: usize) -> u64 {
        let levels = if self.levels.is_empty() { app_levels } else { self.levels.len() } as u64;
        let seeds = self.seeds.1.saturating_sub(self.seeds.0).saturating_add(1);
        levels.saturating_mul(seeds).saturating_mul(self.per_seed)
    }

    /// The (level, seed) pairs in run order.
    pub fn order(&self, info: &AppInfo) -> impl Iterator<Item = (u8, u64)> + use<> {
        run_order(self.levels_of(info), self.seeds, self.interleave)
    }

    /// The id of one (level, seed, index) with the selection's knobs.
    pub fn id(&self, info: &AppInfo, level: u8, seed: u64, index: u64) -> QueryId {
        QueryId { knobs: self.knobs.clone(), ..QueryId::new(info.name, info.version, level, seed, index) }
    }

    /// The ids of the plain plan in run order, without generating anything (the page builds
    /// each task when its turn comes). Ignores `per_label`, `label` and `filters`, which need
    /// the tasks: use [`TaskSelection::tasks`] for those.
    pub fn ids(&self, info: &AppInfo) -> Vec<QueryId> {
        self.order(info)
            .flat_map(|(level, seed)| (0..self.per_seed).map(move |index| (level, seed, index)))
            .map(|(level, seed, index)| self.id(info, level, seed, index))
            .take(self.max_tasks.unwrap_or(usize::MAX))
            .collect()
    }

    /// Checks what the application can tell without generating: its levels and the knobs.
    pub fn check(&self, info: &AppInfo) -> Result<()> {
        self.levels_of(info).into_iter().try_for_each(|level| info.check_id(&self.id(info, level, 0, 0)))
    }

    /// The ids of the selected tasks in run order, for a runner that generates each task when
    /// its episode starts ([`super::Named`]), so a run of thousands of large tasks holds only
    /// the running ones. A plain plan is named without generating anything; with a label,
    /// filters or `per_label` each task is generated once here to be judged, and dropped.
    pub fn select_ids(&self, app: &dyn App) -> Result<Vec<QueryId>> {
        let plain = self.per_label.is_none() && self.label.is_none() && self.filters.is_empty();
        if plain {
            self.check(app.info())?;
            return Ok(self.ids(app.info()));
        }
        self.stream(app).map(|task| task.and_then(|t| t.card().id.parse())).collect()
    }

    /// Generates the selected tasks in run order.
    pub fn tasks(&self, app: &dyn App) -> Result<Vec<Arc<dyn Task>>> {
        self.stream(app).collect()
    }

    /// The selected tasks in run order, generated one at a time as they are asked for (so
    /// `generate` and `export` write thousands without holding them); the first error,
    /// from the checks or a generator, is the last item.
    pub fn stream<'a>(&'a self, app: &'a dyn App) -> impl Iterator<Item = Result<Arc<dyn Task>>> + 'a {
        let info = app.info();
        let checked = self.check(info);
        let groups = checked.is_ok().then(|| self.order(info)).into_iter().flatten();
        let tasks = groups.flat_map(move |(level, seed)| self.group(app, self.id(info, level, seed, 0)));
        let all = checked.err().map(Err).into_iter().chain(tasks);
        all.take(self.max_tasks.unwrap_or(usize::MAX)).scan(false, until_error)
    }

    /// The tasks of one (level, seed), `base` being its id of index 0.
    fn group<'a>(
        &'a self,
        app: &'a dyn App,
        base: QueryId,
    ) -> Box<dyn Iterator<Item = Result<Arc<dyn Task>>> + 'a> {
        match self.per_label {
            Some(k) => self.per_label(app, base, k),
            None => Box::new(
                (0..self.per_seed)
                    .map(move |index| app.generate(&QueryId { index, ..base.clone() }))
                    .filter(|task| task.as_ref().map_or(true, |t| self.keeps(t.as_ref()))),
            ),
        }
    }

    fn keeps(&self, task: &dyn Task) -> bool {
        let card = task.card();
        self.label.as_ref().is_none_or(|l| &card.label == l)
            && self.filters.iter().all(|(k, v)| card.params.get(k) == Some(v))
    }

    /// `k` tasks of each wanted label, scanning indexes 0, 1, … of one seed: of the one label
    /// kept when `label` is set (whether or not the application lists its labels), else of
    /// every label the level can produce.
    fn per_label<'a>(
        &'a self,
        app: &'a dyn App,
        base: QueryId,
        k: u64,
    ) -> Box<dyn Iterator<Item = Result<Arc<dyn Task>>> + 'a> {
        let wanted = match &self.label {
            Some(label) => vec![label.clone()],
            None => app.labels(base.level),
        };
        if wanted.is_empty() {
            let refusal = Error::Invalid(format!("{} does not list its labels; use --per-seed", base.app));
            return Box::new(std::iter::once(Err(refusal)));
        }
        let limit = k.saturating_mul(wanted.len() as u64).saturating_mul(PER_LABEL_SCAN);
        let mut counts: BTreeMap<String, u64> = wanted.into_iter().map(|l| (l, 0)).collect();
        let scan = (0..limit).map_while(move |index| {
            if counts.values().all(|&c| c >= k) {
                return None;
            }
            let task = match app.generate(&QueryId { index, ..base.clone() }) {
                Ok(task) => task,
                Err(e) => return Some(Some(Err(e))),
            };
            let count = counts.get_mut(&task.card().label).filter(|c| **c < k && self.keeps(task.as_ref()));
            Some(count.map(|c| {
                *c += 1;
                Ok(task)
            }))
        });
        Box::new(scan.flatten())
    }
}

/// The (level, seed) pairs of a run over `levels` and the seeds `first..=last`, in the order
/// they run: level by level, or with `interleave` seed by seed. Lazy, so a run over every
/// seed there is can still take its first few.
pub fn run_order<L: Copy>(
    levels: Vec<L>,
    (first, last): (u64, u64),
    interleave: bool,
) -> impl Iterator<Item = (L, u64)> {
    let n = levels.len();
    let pairs: Box<dyn Iterator<Item = (usize, u64)>> = if interleave {
        Box::new((first..=last).flat_map(move |seed| (0..n).map(move |i| (i, seed))))
    } else {
        Box::new((0..n).flat_map(move |i| (first..=last).map(move |seed| (i, seed))))
    };
    pairs.map(move |(i, seed)| (levels[i], seed))
}

/// A `scan` step that passes items up to and including the first error.
fn until_error<T>(failed: &mut bool, item: Result<T>) -> Option<Result<T>> {
    (!*failed).then(|| {
        *failed = item.is_err();
        item
    })
}

/// `A..B` (inclusive) or one seed `A`.
pub fn parse_seeds(s: &str) -> std::result::Result<(u64, u64), String> {
    let bad = || format!("bad seeds {s:?}: write A..B (inclusive) or one seed");
    let (a, b) = s.split_once("..").unwrap_or((s, s));
    let (a, b): (u64, u64) = (a.trim().parse().map_err(|_| bad())?, b.trim().parse().map_err(|_| bad())?);
    if a > b {
        return Err(format!("bad seeds {s:?}: the first seed is after the last"));
    }
    Ok((a, b))
}

/// A `KEY=VALUE` filter; the value is JSON when it parses as JSON, else a string.
pub fn parse_filter(f: &str) -> std::result::Result<(String, Value), String> {
    let (k, v) = f.split_once('=').ok_or_else(|| format!("bad filter {f:?}: use KEY=VALUE"))?;
    let value = serde_json::from_str(v).unwrap_or_else(|_| Value::String(v.into()));
    Ok((k.to_string(), value))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn route() -> &'static dyn App {
        crate::registry::app("route").unwrap()
    }

    fn strings(ids: &[QueryId]) -> Vec<String> {
        ids.iter().map(QueryId::to_string).collect()
    }

    #[test]
    fn orders_level_by_level_or_seed_by_seed() {
        let order = |interleave| run_order(vec![1, 2], (0, 1), interleave).collect::<Vec<_>>();
        assert_eq!(order(false), [(1, 0), (1, 1), (2, 0), (2, 1)]);
        assert_eq!(order(true), [(1, 0), (2, 0), (1, 1), (2, 1)]);
        let s = TaskSelection { levels: vec![2, 1], seeds: (3, 4), interleave: true, ..Default::default() };
        let ids = strings(&s.ids(route().info()));
        assert_eq!(ids, ["route-v1-L2-s3-i0", "route-v1-L1-s3-i0", "route-v1-L2-s4-i0", "route-v1-L1-s4-i0"]);
    }

    #[test]
    fn generated_tasks_follow_the_ids_and_stop_at_the_maximum() {
        let s = TaskSelection {
            levels: vec![1],
            seeds: (0, 4),
            per_seed: 2,
            max_tasks: Some(3),
            ..Default::default()
        };
        let tasks = s.tasks(route()).unwrap();
        let ids: Vec<&str> = tasks.iter().map(|t| t.card().id.as_str()).collect();
        assert_eq!(ids, strings(&s.ids(route().info())));
        assert_eq!(ids, ["route-v1-L1-s0-i0", "route-v1-L1-s0-i1", "route-v1-L1-s1-i0"]);
    }

    #[test]
    fn per_label_takes_k_of_every_label_and_filters_apply() {
        let s = TaskSelection { levels: vec![1], seeds: (0, 0), per_label: Some(1), ..Default::default() };
        let tasks = s.tasks(route()).unwrap();
        let labels: Vec<String> = tasks.iter().map(|t| t.card().label.clone()).collect();
        assert_eq!(labels.len(), route().labels(1).len());
        let wanted = labels[0].clone();
        let s = TaskSelection { label: Some(wanted.clone()), per_label: None, per_seed: 30, ..s };
        assert!(s.tasks(route()).unwrap().iter().all(|t| t.card().label == wanted));
    }

    #[test]
    fn a_kept_label_is_scanned_for_alone_and_the_stream_is_lazy() {
        let labels = route().labels(1);
        let wanted = labels.last().unwrap().clone();
        let s = TaskSelection {
            levels: vec![1],
            seeds: (0, 0),
            per_label: Some(2),
            label: Some(wanted.clone()),
            ..Default::default()
        };
        let tasks = s.tasks(route()).unwrap();
        assert_eq!(tasks.len(), 2);
        assert!(tasks.iter().all(|t| t.card().label == wanted));
        let wide = TaskSelection { seeds: (0, u64::MAX), ..Default::default() };
        let first: Vec<String> = wide.stream(route()).take(2).map(|t| t.unwrap().card().id.clone()).collect();
        assert_eq!(first, ["route-v1-L1-s0-i0", "route-v1-L1-s1-i0"]);
    }

    #[test]
    fn bad_levels_and_knobs_are_refused_before_generating() {
        let s = TaskSelection { levels: vec![9], ..Default::default() };
        let error = s.tasks(route()).err().map(|e| e.to_string()).unwrap_or_default();
        assert!(error.contains("no level 9"), "{error}");
        let s = TaskSelection { knobs: vec![Knob { key: 'x', value: "1".into() }], ..Default::default() };
        assert!(s.check(route().info()).unwrap_err().to_string().contains("unknown knob"));
        assert_eq!(TaskSelection { seeds: (0, u64::MAX), ..Default::default() }.count(3), u64::MAX);
    }

    #[test]
    fn seeds_and_filters_parse() {
        assert_eq!(parse_seeds("5..24"), Ok((5, 24)));
        assert_eq!(parse_seeds(" 7 "), Ok((7, 7)));
        assert!(parse_seeds("9..2").unwrap_err().contains("first seed is after the last"));
        assert_eq!(parse_filter("wording=1"), Ok(("wording".into(), Value::from(1))));
        assert_eq!(parse_filter("k=a b"), Ok(("k".into(), Value::from("a b"))));
        assert!(parse_filter("nokey").is_err());
    }
}
