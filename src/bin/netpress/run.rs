//! `run` and `score`: episodes with an agent, written as result records.

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::time::Instant;

use clap::{ArgMatches, Args};
use indicatif::{ProgressBar, ProgressStyle};
use netpress::agent::replay::ReplaySource;
use netpress::agent::{Agent, AgentError, AgentInfo, AgentReply, Message, RunSettings, Runner, run_episode};
use netpress::app::{App, PromptVariant, Task};
use netpress::record::{ResultRecord, parse_results};
use netpress::registry;
use netpress::stats::{Grouping, Summary, breakdown};
use netpress::{QueryId, Result as NpResult};

use crate::{CliResult, Fail, knobs, stats_cmd};

#[derive(Args, Debug)]
pub struct RunArgs {
    /// Application: see `netpress list`.
    #[arg(long)]
    pub app: String,
    /// Agent: `baseline`, or `replay:FILE` (a results file, a JSON array of replies, or text).
    #[arg(long, default_value = "baseline")]
    pub agent: String,
    /// Levels, comma-separated (default: every level of the app).
    #[arg(long, value_delimiter = ',')]
    pub levels: Vec<u8>,
    /// Seeds `A..B` (inclusive: `0..999` is 1,000 seeds) or one seed.
    #[arg(long, default_value = "0..9")]
    pub seeds: String,
    /// One seed (same as `--seeds S..S`).
    #[arg(long, conflicts_with = "seeds")]
    pub seed: Option<u64>,
    /// Tasks per seed (indexes 0..K-1).
    #[arg(long, default_value_t = 1)]
    pub per_seed: u64,
    /// Instead of --per-seed: K tasks of every label the level can produce.
    #[arg(long, alias = "per-family", conflicts_with = "per_seed")]
    pub per_label: Option<u64>,
    /// Keep only tasks with this label.
    #[arg(long, alias = "family")]
    pub label: Option<String>,
    /// Keep only tasks whose resolved parameter KEY equals VALUE (`--where wording=1`).
    #[arg(long = "where", value_name = "KEY=VALUE")]
    pub filters: Vec<String>,
    /// Shorthand for `--where wording=N` (MALT's three wordings).
    #[arg(long)]
    pub wording: Option<u64>,
    /// Stop after this many tasks in all.
    #[arg(long)]
    pub queries: Option<usize>,
    /// Turn limit (default: the task's).
    #[arg(long)]
    pub max_turns: Option<u32>,
    /// Prompt variant: zeroshot_base, zeroshot_cot, fewshot_base, fewshot_cot.
    #[arg(long = "prompt", default_value = "zeroshot_base")]
    pub prompt_variant: String,
    /// Episodes run at once.
    #[arg(long, default_value_t = 1)]
    pub jobs: usize,
    /// Write result records here (JSONL) instead of standard output.
    #[arg(short, long)]
    pub output: Option<String>,
    /// Skip query ids already present in the output file and append to it.
    #[arg(long, requires = "output")]
    pub resume: bool,
    /// No progress bar and no summary.
    #[arg(long, short)]
    pub quiet: bool,
}

#[derive(Args, Debug)]
pub struct ScoreArgs {
    /// Result files (JSONL).
    #[arg(required = true)]
    pub files: Vec<String>,
    /// Write the re-scored records here.
    #[arg(short, long)]
    pub output: Option<String>,
}

/// Makes a fresh agent for each episode.
type AgentFactory = dyn Fn(&str) -> Box<dyn Agent> + Sync;

pub fn run(args: RunArgs, matches: &ArgMatches) -> CliResult {
    let app = registry::app(&args.app)?;
    let settings =
        RunSettings { variant: PromptVariant::parse(&args.prompt_variant)?, max_turns: args.max_turns };
    let factory = agent_factory(app, &args.agent)?;
    let mut tasks = select_tasks(app, &args, matches)?;
    let mut append = false;
    if args.resume {
        let done = done_ids(args.output.as_deref().unwrap_or_default());
        tasks.retain(|t| !done.contains(&t.card().id));
        append = true;
    }
    let records = run_all(
        tasks,
        factory.as_ref(),
        settings,
        args.jobs.max(1),
        args.output.as_deref(),
        append,
        args.quiet,
    )?;
    if !args.quiet {
        eprint!("{}", summary_by_level(&records));
    }
    Ok(())
}

fn agent_factory(app: &'static dyn App, spec: &str) -> CliResult<Box<AgentFactory>> {
    if spec == "baseline" {
        return Ok(Box::new(move |_id: &str| -> Box<dyn Agent> { Box::new(Timed(app.baseline())) }));
    }
    if let Some(path) = spec.strip_prefix("replay:") {
        let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {path}: {e}"))?;
        let source = ReplaySource::parse(&text, app.info().answer)?;
        return Ok(Box::new(move |id: &str| -> Box<dyn Agent> { Box::new(source.agent_for(id)) }));
    }
    Err(Fail { message: format!("unknown agent {spec:?} (use baseline or replay:FILE)"), code: 2 })
}

/// Measures the wall time of an agent that does not measure itself (the baselines).
struct Timed(Box<dyn Agent>);

impl Agent for Timed {
    fn info(&self) -> AgentInfo {
        self.0.info()
    }
    fn reply(&mut self, messages: &[Message]) -> Result<AgentReply, AgentError> {
        let start = Instant::now();
        let mut reply = self.0.reply(messages)?;
        reply.latency_ms.get_or_insert(start.elapsed().as_secs_f64() * 1000.0);
        Ok(reply)
    }
}

/// The tasks a `run` covers, in a fixed order: level, seed, index.
fn select_tasks(app: &dyn App, args: &RunArgs, matches: &ArgMatches) -> CliResult<Vec<Arc<dyn Task>>> {
    let levels: Vec<u8> = if args.levels.is_empty() {
        app.info().levels.iter().map(|l| l.level).collect()
    } else {
        args.levels.clone()
    };
    let (first, last) = match args.seed {
        Some(s) => (s, s),
        None => parse_seeds(&args.seeds)?,
    };
    let mut filters = parse_filters(&args.filters)?;
    if let Some(w) = args.wording {
        filters.push(("wording".into(), serde_json::Value::from(w)));
    }
    let keep = |t: &Arc<dyn Task>| {
        let card = t.card();
        args.label.as_ref().is_none_or(|l| &card.label == l)
            && filters.iter().all(|(k, v)| card.params.get(k) == Some(v))
    };
    let mut tasks = Vec::new();
    for level in levels {
        let template = knobs::apply(app, app.default_id(level, first, 0), matches)?;
        for seed in first..=last {
            let base = QueryId { seed, ..template.clone() };
            match args.per_label {
                Some(k) => tasks.extend(per_label(app, &base, k, &keep)?),
                None => {
                    for index in 0..args.per_seed {
                        let task = app.generate(&QueryId { index, ..base.clone() })?;
                        if keep(&task) {
                            tasks.push(task);
                        }
                    }
                }
            }
            if args.queries.is_some_and(|q| tasks.len() >= q) {
                tasks.truncate(args.queries.unwrap_or_default());
                return Ok(tasks);
            }
        }
    }
    Ok(tasks)
}

/// `k` tasks of each label of the level, scanning indexes 0, 1, … of one seed.
fn per_label(
    app: &dyn App,
    base: &QueryId,
    k: u64,
    keep: &dyn Fn(&Arc<dyn Task>) -> bool,
) -> CliResult<Vec<Arc<dyn Task>>> {
    let labels = app.labels(base.level);
    if labels.is_empty() {
        return Err(Fail::from(format!("{} does not list its labels; use --per-seed", base.app)));
    }
    let mut counts: BTreeMap<String, u64> = labels.iter().map(|l| (l.clone(), 0)).collect();
    let mut tasks = Vec::new();
    let limit = k * labels.len() as u64 * 1000;
    for index in 0..limit {
        if counts.values().all(|&c| c >= k) {
            break;
        }
        let task = app.generate(&QueryId { index, ..base.clone() })?;
        let Some(count) = counts.get_mut(&task.card().label) else { continue };
        if *count < k && keep(&task) {
            *count += 1;
            tasks.push(task);
        }
    }
    Ok(tasks)
}

pub fn parse_seeds(s: &str) -> CliResult<(u64, u64)> {
    let bad = || Fail { message: format!("bad --seeds {s:?}: use A..B (inclusive) or one seed"), code: 2 };
    let (a, b) = match s.split_once("..") {
        Some((a, b)) => (a.trim().parse().map_err(|_| bad())?, b.trim().parse().map_err(|_| bad())?),
        None => {
            let v = s.trim().parse().map_err(|_| bad())?;
            (v, v)
        }
    };
    if a > b {
        return Err(bad());
    }
    Ok((a, b))
}

fn parse_filters(raw: &[String]) -> CliResult<Vec<(String, serde_json::Value)>> {
    raw.iter()
        .map(|f| {
            let (k, v) = f
                .split_once('=')
                .ok_or_else(|| Fail { message: format!("bad --where {f:?}: use KEY=VALUE"), code: 2 })?;
            let value = serde_json::from_str(v).unwrap_or_else(|_| serde_json::Value::String(v.into()));
            Ok((k.to_string(), value))
        })
        .collect()
}

fn done_ids(path: &str) -> BTreeSet<String> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    parse_results(&text).0.into_iter().map(|r| r.id).collect()
}

/// Runs every task on `jobs` threads; records are written in task order as they complete.
fn run_all(
    tasks: Vec<Arc<dyn Task>>,
    factory: &AgentFactory,
    settings: RunSettings,
    jobs: usize,
    output: Option<&str>,
    append: bool,
    quiet: bool,
) -> CliResult<Vec<ResultRecord>> {
    let total = tasks.len();
    let bar = if quiet { ProgressBar::hidden() } else { ProgressBar::new(total as u64) };
    bar.set_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} episodes  {elapsed} elapsed, ETA {eta}")
            .expect("valid template"),
    );
    let mut writer = open_output(output, append)?;
    let queue = Mutex::new(tasks.into_iter().enumerate());
    let failed = AtomicBool::new(false);
    let (tx, rx) = mpsc::channel::<(usize, ResultRecord)>();
    let mut records = Vec::with_capacity(total);
    let write_result = std::thread::scope(|scope| {
        for _ in 0..jobs.min(total.max(1)) {
            let tx = tx.clone();
            let (queue, failed) = (&queue, &failed);
            scope.spawn(move || {
                loop {
                    let next = queue.lock().map(|mut q| q.next()).unwrap_or(None);
                    let Some((pos, task)) = next else { break };
                    if failed.load(Ordering::Relaxed) {
                        break;
                    }
                    let mut agent = factory(&task.card().id);
                    let record = run_episode(task, agent.as_mut(), settings);
                    if tx.send((pos, record)).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);
        let mut pending = BTreeMap::new();
        let mut next = 0;
        for (pos, record) in rx {
            pending.insert(pos, record);
            while let Some(record) = pending.remove(&next) {
                if let Err(e) = writeln!(writer, "{}", record.to_line()) {
                    failed.store(true, Ordering::Relaxed);
                    return Err(e);
                }
                records.push(record);
                next += 1;
                bar.inc(1);
            }
        }
        writer.flush()
    });
    bar.finish_and_clear();
    match write_result {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(records),
        Err(e) => Err(Fail::from(format!("cannot write results: {e}"))),
        Ok(()) => Ok(records),
    }
}

fn open_output(path: Option<&str>, append: bool) -> CliResult<Box<dyn Write + Send>> {
    Ok(match path {
        Some(p) => {
            let file = std::fs::OpenOptions::new()
                .create(true)
                .write(true)
                .append(append)
                .truncate(!append)
                .open(p)
                .map_err(|e| format!("cannot write {p}: {e}"))?;
            Box::new(std::io::BufWriter::new(file))
        }
        None => Box::new(std::io::BufWriter::new(std::io::stdout())),
    })
}

/// Per-level table of correctness, safety, progress and turns with Wilson intervals.
pub fn summary_by_level(records: &[ResultRecord]) -> String {
    let by = Grouping { agent: true, app: true, level: true, label: false };
    let mut rows: Vec<(String, Summary)> = breakdown(records, by)
        .into_iter()
        .map(|(k, s)| {
            let name = format!("{} L{}", k.app.unwrap_or_default(), k.level.unwrap_or_default());
            (format!("{name} {}", k.agent.unwrap_or_default()), s)
        })
        .collect();
    rows.push(("overall".into(), Summary::of(records)));
    stats_cmd::render_table(&rows)
}

pub fn score(args: ScoreArgs) -> CliResult {
    let mut rescored = Vec::new();
    let mut changed = 0;
    for path in &args.files {
        let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {path}: {e}"))?;
        let (records, errors) = parse_results(&text);
        if let Some(e) = errors.first() {
            return Err(Fail::from(format!("{path}: {e}")));
        }
        for old in records {
            let new = rescore(&old).map_err(|e| format!("{path}: {}: {e}", old.id))?;
            if (new.score.correct, new.score.safe) != (old.score.correct, old.score.safe)
                || (new.score.progress - old.score.progress).abs() > 1e-9
            {
                changed += 1;
                eprintln!(
                    "{}: recorded correct={} safe={} progress={:.3}, re-scored correct={} safe={} progress={:.3}",
                    old.id,
                    old.score.correct,
                    old.score.safe,
                    old.score.progress,
                    new.score.correct,
                    new.score.safe,
                    new.score.progress
                );
            }
            rescored.push(new);
        }
    }
    eprintln!("{} records re-scored, {changed} differ from their recorded score", rescored.len());
    if let Some(out) = &args.output {
        crate::tasks::write_out(Some(out), |w| {
            rescored.iter().try_for_each(|r| writeln!(w, "{}", r.to_line()))
        })?;
    }
    eprint!("{}", summary_by_level(&rescored));
    if changed > 0 { Err(Fail { message: String::new(), code: 1 }) } else { Ok(()) }
}

/// Replays a record's replies against a fresh episode of the same task.
fn rescore(old: &ResultRecord) -> NpResult<ResultRecord> {
    let task = registry::generate(&old.id)?;
    if task.card().content_hash != old.content_hash {
        return Err(netpress::Error::Invalid(format!(
            "content hash differs from this build's ({} vs {}): the generator changed",
            netpress::hash::short(&old.content_hash),
            netpress::hash::short(&task.card().content_hash)
        )));
    }
    let settings = RunSettings { variant: old.prompt_variant, max_turns: Some(old.max_turns) };
    let mut runner = Runner::new(task, settings);
    for turn in &old.turns {
        if runner.finished().is_some() {
            break;
        }
        runner.submit(match &turn.error {
            Some(e) => Err(AgentError::retryable(e.clone())),
            None => {
                Ok(AgentReply { text: turn.reply.clone(), latency_ms: turn.latency_ms, tokens: turn.tokens })
            }
        });
    }
    if runner.finished().is_none() {
        runner.stop("stopped: the recorded episode ends here");
    }
    Ok(runner.record(&old.agent))
}
