//! Draws [`Chart`]s as SVG documents: no scripts, no external fonts or images, so the same
//! string works inline in HTML, in the web app and as a standalone `.svg` file in a README.
//! Colours are presentation attributes for a light page; one small `<style>` element inside
//! repaints the background, ink and grid when the reader's system asks for a dark scheme
//! (`prefers-color-scheme`), so a chart never stays a white box on a dark page. Ink is
//! `currentColor` of the root, so that one rule recolours every text and axis.
//!
//! Hand-written geometry rather than a plotting crate: the four chart kinds are small, the
//! output must be byte-stable across native and wasm builds, and radar charts and interval
//! whiskers are not what plotting crates draw. Markup goes through `maud`, which escapes every
//! label and tooltip.

use maud::{Markup, PreEscaped, html};

use super::chart::{Chart, ChartKind, Estimate, Point, Series};

const W: f64 = 760.0;
const H: f64 = 440.0;
/// Okabe–Ito colours (safe for colour-blind readers), yellow left out for contrast on white;
/// the last is the ink, black on a light page and light on a dark one.
const PALETTE: [&str; 7] = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "currentColor"];
const GRID: &str = "#d9d9d9";
/// Text and axes: the root's `color`, [`INK_LIGHT`] unless the dark scheme changes it.
const INK: &str = "currentColor";
const INK_LIGHT: &str = "#222222";
/// Secondary text (footer, ring values): 5.7:1 on white.
const MUTED: &str = "#666666";
const BACKGROUND: &str = "#ffffff";
/// The dark scheme, with class names of their own so that several charts inlined in one page
/// (each carrying the same rules) touch nothing else on it. Contrast on the dark background:
/// ink 14.8:1, muted text 7.4:1.
const DARK_STYLE: &str = "@media (prefers-color-scheme: dark){\
svg.np-chart{color:#e5e9ee}\
.np-chart .np-bg{fill:#161b22}\
.np-chart .np-grid{stroke:#3a424d}\
.np-chart .np-muted{fill:#a3acb8}\
.np-chart .np-halo{stroke:#161b22}}";

/// The colour of series `i`.
pub fn color(i: usize) -> &'static str {
    PALETTE[i % PALETTE.len()]
}

/// A coordinate with one decimal.
fn c(x: f64) -> String {
    format!("{x:.1}")
}

fn pct(x: f64) -> String {
    format!("{:.1}%", 100.0 * x)
}

/// `62.0% [55.1%, 68.4%], n = 150`
fn describe(e: &Estimate) -> String {
    format!("{} [{}, {}], n = {}", pct(e.value), pct(e.lo), pct(e.hi), e.n)
}

impl Chart {
    /// The chart as an SVG document (an `<svg>` element with its namespace), for inlining.
    pub fn svg(&self) -> String {
        self.render(None)
    }

    /// The chart as a standalone `.svg` file: its provenance travels inside as JSON in a
    /// `<metadata>` element, and a footer line names the NetPress version and command.
    pub fn svg_file(&self, provenance: &serde_json::Value) -> String {
        self.render(Some(provenance))
    }

    fn render(&self, provenance: Option<&serde_json::Value>) -> String {
        let body = match &self.kind {
            ChartKind::Bars { y_label, categories, series } => bars(y_label, categories, series),
            ChartKind::Radar { axes, series } => radar(axes, series),
            ChartKind::Scatter { x_label, y_label, points } => scatter(x_label, y_label, points),
            ChartKind::Convergence { y_label, sizes, series, separated_from } => {
                convergence(y_label, sizes, series, *separated_from)
            }
        };
        let legend: Vec<(&str, usize)> = match &self.kind {
            ChartKind::Bars { series, .. }
            | ChartKind::Radar { series, .. }
            | ChartKind::Convergence { series, .. } => {
                series.iter().map(|s| (s.name.as_str(), s.color)).collect()
            }
            ChartKind::Scatter { points, .. } => points.iter().map(|p| (p.name.as_str(), p.color)).collect(),
        };
        let footer = provenance.map(footer);
        html! {
            svg xmlns="http://www.w3.org/2000/svg" width=(W) height=(H) viewBox={"0 0 " (W) " " (H)}
                role="img" aria-labelledby={"t-" (self.id)} font-family="system-ui, -apple-system, Segoe UI, sans-serif"
                font-size="12" class="np-chart" color=(INK_LIGHT) fill=(INK) {
                title id={"t-" (self.id)} { (self.title) }
                style { (PreEscaped(DARK_STYLE)) }
                @if let Some(p) = provenance {
                    metadata { (p.to_string()) }
                }
                (frame(&self.title, &legend, body))
                @if let Some(line) = footer {
                    text x="8" y=(c(H - 6.0)) font-size="10" class="np-muted" fill=(MUTED) { (line) }
                }
            }
        }
        .into_string()
    }
}

/// `NetPress 0.1.0 · netpress report …`, cut to fit the width.
fn footer(provenance: &serde_json::Value) -> String {
    let field = |k: &str| provenance.get(k).and_then(|v| v.as_str()).unwrap_or("");
    let line = format!("NetPress {} · {}", field("netpress_version"), field("command"));
    const MAX: usize = 120;
    if line.chars().count() > MAX { line.chars().take(MAX - 1).chain(['…']).collect() } else { line }
}

/// The background, title, legend, then the chart's body.
fn frame(title: &str, legend: &[(&str, usize)], body: Markup) -> Markup {
    html! {
        rect x="0" y="0" width=(W) height=(H) class="np-bg" fill=(BACKGROUND) {}
        text x=(c(W / 2.0)) y="22" text-anchor="middle" font-size="15" font-weight="600" { (title) }
        (legend_row(legend))
        (body)
    }
}

/// Swatches and names in centred rows under the title, wrapping when a row is full.
fn legend_row(names: &[(&str, usize)]) -> Markup {
    let widths: Vec<f64> = names.iter().map(|(n, _)| 26.0 + 6.5 * n.chars().count() as f64).collect();
    let mut rows: Vec<Vec<usize>> = vec![Vec::new()];
    let mut used = 0.0;
    for (i, w) in widths.iter().enumerate() {
        if used + w > W - 40.0 && !rows.last().is_some_and(Vec::is_empty) {
            rows.push(Vec::new());
            used = 0.0;
        }
        rows.last_mut().expect("a row").push(i);
        used += w;
    }
    let mut placed: Vec<(f64, f64, usize)> = Vec::new();
    for (r, row) in rows.iter().enumerate() {
        let mut x = (W - row.iter().map(|&i| widths[i]).sum::<f64>()) / 2.0;
        for &i in row {
            placed.push((x, 42.0 + 16.0 * r as f64, i));
            x += widths[i];
        }
    }
    html! {
        @for &(x, y, i) in &placed {
            rect x=(c(x)) y=(c(y - 9.0)) width="12" height="12" fill=(color(names[i].1)) {}
            text x=(c(x + 17.0)) y=(c(y + 1.0)) { (names[i].0) }
        }
    }
}

/// A plot area in SVG coordinates.
#[derive(Clone, Copy)]
struct Area {
    left: f64,
    right: f64,
    top: f64,
    bottom: f64,
}

impl Area {
    /// y of a rate in `lo..=hi`.
    fn y(self, v: f64, lo: f64, hi: f64) -> f64 {
        self.bottom - (v - lo) / (hi - lo) * (self.bottom - self.top)
    }
    fn x(self, v: f64, lo: f64, hi: f64) -> f64 {
        self.left + (v - lo) / (hi - lo) * (self.right - self.left)
    }
}

/// Horizontal grid lines with percent labels on the left, and the y-axis title.
fn y_axis(a: Area, ticks: &[f64], lo: f64, hi: f64, label: &str) -> Markup {
    html! {
        @for &t in ticks {
            @let y = a.y(t, lo, hi);
            line x1=(c(a.left)) x2=(c(a.right)) y1=(c(y)) y2=(c(y)) class="np-grid" stroke=(GRID) stroke-width="1" {}
            text x=(c(a.left - 6.0)) y=(c(y + 4.0)) text-anchor="end" { (format!("{:.0}", 100.0 * t)) }
        }
        text x="16" y=(c((a.top + a.bottom) / 2.0)) text-anchor="middle"
            transform={"rotate(-90 16 " (c((a.top + a.bottom) / 2.0)) ")"} { (label) }
    }
}

/// A vertical whisker with caps from `lo` to `hi` (already in SVG y) at `x`.
fn v_whisker(x: f64, y_lo: f64, y_hi: f64, cap: f64, stroke: &str) -> Markup {
    html! {
        line x1=(c(x)) x2=(c(x)) y1=(c(y_lo)) y2=(c(y_hi)) stroke=(stroke) stroke-width="1.5" {}
        line x1=(c(x - cap)) x2=(c(x + cap)) y1=(c(y_lo)) y2=(c(y_lo)) stroke=(stroke) stroke-width="1.5" {}
        line x1=(c(x - cap)) x2=(c(x + cap)) y1=(c(y_hi)) y2=(c(y_hi)) stroke=(stroke) stroke-width="1.5" {}
    }
}

const QUARTERS: [f64; 5] = [0.0, 0.25, 0.5, 0.75, 1.0];

fn bars(y_label: &str, categories: &[String], series: &[Series]) -> Markup {
    let a = Area { left: 64.0, right: W - 20.0, top: 78.0, bottom: H - 72.0 };
    let group = (a.right - a.left) / categories.len().max(1) as f64;
    let bar = (group * 0.8 / series.len().max(1) as f64).min(64.0);
    let longest = categories.iter().map(|s| s.chars().count()).max().unwrap_or(0) as f64;
    let slant = longest * 6.5 > group;
    html! {
        (y_axis(a, &QUARTERS, 0.0, 1.0, y_label))
        @for (i, category) in categories.iter().enumerate() {
            @let x0 = a.left + group * i as f64 + (group - bar * series.len() as f64) / 2.0;
            @for (j, s) in series.iter().enumerate() {
                @if let Some(e) = s.values.get(i).copied().flatten() {
                    @let x = x0 + bar * j as f64;
                    g {
                        title { (s.name) " · " (category) ": " (describe(&e)) }
                        rect x=(c(x)) y=(c(a.y(e.value, 0.0, 1.0))) width=(c(bar * 0.92))
                            height=(c(a.bottom - a.y(e.value, 0.0, 1.0))) fill=(color(s.color)) fill-opacity="0.85" {}
                        (v_whisker(x + bar * 0.46, a.y(e.lo, 0.0, 1.0), a.y(e.hi, 0.0, 1.0), bar * 0.2, INK))
                    }
                }
            }
            @let cx = a.left + group * (i as f64 + 0.5);
            @if slant {
                text x=(c(cx)) y=(c(a.bottom + 14.0)) text-anchor="end"
                    transform={"rotate(-30 " (c(cx)) " " (c(a.bottom + 14.0)) ")"} { (category) }
            } @else {
                text x=(c(cx)) y=(c(a.bottom + 16.0)) text-anchor="middle" { (category) }
            }
        }
        line x1=(c(a.left)) x2=(c(a.right)) y1=(c(a.bottom)) y2=(c(a.bottom)) stroke=(INK) {}
    }
}

fn radar(axes: &[String], series: &[Series]) -> Markup {
    let (cx, cy, r) = (W / 2.0, 250.0, 145.0);
    let k = axes.len().max(1) as f64;
    let angle = |i: usize| -std::f64::consts::FRAC_PI_2 + std::f64::consts::TAU * i as f64 / k;
    let at = |i: usize, v: f64| (cx + r * v * angle(i).cos(), cy + r * v * angle(i).sin());
    html! {
        @for ring in [0.25, 0.5, 0.75, 1.0] {
            circle cx=(c(cx)) cy=(c(cy)) r=(c(r * ring)) fill="none" class="np-grid" stroke=(GRID) {}
            text x=(c(cx - 4.0)) y=(c(cy - r * ring - 2.0)) text-anchor="end" font-size="10" class="np-muted" fill=(MUTED) { (format!("{:.0}", 100.0 * ring)) }
        }
        @for (i, axis) in axes.iter().enumerate() {
            @let (x, y) = at(i, 1.0);
            @let (lx, ly) = at(i, 1.12);
            @let anchor = if angle(i).cos() > 0.2 { "start" } else if angle(i).cos() < -0.2 { "end" } else { "middle" };
            line x1=(c(cx)) y1=(c(cy)) x2=(c(x)) y2=(c(y)) class="np-grid" stroke=(GRID) {}
            text x=(c(lx)) y=(c(ly + 4.0)) text-anchor=(anchor) { (axis) }
        }
        @for (j, s) in series.iter().enumerate() {
            @let known: Vec<(usize, Estimate)> = s.values.iter().enumerate().filter_map(|(i, v)| v.map(|e| (i, e))).collect();
            @let outline: Vec<String> = known.iter().map(|&(i, e)| { let (x, y) = at(i, e.value); format!("{},{}", c(x), c(y)) }).collect();
            polygon points=(outline.join(" ")) fill=(color(s.color)) fill-opacity="0.12" stroke=(color(s.color)) stroke-width="2" {}
            @for &(i, e) in &known {
                // Whiskers sit a little to either side of the spoke so two series stay readable.
                @let offset = (j as f64 - (series.len() as f64 - 1.0) / 2.0) * 4.0;
                @let (nx, ny) = (-angle(i).sin() * offset, angle(i).cos() * offset);
                @let (x1, y1) = at(i, e.lo);
                @let (x2, y2) = at(i, e.hi);
                @let (px, py) = at(i, e.value);
                g {
                    title { (s.name) " · " (axes[i]) ": " (describe(&e)) }
                    line x1=(c(x1 + nx)) y1=(c(y1 + ny)) x2=(c(x2 + nx)) y2=(c(y2 + ny)) stroke=(color(s.color)) stroke-width="2" {}
                    circle cx=(c(px)) cy=(c(py)) r="3.5" fill=(color(s.color)) {}
                }
            }
        }
    }
}

fn scatter(x_label: &str, y_label: &str, points: &[Point]) -> Markup {
    let a = Area { left: 96.0, right: W - 40.0, top: 78.0, bottom: H - 56.0 };
    html! {
        (y_axis(a, &QUARTERS, 0.0, 1.0, ""))
        text x=(c(a.left - 40.0)) y=(c((a.top + a.bottom) / 2.0)) text-anchor="middle"
            transform={"rotate(-90 " (c(a.left - 40.0)) " " (c((a.top + a.bottom) / 2.0)) ")"} { (y_label) }
        @for &t in &QUARTERS {
            @let x = a.x(t, 0.0, 1.0);
            line x1=(c(x)) x2=(c(x)) y1=(c(a.top)) y2=(c(a.bottom)) class="np-grid" stroke=(GRID) {}
            text x=(c(x)) y=(c(a.bottom + 16.0)) text-anchor="middle" { (format!("{:.0}", 100.0 * t)) }
        }
        text x=(c((a.left + a.right) / 2.0)) y=(c(a.bottom + 34.0)) text-anchor="middle" { (x_label) }
        @for p in points {
            @let (x, y) = (a.x(p.x.value, 0.0, 1.0), a.y(p.y.value, 0.0, 1.0));
            g {
                title { (p.name) ": correctness " (describe(&p.x)) "; safety " (describe(&p.y)) }
                line x1=(c(a.x(p.x.lo, 0.0, 1.0))) x2=(c(a.x(p.x.hi, 0.0, 1.0))) y1=(c(y)) y2=(c(y)) stroke=(color(p.color)) stroke-width="2" {}
                line x1=(c(x)) x2=(c(x)) y1=(c(a.y(p.y.lo, 0.0, 1.0))) y2=(c(a.y(p.y.hi, 0.0, 1.0))) stroke=(color(p.color)) stroke-width="2" {}
                circle cx=(c(x)) cy=(c(y)) r="5" fill=(color(p.color)) class="np-halo" stroke=(BACKGROUND) {}
            }
        }
    }
}

/// y range of a convergence chart: the intervals' extent rounded out to tenths.
fn y_range(series: &[Series]) -> (f64, f64) {
    let all = series.iter().flat_map(|s| s.values.iter().flatten());
    let (lo, hi) = all.fold((1.0f64, 0.0f64), |(lo, hi), e| (lo.min(e.lo), hi.max(e.hi)));
    let (lo, hi) = ((lo * 10.0).floor() / 10.0, (hi * 10.0).ceil() / 10.0);
    if hi - lo < 0.1 { ((lo - 0.05).max(0.0), (hi + 0.05).min(1.0)) } else { (lo, hi) }
}

fn convergence(y_label: &str, sizes: &[u64], series: &[Series], separated_from: Option<u64>) -> Markup {
    let a = Area { left: 64.0, right: W - 24.0, top: 78.0, bottom: H - 56.0 };
    let (lo, hi) = y_range(series);
    let ticks: Vec<f64> =
        (0..=10).map(|i| i as f64 / 10.0).filter(|t| *t >= lo - 1e-9 && *t <= hi + 1e-9).collect();
    let (first, last) =
        (sizes.first().copied().unwrap_or(1) as f64, sizes.last().copied().unwrap_or(1) as f64);
    let x = |n: u64| {
        if last <= first { (a.left + a.right) / 2.0 } else { a.x((n as f64).ln(), first.ln(), last.ln()) }
    };
    let labelled = |n: u64| !n.to_string().starts_with("15") || n == sizes.last().copied().unwrap_or(0);
    html! {
        (y_axis(a, &ticks, lo, hi, y_label))
        @for &n in sizes {
            line x1=(c(x(n))) x2=(c(x(n))) y1=(c(a.top)) y2=(c(a.bottom)) class="np-grid" stroke=(GRID) stroke-dasharray="2 3" {}
            @if labelled(n) {
                text x=(c(x(n))) y=(c(a.bottom + 16.0)) text-anchor="middle" { (crate::stats::group(n)) }
            }
        }
        text x=(c((a.left + a.right) / 2.0)) y=(c(a.bottom + 36.0)) text-anchor="middle" { "queries per agent (log scale)" }
        @for s in series {
            @let known: Vec<(u64, Estimate)> = sizes.iter().zip(&s.values).filter_map(|(&n, v)| v.map(|e| (n, e))).collect();
            @let upper: Vec<String> = known.iter().map(|(n, e)| format!("{},{}", c(x(*n)), c(a.y(e.hi, lo, hi)))).collect();
            @let lower: Vec<String> = known.iter().rev().map(|(n, e)| format!("{},{}", c(x(*n)), c(a.y(e.lo, lo, hi)))).collect();
            @let line: Vec<String> = known.iter().map(|(n, e)| format!("{},{}", c(x(*n)), c(a.y(e.value, lo, hi)))).collect();
            polygon points=(format!("{} {}", upper.join(" "), lower.join(" "))) fill=(color(s.color)) fill-opacity="0.18" stroke="none" {}
            polyline points=(line.join(" ")) fill="none" stroke=(color(s.color)) stroke-width="2" {}
            @for (n, e) in &known {
                g {
                    title { (s.name) " after " (crate::stats::group(*n)) " queries: " (describe(e)) }
                    (v_whisker(x(*n), a.y(e.lo, lo, hi), a.y(e.hi, lo, hi), 3.0, color(s.color)))
                    circle cx=(c(x(*n))) cy=(c(a.y(e.value, lo, hi))) r="3" fill=(color(s.color)) {}
                }
            }
        }
        @if let Some(n) = separated_from {
            line x1=(c(x(n))) x2=(c(x(n))) y1=(c(a.top)) y2=(c(a.bottom)) stroke=(INK) stroke-width="1.5" stroke-dasharray="6 4" {}
            text x=(c(x(n) - 4.0)) y=(c(a.top + 12.0)) text-anchor="end" { "intervals disjoint from " (crate::stats::group(n)) " queries" }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::chart::Chart;

    fn e(v: f64) -> Option<Estimate> {
        Some(Estimate { value: v, lo: (v - 0.1).max(0.0), hi: (v + 0.1).min(1.0), n: 10 })
    }

    fn charts() -> Vec<Chart> {
        let series = vec![
            Series { name: "a <&> \"b\"".into(), color: 0, values: vec![e(0.5), None, e(1.0)] },
            Series { name: "c".into(), color: 1, values: vec![e(0.2), e(0.0), None] },
        ];
        let cats: Vec<String> =
            ["DI", "DR", "a-very-long-label-that-slants-because-it-is-so-long"].map(String::from).to_vec();
        vec![
            Chart {
                id: "bars".into(),
                title: "Bars".into(),
                kind: ChartKind::Bars {
                    y_label: "correctness %".into(),
                    categories: cats.clone(),
                    series: series.clone(),
                },
            },
            Chart {
                id: "radar".into(),
                title: "Radar".into(),
                kind: ChartKind::Radar { axes: cats, series: series.clone() },
            },
            Chart {
                id: "scatter".into(),
                title: "Scatter".into(),
                kind: ChartKind::Scatter {
                    x_label: "x".into(),
                    y_label: "y".into(),
                    points: vec![Point {
                        name: "p".into(),
                        color: 2,
                        x: e(0.3).unwrap(),
                        y: e(0.9).unwrap(),
                    }],
                },
            },
            Chart {
                id: "conv".into(),
                title: "Convergence".into(),
                kind: ChartKind::Convergence {
                    y_label: "correctness %".into(),
                    sizes: vec![10, 100, 1000],
                    series,
                    separated_from: Some(100),
                },
            },
        ]
    }

    #[test]
    fn every_chart_is_well_formed_escaped_svg() {
        for chart in charts() {
            let svg = chart.svg();
            let doc = roxmltree::Document::parse(&svg).unwrap_or_else(|e| panic!("{}: {e}\n{svg}", chart.id));
            let root = doc.root_element();
            assert_eq!(root.tag_name().name(), "svg");
            assert_eq!(root.tag_name().namespace(), Some("http://www.w3.org/2000/svg"));
            assert!(!svg.contains("<script"));
            assert!(!svg.contains("NaN") && !svg.contains("inf"), "{}: {svg}", chart.id);
            if chart.id != "scatter" {
                assert!(
                    svg.contains("a &lt;&amp;&gt; \"b\"") || svg.contains("a &lt;&amp;&gt; &quot;b&quot;")
                );
            }
        }
    }

    #[test]
    fn bars_draw_one_rect_per_known_value() {
        let svg = charts()[0].svg();
        let doc = roxmltree::Document::parse(&svg).unwrap();
        let bars = doc
            .descendants()
            .filter(|n| n.has_tag_name("rect") && n.attribute("fill-opacity") == Some("0.85"));
        assert_eq!(bars.count(), 4);
        assert!(svg.contains("rotate(-30"), "long labels slant");
    }

    #[test]
    fn standalone_files_carry_provenance() {
        let p = serde_json::json!({"netpress_version": "9.9", "command": "netpress report <a>.jsonl"});
        let svg = charts()[3].svg_file(&p);
        let doc = roxmltree::Document::parse(&svg).unwrap();
        let meta = doc.descendants().find(|n| n.has_tag_name("metadata")).unwrap();
        let back: serde_json::Value = serde_json::from_str(meta.text().unwrap()).unwrap();
        assert_eq!(back, p);
        assert!(svg.contains("NetPress 9.9 · netpress report &lt;a&gt;.jsonl"));
        assert!(!charts()[3].svg().contains("metadata"));
    }

    #[test]
    fn geometry_of_a_bar() {
        let a = Area { left: 0.0, right: 100.0, top: 0.0, bottom: 100.0 };
        assert_eq!(a.y(0.25, 0.0, 1.0), 75.0);
        assert_eq!(a.x(0.5, 0.0, 1.0), 50.0);
        assert_eq!(y_range(&[Series { name: "x".into(), color: 0, values: vec![e(0.5)] }]), (0.4, 0.6));
    }
}
