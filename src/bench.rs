//! A fixed, seeded workload per application, timed per stage (generate, step, score).
//!
//! The CLI's `netpress bench` and the web app's Benchmark view run this same code, so native
//! and in-browser figures come from one measurement. The clock is passed in because the
//! library has no clock of its own (`std::time::Instant` does not exist in the browser):
//! natively it is `Instant`, in the page `performance.now()`.
//!
//! Workload for `tasks` = T: ids `(level, seed, 0)` for seeds `0..T`, levels taken in turn,
//! with the app's default knobs; every task is run to the end by the app's baseline agent.
//! Agent time is excluded: "step" is the emulator's `Episode::step` alone.

use serde::{Deserialize, Serialize};

use crate::app::{App, PromptVariant};
use crate::conversation::Message;

/// Timing of one stage.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StageStats {
    pub stage: String,
    pub samples: usize,
    pub median_ms: f64,
    pub p95_ms: f64,
    pub max_ms: f64,
    /// Mean; in the browser, where `performance.now()` is coarsened (to 0.1 ms or 5 µs), the
    /// mean of many samples is the more precise figure for sub-millisecond stages.
    pub mean_ms: f64,
    /// Samples per second at the median; `None` (JSON `null`) when the median is 0, which a
    /// coarsened browser clock gives a stage faster than its resolution. An infinity would be
    /// written as `null` anyway and then fail to read back as a number.
    pub per_second: Option<f64>,
}

/// The figures of one application.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AppBench {
    pub app: String,
    pub tasks: usize,
    pub stages: Vec<StageStats>,
    /// Tasks whose baseline episode ended correct (a sanity figure, not a speed).
    pub solved: usize,
}

/// The document `netpress bench --json` prints (and the web app's Benchmark view reads back,
/// to show native and in-browser figures side by side).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Report {
    pub netpress_version: String,
    /// `native` or `browser`.
    #[serde(rename = "where")]
    pub place: String,
    pub tasks_per_app: usize,
    pub apps: Vec<AppBench>,
}

impl Report {
    /// Reads a report, with a one-line reason when the text is not one.
    pub fn parse(text: &str) -> Result<Report, String> {
        serde_json::from_str(text).map_err(|e| format!("not the output of `netpress bench --json`: {e}"))
    }
}

/// Times `f`, returning its result and the elapsed milliseconds.
fn timed<T>(clock: &dyn Fn() -> f64, f: impl FnOnce() -> T) -> (T, f64) {
    let start = clock();
    let value = f();
    (value, clock() - start)
}

/// Runs the workload for one application.
pub fn run_app(app: &dyn App, tasks: usize, clock: &dyn Fn() -> f64) -> crate::Result<AppBench> {
    let mut run = BenchRun::new(app, tasks);
    while run.step(clock)? {}
    Ok(run.finish())
}

/// The workload of [`run_app`] one task at a time, so a caller that must stay responsive (the
/// web app's Benchmark view) can yield between tasks. Same tasks, same order, same figures.
pub struct BenchRun<'a> {
    app: &'a dyn App,
    tasks: usize,
    levels: Vec<u8>,
    next: usize,
    generate: Vec<f64>,
    step: Vec<f64>,
    score: Vec<f64>,
    solved: usize,
}

impl<'a> BenchRun<'a> {
    pub fn new(app: &'a dyn App, tasks: usize) -> Self {
        let levels = app.info().levels.iter().map(|l| l.level).collect();
        BenchRun {
            app,
            tasks,
            levels,
            next: 0,
            generate: Vec::new(),
            step: Vec::new(),
            score: Vec::new(),
            solved: 0,
        }
    }

    /// Tasks run so far.
    pub fn done(&self) -> usize {
        self.next
    }

    /// Runs the next task; `false` once every task has run.
    pub fn step(&mut self, clock: &dyn Fn() -> f64) -> crate::Result<bool> {
        if self.next >= self.tasks {
            return Ok(false);
        }
        let seed = self.next as u64;
        self.next += 1;
        let app = self.app;
        let level = self.levels[seed as usize % self.levels.len()];
        let id = app.default_id(level, seed, 0);
        let (task, ms) = timed(clock, || app.generate(&id));
        let task = task?;
        self.generate.push(ms);
        let mut episode = task.start(None);
        let mut agent = app.baseline();
        let mut messages = vec![Message::user(task.prompt(PromptVariant::ZeroshotBase))];
        while episode.finished().is_none() {
            let reply = match agent.reply(&messages) {
                Ok(r) => r.text,
                Err(_) => break,
            };
            let (outcome, ms) = timed(clock, || episode.step(&reply));
            self.step.push(ms);
            messages.push(Message::assistant(reply));
            messages.push(Message::user(outcome.observation));
        }
        let (result, ms) = timed(clock, || episode.score());
        self.score.push(ms);
        self.solved += usize::from(result.correct);
        Ok(self.next < self.tasks)
    }

    /// The figures of the tasks run.
    pub fn finish(self) -> AppBench {
        let stages =
            vec![stats("generate", self.generate), stats("step", self.step), stats("score", self.score)];
        AppBench { app: self.app.info().name.to_string(), tasks: self.next, stages, solved: self.solved }
    }
}

/// The `q` quantile of sorted samples by nearest rank (the ⌈q·n⌉-th smallest), 0 for none.
/// Every latency figure NetPress prints (the bench stages, the server's load run) reads its
/// percentiles here, so two tables of one build never disagree on what "p95" means.
pub fn nearest_rank(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let rank = (q * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

/// Median, 95th percentile (nearest rank) and maximum of some samples.
pub fn stats(stage: &str, mut samples: Vec<f64>) -> StageStats {
    samples.sort_by(f64::total_cmp);
    let at = |q: f64| nearest_rank(&samples, q);
    let median = at(0.5);
    let mean = if samples.is_empty() { 0.0 } else { samples.iter().sum::<f64>() / samples.len() as f64 };
    StageStats {
        stage: stage.to_string(),
        samples: samples.len(),
        median_ms: median,
        p95_ms: at(0.95),
        max_ms: samples.last().copied().unwrap_or(0.0),
        mean_ms: mean,
        per_second: (median > 0.0).then(|| 1000.0 / median),
    }
}

/// A plain-text table of some applications' figures.
pub fn render(benches: &[AppBench]) -> String {
    let mut out = format!(
        "{:<8} {:<9} {:>7} {:>11} {:>11} {:>11} {:>11} {:>12}\n",
        "app", "stage", "samples", "median ms", "mean ms", "p95 ms", "max ms", "per second"
    );
    for b in benches {
        for s in &b.stages {
            out.push_str(&format!(
                "{:<8} {:<9} {:>7} {:>11.4} {:>11.4} {:>11.4} {:>11.4} {:>12}\n",
                b.app,
                s.stage,
                s.samples,
                s.median_ms,
                s.mean_ms,
                s.p95_ms,
                s.max_ms,
                s.per_second.map_or("—".to_string(), |p| format!("{p:.0}"))
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_by_nearest_rank() {
        let s = stats("x", (1..=100).map(f64::from).collect());
        assert_eq!((s.median_ms, s.p95_ms, s.max_ms, s.samples), (50.0, 95.0, 100.0, 100));
        assert_eq!((s.per_second, s.mean_ms), (Some(20.0), 50.5));
        let one = stats("y", vec![2.0]);
        assert_eq!((one.median_ms, one.p95_ms), (2.0, 2.0));
        assert_eq!(stats("z", vec![]).samples, 0);
    }

    /// A stage faster than a coarsened browser clock times as all zeros; its figures must still
    /// cross the worker's JSON (an infinite rate was written as `null` and refused on reading).
    #[test]
    fn a_stage_too_fast_to_time_round_trips() {
        let s = stats("score", vec![0.0; 20]);
        assert_eq!(s.per_second, None);
        let back: StageStats = serde_json::from_str(&serde_json::to_string(&s).unwrap()).unwrap();
        assert_eq!(back, s);
    }
}
