//! The HTML report: valid HTML (no parse errors), self-contained (nothing to fetch), every
//! table and chart present, the per-query table complete, and the numbers inside readable.
//! The browser side (opens in Chromium without console errors) is tests/e2e/report.test.mjs.

use crate::common::{record, run_of};
use netpress::provenance::{InputFile, Provenance};
use netpress::record::ResultRecord;
use netpress::report::{self, ChartKind, html};
use scraper::{Html, Selector};

fn records() -> Vec<ResultRecord> {
    let mut rs = run_of("a", &[true, false, true, true, false, true], &[true, true, true, false, true, true]);
    rs.extend(run_of("b", &[false, false, true, false, false, true], &[true; 6]));
    let mut odd = record(99, "c <script>alert(1)</script>", "x&y", true, true);
    odd.app = "k8s".into();
    odd.id = "k8s-v1-L2-s99-i0".into();
    odd.score.latency_ms = None;
    rs.push(odd);
    rs
}

fn page() -> (String, Html) {
    let rs = records();
    let p = Provenance::of_records(
        &rs,
        "netpress report r.jsonl",
        vec![InputFile::new("r.jsonl", b"x", rs.len())],
    );
    let (tables, charts) = report::build(&rs, p);
    let text = html::document("Results <of> a run", &tables, &charts);
    let doc = Html::parse_document(&text);
    (text, doc)
}

fn select<'a>(doc: &'a Html, css: &str) -> Vec<scraper::ElementRef<'a>> {
    doc.select(&Selector::parse(css).unwrap()).collect()
}

#[test]
fn parses_without_errors() {
    let (_, doc) = page();
    assert!(doc.errors.is_empty(), "HTML parse errors: {:?}", doc.errors);
    assert_eq!(select(&doc, "html[lang=en] > head > meta[charset=utf-8]").len(), 1);
    assert_eq!(select(&doc, "title")[0].text().collect::<String>(), "Results <of> a run");
}

#[test]
fn is_self_contained() {
    let (text, doc) = page();
    for el in select(&doc, "[src], [href], [srcset], [action], [data]") {
        let v = el.value();
        for attr in ["src", "href", "srcset", "action", "data"] {
            if let Some(url) = v.attr(attr) {
                assert!(url.starts_with("data:") || url.starts_with('#'), "{attr}={url:?} on <{}>", v.name());
            }
        }
    }
    let scripts = select(&doc, "script");
    assert_eq!(scripts.len(), 1);
    assert_eq!(scripts[0].value().attr("type"), Some("application/json"));
    assert!(select(&doc, "link").iter().all(|l| l.value().attr("rel") == Some("icon")));
    assert!(!text.contains("url(") && !text.contains("@import"), "no CSS fetches");
    assert!(!text.contains("<script>alert"), "agent names are escaped");
}

#[test]
fn holds_every_table_and_chart() {
    let (_, doc) = page();
    for id in ["leaderboard", "comparisons", "charts", "tables", "queries"] {
        assert_eq!(select(&doc, &format!("h2#{id}")).len(), 1, "{id}");
    }
    for id in ["overall", "agent", "app", "level", "label"] {
        assert_eq!(select(&doc, &format!("h3#table-{id} + table")).len(), 1, "{id}");
    }
    // Bars for correctness and safety per app (2 apps), one scatter, a radar per agent (3, in
    // leaderboard order), and with several agents the two convergence charts.
    let figures: Vec<String> =
        select(&doc, "figure").iter().map(|f| f.value().id().unwrap_or_default().to_string()).collect();
    assert_eq!(
        figures,
        [
            "correctness-k8s",
            "correctness-route",
            "safety-k8s",
            "safety-route",
            "safety-vs-correctness",
            "radar-baseline-c-script-alert-1-script",
            "radar-baseline-a",
            "radar-baseline-b",
            "convergence-correctness",
            "convergence-safety"
        ]
    );
    assert_eq!(select(&doc, "figure > svg").len(), figures.len());
    // Bars carry whiskers with tooltips naming agent, label and interval.
    let tips: Vec<String> =
        select(&doc, "#correctness-route svg g > title").iter().map(|t| t.text().collect()).collect();
    assert!(tips.contains(&"baseline:a · DI: 0.0% [0.0%, 65.8%], n = 2".to_string()), "{tips:?}");
    // The leaderboard lists the three agents, ranked.
    let ranks: Vec<String> = select(&doc, "#leaderboard + table tbody tr td:nth-child(2)")
        .iter()
        .map(|t| t.text().collect())
        .collect();
    assert_eq!(ranks, ["baseline:c <script>alert(1)</script>", "baseline:a", "baseline:b"]);
}

#[test]
fn per_query_table_has_a_row_per_query_and_a_column_per_agent() {
    let (_, doc) = page();
    let rows = select(&doc, "#queries ~ details table tbody tr");
    assert_eq!(rows.len(), 7, "six route queries and one k8s query");
    let head = select(&doc, "#queries ~ details table thead th");
    assert_eq!(head.len(), 3 + 3);
    let first: Vec<String> = rows[0].child_elements().map(|c| c.text().collect::<String>()).collect();
    assert_eq!(first[0], "k8s-v1-L2-s99-i0");
    assert_eq!(first[1], "000000000000", "the short content hash");
}

#[test]
fn the_numbers_travel_inside() {
    let (_, doc) = page();
    let json: String = select(&doc, "script#netpress-tables")[0].text().collect();
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["provenance"]["command"], "netpress report r.jsonl");
    assert_eq!(v["provenance"]["inputs"][0]["records"], 13);
    assert_eq!(v["leaderboard"][1]["summary"]["correct"]["successes"], 4);
}

#[test]
fn charts_are_well_formed_svg_and_draw_the_models() {
    let rs = records();
    let (tables, charts) = report::build(&rs, Provenance::of_records(&rs, "t", vec![]));
    assert_eq!(tables.agents.len(), 3);
    for c in &charts {
        let svg = c.svg();
        let doc = roxmltree::Document::parse(&svg).unwrap_or_else(|e| panic!("{}: {e}", c.id));
        let count = |tag: &str| doc.descendants().filter(|n| n.has_tag_name(tag)).count();
        match &c.kind {
            ChartKind::Radar { series, .. } => assert_eq!(count("polygon"), series.len()),
            ChartKind::Scatter { points, .. } => assert_eq!(count("circle"), points.len()),
            ChartKind::Convergence { series, .. } => assert_eq!(count("polyline"), series.len()),
            ChartKind::Bars { series, .. } => {
                let bars: usize = series.iter().map(|s| s.values.iter().flatten().count()).sum();
                assert_eq!(count("g"), bars, "one group (bar, whisker, tooltip) per value");
            }
        }
    }
}
