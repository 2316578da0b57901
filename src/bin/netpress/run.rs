//! `run` and `score`: episodes with an agent, written as result records.

use std::collections::BTreeSet;
use std::io::Write;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use clap::{ArgMatches, Args};
use indicatif::{ProgressBar, ProgressStyle};
use netpress::agent::a2a::A2aConfig;
use netpress::agent::client::EndpointConfig;
use netpress::agent::native::{EndpointAgent, Transport, connect};
use netpress::agent::openai::OpenAiConfig;
use netpress::agent::replay::ReplaySource;
use netpress::agent::retry::RetryPolicy;
use netpress::agent::{Agent, AgentError, AgentInfo, AgentReply, Message};
use netpress::app::{App, PromptVariant, Task};
use netpress::record::{ResultRecord, parse_results};
use netpress::registry;
use netpress::run::batch::{AgentFactory, run_threads};
use netpress::run::select::parse_filter;
use netpress::run::{Cancel, RunSettings, TaskSelection};
use netpress::stats::{Grouping, Summary, breakdown};
use netpress::{QueryId, Result as NpResult};

use crate::{CliResult, Fail, knobs, stats_cmd};

#[derive(Args, Debug)]
pub struct RunArgs {
    /// Application: see `netpress list`.
    #[arg(long)]
    pub app: String,
    /// Agent: `baseline`, `replay:FILE` (a results file, a JSON array of replies, or text),
    /// `openai` (an OpenAI-compatible chat endpoint: --base-url, --model, --api-key) or `a2a`
    /// (an A2A 0.3 agent: --url).
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
    /// Order tasks seed by seed, every level of a seed together, instead of level by level, so
    /// that any prefix of the run (`--queries N`, `stats --at N`) mixes the levels.
    #[arg(long)]
    pub interleave: bool,
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
    #[command(flatten)]
    pub endpoint: Box<EndpointArgs>,
}

/// Settings of `--agent openai` and `--agent a2a`.
#[derive(Args, Debug)]
#[command(next_help_heading = "Endpoint agents (--agent openai | a2a)")]
pub struct EndpointArgs {
    /// OpenAI-compatible API base, e.g. http://127.0.0.1:11434/v1 (default: $OPENAI_BASE_URL or
    /// https://api.openai.com/v1).
    #[arg(long, value_name = "URL")]
    pub base_url: Option<String>,
    /// Model name sent with each request.
    #[arg(long)]
    pub model: Option<String>,
    /// Bearer key (default: $OPENAI_API_KEY for openai). Prefer the variable: arguments are
    /// visible to other users of the machine. Never written to results or logs.
    #[arg(long, value_name = "KEY")]
    pub api_key: Option<Secret>,
    /// Sampling temperature (default: the server's).
    #[arg(long)]
    pub temperature: Option<f64>,
    /// Largest reply in tokens (default: the server's).
    #[arg(long)]
    pub max_tokens: Option<u32>,
    /// A2A agent base URL (its card is read from /.well-known/agent-card.json).
    #[arg(long, value_name = "URL")]
    pub url: Option<String>,
    /// Seconds to wait for one reply (default 120 for openai, 300 for a2a).
    #[arg(long, value_name = "SECS")]
    pub timeout: Option<f64>,
    /// Retries of a call after HTTP 408/425/429/5xx or a network error, with exponential
    /// backoff from 1 s (or the server's Retry-After) up to 30 s.
    #[arg(long, default_value_t = 3)]
    pub retries: u32,
}

/// A key given on the command line; `Debug` never shows it.
#[derive(Clone)]
pub struct Secret(String);

impl std::str::FromStr for Secret {
    type Err = std::convert::Infallible;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Ok(Secret(s.to_string()))
    }
}

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Secret([redacted])")
    }
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

pub fn run(args: RunArgs, matches: &ArgMatches) -> CliResult {
    let app = registry::app(&args.app)?;
    let settings =
        RunSettings { variant: PromptVariant::parse(&args.prompt_variant)?, max_turns: args.max_turns };
    let cancel = Cancel::new();
    let factory = agent_factory(app, &args.agent, &args.endpoint, &cancel)?;
    let mut tasks = select_tasks(app, &args, matches)?;
    let mut append = false;
    if args.resume {
        let done = done_ids(args.output.as_deref().unwrap_or_default());
        tasks.retain(|t| !done.contains(&t.card().id));
        append = true;
    }
    let total = tasks.len();
    cancel_on_ctrl_c(&cancel);
    let batch = Batch { factory: factory.as_ref(), settings, jobs: args.jobs.max(1), cancel: &cancel };
    let records = run_all(tasks, &batch, args.output.as_deref(), append, args.quiet)?;
    if !args.quiet {
        eprint!("{}", summary_by_level(&records));
    }
    match cancel.reason() {
        None => Ok(()),
        Some(reason) => {
            let resume = match &args.output {
                Some(out) => format!("; run the same command with --resume to finish (appends to {out})"),
                None => "; use -o FILE --resume to finish an interrupted run".to_string(),
            };
            let message =
                format!("run stopped: {reason}; {} of {total} episodes written{resume}", records.len());
            Err(Fail { message, code: if reason.contains("Ctrl-C") { 130 } else { 1 } })
        }
    }
}

/// First Ctrl-C: cancel the run (calls in flight are abandoned, finished records are
/// written); second: quit at once.
fn cancel_on_ctrl_c(cancel: &Cancel) {
    static PRESSES: AtomicUsize = AtomicUsize::new(0);
    let cancel = cancel.clone();
    let _ = ctrlc::set_handler(move || {
        if PRESSES.fetch_add(1, Ordering::SeqCst) > 0 {
            std::process::exit(130);
        }
        cancel.cancel("cancelled by the user (Ctrl-C)");
        eprintln!("\nnetpress: cancelling (Ctrl-C again to quit at once)");
    });
}

fn agent_factory(
    app: &'static dyn App,
    spec: &str,
    endpoint: &EndpointArgs,
    cancel: &Cancel,
) -> CliResult<Box<AgentFactory<'static>>> {
    if spec == "baseline" {
        return Ok(Box::new(move |_id: &str| -> Box<dyn Agent> { Box::new(Timed(app.baseline())) }));
    }
    if let Some(path) = spec.strip_prefix("replay:") {
        let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {path}: {e}"))?;
        let source = ReplaySource::parse(&text, app.info().answer)?;
        return Ok(Box::new(move |id: &str| -> Box<dyn Agent> { Box::new(source.agent_for(id)) }));
    }
    if spec == "openai" || spec == "a2a" {
        let config = endpoint_config(spec, endpoint)?;
        let transport = Transport::new(cancel.clone());
        let client =
            Arc::new(connect(&config, &transport).map_err(|e| format!("cannot use the {spec} agent: {e}"))?);
        return Ok(Box::new(move |_id: &str| -> Box<dyn Agent> {
            Box::new(EndpointAgent::new(client.clone(), transport.clone()))
        }));
    }
    Err(Fail {
        message: format!("unknown agent {spec:?} (use baseline, replay:FILE, openai or a2a)"),
        code: 2,
    })
}

/// The endpoint settings of `--agent openai` / `--agent a2a` from flags and variables.
fn endpoint_config(spec: &str, args: &EndpointArgs) -> CliResult<EndpointConfig> {
    let usage = |m: &str| Fail { message: m.to_string(), code: 2 };
    let timeout_ms = match args.timeout {
        Some(s) if s.is_finite() && s > 0.0 => Some((s * 1000.0).round() as u64),
        Some(_) => return Err(usage("--timeout must be a positive number of seconds")),
        None => None,
    };
    let retry = RetryPolicy { retries: args.retries, ..RetryPolicy::default() };
    let key = args.api_key.as_ref().map(|k| k.0.clone());
    if spec == "a2a" {
        let url =
            args.url.as_deref().ok_or_else(|| usage("--agent a2a needs --url URL (the agent's base URL)"))?;
        let mut config = A2aConfig::new(url);
        config.bearer = key;
        config.retry = retry;
        config.timeout_ms = timeout_ms.unwrap_or(config.timeout_ms);
        return Ok(EndpointConfig::A2a(config));
    }
    let model = args.model.as_deref().ok_or_else(|| usage("--agent openai needs --model NAME"))?;
    let base = args
        .base_url
        .clone()
        .or_else(|| std::env::var("OPENAI_BASE_URL").ok().filter(|v| !v.trim().is_empty()))
        .unwrap_or_else(|| "https://api.openai.com/v1".to_string());
    if !(base.starts_with("http://") || base.starts_with("https://")) {
        return Err(usage("--base-url must start with http:// or https://"));
    }
    if args.temperature.is_some_and(|t| !t.is_finite() || t < 0.0) {
        return Err(usage("--temperature must be a number >= 0"));
    }
    let mut config = OpenAiConfig::new(&base, model);
    config.api_key = key.or_else(|| std::env::var("OPENAI_API_KEY").ok().filter(|k| !k.trim().is_empty()));
    config.temperature = args.temperature;
    config.max_tokens = args.max_tokens;
    config.retry = retry;
    config.timeout_ms = timeout_ms.unwrap_or(config.timeout_ms);
    Ok(EndpointConfig::Openai(config))
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

/// The tasks a `run` covers, in a fixed order: level, seed, index (seed, level, index with
/// `--interleave`); the flags fill the library's selection, which decides.
fn select_tasks(app: &dyn App, args: &RunArgs, matches: &ArgMatches) -> CliResult<Vec<Arc<dyn Task>>> {
    let seeds = match args.seed {
        Some(s) => (s, s),
        None => parse_seeds(&args.seeds)?,
    };
    let mut filters = args
        .filters
        .iter()
        .map(|f| {
            parse_filter(f)
                .map_err(|_| Fail { message: format!("bad --where {f:?}: use KEY=VALUE"), code: 2 })
        })
        .collect::<CliResult<Vec<_>>>()?;
    if let Some(w) = args.wording {
        filters.push(("wording".into(), serde_json::Value::from(w)));
    }
    let first_level = args.levels.first().copied().unwrap_or(app.info().levels[0].level);
    let selection = TaskSelection {
        levels: args.levels.clone(),
        seeds,
        per_seed: args.per_seed,
        per_label: args.per_label,
        label: args.label.clone(),
        filters,
        knobs: knobs::apply(app, app.default_id(first_level, seeds.0, 0), matches)?.knobs,
        interleave: args.interleave,
        max_tasks: args.queries,
    };
    Ok(selection.tasks(app)?)
}

/// `--seeds A..B` or one seed, with the CLI's wording of a mistake.
pub fn parse_seeds(s: &str) -> CliResult<(u64, u64)> {
    netpress::run::select::parse_seeds(s).map_err(|_| Fail {
        message: format!("bad --seeds {s:?}: use A..B (inclusive) or one seed"),
        code: 2,
    })
}

fn done_ids(path: &str) -> BTreeSet<String> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    parse_results(&text).0.into_iter().map(|r| r.id).collect()
}

/// How to run a batch of episodes.
struct Batch<'a> {
    factory: &'a AgentFactory<'a>,
    settings: RunSettings,
    jobs: usize,
    cancel: &'a Cancel,
}

/// Runs every task on `jobs` threads; records are written in task order as they complete.
/// A cancel (Ctrl-C, a run-wide agent error, the batch rule) stops starting episodes.
fn run_all(
    tasks: Vec<Arc<dyn Task>>,
    batch: &Batch,
    output: Option<&str>,
    append: bool,
    quiet: bool,
) -> CliResult<Vec<ResultRecord>> {
    let bar = if quiet { ProgressBar::hidden() } else { ProgressBar::new(tasks.len() as u64) };
    bar.set_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} episodes  {elapsed} elapsed, ETA {eta}")
            .expect("valid template"),
    );
    let mut writer = open_output(output, append)?;
    let mut records = Vec::with_capacity(tasks.len());
    let result = run_threads(tasks, batch.factory, batch.settings, batch.jobs, batch.cancel, |record| {
        bar.inc(1);
        if let Some(record) = record {
            writeln!(writer, "{}", record.to_line())?;
            records.push(record);
        }
        Ok(())
    })
    .and_then(|()| writer.flush());
    bar.finish_and_clear();
    match result {
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
            if netpress::run::rescore::differs(&old, &new) {
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

/// Re-scores a record with the application its id names.
fn rescore(old: &ResultRecord) -> NpResult<ResultRecord> {
    let id: QueryId = old.id.parse()?;
    netpress::run::rescore(registry::app(&id.app)?, old)
}
