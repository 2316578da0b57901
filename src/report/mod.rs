//! What a researcher publishes, straight from the results: `tables` (the numbers as plain
//! data, [`Tables`]), `text` (table, Markdown, CSV and JSON renderings, [`render`]), `chart`
//! (chart models built from the numbers, [`Chart`]), `svg` (the charts drawn as SVG) and
//! [`html`] (the self-contained report).
//!
//! The library has no web dependencies: charts are strings of SVG or plain data, so the CLI
//! writes them into files and the web app's Compare view puts the same strings on the page.

mod chart;
mod heatmap;
pub mod html;
mod svg;
mod tables;
mod text;

pub use chart::{Chart, ChartKind, Estimate, Point, Series, bars, convergence, convergence_of};
pub use heatmap::{gap_colour, weakness_html, weakness_markdown, weakness_svg};
pub use tables::{Outcome, QueryRow, Section, Standing, Tables};
pub use text::{Format, render};

use crate::provenance::Provenance;
use crate::record::ResultRecord;

/// The numbers and charts of some results: what `netpress report` writes and what the web
/// app's Compare view shows.
///
/// ```
/// use netpress::provenance::Provenance;
/// use netpress::record::parse_results;
///
/// let (records, _errors) = parse_results(""); // the lines of one or more results files
/// let provenance = Provenance::of_records(&records, "web app: compare view", vec![]);
/// let (tables, charts) = netpress::report::build(&records, provenance);
/// for standing in &tables.leaderboard {
///     let _ = (standing.rank, &standing.agent, standing.summary.correct.wilson);
/// }
/// for chart in &charts {
///     let svg: String = chart.svg(); // inline it (Yew: `Html::from_html_unchecked(svg.into())`)
///     assert!(svg.starts_with("<svg"));
/// }
/// ```
pub fn build(records: &[ResultRecord], provenance: Provenance) -> (Tables, Vec<Chart>) {
    let tables = Tables::build(records, provenance);
    let charts = chart::all(&tables, records);
    (tables, charts)
}

/// Whatever a results file holds (any agents, apps, labels, ids, outcomes, latencies), the
/// report builds without panicking and every chart is well-formed SVG.
#[cfg(all(test, not(target_arch = "wasm32")))]
mod proptests {
    use proptest::prelude::*;

    use super::*;
    use crate::record::tests::sample;

    fn records() -> impl Strategy<Value = Vec<ResultRecord>> {
        let one = (
            "[a-z]{1,6}(-v[0-9]-L[0-9]-s[0-9]{1,3}-i0)?",
            "[ -~]{0,12}",
            "[ -~<>&\"·]{0,10}",
            any::<(bool, bool)>(),
            prop::option::of(-1e6f64..1e9),
            0u32..50,
            1u32..12,
        );
        prop::collection::vec(one, 0..40).prop_map(|rows| {
            rows.into_iter()
                .map(|(id, agent, label, (correct, safe), latency, turns, max_turns)| {
                    let mut r = sample("route-v1-L1-s0-i0", &agent, &label, correct, safe);
                    r.app = id.split('-').next().unwrap_or_default().to_string();
                    r.id = id;
                    r.score.latency_ms = latency;
                    r.score.turns = turns;
                    r.max_turns = max_turns;
                    r
                })
                .collect()
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(24))]
        #[test]
        fn any_results_make_a_report(rs in records()) {
            let (tables, charts) = build(&rs, Provenance::of_records(&rs, "proptest", vec![]));
            let page = html::document("t", &tables, &charts);
            prop_assert!(page.starts_with("<!DOCTYPE html>"));
            let bad = |s: &str| s.contains("NaN") || s.contains("inf");
            // Records may name an agent or app "inf"; only then can the words appear as text.
            let named_bad = rs.iter().any(|r| bad(&r.id) || bad(&r.agent.name) || bad(&r.label));
            for c in &charts {
                let svg = c.svg();
                let doc = roxmltree::Document::parse(&svg);
                prop_assert!(doc.is_ok(), "{}", c.id);
                let doc = doc.unwrap();
                // Ids carry the chart's id, which names an app; every other attribute is drawn.
                let drawn = |a: &roxmltree::Attribute| !matches!(a.name(), "id" | "aria-labelledby");
                let attrs = doc.descendants().flat_map(|n| {
                    n.attributes().filter(drawn).map(|a| a.value().to_string()).collect::<Vec<_>>()
                });
                for value in attrs {
                    prop_assert!(!bad(&value), "{}: attribute {value}", c.id);
                }
                prop_assert!(named_bad || !bad(&svg), "{}", c.id);
            }
            for format in [Format::Table, Format::Markdown, Format::Csv, Format::Json] {
                text::render(&tables.clone().with_checkpoints(&rs, &[1, 5, 20]), format);
            }
        }
    }
}
