//! State panels ([`crate::view::Panel`]): a grid such as the ping matrix, a table such as the
//! mismatch list, or lines such as a graph diff. Each cell shows its tone's symbol with the
//! colour, and carries its title for hover and screen readers.
//!
//! Every panel folds (its title and summary stay in view), and long line lists show their
//! first entries with the rest behind "show all", so the state after a turn never pushes that
//! turn's own output out of sight. In compact form (the terminal) large grids start folded.

use yew::prelude::*;

use super::{tone_class, tone_words};
use crate::view::{Grid, Panel, Table, Tone};

#[derive(Properties, PartialEq)]
pub struct PanelsProps {
    pub panels: Vec<Panel>,
    /// Fold grids larger than [`COMPACT_ROWS`] until opened.
    #[prop_or_default]
    pub compact: bool,
}

/// Rows up to which a grid stays open in compact form.
const COMPACT_ROWS: usize = 6;

/// Entries of a line list shown before "show all".
const FIRST_LINES: usize = 3;

#[function_component(Panels)]
pub fn panels(props: &PanelsProps) -> Html {
    html! { <div class="panels">{ for props.panels.iter().map(|p| panel(p, props.compact)) }</div> }
}

fn panel(p: &Panel, compact: bool) -> Html {
    let (title, summary, body, open) = match p {
        Panel::Grid { title, summary, grid } => {
            (title, summary, grid_html(grid, compact), !compact || grid.rows.len() <= COMPACT_ROWS)
        }
        Panel::Table { title, summary, table } => (title, summary, table_html(table), true),
        Panel::Lines { title, summary, lines } => (title, summary, lines_html(lines), true),
    };
    html! {
        <details class="panel" {open}>
            <summary>
                <h4>{ title }{ if summary.is_empty() { html! {} } else { html! { <span class="summary">{ summary }</span> } } }</h4>
            </summary>
            { body }
        </details>
    }
}

fn grid_html(g: &Grid, compact: bool) -> Html {
    let mut used: Vec<Tone> = g.cells.iter().flatten().map(|c| c.tone).collect();
    used.sort_by_key(|t| *t as u8);
    used.dedup();
    html! {
        <div class="grid-wrap">
            <table class={classes!("grid", compact.then_some("compact"))}>
                <thead><tr><th></th>{ for g.cols.iter().map(|c| html! { <th scope="col">{ c }</th> }) }</tr></thead>
                <tbody>
                { for g.rows.iter().zip(&g.cells).map(|(name, row)| html! {
                    <tr>
                        <th scope="row">{ name }</th>
                        { for row.iter().map(|c| html! {
                            <td class={classes!("cell", tone_class(c.tone))} title={c.title.clone()}
                                aria-label={format!("{}: {}", c.title, tone_words(c.tone))}>{ c.tone.symbol() }</td>
                        }) }
                    </tr>
                }) }
                </tbody>
            </table>
            <p class="legend">
            { for used.iter().filter(|t| !tone_words(**t).is_empty()).map(|t| html! {
                <span class={classes!("key", tone_class(*t))}><b>{ t.symbol() }</b>{ " " }{ tone_words(*t) }</span>
            }) }
            </p>
        </div>
    }
}

fn table_html(t: &Table) -> Html {
    if t.rows.is_empty() {
        return html! { <p class="muted">{ "(none)" }</p> };
    }
    html! {
        <div class="table-wrap">
            <table class="data">
                <thead><tr><th aria-label="state"></th>{ for t.headers.iter().map(|h| html! { <th scope="col">{ h }</th> }) }</tr></thead>
                <tbody>
                { for t.rows.iter().enumerate().map(|(i, row)| {
                    let tone = t.tones.get(i).copied().unwrap_or(Tone::Neutral);
                    html! {
                        <tr class={tone_class(tone)}>
                            <td class="sym" title={tone_words(tone)}>{ tone.symbol() }</td>
                            { for row.iter().map(|c| html! { <td>{ c }</td> }) }
                        </tr>
                    }
                }) }
                </tbody>
            </table>
        </div>
    }
}

fn line_html((tone, line): &(Tone, String)) -> Html {
    html! { <li class={tone_class(*tone)}><span class="sym" title={tone_words(*tone)}>{ tone.symbol() }</span>{ line }</li> }
}

/// A line list; a long one as its first entries on one line and the whole list folded.
fn lines_html(lines: &[(Tone, String)]) -> Html {
    if lines.is_empty() {
        return html! { <p class="muted">{ "(none)" }</p> };
    }
    if lines.len() <= FIRST_LINES + 1 {
        return html! { <ul class="lines">{ for lines.iter().map(line_html) }</ul> };
    }
    let first: Vec<&str> = lines.iter().take(FIRST_LINES).map(|(_, l)| l.as_str()).collect();
    html! {
        <div class="lines-summary">
            <p class="first-lines">{ format!("{}, …", first.join(", ")) }</p>
            <details class="all-lines">
                <summary>{ format!("show all {}", lines.len()) }</summary>
                <ul class="lines">{ for lines.iter().map(line_html) }</ul>
            </details>
        </div>
    }
}
