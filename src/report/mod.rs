//! What a researcher publishes, straight from the results: [`tables`] (the numbers as plain
//! data), [`text`] (table, Markdown, CSV and JSON renderings), [`chart`] (chart models built from
//! the numbers), [`svg`] (the charts drawn as SVG) and [`html`] (the self-contained report).
//!
//! The library has no web dependencies: charts are strings of SVG or plain data, so the CLI
//! writes them into files and the web app's Compare view puts the same strings on the page.

pub mod chart;
pub mod html;
pub mod svg;
pub mod tables;
pub mod text;

pub use chart::{Chart, ChartKind, Estimate, Point, Series};
pub use tables::{Outcome, QueryRow, Section, Standing, Tables};
pub use text::Format;

use crate::provenance::Provenance;
use crate::record::ResultRecord;

/// The numbers and charts of some results.
pub fn build(records: &[ResultRecord], provenance: Provenance) -> (Tables, Vec<Chart>) {
    let tables = Tables::build(records, provenance);
    let charts = chart::all(&tables, records);
    (tables, charts)
}
