//! Plain data the surfaces draw: state panels (grids, tables, lines) and topology pictures.
//!
//! Applications fill these in; the web app renders them as HTML and SVG and the CLI as text,
//! without knowing which application produced them. Every cell carries a [`Tone`] *and* a
//! symbol, so meaning never rests on colour alone.

use serde::{Deserialize, Serialize};

/// How a cell, row or line should read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Tone {
    /// Working as intended.
    Good,
    /// Failing.
    Bad,
    /// Was working and is now broken (a safety violation).
    Broken,
    /// Was failing and now works.
    Fixed,
    /// Not applicable (the diagonal of a matrix).
    None,
    /// Informational.
    Neutral,
}

impl Tone {
    /// The symbol shown with the colour.
    pub fn symbol(self) -> &'static str {
        match self {
            Tone::Good => "✓",
            Tone::Bad => "✗",
            Tone::Broken => "!",
            Tone::Fixed => "+",
            Tone::None => "·",
            Tone::Neutral => "",
        }
    }
}

/// One grid cell.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Cell {
    pub tone: Tone,
    /// Tooltip / accessible text, e.g. `h1 → h2: lost`.
    pub title: String,
}

/// A square or rectangular matrix such as the ping matrix (rows = sources).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Grid {
    pub rows: Vec<String>,
    pub cols: Vec<String>,
    /// `cells[r][c]`.
    pub cells: Vec<Vec<Cell>>,
}

/// A table with an optional tone per row.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Table {
    pub headers: Vec<String>,
    pub rows: Vec<Vec<String>>,
    pub tones: Vec<Tone>,
}

/// One block of a state view.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Panel {
    Grid { title: String, summary: String, grid: Grid },
    Table { title: String, summary: String, table: Table },
    Lines { title: String, summary: String, lines: Vec<(Tone, String)> },
}

impl Panel {
    pub fn title(&self) -> &str {
        match self {
            Panel::Grid { title, .. } | Panel::Table { title, .. } | Panel::Lines { title, .. } => title,
        }
    }
}

/// A node of a topology picture, positioned by the application in a 0..1000 × 0..1000 box.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PicNode {
    pub id: String,
    pub label: String,
    /// What it is (`router`, `switch`, `host`, `service`, `block`, …); the UI picks a shape.
    pub role: String,
    pub x: f64,
    pub y: f64,
    pub tone: Tone,
}

/// An edge of a topology picture.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PicEdge {
    pub from: String,
    pub to: String,
    pub label: String,
    pub tone: Tone,
    /// Drawn with an arrow head (call graphs) or as a plain link (cables).
    pub directed: bool,
}

/// A topology picture.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Picture {
    pub caption: String,
    pub nodes: Vec<PicNode>,
    pub edges: Vec<PicEdge>,
}

/// Renders panels as plain text (CLI `exec`, logs).
pub fn panels_to_text(panels: &[Panel]) -> String {
    let mut out = String::new();
    for panel in panels {
        match panel {
            Panel::Grid { title, summary, grid } => {
                out.push_str(&format!("{title}: {summary}\n"));
                let width = grid.rows.iter().map(String::len).max().unwrap_or(0);
                for (name, row) in grid.rows.iter().zip(&grid.cells) {
                    let cells: Vec<&str> = row.iter().map(|c| c.tone.symbol()).collect();
                    out.push_str(&format!("  {name:<width$} {}\n", cells.join(" ")));
                }
            }
            Panel::Table { title, summary, table } => {
                out.push_str(&format!("{title}: {summary}\n"));
                for row in &table.rows {
                    out.push_str(&format!("  {}\n", row.join(" | ")));
                }
            }
            Panel::Lines { title, summary, lines } => {
                out.push_str(&format!("{title}: {summary}\n"));
                for (tone, line) in lines {
                    out.push_str(&format!("  {} {line}\n", tone.symbol()));
                }
            }
        }
    }
    out
}
