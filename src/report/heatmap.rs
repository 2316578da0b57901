//! The weakness map of an adaptive search as an SVG heatmap, and its self-contained HTML page.
//!
//! Cell colour is the surrogate's posterior mean gap on a diverging scale fixed to [−1, 1]
//! (white at 0, red where the agent trails the reference, blue where it leads), so maps of
//! different searches compare at a glance. Evaluated cells carry a dot whose area grows with
//! the seeds run there, promoted cells a ring, confirmed weak cells a thick outline and the
//! agent's rate with its interval. Every cell has a `<title>` tooltip. Markup goes through
//! `maud`, which escapes every label.

use maud::{DOCTYPE, Markup, html};

use crate::adapt::{WeakRow, WeaknessMap};

const CELL: f64 = 44.0;
const LEFT: f64 = 90.0;
const TOP: f64 = 56.0;

/// The fill of a gap: white at 0, red (#b2182b) at +1, blue (#2166ac) at −1.
pub fn gap_colour(gap: f64) -> String {
    let t = gap.clamp(-1.0, 1.0);
    let (r, g, b) = if t >= 0.0 { (0xb2, 0x18, 0x2b) } else { (0x21, 0x66, 0xac) };
    let a = t.abs();
    let mix = |c: u8| (255.0 + (f64::from(c) - 255.0) * a).round() as u8;
    format!("#{:02x}{:02x}{:02x}", mix(r), mix(g), mix(b))
}

fn f1(x: f64) -> String {
    format!("{x:.1}")
}

/// The map as an SVG document.
pub fn weakness_svg(map: &WeaknessMap) -> String {
    let (nr, nc) = (map.rows.len() as f64, map.cols.len() as f64);
    // Wide enough for the legend line under narrow maps.
    let width = (LEFT + nc * CELL + 20.0).max(640.0);
    let height = TOP + nr * CELL + 50.0;
    let max_seeds = map.cells.iter().flatten().map(|c| c.seeds).max().unwrap_or(1).max(1) as f64;
    let title = format!("{}: posterior mean gap, {} × {}", map.app, map.row_dim, map.col_dim);
    let markup: Markup = html! {
        svg xmlns="http://www.w3.org/2000/svg" class="np-chart np-heatmap" width=(f1(width)) height=(f1(height))
            viewBox={ "0 0 " (f1(width)) " " (f1(height)) } font-family="sans-serif" font-size="11" color="#222222" {
            rect x="0" y="0" width=(f1(width)) height=(f1(height)) fill="#ffffff" {}
            text x="10" y="18" font-size="13" fill="currentColor" { (title) }
            @if !map.filter.is_empty() {
                text x="10" y="34" fill="#666666" {
                    "where " (map.filter.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join(", "))
                }
            }
            text x=(f1(LEFT + nc * CELL / 2.0)) y=(f1(TOP - 6.0)) text-anchor="middle" fill="currentColor" { (map.col_dim) }
            text x="10" y=(f1(TOP + nr * CELL / 2.0)) fill="currentColor" { (map.row_dim) }
            @for (j, col) in map.cols.iter().enumerate() {
                text x=(f1(LEFT + (j as f64 + 0.5) * CELL)) y=(f1(TOP + nr * CELL + 14.0)) text-anchor="middle" fill="currentColor" { (col) }
            }
            @for (i, row) in map.rows.iter().enumerate() {
                text x=(f1(LEFT - 6.0)) y=(f1(TOP + (i as f64 + 0.5) * CELL + 4.0)) text-anchor="end" fill="currentColor" { (row) }
                @for (j, cell) in map.cells[i].iter().enumerate() {
                    @let (x, y) = (LEFT + j as f64 * CELL, TOP + i as f64 * CELL);
                    @let tip = match cell.mean {
                        Some(m) => format!("{}={}, {}={}: mean gap {:+.2}, n = {} seeds", map.row_dim, row, map.col_dim, map.cols[j], m, cell.seeds),
                        None => format!("{}={}, {}={}: no feasible task", map.row_dim, row, map.col_dim, map.cols[j]),
                    };
                    g {
                        title { (tip) }
                        rect x=(f1(x)) y=(f1(y)) width=(f1(CELL)) height=(f1(CELL))
                            fill=(cell.mean.map_or("#eeeeee".to_string(), gap_colour))
                            stroke=(if cell.weak.is_some() { "#000000" } else { "#d9d9d9" })
                            stroke-width=(if cell.weak.is_some() { "3" } else { "1" }) {}
                        @if cell.seeds > 0 {
                            circle cx=(f1(x + CELL / 2.0)) cy=(f1(y + CELL / 2.0))
                                r=(f1(2.0 + 6.0 * (cell.seeds as f64 / max_seeds).sqrt())) fill="#222222" {}
                        }
                        @if cell.promoted {
                            circle cx=(f1(x + CELL / 2.0)) cy=(f1(y + CELL / 2.0)) r=(f1(CELL / 2.0 - 4.0))
                                fill="none" stroke="#222222" stroke-width="1.5" {}
                        }
                        @if let Some((rate, lo, hi)) = cell.weak {
                            text x=(f1(x + 3.0)) y=(f1(y + CELL - 4.0)) font-size="8" fill="#000000" {
                                (format!("{:.0}% [{:.0},{:.0}]", 100.0 * rate, 100.0 * lo, 100.0 * hi))
                            }
                        }
                    }
                }
            }
            text x="10" y=(f1(height - 10.0)) fill="#666666" {
                "colour: gap in [−1, 1] (red: agent trails the reference); dot: seeds run; ring: promoted; outline: confirmed weak"
            }
        }
    };
    markup.into_string()
}

/// The table of confirmed cells as markdown.
pub fn weakness_markdown(rows: &[WeakRow]) -> String {
    let mut out = String::from(
        "| rank | cell | round | weight | search gap (k) | agent [CI] | reference [CI] | confirmation gap | shrinkage | verdict |\n|---|---|---|---|---|---|---|---|---|---|\n",
    );
    for r in rows {
        out.push_str(&format!(
            "| {} | {} | {} | {:.2} | {:.2} ({}) | {:.2} [{:.2}, {:.2}] | {:.2} [{:.2}, {:.2}] | {:.2} | {:+.2} | {} |\n",
            r.rank,
            r.cell,
            r.round.map_or("–".to_string(), |x| x.to_string()),
            r.weight,
            r.search_gap,
            r.k,
            r.agent.rate,
            r.agent.lo,
            r.agent.hi,
            r.reference.rate,
            r.reference.lo,
            r.reference.hi,
            r.gap,
            r.shrinkage,
            verdict(r),
        ));
    }
    out
}

fn verdict(r: &WeakRow) -> &'static str {
    match r.verdict {
        crate::adapt::Verdict::Weak => "weak",
        crate::adapt::Verdict::Better => "better",
        crate::adapt::Verdict::NotConfirmed => "not confirmed",
    }
}

/// A self-contained HTML page: the map, the table and the provenance (as JSON).
pub fn weakness_html(
    title: &str,
    map: &WeaknessMap,
    rows: &[WeakRow],
    provenance: &serde_json::Value,
) -> String {
    let svg = weakness_svg(map);
    let page = html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                title { (title) }
                style { "body{font-family:sans-serif;margin:2em;max-width:72em}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.2em .5em;text-align:left}" }
            }
            body {
                h1 { (title) }
                (maud::PreEscaped(svg))
                h2 { "Confirmed cells" }
                table {
                    tr { th { "rank" } th { "cell" } th { "round" } th { "weight" } th { "search gap (k)" } th { "agent [CI]" } th { "reference [CI]" } th { "confirmation gap" } th { "shrinkage" } th { "verdict" } }
                    @for r in rows {
                        tr {
                            td { (r.rank) } td { (r.cell) } td { (r.round.map_or("–".to_string(), |x| x.to_string())) }
                            td { (format!("{:.2}", r.weight)) } td { (format!("{:.2} ({})", r.search_gap, r.k)) }
                            td { (format!("{:.2} [{:.2}, {:.2}]", r.agent.rate, r.agent.lo, r.agent.hi)) }
                            td { (format!("{:.2} [{:.2}, {:.2}]", r.reference.rate, r.reference.lo, r.reference.hi)) }
                            td { (format!("{:.2}", r.gap)) } td { (format!("{:+.2}", r.shrinkage)) } td { (verdict(r)) }
                        }
                    }
                }
                h2 { "Provenance" }
                pre { (serde_json::to_string_pretty(provenance).unwrap_or_default()) }
            }
        }
    };
    page.into_string()
}
