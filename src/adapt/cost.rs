//! The fixture of the search's own cost (docs/adapt.md, "Cost"): a search of the whole Route
//! space with ten rounds of 15 synthetic evaluations behind it, and one round's search work on
//! it (fit, 4,096+ candidates, a batch of five by kriging believer). `cargo bench --bench adapt`
//! times it natively; the web app's Benchmark view times the same calls in the page, over the
//! space the Route worker describes.

use super::search::{Point, Search};
use super::space::Cell;
use super::space::Reference;
use super::state::{Phase, Settings};
use crate::app::App;
use crate::conversation::AgentInfo;
use crate::error::{Error, Result};
use crate::id::QueryId;

/// Evaluations behind the timed round (ten rounds of the default budget).
pub const EVALUATIONS: usize = 150;

/// A search of `app`'s space (Route's, or the page's stand-in for it) with [`EVALUATIONS`]
/// synthetic evaluations of 10 seeds: the agent fails two seeds in three at 9 subnets or more.
pub fn route_search_with_history(app: &dyn App) -> Result<Search<'_>> {
    let mut search = Search::new(app, Settings::new(Reference::Baseline), AgentInfo::new("bench", "x"))?;
    let n = search.cells().len();
    if n == 0 || search.space().dim("subnets").is_none() {
        return Err(Error::Invalid(format!("{}: not Route's space", search.space().id)));
    }
    let ids = vec![QueryId::new("route", 1, 1, 0, 0); 10];
    for e in 0..EVALUATIONS {
        let cell = search.cells()[(e * 7919) % n].clone();
        let subnets: u32 = search.space().value(&cell, "subnets").and_then(|v| v.parse().ok()).unwrap_or(0);
        let agent: Vec<f64> = (0..10).map(|i| if subnets >= 9 && i % 3 != 0 { 0.0 } else { 1.0 }).collect();
        let point = Point { round: (e / 15) as u32 + 1, phase: Phase::Random, cell, ids: ids.clone() };
        search.record(&point, agent, vec![1.0; 10]);
    }
    Ok(search)
}

/// One round's search work: the last round's guided batch, fitted on all 150 evaluations (its
/// own 15 are random points).
pub fn round_work(search: &Search<'_>) -> Vec<Cell> {
    search.pick_guided((EVALUATIONS / 15) as u32, &[])
}
