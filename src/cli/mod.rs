//! The command-line tool `netpress`, as a library module the binary calls.
//!
//! The tool is the library's main surface: `list` and `generate` show the applications and
//! their tasks, `run` puts an agent on a selection of tasks and writes result records,
//! `score`, `stats`, `plan`, `report` and `export` turn result files into numbers, pages and
//! data sets, `exec` drives one task by hand, and `netpress <app> <tool>` reaches the tools an
//! application adds. Every one of them works over a [`Registry`] it is given and never over
//! the free functions of [`crate::registry`], and prints only through a [`Console`]. That is
//! why the tool lives here and not in the binary: a test can build the standard registry plus
//! one toy application, run `netpress generate`, `run`, `stats` and `score` on it in-process
//! and read what each printed, which is how we know a new application needs nothing in this
//! module. The binary (`src/bin/netpress/main.rs`) is left with what only a process has: its
//! panic hook, its allocator, and the call [`main`] with [`Registry::standard`] and
//! [`Console::process`].
//!
//! The flags are clap's (derive), one file per subcommand or pair of close subcommands; knob
//! flags are added at run time from the registry. Errors are a `Fail`: one line
//! `netpress: …` on stderr and an exit code (1, or 2 for a usage mistake, 130 after Ctrl-C).
//! The command line is native only: it blocks on threads and files (feature `cli`).
//! docs/cli.md says more.

mod adapt;
mod agents;
mod bench;
mod console;
mod env_cmd;
mod exec;
mod export;
mod knobs;
mod mock_agent;
mod partition_cmd;
mod report;
mod run;
mod score;
#[cfg(feature = "server")]
mod serve;
mod stats_cmd;
mod tasks;

use std::ffi::OsString;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};

use crate::registry::Registry;

pub use console::Console;
pub(crate) use env_cmd::random_id;

/// A failure to report: the message (none when it was already printed) and the exit code.
#[derive(Debug)]
pub(crate) struct Fail {
    pub(crate) message: String,
    pub(crate) code: u8,
}

impl<E: std::fmt::Display> From<E> for Fail {
    fn from(e: E) -> Self {
        Fail { message: e.to_string(), code: 1 }
    }
}

/// What a subcommand returns.
pub(crate) type CliResult<T = ()> = Result<T, Fail>;

/// One run of the command line: the applications it works over, its streams, and its own
/// words as one shell-quoted line (recorded as provenance in the files it writes).
pub(crate) struct Context<'a> {
    pub(crate) registry: &'a Registry,
    pub(crate) console: Console<'a>,
    pub(crate) command_line: String,
}

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
    Score(score::ScoreArgs),
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
    /// The episode protocol for trainers as JSON lines on stdin/stdout (docs/env.md).
    Env(env_cmd::EnvArgs),
    /// The episode protocol over HTTP and WebSocket, OpenEnv-compatible (docs/env.md).
    #[cfg(feature = "server")]
    Serve(serve::ServeArgs),
    /// Search an application's task space for where an agent trails the baseline (or an
    /// oracle), confirm it on fresh seeds, and keep the curriculum (docs/adapt.md).
    Adapt(adapt::AdaptArgs),
    /// The server's sandbox process: the sandbox worker's JSON lines on stdin/stdout, one run
    /// at a time (`netpress serve` starts these for MALT steps; docs/env.md).
    #[command(hide = true)]
    SandboxWorker,
    /// Testing aid: partition-agreement scores of JSON-line label vectors (scripts/microseg_sklearn_diff.py).
    #[command(hide = true)]
    PartitionScores,
    /// App-specific commands: `netpress <app> exec …` or `netpress <app> <tool> …`.
    #[command(external_subcommand)]
    App(Vec<String>),
}

/// Runs the command line `args` (the program name first, as `std::env::args_os` gives it)
/// over `registry`, printing through `console`; returns the process exit code.
pub fn main<I, T>(registry: &Registry, args: I, console: Console<'_>) -> u8
where
    I: IntoIterator<Item = T>,
    T: Into<OsString>,
{
    let args: Vec<OsString> = args.into_iter().map(Into::into).collect();
    let mut cx = Context { registry, console, command_line: command_line(&args) };
    let command = knobs::add_knob_args(Cli::command(), registry);
    let matches = match command.try_get_matches_from(&args) {
        Ok(m) => m,
        Err(e) => return cx.console.clap_message(&e),
    };
    let result =
        Cli::from_arg_matches(&matches).map_err(Fail::from).and_then(|cli| dispatch(&mut cx, cli, &matches));
    match result {
        Ok(()) => 0,
        Err(fail) => {
            if !fail.message.is_empty() {
                let _ = writeln!(cx.console.err(), "netpress: {}", fail.message);
            }
            fail.code.max(1)
        }
    }
}

/// The words of a command line as one shell-quoted string, the program called `netpress`.
fn command_line(args: &[OsString]) -> String {
    let mut words: Vec<String> = args.iter().map(|a| a.to_string_lossy().into_owned()).collect();
    if let Some(first) = words.first_mut() {
        *first = "netpress".into();
    }
    shlex::try_join(words.iter().map(String::as_str)).unwrap_or_else(|_| words.join(" "))
}

fn dispatch(cx: &mut Context, cli: Cli, matches: &clap::ArgMatches) -> CliResult {
    let sub = matches.subcommand().map(|(_, m)| m);
    match cli.command {
        Command::List => tasks::list(cx),
        Command::Generate(args) => tasks::generate(cx, args, sub.expect("generate matches")),
        Command::Run(args) => run::run(cx, args, sub.expect("run matches")),
        Command::Score(args) => score::score(cx, args),
        Command::Stats(args) => stats_cmd::stats(cx, args),
        Command::Plan(args) => stats_cmd::plan(cx, args),
        Command::Bench(args) => bench::bench(cx, args),
        Command::Report(args) => report::report(cx, args),
        Command::Export(args) => export::export(cx, args, sub.expect("export matches")),
        Command::Exec(args) => exec::exec(cx, args),
        Command::MockAgent(args) => mock_agent::mock_agent(cx, args),
        Command::Env(args) => env_cmd::env(cx, args),
        #[cfg(feature = "server")]
        Command::Serve(args) => serve::serve(cx, args),
        Command::Adapt(args) => adapt::adapt(cx, args, sub.expect("adapt matches")),
        Command::SandboxWorker => {
            crate::sandbox::serve(cx.registry.apps());
            Ok(())
        }
        Command::PartitionScores => partition_cmd::partition_scores(cx),
        Command::App(argv) => exec::app_command(cx, &argv),
    }
}
