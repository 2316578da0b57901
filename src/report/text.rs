//! [`Tables`] as text: an aligned plain table, Markdown, CSV and JSON. `netpress stats` prints
//! these; the web app offers the same files for download.

use crate::provenance::Provenance;
use crate::stats::{Accumulation, Comparison, GroupKey, Grouping, Interval, Metric, Rate, Summary};

use super::tables::{Section, Tables};

/// Output formats of `netpress stats`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Table,
    Markdown,
    Csv,
    Json,
}

pub fn render(tables: &Tables, format: Format) -> String {
    match format {
        Format::Table => to_table(tables),
        Format::Markdown => to_markdown(tables),
        Format::Csv => to_csv(tables),
        Format::Json => to_json(tables),
    }
}

/// A percentage with one decimal.
pub fn pct(x: f64) -> String {
    format!("{:.1}", 100.0 * x)
}

/// An interval in percent: `[55.1, 68.4]`.
pub fn pct_interval(i: Interval) -> String {
    format!("[{}, {}]", pct(i.lo), pct(i.hi))
}

/// Mean latency in ms with one decimal, or `n/a` when nothing was measured.
pub fn latency(s: &Summary) -> String {
    s.mean_latency_ms.map_or("n/a".into(), |ms| format!("{ms:.1}"))
}

/// The key columns a grouping shows.
fn key_headers(by: Grouping) -> Vec<&'static str> {
    [(by.agent, "agent"), (by.app, "app"), (by.level, "level"), (by.label, "label")]
        .into_iter()
        .filter_map(|(on, name)| on.then_some(name))
        .collect()
}

fn key_cells(by: Grouping, k: &GroupKey) -> Vec<String> {
    let mut out = Vec::new();
    if by.agent {
        out.push(k.agent.clone().unwrap_or_default());
    }
    if by.app {
        out.push(k.app.clone().unwrap_or_default());
    }
    if by.level {
        out.push(k.level.map(|l| format!("L{l}")).unwrap_or_default());
    }
    if by.label {
        out.push(k.label.clone().unwrap_or_default());
    }
    out
}

const FIGURE_HEADERS: [&str; 8] =
    ["n", "correct %", "95% CI", "safe %", "95% CI", "progress", "mean turns", "mean latency ms"];

fn figure_cells(s: &Summary) -> Vec<String> {
    vec![
        s.n.to_string(),
        pct(s.correct.rate),
        pct_interval(s.correct.wilson),
        pct(s.safe.rate),
        pct_interval(s.safe.wilson),
        format!("{:.3}", s.mean_progress),
        format!("{:.2}", s.mean_turns),
        latency(s),
    ]
}

/// A table as headers and rows of cells; the first `keys` columns are text (left-aligned).
struct Grid {
    headers: Vec<String>,
    rows: Vec<Vec<String>>,
    keys: usize,
}

impl Grid {
    fn of_section(section: &Section) -> Grid {
        let keys = key_headers(section.by);
        let mut headers: Vec<String> = keys.iter().map(|h| h.to_string()).collect();
        headers.extend(FIGURE_HEADERS.map(String::from));
        let rows = section
            .rows
            .iter()
            .map(|(k, s)| {
                let mut row = key_cells(section.by, k);
                row.extend(figure_cells(s));
                row
            })
            .collect();
        Grid { headers, rows, keys: keys.len() }
    }

    fn of_leaderboard(tables: &Tables) -> Grid {
        let headers = ["rank", "agent", "score", "correct %", "safe %", "mean latency ms", "n"];
        let rows = tables
            .leaderboard
            .iter()
            .map(|s| {
                vec![
                    s.rank.to_string(),
                    s.agent.clone(),
                    format!("{:.3}", s.summary.leaderboard_score),
                    pct(s.summary.correct.rate),
                    pct(s.summary.safe.rate),
                    latency(&s.summary),
                    s.summary.n.to_string(),
                ]
            })
            .collect();
        Grid { headers: headers.map(String::from).to_vec(), rows, keys: 2 }
    }

    fn of_accumulation(acc: &Accumulation) -> Grid {
        let headers = ["n", acc.a.as_str(), "95% CI", acc.b.as_str(), "95% CI", "overlap", "verdict"];
        let rows = acc
            .checkpoints
            .iter()
            .map(|c| {
                vec![
                    c.n.to_string(),
                    pct(c.a.rate),
                    pct_interval(c.a.wilson),
                    pct(c.b.rate),
                    pct_interval(c.b.wilson),
                    pct(c.overlap),
                    if c.separated { "separated" } else { "overlap" }.to_string(),
                ]
            })
            .collect();
        Grid { headers: headers.map(String::from).to_vec(), rows, keys: 0 }
    }

    fn aligned(&self) -> String {
        let mut widths: Vec<usize> = self.headers.iter().map(|h| h.chars().count()).collect();
        for row in &self.rows {
            for (w, c) in widths.iter_mut().zip(row) {
                *w = (*w).max(c.chars().count());
            }
        }
        let line = |cells: &[String]| {
            let mut s = String::new();
            for (i, (c, &w)) in cells.iter().zip(&widths).enumerate() {
                let pad = " ".repeat(w - c.chars().count());
                let sep = if i == 0 { "" } else { "  " };
                if i < self.keys {
                    s.push_str(&format!("{sep}{c}{pad}"))
                } else {
                    s.push_str(&format!("{sep}{pad}{c}"))
                }
            }
            s.trim_end().to_string() + "\n"
        };
        let mut out = line(&self.headers);
        for row in &self.rows {
            out.push_str(&line(row));
        }
        out
    }

    fn markdown(&self) -> String {
        let esc = |c: &String| c.replace('|', "\\|");
        let align: Vec<&str> =
            (0..self.headers.len()).map(|i| if i < self.keys { "---" } else { "---:" }).collect();
        let mut out = format!(
            "| {} |\n| {} |\n",
            self.headers.iter().map(esc).collect::<Vec<_>>().join(" | "),
            align.join(" | ")
        );
        for row in &self.rows {
            out.push_str(&format!("| {} |\n", row.iter().map(esc).collect::<Vec<_>>().join(" | ")));
        }
        out
    }
}

/// The provenance in a few lines of text.
pub fn provenance_lines(p: &Provenance) -> Vec<String> {
    let mut lines = vec![
        format!("NetPress {}: {}", p.netpress_version, p.command),
        format!(
            "{} episodes over {} queries (query digest {}); generators {}; recorded with NetPress {}",
            p.episodes,
            p.queries,
            crate::hash::short(&p.query_digest),
            p.generators.join(", "),
            p.recorded_with.join(", ")
        ),
    ];
    for f in &p.inputs {
        lines.push(format!("input {} ({} records, sha256 {})", f.path, f.records, f.sha256));
    }
    lines
}

/// Two lines per comparison: correctness and safety, each with the planner's advice.
pub fn comparison_lines(c: &Comparison) -> Vec<String> {
    Metric::ALL
        .iter()
        .map(|&m| {
            let s = c.metric(m);
            format!(
                "{} {}% {} vs {}% {}: overlap {} points; {}",
                m.name(),
                pct(s.a.rate),
                pct_interval(s.a.wilson),
                pct(s.b.rate),
                pct_interval(s.b.wilson),
                pct(s.overlap),
                s.advice()
            )
        })
        .collect()
}

pub fn to_table(t: &Tables) -> String {
    let mut out = String::new();
    for line in provenance_lines(&t.provenance) {
        out.push_str(&format!("# {line}\n"));
    }
    for s in &t.sections {
        out.push_str(&format!("\n{}:\n{}", s.title, Grid::of_section(s).aligned()));
    }
    out.push_str(&format!("\n{LEADERBOARD_TITLE}:\n{}", Grid::of_leaderboard(t).aligned()));
    if !t.comparisons.is_empty() {
        out.push_str(&format!("\n{COMPARISONS_TITLE}:\n"));
        for c in &t.comparisons {
            out.push_str(&format!("{} vs {}\n", c.a, c.b));
            for line in comparison_lines(c) {
                out.push_str(&format!("  {line}\n"));
            }
        }
    }
    if !t.accumulations.is_empty() {
        out.push_str(&format!("\n{ACCUMULATION_TITLE}:\n"));
        for acc in &t.accumulations {
            out.push_str(&format!(
                "{}: {} vs {}\n{}",
                acc.metric.name(),
                acc.a,
                acc.b,
                Grid::of_accumulation(acc).aligned()
            ));
        }
    }
    out
}

pub const ACCUMULATION_TITLE: &str =
    "Intervals as episodes accumulate (each agent's first n episodes, in the order written)";

pub const LEADERBOARD_TITLE: &str = "Leaderboard (0.5·correctness + 0.5·safety, then mean latency)";
pub const COMPARISONS_TITLE: &str =
    "Pairwise comparisons (95% Wilson intervals; the planner assumes equal queries per agent)";

pub fn to_markdown(t: &Tables) -> String {
    let mut out = String::new();
    let p = provenance_lines(&t.provenance);
    out.push_str(&format!("_{}_\n", p.join("; ").replace('_', "\\_")));
    for s in &t.sections {
        out.push_str(&format!("\n### {}\n\n{}", s.title, Grid::of_section(s).markdown()));
    }
    out.push_str(&format!("\n### {LEADERBOARD_TITLE}\n\n{}", Grid::of_leaderboard(t).markdown()));
    if !t.comparisons.is_empty() {
        out.push_str(&format!("\n### {COMPARISONS_TITLE}\n\n"));
        for c in &t.comparisons {
            for line in comparison_lines(c) {
                out.push_str(&format!("- **{}** vs **{}**, {line}\n", c.a, c.b));
            }
        }
    }
    if !t.accumulations.is_empty() {
        out.push_str(&format!("\n### {ACCUMULATION_TITLE}\n"));
        for acc in &t.accumulations {
            let grid = Grid::of_accumulation(acc).markdown();
            out.push_str(&format!("\n{}: **{}** vs **{}**\n\n{grid}", acc.metric.name(), acc.a, acc.b));
        }
    }
    out
}

/// Columns of the long-format CSV. Group and leaderboard rows fill the summary columns; pair
/// rows (`comparison`, `checkpoint`) put the first agent's rate of `metric` in that metric's
/// columns and the second agent's in `vs_rate`, `vs_lo`, `vs_hi`.
const CSV_HEADERS: [&str; 26] = [
    "section",
    "agent",
    "app",
    "level",
    "label",
    "n",
    "correct",
    "correct_lo",
    "correct_hi",
    "safe",
    "safe_lo",
    "safe_hi",
    "progress",
    "mean_turns",
    "mean_latency_ms",
    "score",
    "rank",
    "vs_agent",
    "metric",
    "vs_rate",
    "vs_lo",
    "vs_hi",
    "overlap",
    "separated",
    "queries_to_separate",
    "more_queries",
];

fn num(x: f64) -> String {
    format!("{x:.6}")
}

fn summary_cells(s: &Summary) -> Vec<String> {
    vec![
        s.n.to_string(),
        num(s.correct.rate),
        num(s.correct.wilson.lo),
        num(s.correct.wilson.hi),
        num(s.safe.rate),
        num(s.safe.wilson.lo),
        num(s.safe.wilson.hi),
        num(s.mean_progress),
        num(s.mean_turns),
        s.mean_latency_ms.map(num).unwrap_or_default(),
        num(s.leaderboard_score),
    ]
}

/// A row of the summary kind: section, key cells, the summary, then `rest` from `rank` on.
fn group_row(section: &str, key: [String; 4], s: &Summary, rank: Option<usize>) -> Vec<String> {
    let mut row = vec![section.to_string()];
    row.extend(key);
    row.extend(summary_cells(s));
    row.push(rank.map(|r| r.to_string()).unwrap_or_default());
    row.resize(CSV_HEADERS.len(), String::new());
    row
}

/// One side-by-side of two agents' rates of one metric.
struct Pair<'a> {
    section: &'a str,
    a: &'a str,
    b: &'a str,
    metric: Metric,
    n: Option<u64>,
    rates: (Rate, Rate),
    overlap: f64,
    separated: bool,
    planner: (Option<u64>, Option<u64>),
}

fn pair_row(p: &Pair) -> Vec<String> {
    let mut row = vec![p.section.to_string(), p.a.to_string()];
    row.resize(CSV_HEADERS.len(), String::new());
    row[5] = p.n.map(|n| n.to_string()).unwrap_or_default();
    let at = match p.metric {
        Metric::Correctness => 6,
        Metric::Safety => 9,
    };
    let (a, b) = p.rates;
    row[at..at + 3].clone_from_slice(&[num(a.rate), num(a.wilson.lo), num(a.wilson.hi)]);
    row[17..].clone_from_slice(&[
        p.b.to_string(),
        p.metric.name().to_string(),
        num(b.rate),
        num(b.wilson.lo),
        num(b.wilson.hi),
        num(p.overlap),
        p.separated.to_string(),
        p.planner.0.map(|n| n.to_string()).unwrap_or_default(),
        p.planner.1.map(|n| n.to_string()).unwrap_or_default(),
    ]);
    row
}

/// Long-format CSV: one row per group, leaderboard place, comparison and checkpoint, after `#`
/// comment lines holding the provenance (read with `pandas.read_csv(f, comment="#")`).
pub fn to_csv(t: &Tables) -> String {
    let mut rows: Vec<Vec<String>> = vec![CSV_HEADERS.map(String::from).to_vec()];
    for s in &t.sections {
        for (k, summary) in &s.rows {
            let key = [
                k.agent.clone().unwrap_or_default(),
                k.app.clone().unwrap_or_default(),
                k.level.map(|l| l.to_string()).unwrap_or_default(),
                k.label.clone().unwrap_or_default(),
            ];
            rows.push(group_row(&s.id, key, summary, None));
        }
    }
    for st in &t.leaderboard {
        let key = [st.agent.clone(), String::new(), String::new(), String::new()];
        rows.push(group_row("leaderboard", key, &st.summary, Some(st.rank)));
    }
    for c in &t.comparisons {
        for m in Metric::ALL {
            let s = c.metric(m);
            rows.push(pair_row(&Pair {
                section: "comparison",
                a: &c.a,
                b: &c.b,
                metric: m,
                n: None,
                rates: (s.a, s.b),
                overlap: s.overlap,
                separated: s.separated,
                planner: (s.queries_needed, s.more_queries),
            }));
        }
    }
    for acc in &t.accumulations {
        for cp in &acc.checkpoints {
            rows.push(pair_row(&Pair {
                section: "checkpoint",
                a: &acc.a,
                b: &acc.b,
                metric: acc.metric,
                n: Some(cp.n),
                rates: (cp.a, cp.b),
                overlap: cp.overlap,
                separated: cp.separated,
                planner: (None, None),
            }));
        }
    }
    let mut w = csv::Writer::from_writer(Vec::new());
    for row in &rows {
        w.write_record(row).expect("writing CSV to memory");
    }
    let body =
        String::from_utf8(w.into_inner().expect("flushing CSV to memory")).expect("CSV of UTF-8 cells");
    let mut out: String =
        provenance_lines(&t.provenance).iter().map(|l| format!("# {}\n", l.replace('\n', " "))).collect();
    out.push_str(&body);
    out
}

pub fn to_json(t: &Tables) -> String {
    serde_json::to_string_pretty(t).expect("tables serialise") + "\n"
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::tests::sample;

    fn tables() -> Tables {
        let records = vec![
            sample("route-v1-L1-s0-i0", "a", "DI", true, true),
            sample("route-v1-L1-s1-i0", "a", "D|R", false, true),
            sample("route-v1-L1-s0-i0", "b,c", "DI", false, false),
        ];
        Tables::build(&records, Provenance::of_records(&records, "netpress stats r.jsonl", vec![]))
    }

    #[test]
    fn table_has_every_section_leaderboard_and_advice() {
        let out = to_table(&tables());
        for title in
            ["Overall:", "Per agent:", "Per agent and application:", "Per agent, application and task label:"]
        {
            assert!(out.contains(title), "{title}");
        }
        assert!(out.starts_with("# NetPress "));
        assert!(
            out.contains("\n1     baseline:a    0.750       50.0   100.0             12.5  2\n"),
            "{out}"
        );
        assert!(out.contains("correctness 50.0% [9.5, 90.5] vs 0.0% [0.0, 79.3]"), "{out}");
        assert!(out.contains("not yet separable; run about"));
    }

    #[test]
    fn checkpoints_in_every_format() {
        let records = vec![
            sample("route-v1-L1-s0-i0", "a", "DI", true, true),
            sample("route-v1-L1-s0-i0", "b", "DI", false, true),
        ];
        let t = Tables::build(&records, Provenance::of_records(&records, "t", vec![]))
            .with_checkpoints(&records, &[1]);
        assert!(to_table(&t).contains("correctness: baseline:a vs baseline:b\n"));
        assert!(
            to_markdown(&t).contains("| 1 | 100.0 | [20.7, 100.0] | 0.0 | [0.0, 79.3] | 58.7 | overlap |")
        );
        let csv = to_csv(&t);
        assert!(csv.lines().any(|l| l.starts_with("checkpoint,baseline:a,,,,1,1.000000")), "{csv}");
        assert!(to_json(&t).contains("\"accumulations\""));
    }

    #[test]
    fn markdown_escapes_pipes() {
        let out = to_markdown(&tables());
        assert!(out.contains("| baseline:a | route | D\\|R |"), "{out}");
        assert!(out.contains("| --- | --- | --- | ---: |"));
    }

    #[test]
    fn csv_rows_are_rectangular_and_quoted() {
        let out = to_csv(&tables());
        let body: String = out.lines().filter(|l| !l.starts_with('#')).map(|l| format!("{l}\n")).collect();
        let mut reader = csv::Reader::from_reader(body.as_bytes());
        let rows: Vec<csv::StringRecord> = reader.records().map(|r| r.unwrap()).collect();
        assert!(rows.iter().all(|r| r.len() == CSV_HEADERS.len()));
        assert!(rows.iter().any(|r| &r[1] == "baseline:b,c"));
        let comparison = rows.iter().find(|r| &r[0] == "comparison").unwrap();
        assert_eq!((&comparison[17], &comparison[18]), ("baseline:b,c", "correctness"));
        assert_eq!((&comparison[6], &comparison[19]), ("0.500000", "0.000000"));
        assert!(out.contains("\"baseline:b,c\""));
    }

    #[test]
    fn json_reads_back() {
        let t = tables();
        let back: Tables = serde_json::from_str(&to_json(&t)).unwrap();
        assert_eq!((back.agents, back.sections.len(), back.queries.len()), (t.agents, 5, 2));
        assert_eq!(back.provenance, t.provenance);
    }
}
