//! `netpress`: the command-line surface of the NetPress library.
//!
//! Every subcommand works over the application registry, so a new application appears here
//! without any change. Errors print one line on stderr and exit non-zero; a panic (a bug)
//! prints one line too, never a backtrace.

mod bench;
mod exec;
mod export;
mod knobs;
mod mock_agent;
mod report;
mod run;
mod stats_cmd;
mod tasks;

use std::process::ExitCode;

/// Counts live bytes so the MALT sandbox can enforce its memory limit; armed only while an
/// answer runs (the 256 MiB limit of docs/malt.md, "Answering and checking").
#[cfg(feature = "sandbox")]
#[global_allocator]
static ALLOC: monty_alloc::LimitedAllocator = monty_alloc::LimitedAllocator;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};

/// A failure to report: the message and the exit code.
#[derive(Debug)]
pub struct Fail {
    pub message: String,
    pub code: u8,
}

impl<E: std::fmt::Display> From<E> for Fail {
    fn from(e: E) -> Self {
        Fail { message: e.to_string(), code: 1 }
    }
}

pub type CliResult<T = ()> = Result<T, Fail>;

#[derive(Parser, Debug)]
#[command(
    name = "netpress",
    version,
    about = "NetPress: seeded, reproducible network-operations tasks for AI agents, with emulators and scorers.",
    long_about = "NetPress generates reproducible network-operations tasks (routing repair, Kubernetes \
NetworkPolicy repair, datacenter capacity planning), runs an agent's answers against fast emulators \
and scores correctness, safety and latency.\n\nEvery task has an id such as route-v1-L2-s42-i7 \
(app, generator version, level, seed, index, optional knobs) that gives the same task everywhere.\n\n\
Start with `netpress list`, then `netpress generate --app route --level 1 --count 3`, then \
`netpress run --app route --agent baseline --seeds 0..9`.",
    after_help = "App-specific commands: `netpress <app> exec --task ID` (drive one task by hand) \
and the tools `netpress <app> --help` lists."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// List the applications with their levels, knobs and tools.
    List,
    /// Generate tasks as JSONL (one per line), or pretty-print one task by id.
    Generate(tasks::GenerateArgs),
    /// Run episodes with an agent and write one result record per line.
    Run(run::RunArgs),
    /// Re-score result files by replaying each episode's replies against a fresh emulator.
    Score(run::ScoreArgs),
    /// Summarise result files: rates with 95% Wilson intervals per agent, app, level and label,
    /// the leaderboard and pairwise comparisons.
    Stats(stats_cmd::StatsArgs),
    /// How many queries separate two pass rates with non-overlapping 95% Wilson intervals.
    Plan(stats_cmd::PlanArgs),
    /// Time the fixed seeded workload per application: generate, step and score.
    Bench(bench::BenchArgs),
    /// Write one self-contained HTML report (tables, charts, per-query table) of result files.
    Report(report::ReportArgs),
    /// Export results (or generated tasks) for elsewhere: NetArena leaderboard file, SFT or RL JSONL.
    Export(export::ExportArgs),
    /// Drive one task by hand: read replies from stdin or a file, print each observation.
    Exec(exec::ExecArgs),
    /// Testing aid: a scripted OpenAI-compatible and A2A agent server on 127.0.0.1.
    MockAgent(mock_agent::MockAgentArgs),
    /// App-specific commands: `netpress <app> exec …` or `netpress <app> <tool> …`.
    #[command(external_subcommand)]
    App(Vec<String>),
}

fn main() -> ExitCode {
    std::panic::set_hook(Box::new(|info| {
        let msg = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown".into());
        let at = info.location().map(|l| format!(" at {}:{}", l.file(), l.line())).unwrap_or_default();
        eprintln!("netpress: internal error (please report): {msg}{at}");
    }));
    let command = knobs::add_knob_args(Cli::command());
    let matches = match command.try_get_matches() {
        Ok(m) => m,
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { 2 } else { 0 });
        }
    };
    let result = Cli::from_arg_matches(&matches).map_err(Fail::from).and_then(|cli| dispatch(cli, &matches));
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(fail) => {
            if !fail.message.is_empty() {
                eprintln!("netpress: {}", fail.message);
            }
            ExitCode::from(fail.code.max(1))
        }
    }
}

fn dispatch(cli: Cli, matches: &clap::ArgMatches) -> CliResult {
    let sub = matches.subcommand().map(|(_, m)| m);
    match cli.command {
        Command::List => tasks::list(),
        Command::Generate(args) => tasks::generate(args, sub.expect("generate matches")),
        Command::Run(args) => run::run(args, sub.expect("run matches")),
        Command::Score(args) => run::score(args),
        Command::Stats(args) => stats_cmd::stats(args),
        Command::Plan(args) => stats_cmd::plan(args),
        Command::Bench(args) => bench::bench(args),
        Command::Report(args) => report::report(args),
        Command::Export(args) => export::export(args, sub.expect("export matches")),
        Command::Exec(args) => exec::exec(args),
        Command::MockAgent(args) => mock_agent::mock_agent(args),
        Command::App(argv) => exec::app_command(&argv),
    }
}
