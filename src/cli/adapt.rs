//! `adapt`: the adaptive search of an application's task space (docs/adapt.md), its report
//! (`adapt report`: weakness map and table) and its curriculum (`adapt export`).
//!
//! The search itself is the library's ([`crate::adapt`]); this file reads flags, writes the
//! state atomically after every evaluation (temp file and rename), appends every episode to
//! `-o` as a result record, and prints one line per round on stderr.

use std::io::Write;

use clap::{ArgMatches, Args, Subcommand};

use super::agents::{EndpointArgs, agent_factory};
use super::{CliResult, Context, Fail, knobs};
use crate::adapt::{
    ExportFormat, Mode, Observer, Pin, Reference, RlLines, ScoreKind, Search, Select, Settings, State,
    export, weakness_map, weakness_table,
};
use crate::app::{App, PromptVariant};
use crate::record::ResultRecord;
use crate::report;
use crate::run::{Cancel, RunSettings};

#[derive(Args, Debug)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct AdaptArgs {
    #[command(subcommand)]
    pub sub: Option<AdaptSub>,
    #[command(flatten)]
    pub run: Box<AdaptRunArgs>,
}

#[derive(Subcommand, Debug)]
pub enum AdaptSub {
    /// The weakness map and table of a state file.
    Report(AdaptReportArgs),
    /// The curriculum of a state file: task ids, RL-style task lines or the mixture file.
    Export(AdaptExportArgs),
}

#[derive(Args, Debug)]
pub struct AdaptRunArgs {
    /// Application: see `netpress list`.
    #[arg(long)]
    pub app: Option<String>,
    /// Agent, as for `run`: baseline, replay:FILE, openai or a2a.
    #[arg(long, default_value = "baseline")]
    pub agent: String,
    /// Hold the agent to this many turns (the reference keeps the task's limit). Stored in the
    /// state: a resume without it holds the agent as the state did.
    #[arg(long)]
    pub max_turns: Option<u32>,
    /// Also search a dimension's `xl` value (MALT's extra-large shape, about half a second to
    /// build per task). Stored in the state.
    #[arg(long)]
    pub allow_xl: bool,
    /// Levels searched, comma-separated (default: all).
    #[arg(long, value_delimiter = ',')]
    pub levels: Vec<String>,
    /// Rounds in all, or `+N`: N more than the resumed state has (mode train's one round per
    /// call, `--rounds +1`; a new search runs N).
    #[arg(long, default_value = "5")]
    pub rounds: String,
    /// Points evaluated per round.
    #[arg(long, default_value_t = 15)]
    pub budget: u32,
    /// Random points per round (default ⌈2·budget/3⌉); the rest are guided.
    #[arg(long)]
    pub random: Option<u32>,
    /// Paired seeds per evaluation.
    #[arg(long, default_value_t = 10)]
    pub k: u32,
    /// correct, leaderboard or progress.
    #[arg(long, default_value = "correct")]
    pub score: String,
    /// baseline or oracle (default: the application's).
    #[arg(long)]
    pub reference: Option<String>,
    #[arg(long, default_value_t = 2.576)]
    pub kappa: f64,
    /// best (observed gap) or mean (posterior mean).
    #[arg(long, default_value = "best")]
    pub select: String,
    #[arg(long, default_value_t = 0.0)]
    pub min_gap: f64,
    /// evaluate (a fixed agent) or train (the agent changes between rounds).
    #[arg(long, default_value = "evaluate")]
    pub mode: String,
    /// The run seed.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    #[arg(long, default_value_t = 1)]
    pub jobs: usize,
    /// Confirmation seeds per confirmed cell.
    #[arg(long, default_value_t = 50)]
    pub confirm: u32,
    /// Evaluated cells of highest posterior mean confirmed besides the promoted ones.
    #[arg(long, default_value_t = 3)]
    pub confirm_top: u32,
    /// Confirm after every round that promotes a cell, not only after the last.
    #[arg(long)]
    pub confirm_each: bool,
    /// Oracle reference: weak when the agent's upper bound is below 1 − tolerance.
    #[arg(long, default_value_t = 0.1)]
    pub tolerance: f64,
    /// The state file (JSON), rewritten after every evaluation.
    #[arg(long)]
    pub state: Option<String>,
    /// Continue the search of --state.
    #[arg(long)]
    pub resume: bool,
    /// Append every episode's result record here (JSONL).
    #[arg(short, long)]
    pub output: Option<String>,
    /// Write the HTML report here at the end.
    #[arg(long)]
    pub report: Option<String>,
    #[command(flatten)]
    pub endpoint: Box<EndpointArgs>,
}

#[derive(Args, Debug)]
pub struct AdaptReportArgs {
    /// The state file.
    pub state: String,
    /// The two dimensions of the map, `DIM,DIM` (default: the two with most values).
    #[arg(long)]
    pub map: Option<String>,
    /// Restrict the map to cells with DIM=VALUE.
    #[arg(long = "where", value_name = "DIM=VALUE")]
    pub filters: Vec<String>,
    /// Write a self-contained HTML page here (map, table, provenance).
    #[arg(short, long)]
    pub output: Option<String>,
    /// Write the map as an SVG file here.
    #[arg(long)]
    pub svg: Option<String>,
    /// Table format on standard output: markdown (or table), csv or json.
    #[arg(long, default_value = "markdown")]
    pub format: String,
}

#[derive(Args, Debug)]
pub struct AdaptExportArgs {
    /// The state file.
    pub state: String,
    /// Tasks in the stream.
    #[arg(long, default_value_t = 1000)]
    pub count: usize,
    /// ids (one per line), rl (`netpress export --rl` lines of the generated tasks, each with
    /// its curriculum entry) or mixture (the mixture file).
    #[arg(long, default_value = "ids")]
    pub format: String,
    /// [rl] Prompt variant: zeroshot_base, zeroshot_cot, fewshot_base, fewshot_cot.
    #[arg(long = "prompt", default_value = "zeroshot_base")]
    pub prompt_variant: String,
    #[arg(short, long)]
    pub output: Option<String>,
}

pub fn adapt(cx: &mut Context, args: AdaptArgs, matches: &ArgMatches) -> CliResult {
    match args.sub {
        Some(AdaptSub::Report(a)) => report_cmd(cx, a),
        Some(AdaptSub::Export(a)) => export_cmd(cx, a),
        None => run(cx, *args.run, matches),
    }
}

fn usage(message: impl Into<String>) -> Fail {
    Fail { message: message.into(), code: 2 }
}

fn settings(app: &dyn App, a: &AdaptRunArgs, matches: &ArgMatches, cx: &Context) -> CliResult<Settings> {
    let reference = match &a.reference {
        Some(r) => Reference::parse(r)?,
        None => app.space().reference,
    };
    let mut s = Settings::new(reference);
    s.rounds = rounds(&a.rounds)?.1;
    s.budget = a.budget;
    s.random = a.random.unwrap_or(Settings::random_of(a.budget)).min(a.budget);
    s.k = a.k;
    s.score = ScoreKind::parse(&a.score)?;
    s.kappa = a.kappa;
    s.select = match a.select.as_str() {
        "best" => Select::Best,
        "mean" => Select::Mean,
        x => return Err(usage(format!("unknown --select {x:?} (best, mean)"))),
    };
    s.min_gap = a.min_gap;
    s.mode = match a.mode.as_str() {
        "evaluate" => Mode::Evaluate,
        "train" => Mode::Train,
        x => return Err(usage(format!("unknown --mode {x:?} (evaluate, train)"))),
    };
    s.seed = a.seed;
    s.confirm = a.confirm;
    s.confirm_top = a.confirm_top;
    s.tolerance = a.tolerance;
    s.confirm_each = a.confirm_each;
    s.max_turns = a.max_turns;
    s.allow_xl = a.allow_xl;
    if !a.levels.is_empty() {
        s.pins.push(Pin { dim: "level".into(), values: a.levels.clone() });
    }
    for (name, value) in knobs::given(cx.registry, matches) {
        s.pins.push(Pin { dim: name, values: value.split(',').map(str::to_string).collect() });
    }
    s.check()?;
    Ok(s)
}

/// `--rounds`: whether it counts from the resumed state's rounds (`+N`), and N.
fn rounds(arg: &str) -> CliResult<(bool, u32)> {
    let (relative, n) = match arg.strip_prefix('+') {
        Some(n) => (true, n),
        None => (false, arg),
    };
    let n = n.parse().map_err(|_| usage(format!("--rounds takes a number or +N, not {arg:?}")))?;
    Ok((relative, n))
}

/// Writes the state, records and round lines of a search run from the command line.
struct Files<'a> {
    state: String,
    records: Option<std::io::BufWriter<std::fs::File>>,
    err: &'a mut dyn Write,
}

impl Observer for Files<'_> {
    fn record(&mut self, record: &ResultRecord, _reference: bool) -> std::io::Result<()> {
        match &mut self.records {
            Some(w) => writeln!(w, "{}", record.to_line()),
            None => Ok(()),
        }
    }
    fn save(&mut self, state: &State) -> std::io::Result<()> {
        if let Some(w) = &mut self.records {
            w.flush()?;
        }
        let tmp = format!("{}.tmp", self.state);
        std::fs::write(&tmp, state.to_json())?;
        std::fs::rename(&tmp, &self.state)
    }
    fn round(&mut self, line: &str) {
        let _ = writeln!(self.err, "{line}");
    }
}

fn run(cx: &mut Context, a: AdaptRunArgs, matches: &ArgMatches) -> CliResult {
    let name =
        a.app.as_deref().ok_or_else(|| usage("adapt needs --app (or a subcommand: report, export)"))?;
    let state_path = a.state.clone().ok_or_else(|| usage("adapt needs --state FILE"))?;
    let app = cx.registry.app(name)?;
    let settings = settings(app, &a, matches, cx)?;
    let cancel = Cancel::new();
    let factory = agent_factory(app, &a.agent, &a.endpoint, &cancel)?;
    let agent_info = factory(&app.default_id(1, 0, 0).to_string()).info();
    let mut search = if a.resume {
        let state = State::parse(
            &std::fs::read_to_string(&state_path).map_err(|e| format!("cannot read {state_path}: {e}"))?,
        )?;
        let mut settings = settings;
        if let (true, more) = rounds(&a.rounds)? {
            settings.rounds = state.settings.rounds.saturating_add(more);
        }
        let mut s = Search::resume(app, state, &settings)?;
        s.note_agent(agent_info);
        s
    } else {
        Search::new(app, settings, agent_info)?
    };
    let records = match &a.output {
        Some(p) => {
            let f = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(p)
                .map_err(|e| format!("cannot write {p}: {e}"))?;
            Some(std::io::BufWriter::new(f))
        }
        None => None,
    };
    if cx.console.is_process() {
        let c = cancel.clone();
        let _ = ctrlc::set_handler(move || c.cancel("cancelled by the user (Ctrl-C)"));
    }
    let run_settings = RunSettings { max_turns: search.state().settings.max_turns, ..Default::default() };
    let mut files = Files { state: state_path.clone(), records, err: cx.console.err() };
    let done = crate::adapt::drive(&mut search, factory.as_ref(), run_settings, a.jobs, &cancel, &mut files)
        .map_err(|e| format!("adapt: {e}"))?;
    drop(files);
    if !done {
        return Err(Fail {
            message: format!(
                "adapt stopped: {}; the same command with --resume continues",
                cancel.reason().unwrap_or_default()
            ),
            code: 130,
        });
    }
    let rows = weakness_table(&search);
    write!(cx.console.out(), "{}", report::weakness_markdown(&rows))?;
    if let Some(path) = &a.report {
        let map = weakness_map(&search, None, &[])?;
        let page = report::weakness_html("NetPress weakness map", &map, &rows, &provenance(cx, &search));
        std::fs::write(path, page).map_err(|e| format!("cannot write {path}: {e}"))?;
    }
    Ok(())
}

fn provenance(cx: &Context, search: &Search<'_>) -> serde_json::Value {
    let s = search.state();
    serde_json::json!({
        "netpress_version": crate::VERSION,
        "command": cx.command_line,
        "app": s.app,
        "space": s.space,
        "agent": s.agent,
        "settings": s.settings,
        "state_hash": s.hash(),
    })
}

fn load<'r>(cx: &mut Context<'r>, path: &str) -> CliResult<(&'static dyn App, State)> {
    let bytes = cx.console.read_bytes(path)?;
    let state = State::parse(&String::from_utf8_lossy(&bytes))?;
    let app = cx.registry.app(&state.app)?;
    Ok((app, state))
}

fn report_cmd(cx: &mut Context, a: AdaptReportArgs) -> CliResult {
    let (app, state) = load(cx, &a.state)?;
    let search = Search::from_state(app, state)?;
    let dims = match &a.map {
        Some(m) => Some(m.split_once(',').ok_or_else(|| usage("--map takes DIM,DIM"))?),
        None => None,
    };
    let filters = a
        .filters
        .iter()
        .map(|f| {
            f.split_once('=')
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .ok_or_else(|| usage("--where takes DIM=VALUE"))
        })
        .collect::<CliResult<Vec<_>>>()?;
    let map = weakness_map(&search, dims, &filters)?;
    let rows = weakness_table(&search);
    if let Some(path) = &a.svg {
        std::fs::write(path, report::weakness_svg(&map)).map_err(|e| format!("cannot write {path}: {e}"))?;
    }
    if let Some(path) = &a.output {
        let page = report::weakness_html("NetPress weakness map", &map, &rows, &provenance(cx, &search));
        std::fs::write(path, page).map_err(|e| format!("cannot write {path}: {e}"))?;
        return Ok(());
    }
    let text = match a.format.as_str() {
        "markdown" | "table" => report::weakness_markdown(&rows),
        "json" => serde_json::to_string_pretty(&serde_json::json!({"rows": rows, "map": map}))? + "\n",
        "csv" => table_csv(&rows)?,
        x => return Err(usage(format!("unknown --format {x:?} (markdown, csv, json)"))),
    };
    write!(cx.console.out(), "{text}")?;
    Ok(())
}

/// The table as CSV, one column per figure (intervals as two columns), for spreadsheets.
fn table_csv(rows: &[crate::adapt::WeakRow]) -> CliResult<String> {
    let mut w = csv::Writer::from_writer(Vec::new());
    let err = |e: csv::Error| format!("csv: {e}");
    w.write_record([
        "rank",
        "cell",
        "round",
        "weight",
        "search_gap",
        "k",
        "agent",
        "agent_lo",
        "agent_hi",
        "reference",
        "reference_lo",
        "reference_hi",
        "confirmation_gap",
        "shrinkage",
        "verdict",
    ])
    .map_err(err)?;
    for r in rows {
        let verdict = match r.verdict {
            crate::adapt::Verdict::Weak => "weak",
            crate::adapt::Verdict::Better => "better",
            crate::adapt::Verdict::NotConfirmed => "not confirmed",
        };
        let f = |x: f64| format!("{x:.4}");
        w.write_record([
            r.rank.to_string(),
            r.cell.clone(),
            r.round.map_or(String::new(), |x| x.to_string()),
            f(r.weight),
            f(r.search_gap),
            r.k.to_string(),
            f(r.agent.rate),
            f(r.agent.lo),
            f(r.agent.hi),
            f(r.reference.rate),
            f(r.reference.lo),
            f(r.reference.hi),
            f(r.gap),
            f(r.shrinkage),
            verdict.to_string(),
        ])
        .map_err(err)?;
    }
    let bytes = w.into_inner().map_err(|e| format!("csv: {e}"))?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

fn export_cmd(cx: &mut Context, a: AdaptExportArgs) -> CliResult {
    let format = ExportFormat::parse(&a.format).map_err(|e| usage(e.to_string()))?;
    let (app, state) = load(cx, &a.state)?;
    let search = Search::from_state(app, state)?;
    let variant = PromptVariant::parse(&a.prompt_variant)?;
    let text = export(&search, format, a.count, RlLines { variant, command: &cx.command_line })?;
    cx.console.write_out(a.output.as_deref(), |w| w.write_all(text.as_bytes()))
}
