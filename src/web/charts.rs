//! SVG charts for the batch and compare views: pass rates with their 95% Wilson intervals,
//! grouped by label, and radar ("spider") charts of several metrics per run.
//!
//! Series are told apart by colour *and* marker shape, and every value is also printed, so
//! nothing rests on colour alone. This module is the one place charts are drawn; it is meant
//! to give way to the library's report charts once they exist, keeping these signatures.

use yew::prelude::*;

use super::util::pct;
use crate::stats::Rate;

/// One bar: a series (run) and its rate.
#[derive(Debug, Clone, PartialEq)]
pub struct Bar {
    pub series: usize,
    pub rate: Rate,
}

/// The bars of one label.
#[derive(Debug, Clone, PartialEq)]
pub struct Group {
    pub label: String,
    pub bars: Vec<Bar>,
}

const SHAPES: usize = 4;

/// A marker shape per series at (x, y).
fn marker(series: usize, x: f64, y: f64) -> Html {
    let class = format!("series s{}", series % 6);
    match series % SHAPES {
        0 => html! { <circle {class} cx={x.to_string()} cy={y.to_string()} r="4.5" /> },
        1 => {
            html! { <rect {class} x={(x - 4.0).to_string()} y={(y - 4.0).to_string()} width="8" height="8" /> }
        }
        2 => {
            html! { <path {class} d={format!("M {x} {} L {} {} L {} {} Z", y - 5.0, x + 5.0, y + 4.0, x - 5.0, y + 4.0)} /> }
        }
        _ => {
            html! { <path {class} d={format!("M {x} {} L {} {y} L {x} {} L {} {y} Z", y - 5.5, x + 5.5, y + 5.5, x - 5.5)} /> }
        }
    }
}

/// The legend: one entry per series name, with its marker.
pub fn legend(names: &[String]) -> Html {
    html! {
        <ul class="legend-list">
        { for names.iter().enumerate().map(|(i, name)| html! {
            <li>
                <svg class="legend-mark" viewBox="0 0 14 14" width="14" height="14" aria-hidden="true">{ marker(i, 7.0, 7.0) }</svg>
                { name }
            </li>
        }) }
        </ul>
    }
}

/// Pass rates with Wilson intervals, one row per (label, series).
pub fn rate_chart(title: &str, groups: &[Group]) -> Html {
    let (label_w, plot_x, plot_w, row_h, gap) = (150.0, 160.0, 330.0, 20.0, 12.0);
    let rows: usize = groups.iter().map(|g| g.bars.len()).sum();
    let height = 30.0 + rows as f64 * row_h + groups.len() as f64 * gap;
    let x = |r: f64| plot_x + r * plot_w;
    let mut y = 24.0;
    let mut body = Vec::new();
    for g in groups {
        y += gap / 2.0;
        let first = y;
        for bar in &g.bars {
            let (r, w) = (bar.rate.rate, bar.rate.wilson);
            let cy = y + row_h / 2.0;
            let s = bar.series % 6;
            body.push(html! {
                <g>
                    <rect class={format!("bar s{s}")} x={plot_x.to_string()} y={(cy - 5.0).to_string()}
                          width={(r * plot_w).max(0.5).to_string()} height="10" />
                    <line class="whisker" x1={x(w.lo).to_string()} x2={x(w.hi).to_string()} y1={cy.to_string()} y2={cy.to_string()} />
                    <line class="whisker" x1={x(w.lo).to_string()} x2={x(w.lo).to_string()} y1={(cy - 5.0).to_string()} y2={(cy + 5.0).to_string()} />
                    <line class="whisker" x1={x(w.hi).to_string()} x2={x(w.hi).to_string()} y1={(cy - 5.0).to_string()} y2={(cy + 5.0).to_string()} />
                    { marker(bar.series, x(r), cy) }
                    <text class="value" x={(plot_x + plot_w + 8.0).to_string()} y={(cy + 4.0).to_string()}>
                        { format!("{} [{}–{}] {}/{}", pct(r), pct(w.lo), pct(w.hi), bar.rate.successes, bar.rate.n) }
                    </text>
                </g>
            });
            y += row_h;
        }
        body.push(html! {
            <text class="group-label" x={(label_w).to_string()} y={((first + y) / 2.0 + 4.0).to_string()} text-anchor="end">{ &g.label }</text>
        });
    }
    let ticks = [0.0, 0.25, 0.5, 0.75, 1.0];
    html! {
        <figure class="chart">
            <svg viewBox={format!("0 0 700 {height}")} role="img" aria-label={title.to_string()}>
                <title>{ title }</title>
                { for ticks.iter().map(|t| html! {
                    <g>
                        <line class="grid-line" x1={x(*t).to_string()} x2={x(*t).to_string()} y1="18" y2={height.to_string()} />
                        <text class="tick" x={x(*t).to_string()} y="12" text-anchor="middle">{ format!("{:.0}%", t * 100.0) }</text>
                    </g>
                }) }
                { for body }
            </svg>
            <figcaption>{ title }{ " — bars are pass rates, whiskers 95% Wilson intervals." }</figcaption>
        </figure>
    }
}

/// One polygon of a radar chart: a series' values on each axis, 0..1.
#[derive(Debug, Clone, PartialEq)]
pub struct Spoke {
    pub series: usize,
    pub values: Vec<f64>,
}

/// A radar chart: `axes` around the circle, one polygon per series.
pub fn radar(title: &str, axes: &[&str], polygons: &[Spoke]) -> Html {
    let (cx, cy, r) = (150.0, 135.0, 90.0);
    let n = axes.len().max(3) as f64;
    let point = |i: usize, v: f64| {
        let a = -std::f64::consts::FRAC_PI_2 + i as f64 * std::f64::consts::TAU / n;
        (cx + r * v * a.cos(), cy + r * v * a.sin())
    };
    let ring = |v: f64| {
        (0..axes.len())
            .map(|i| point(i, v))
            .map(|(x, y)| format!("{x:.1},{y:.1}"))
            .collect::<Vec<_>>()
            .join(" ")
    };
    html! {
        <figure class="radar">
            <svg viewBox="0 0 300 280" role="img" aria-label={title.to_string()}>
                <title>{ title }</title>
                { for [0.25, 0.5, 0.75, 1.0].iter().map(|v| html! { <polygon class="ring" points={ring(*v)} /> }) }
                { for axes.iter().enumerate().map(|(i, name)| {
                    let (x, y) = point(i, 1.0);
                    let (tx, ty) = point(i, 1.18);
                    html! {
                        <g>
                            <line class="spoke" x1={cx.to_string()} y1={cy.to_string()} x2={x.to_string()} y2={y.to_string()} />
                            <text class="axis" x={tx.to_string()} y={(ty + 4.0).to_string()} text-anchor="middle">{ *name }</text>
                        </g>
                    }
                }) }
                { for polygons.iter().map(|p| {
                    let pts: Vec<(f64, f64)> = p.values.iter().enumerate().map(|(i, v)| point(i, v.clamp(0.0, 1.0))).collect();
                    let points = pts.iter().map(|(x, y)| format!("{x:.1},{y:.1}")).collect::<Vec<_>>().join(" ");
                    html! {
                        <g>
                            <polygon class={format!("area s{}", p.series % 6)} {points} />
                            { for pts.iter().map(|(x, y)| marker(p.series, *x, *y)) }
                        </g>
                    }
                }) }
            </svg>
            <figcaption>{ title }</figcaption>
        </figure>
    }
}
