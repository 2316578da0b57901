//! `stats` and `plan`: the numbers of result files (per agent, application, level, task label
//! and overall, with 95% Wilson intervals, the leaderboard and pairwise comparisons), and the
//! sample-size planner. Also the reading of result files `report` and `export` share.

use clap::{Args, ValueEnum};

use super::{CliResult, Context, Fail};
use crate::provenance::{InputFile, Provenance};
use crate::record::{ResultRecord, parse_results};
use crate::report::{self, Tables, convergence_of};
use crate::stats::{Interval, Summary, checkpoints, group, queries_to_separate, sample_grid, simulate_pair};

#[derive(Args, Debug)]
pub struct StatsArgs {
    /// Result files (JSONL); `-` reads standard input.
    #[arg(required = true)]
    pub files: Vec<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub format: Format,
    /// Also show every pair of agents after each one's first N episodes, for each N given
    /// (e.g. `--at 100,150,2000`): do the intervals still overlap?
    #[arg(long, value_delimiter = ',', value_name = "N,…")]
    pub at: Vec<u64>,
    /// Write here instead of standard output.
    #[arg(short, long)]
    pub output: Option<String>,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Table,
    Json,
    Markdown,
    Csv,
}

impl From<Format> for report::Format {
    fn from(f: Format) -> Self {
        match f {
            Format::Table => report::Format::Table,
            Format::Json => report::Format::Json,
            Format::Markdown => report::Format::Markdown,
            Format::Csv => report::Format::Csv,
        }
    }
}

#[derive(Args, Debug)]
pub struct PlanArgs {
    /// Expected pass rate of the first agent (0..1).
    #[arg(long)]
    pub p1: f64,
    /// Expected pass rate of the second agent (0..1).
    #[arg(long)]
    pub p2: f64,
    /// Also simulate two agents at these rates (seeded Bernoulli outcomes) and show their
    /// intervals as queries accumulate.
    #[arg(long)]
    pub simulate: bool,
    /// Queries per simulated agent.
    #[arg(long, default_value_t = 3000, requires = "simulate")]
    pub queries: u64,
    /// Seed of the simulation.
    #[arg(long, default_value_t = 0, requires = "simulate")]
    pub seed: u64,
    /// Write the simulation's chart to this SVG file.
    #[arg(long, requires = "simulate")]
    pub svg: Option<String>,
}

pub fn stats(cx: &mut Context, args: StatsArgs) -> CliResult {
    let (records, inputs) = read_inputs(cx, &args.files)?;
    let provenance = Provenance::of_records(&records, &cx.command_line, inputs);
    let mut tables = Tables::build(&records, provenance);
    if !args.at.is_empty() {
        tables = tables.with_checkpoints(&records, &args.at);
    }
    let out = report::render(&tables, args.format.into());
    cx.console.write_out(args.output.as_deref(), |w| w.write_all(out.as_bytes()))
}

/// Reads result files (`-` is standard input); any bad line is an error naming file and line.
pub fn read_inputs(cx: &mut Context, files: &[String]) -> CliResult<(Vec<ResultRecord>, Vec<InputFile>)> {
    let mut records = Vec::new();
    let mut inputs = Vec::new();
    for path in files {
        let bytes = cx.console.read_bytes(path)?;
        let text = String::from_utf8(bytes).map_err(|_| format!("{path}: not UTF-8 text"))?;
        let (mut rs, errors) = parse_results(&text);
        if let Some(e) = errors.first() {
            return Err(Fail::from(format!("{path}: {e} ({} bad lines in all)", errors.len())));
        }
        inputs.push(InputFile::new(path, text.as_bytes(), rs.len()));
        records.append(&mut rs);
    }
    if records.is_empty() {
        return Err(Fail::from("no result records in the given files"));
    }
    Ok((records, inputs))
}

fn pct(i: Interval) -> String {
    format!("[{:.1}, {:.1}]", 100.0 * i.lo, 100.0 * i.hi)
}

fn latency(s: &Summary) -> String {
    s.mean_latency_ms.map_or("n/a".into(), |ms| format!("{ms:.1}"))
}

const HEADERS: [&str; 9] =
    ["group", "n", "correct %", "95% CI", "safe %", "95% CI", "progress", "turns", "latency ms"];

fn cells(name: &str, s: &Summary) -> [String; 9] {
    [
        name.to_string(),
        s.n.to_string(),
        format!("{:.1}", 100.0 * s.correct.rate),
        pct(s.correct.wilson),
        format!("{:.1}", 100.0 * s.safe.rate),
        pct(s.safe.wilson),
        format!("{:.3}", s.mean_progress),
        format!("{:.2}", s.mean_turns),
        latency(s),
    ]
}

/// An aligned plain-text table of named summaries (the summary `run` and `score` print).
pub fn render_table(rows: &[(String, Summary)]) -> String {
    let body: Vec<[String; 9]> = rows.iter().map(|(n, s)| cells(n, s)).collect();
    let mut widths = HEADERS.map(str::len);
    for row in &body {
        for (w, c) in widths.iter_mut().zip(row) {
            *w = (*w).max(c.chars().count());
        }
    }
    let line = |cols: &[String]| {
        let mut s = String::new();
        for (i, (c, w)) in cols.iter().zip(widths).enumerate() {
            if i == 0 {
                s.push_str(&format!("{c:<w$}"));
            } else {
                s.push_str(&format!("  {c:>w$}"));
            }
        }
        s.trim_end().to_string() + "\n"
    };
    let mut out = line(&HEADERS.map(String::from));
    for row in &body {
        out.push_str(&line(row));
    }
    out
}

pub fn plan(cx: &mut Context, args: PlanArgs) -> CliResult {
    for p in [args.p1, args.p2] {
        if !(0.0..=1.0).contains(&p) {
            return Err(Fail { message: format!("rates must be between 0 and 1, got {p}"), code: 2 });
        }
    }
    let out = cx.console.out();
    match queries_to_separate(args.p1, args.p2) {
        Some(n) => writeln!(
            out,
            "{} queries per agent separate pass rates {} and {} with non-overlapping 95% Wilson intervals \
(when the observed rates equal these)",
            group(n),
            args.p1,
            args.p2
        )?,
        None => writeln!(
            out,
            "pass rates {} and {} cannot be separated (equal, or over ten million queries per agent)",
            args.p1, args.p2
        )?,
    }
    if args.simulate { simulate(cx, &args) } else { Ok(()) }
}

/// Seeded Bernoulli agents at the two rates: a table of their intervals as queries accumulate,
/// and optionally the chart.
fn simulate(cx: &mut Context, args: &PlanArgs) -> CliResult {
    if args.queries == 0 || args.queries > 10_000_000 {
        return Err(Fail { message: "--queries must be between 1 and 10,000,000".into(), code: 2 });
    }
    let [a, b] = simulate_pair(args.p1, args.p2, args.queries as usize, args.seed);
    let (name_a, name_b) = (format!("p1 = {}", args.p1), format!("p2 = {}", args.p2));
    let out = cx.console.out();
    writeln!(out, "\nsimulated agents (seed {}), intervals after the first n queries:", args.seed)?;
    writeln!(out, "{:>9}  {:>22}  {:>22}  {:>8}  verdict", "n", name_a, name_b, "overlap")?;
    for c in checkpoints(&a, &b, &sample_grid(args.queries)) {
        writeln!(
            out,
            "{:>9}  {:>22}  {:>22}  {:>8.1}  {}",
            group(c.n),
            format!("{:.1}% {}", 100.0 * c.a.rate, pct(c.a.wilson)),
            format!("{:.1}% {}", 100.0 * c.b.rate, pct(c.b.wilson)),
            100.0 * c.overlap,
            if c.separated { "separated" } else { "overlap" }
        )?;
    }
    if let Some(path) = &args.svg {
        let chart = convergence_of(
            "simulated",
            &format!("Two simulated agents at pass rates {} and {} (seed {})", args.p1, args.p2, args.seed),
            "pass rate",
            &[(name_a, a), (name_b, b)],
        )
        .expect("at least one query");
        let provenance = serde_json::json!({
            "netpress_version": crate::VERSION,
            "command": cx.command_line,
            "simulation": {
                "p1": args.p1, "p2": args.p2, "queries": args.queries, "seed": args.seed,
                "streams": [format!("netpress|simulate|{}|1", args.seed), format!("netpress|simulate|{}|2", args.seed)],
            },
        });
        std::fs::write(path, chart.svg_file(&provenance)).map_err(|e| format!("cannot write {path}: {e}"))?;
    }
    Ok(())
}
