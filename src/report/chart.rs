//! Charts as plain data, built from [`Tables`] and records: bars with interval whiskers per task
//! label, a radar per agent over labels, safety against correctness with intervals, and
//! intervals as queries accumulate. [`super::svg`] draws them; the web app's Compare view draws
//! the same models, so the report and the app show the same figures.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use super::tables::Tables;
use crate::record::ResultRecord;
use crate::stats::{Metric, Rate, Summary, leaderboard, outcomes_by_agent, running_rates, sample_grid};

/// A rate with its 95% interval and sample size.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Estimate {
    pub value: f64,
    pub lo: f64,
    pub hi: f64,
    pub n: u64,
}

impl From<Rate> for Estimate {
    fn from(r: Rate) -> Self {
        Estimate { value: r.rate, lo: r.wilson.lo, hi: r.wilson.hi, n: r.n }
    }
}

/// One named series of values over a chart's categories (`None`: no data there).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Series {
    pub name: String,
    /// Palette index: an agent keeps its colour (its leaderboard place) in every chart.
    pub color: usize,
    pub values: Vec<Option<Estimate>>,
}

/// One point of a scatter chart.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Point {
    pub name: String,
    pub color: usize,
    pub x: Estimate,
    pub y: Estimate,
}

/// What a chart shows.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ChartKind {
    /// Grouped bars, one group per category and one bar per series, with interval whiskers.
    Bars { y_label: String, categories: Vec<String>, series: Vec<Series> },
    /// One spoke per axis; each series is a polygon with interval whiskers along the spokes.
    Radar { axes: Vec<String>, series: Vec<Series> },
    /// Points with horizontal and vertical interval whiskers on the unit square.
    Scatter { x_label: String, y_label: String, points: Vec<Point> },
    /// Interval bands over growing sample sizes (log scale): `series.values[i]` is the rate
    /// after `sizes[i]` episodes. With two series, `separated_from` is the first size from
    /// which their intervals stay disjoint.
    Convergence { y_label: String, sizes: Vec<u64>, series: Vec<Series>, separated_from: Option<u64> },
}

/// A chart with a stable id (used for anchors and file names) and a title.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Chart {
    pub id: String,
    pub title: String,
    pub kind: ChartKind,
}

/// Lowercase letters, digits and dashes only: safe in file names and HTML ids.
pub fn slug(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if !out.ends_with('-') {
            out.push('-');
        }
    }
    out.trim_matches('-').to_string()
}

/// Every chart of a report, in the order shown: correctness and safety bars per application,
/// safety against correctness, a radar per agent, and (with records) intervals as queries
/// accumulate.
pub fn all(tables: &Tables, records: &[ResultRecord]) -> Vec<Chart> {
    let mut charts = Vec::new();
    for metric in Metric::ALL {
        charts.extend(bars(tables, metric));
    }
    charts.push(scatter(tables));
    charts.extend(radars(tables));
    if tables.agents.len() > 1 {
        charts.extend(Metric::ALL.iter().filter_map(|&m| convergence(records, m)));
    }
    charts
}

/// The applications of the per-label section, in order.
fn apps(tables: &Tables) -> Vec<String> {
    let rows = label_rows(tables);
    rows.iter().map(|(app, _, _, _)| app.clone()).collect::<BTreeSet<_>>().into_iter().collect()
}

/// `(app, label, agent, summary)` of every per-label row.
fn label_rows(tables: &Tables) -> Vec<(String, String, String, &Summary)> {
    tables
        .section("label")
        .map(|s| {
            s.rows
                .iter()
                .map(|(k, s)| {
                    let field = |f: &Option<String>| f.clone().unwrap_or_default();
                    (field(&k.app), field(&k.label), field(&k.agent), s)
                })
                .collect()
        })
        .unwrap_or_default()
}

/// One bar chart per application: a group per task label, a bar per agent.
pub fn bars(tables: &Tables, metric: Metric) -> Vec<Chart> {
    let rows = label_rows(tables);
    apps(tables)
        .into_iter()
        .map(|app| {
            let categories: Vec<String> = rows
                .iter()
                .filter(|r| r.0 == app)
                .map(|r| r.1.clone())
                .collect::<BTreeSet<_>>()
                .into_iter()
                .collect();
            let series = tables
                .agents
                .iter()
                .enumerate()
                .map(|(color, agent)| Series {
                    name: agent.clone(),
                    color,
                    values: categories
                        .iter()
                        .map(|label| {
                            rows.iter()
                                .find(|r| r.0 == app && &r.1 == label && &r.2 == agent)
                                .map(|r| metric.rate(r.3).into())
                        })
                        .collect(),
                })
                .filter(|s| s.values.iter().any(Option::is_some))
                .collect();
            Chart {
                id: slug(&format!("{}-{app}", metric.name())),
                title: format!("{} per task label: {app}", capitalized(metric.name())),
                kind: ChartKind::Bars { y_label: format!("{} %", metric.name()), categories, series },
            }
        })
        .collect()
}

fn capitalized(s: &str) -> String {
    let mut c = s.chars();
    c.next().map(|f| f.to_uppercase().chain(c).collect()).unwrap_or_default()
}

/// One radar per agent over every task label of the applications it ran (as seen in all the
/// results, so agents on the same applications share axes; prefixed with the application when
/// it ran several), with correctness and safety as the two polygons.
pub fn radars(tables: &Tables) -> Vec<Chart> {
    let rows = label_rows(tables);
    tables
        .agents
        .iter()
        .map(|agent| {
            let its_apps: BTreeSet<&String> = rows.iter().filter(|r| &r.2 == agent).map(|r| &r.0).collect();
            let axes: Vec<(String, String)> = rows
                .iter()
                .filter(|r| its_apps.contains(&r.0))
                .map(|r| (r.0.clone(), r.1.clone()))
                .collect::<BTreeSet<_>>()
                .into_iter()
                .collect();
            let axis_names: Vec<String> = axes
                .iter()
                .map(
                    |(app, label)| {
                        if its_apps.len() > 1 { format!("{app} · {label}") } else { label.clone() }
                    },
                )
                .collect();
            let series = Metric::ALL
                .iter()
                .enumerate()
                .map(|(color, &metric)| Series {
                    name: metric.name().to_string(),
                    color,
                    values: axes
                        .iter()
                        .map(|(app, label)| {
                            rows.iter()
                                .find(|r| &r.0 == app && &r.1 == label && &r.2 == agent)
                                .map(|r| metric.rate(r.3).into())
                        })
                        .collect(),
                })
                .collect();
            Chart {
                id: slug(&format!("radar-{agent}")),
                title: format!("{agent} over task labels"),
                kind: ChartKind::Radar { axes: axis_names, series },
            }
        })
        .collect()
}

/// Safety against correctness, one point per agent.
pub fn scatter(tables: &Tables) -> Chart {
    let points = tables
        .leaderboard
        .iter()
        .enumerate()
        .map(|(color, s)| Point {
            name: s.agent.clone(),
            color,
            x: s.summary.correct.into(),
            y: s.summary.safe.into(),
        })
        .collect();
    Chart {
        id: "safety-vs-correctness".into(),
        title: "Safety against correctness (95% Wilson intervals)".into(),
        kind: ChartKind::Scatter { x_label: "correctness %".into(), y_label: "safety %".into(), points },
    }
}

/// Each agent's interval after its first n episodes (in the order the results were written),
/// for n on [`sample_grid`]; agents in leaderboard order. `None` without records.
pub fn convergence(records: &[ResultRecord], metric: Metric) -> Option<Chart> {
    let mut outcomes = outcomes_by_agent(records, metric);
    let board: Vec<String> = leaderboard(records).into_iter().map(|(a, _)| a).collect();
    outcomes.sort_by_key(|(name, _)| board.iter().position(|a| a == name));
    convergence_of(
        &format!("convergence-{}", metric.name()),
        &format!("{} as queries accumulate (95% Wilson intervals)", capitalized(metric.name())),
        metric.name(),
        &outcomes,
    )
}

/// The convergence chart of named outcome sequences (real or simulated).
pub fn convergence_of(
    id: &str,
    title: &str,
    metric: &str,
    outcomes: &[(String, Vec<bool>)],
) -> Option<Chart> {
    let longest = outcomes.iter().map(|(_, o)| o.len()).max().filter(|&n| n > 0)?;
    let sizes = sample_grid(longest as u64);
    let series = outcomes
        .iter()
        .enumerate()
        .map(|(color, (name, o))| {
            let rates = running_rates(o, &sizes);
            let values = (0..sizes.len()).map(|i| rates.get(i).map(|&r| r.into())).collect();
            Series { name: name.clone(), color, values }
        })
        .collect::<Vec<Series>>();
    let separated_from = match series.as_slice() {
        [a, b] => first_lasting_separation(&sizes, a, b),
        _ => None,
    };
    Some(Chart {
        id: slug(id),
        title: title.to_string(),
        kind: ChartKind::Convergence { y_label: format!("{metric} %"), sizes, series, separated_from },
    })
}

/// The first size from which two series' intervals are disjoint at every later size both reach.
fn first_lasting_separation(sizes: &[u64], a: &Series, b: &Series) -> Option<u64> {
    let mut from = None;
    for (i, &n) in sizes.iter().enumerate() {
        let (Some(x), Some(y)) = (a.values[i], b.values[i]) else { break };
        if x.hi < y.lo || y.hi < x.lo {
            from = from.or(Some(n));
        } else {
            from = None;
        }
    }
    from
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::provenance::Provenance;
    use crate::record::tests::sample;

    fn records() -> Vec<ResultRecord> {
        vec![
            sample("route-v1-L1-s0-i0", "a", "DI", true, true),
            sample("route-v1-L1-s1-i0", "a", "DR", false, true),
            sample("route-v1-L1-s0-i0", "b", "DI", false, false),
            sample("k8s-v1-L1-s0-i0", "b", "RI", true, true),
        ]
    }

    fn tables(records: &[ResultRecord]) -> Tables {
        Tables::build(records, Provenance::of_records(records, "t", vec![]))
    }

    #[test]
    fn bars_have_a_group_per_label_and_a_bar_per_agent() {
        let rs = records();
        let charts = bars(&tables(&rs), Metric::Correctness);
        assert_eq!(
            charts.iter().map(|c| c.id.as_str()).collect::<Vec<_>>(),
            ["correctness-k8s", "correctness-route"]
        );
        let ChartKind::Bars { categories, series, .. } = &charts[1].kind else { panic!() };
        assert_eq!(categories, &["DI", "DR"]);
        assert_eq!(series.len(), 2);
        let a = series.iter().find(|s| s.name == "baseline:a").unwrap();
        assert_eq!(a.values[0].unwrap().value, 1.0);
        let b = series.iter().find(|s| s.name == "baseline:b").unwrap();
        assert_eq!(b.values[1], None, "b never ran DR");
        let ChartKind::Bars { series, .. } = &charts[0].kind else { panic!() };
        assert_eq!(series.len(), 1, "only b ran k8s");
        assert_eq!(series[0].color, 1, "b keeps its colour");
    }

    #[test]
    fn radars_share_axes_across_agents() {
        let rs = records();
        let charts = radars(&tables(&rs));
        assert_eq!(charts.len(), 2);
        let ChartKind::Radar { axes, .. } = &charts[0].kind else { panic!() };
        assert_eq!(charts[0].id, "radar-baseline-a");
        assert_eq!(axes, &["DI", "DR"], "a ran route only");
        let ChartKind::Radar { axes, series } = &charts[1].kind else { panic!() };
        assert_eq!(axes, &["k8s · RI", "route · DI", "route · DR"]);
        assert_eq!(series.iter().map(|s| s.name.as_str()).collect::<Vec<_>>(), ["correctness", "safety"]);
    }

    #[test]
    fn scatter_and_convergence() {
        let rs = records();
        let t = tables(&rs);
        let ChartKind::Scatter { points, .. } = scatter(&t).kind else { panic!() };
        assert_eq!(points.len(), 2);
        assert_eq!(points[0].x.n, 2);
        let c = convergence(&rs, Metric::Safety).unwrap();
        let ChartKind::Convergence { sizes, series, .. } = &c.kind else { panic!() };
        assert_eq!(sizes, &[2]);
        assert_eq!(series[1].values[0].unwrap().value, 0.5);
        assert!(convergence(&[], Metric::Safety).is_none());
        let seqs = [("hi".to_string(), vec![true; 60]), ("lo".to_string(), vec![false; 60])];
        let c = convergence_of("x", "x", "correctness", &seqs).unwrap();
        let ChartKind::Convergence { separated_from, .. } = c.kind else { panic!() };
        assert_eq!(separated_from, Some(10), "10/10 against 0/10 is already disjoint");
        assert_eq!(all(&t, &rs).len(), 4 + 1 + 2 + 2);
    }

    #[test]
    fn slugs() {
        assert_eq!(slug("radar-baseline:route-baseline T3"), "radar-baseline-route-baseline-t3");
        assert_eq!(slug("  ·x· "), "x");
    }
}
