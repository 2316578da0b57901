//! `run`: episodes of an agent on a selection of tasks, written as result records.
//!
//! The flags fill a [`TaskSelection`] (which tasks, in which order) and name an agent
//! ([`super::agents`]); the library's batch runner does the rest ([`run_threads`]): episodes
//! on `--jobs` threads, records written in task order as they complete, the batch's stop
//! rule. A run can be cut short (Ctrl-C, a dead endpoint): what finished is written, the
//! exit code says so, and `--resume` runs what is missing into the same file.

use std::collections::BTreeSet;
use std::io::Write;
use std::sync::atomic::{AtomicUsize, Ordering};

use clap::{ArgMatches, Args};
use indicatif::{ProgressBar, ProgressStyle};

use super::agents::{EndpointArgs, agent_factory};
use super::{CliResult, Console, Context, Fail, knobs, stats_cmd};
use crate::app::{App, PromptVariant};
use crate::id::QueryId;
use crate::record::{ResultRecord, parse_results};
use crate::run::parse_filter;
use crate::run::{AgentFactory, Named, run_threads};
use crate::run::{Cancel, RunSettings, TaskSelection};
use crate::stats::{Grouping, Summary, breakdown};

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

pub fn run(cx: &mut Context, args: RunArgs, matches: &ArgMatches) -> CliResult {
    let app = cx.registry.app(&args.app)?;
    let settings =
        RunSettings { variant: PromptVariant::parse(&args.prompt_variant)?, max_turns: args.max_turns };
    let cancel = Cancel::new();
    let factory = agent_factory(app, &args.agent, &args.endpoint, &cancel)?;
    let mut ids = select_tasks(cx, app, &args, matches)?;
    let mut append = false;
    if args.resume {
        let done = done_ids(args.output.as_deref().unwrap_or_default());
        ids.retain(|id| !done.contains(&id.to_string()));
        append = true;
    }
    // Each task is generated when its episode starts (a long run of big tasks holds only the
    // running ones, and writes its first record before it has generated the last task).
    let tasks: Vec<Named> = ids.into_iter().map(|id| Named { app, id }).collect();
    let total = tasks.len();
    if cx.console.is_process() {
        cancel_on_ctrl_c(&cancel);
    }
    let batch = Batch { factory: factory.as_ref(), settings, jobs: args.jobs.max(1), cancel: &cancel };
    let records = run_all(&mut cx.console, tasks, &batch, args.output.as_deref(), append, args.quiet)?;
    if !args.quiet {
        write!(cx.console.err(), "{}", summary_by_level(&records))?;
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

/// The ids of the tasks a `run` covers, in a fixed order: level, seed, index (seed, level, index with
/// `--interleave`); the flags fill the library's selection, which decides.
fn select_tasks(
    cx: &Context,
    app: &dyn App,
    args: &RunArgs,
    matches: &ArgMatches,
) -> CliResult<Vec<QueryId>> {
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
        knobs: knobs::apply(cx.registry, app, app.default_id(first_level, seeds.0, 0), matches)?.knobs,
        interleave: args.interleave,
        max_tasks: args.queries,
    };
    Ok(selection.select_ids(app)?)
}

/// `--seeds A..B` or one seed, with the CLI's wording of a mistake.
pub fn parse_seeds(s: &str) -> CliResult<(u64, u64)> {
    crate::run::parse_seeds(s).map_err(|_| Fail {
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
/// The progress bar is the process's, on its terminal only.
fn run_all(
    console: &mut Console,
    tasks: Vec<Named>,
    batch: &Batch,
    output: Option<&str>,
    append: bool,
    quiet: bool,
) -> CliResult<Vec<ResultRecord>> {
    let shown = !quiet && console.is_process();
    let bar = if shown { ProgressBar::new(tasks.len() as u64) } else { ProgressBar::hidden() };
    bar.set_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} episodes  {elapsed} elapsed, ETA {eta}")
            .expect("valid template"),
    );
    let mut writer = open_output(console, output, append)?;
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

fn open_output<'a>(
    console: &'a mut Console,
    path: Option<&str>,
    append: bool,
) -> CliResult<Box<dyn Write + 'a>> {
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
        None => Box::new(std::io::BufWriter::new(console.out())),
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
