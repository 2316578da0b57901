//! `stats` and `plan`: tables of rates with 95% Wilson intervals, and the sample-size planner.

use clap::{Args, ValueEnum};
use netpress::record::{ResultRecord, parse_results};
use netpress::stats::{Grouping, Interval, Summary, breakdown, leaderboard, queries_to_separate};

use crate::{CliResult, Fail};

#[derive(Args, Debug)]
pub struct StatsArgs {
    /// Result files (JSONL).
    #[arg(required = true)]
    pub files: Vec<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub format: Format,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Table,
    Json,
    Markdown,
    Csv,
}

#[derive(Args, Debug)]
pub struct PlanArgs {
    /// Expected pass rate of the first agent (0..1).
    #[arg(long)]
    pub p1: f64,
    /// Expected pass rate of the second agent (0..1).
    #[arg(long)]
    pub p2: f64,
}

pub fn stats(args: StatsArgs) -> CliResult {
    let records = read_all(&args.files)?;
    if records.is_empty() {
        return Err(Fail::from("no result records in the given files"));
    }
    let rows = rows(&records);
    let out = match args.format {
        Format::Table => render_table(&rows) + &render_extras(&records),
        Format::Markdown => render_markdown(&rows),
        Format::Csv => render_csv(&rows),
        Format::Json => render_json(&rows, &records),
    };
    print!("{out}");
    Ok(())
}

pub fn read_all(files: &[String]) -> CliResult<Vec<ResultRecord>> {
    let mut records = Vec::new();
    for path in files {
        let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {path}: {e}"))?;
        let (mut rs, errors) = parse_results(&text);
        if let Some(e) = errors.first() {
            return Err(Fail::from(format!("{path}: {e} ({} bad lines in all)", errors.len())));
        }
        records.append(&mut rs);
    }
    Ok(records)
}

/// Rows: per agent × app × level × label, then per agent × app × level, per agent × app,
/// per agent, and overall.
fn rows(records: &[ResultRecord]) -> Vec<(String, Summary)> {
    let mut out = Vec::new();
    let groupings = [
        Grouping { agent: true, app: true, level: true, label: true },
        Grouping { agent: true, app: true, level: true, label: false },
        Grouping { agent: true, app: true, level: false, label: false },
        Grouping { agent: true, app: false, level: false, label: false },
    ];
    for by in groupings {
        for (k, s) in breakdown(records, by) {
            let mut name = k.agent.unwrap_or_default();
            if let Some(app) = k.app {
                name.push_str(&format!(" {app}"));
            }
            if let Some(level) = k.level {
                name.push_str(&format!(" L{level}"));
            }
            match k.label {
                Some(label) => name.push_str(&format!(" {label}")),
                None if by.app => name.push_str(" (all)"),
                None => name.push_str(" (overall)"),
            }
            out.push((name, s));
        }
    }
    out.push(("overall".into(), Summary::of(records)));
    out
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

/// An aligned plain-text table.
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

fn render_markdown(rows: &[(String, Summary)]) -> String {
    let mut out = format!("| {} |\n|{}\n", HEADERS.join(" | "), "---|".repeat(HEADERS.len()));
    for (n, s) in rows {
        out.push_str(&format!("| {} |\n", cells(n, s).join(" | ")));
    }
    out
}

fn render_csv(rows: &[(String, Summary)]) -> String {
    let mut out = String::from(
        "group,n,correct,correct_lo,correct_hi,safe,safe_lo,safe_hi,progress,turns,latency_ms\n",
    );
    for (n, s) in rows {
        let name = if n.contains([',', '"']) { format!("\"{}\"", n.replace('"', "\"\"")) } else { n.clone() };
        out.push_str(&format!(
            "{name},{},{:.6},{:.6},{:.6},{:.6},{:.6},{:.6},{:.6},{:.6},{}\n",
            s.n,
            s.correct.rate,
            s.correct.wilson.lo,
            s.correct.wilson.hi,
            s.safe.rate,
            s.safe.wilson.lo,
            s.safe.wilson.hi,
            s.mean_progress,
            s.mean_turns,
            s.mean_latency_ms.map_or(String::new(), |m| format!("{m:.3}"))
        ));
    }
    out
}

fn render_json(rows: &[(String, Summary)], records: &[ResultRecord]) -> String {
    let groups: Vec<serde_json::Value> =
        rows.iter().map(|(n, s)| serde_json::json!({"group": n, "summary": s})).collect();
    let board: Vec<serde_json::Value> = leaderboard(records)
        .into_iter()
        .map(|(a, s)| serde_json::json!({"agent": a, "score": s.leaderboard_score, "summary": s}))
        .collect();
    let doc = serde_json::json!({
        "netpress_version": netpress::VERSION,
        "records": records.len(),
        "groups": groups,
        "leaderboard": board,
        "overlap": overlaps(records),
    });
    serde_json::to_string_pretty(&doc).expect("serialisable") + "\n"
}

/// Pairwise correctness-interval overlap between agents.
fn overlaps(records: &[ResultRecord]) -> Vec<serde_json::Value> {
    let board = leaderboard(records);
    let mut out = Vec::new();
    for (i, (a, sa)) in board.iter().enumerate() {
        for (b, sb) in &board[i + 1..] {
            let (ia, ib) = (sa.correct.wilson, sb.correct.wilson);
            out.push(serde_json::json!({
                "a": a, "b": b, "overlap": ia.overlap(ib), "separated": ia.separated_from(ib),
                "queries_to_separate": queries_to_separate(sa.correct.rate, sb.correct.rate),
            }));
        }
    }
    out
}

/// Leaderboard and pairwise overlaps as text.
fn render_extras(records: &[ResultRecord]) -> String {
    let board = leaderboard(records);
    if board.len() < 2 {
        return String::new();
    }
    let mut out = String::from("\nleaderboard (0.5·correct + 0.5·safe, then latency):\n");
    for (i, (a, s)) in board.iter().enumerate() {
        out.push_str(&format!("  {}. {a}  {:.3}  latency {}\n", i + 1, s.leaderboard_score, latency(s)));
    }
    out.push_str("\ncorrectness intervals, pairwise:\n");
    for o in overlaps(records) {
        let verdict = if o["separated"].as_bool() == Some(true) {
            "separated".to_string()
        } else {
            match o["queries_to_separate"].as_u64() {
                Some(n) => format!(
                    "overlap {:.3}: not yet separable; about {n} queries per agent would separate these rates",
                    o["overlap"].as_f64().unwrap_or(0.0)
                ),
                None => {
                    format!("overlap {:.3}: equal rates, not separable", o["overlap"].as_f64().unwrap_or(0.0))
                }
            }
        };
        out.push_str(&format!(
            "  {} vs {}: {verdict}\n",
            o["a"].as_str().unwrap_or(""),
            o["b"].as_str().unwrap_or("")
        ));
    }
    out
}

pub fn plan(args: PlanArgs) -> CliResult {
    for p in [args.p1, args.p2] {
        if !(0.0..=1.0).contains(&p) {
            return Err(Fail { message: format!("rates must be between 0 and 1, got {p}"), code: 2 });
        }
    }
    match queries_to_separate(args.p1, args.p2) {
        Some(n) => println!(
            "{n} queries per agent separate pass rates {} and {} with non-overlapping 95% Wilson intervals",
            args.p1, args.p2
        ),
        None => println!(
            "pass rates {} and {} cannot be separated (equal, or over ten million queries)",
            args.p1, args.p2
        ),
    }
    Ok(())
}
