//! BGP's task space for adaptive mode: level, number of ASes, incident family and turn limit
//! (docs/adapt.md, "Task spaces").
//!
//! Every dimension is a knob of the id, so a cell names its tasks directly; the values come
//! from the application's own tables: the ASes from each level's size range (its two ends and
//! their geometric mean), the families from [`Family::ALL`] with the level that introduces
//! each. A family forced alone can be impossible in a small world (docs/bgp.md), so a cell's
//! id is the first index of the seed whose task generates.

use super::family::Family;
use super::level::Level;
use super::task::Task;
use crate::adapt::{Cell, Dim, Enc, Reference, Space, Via, realise_knobs, scan_generating};
use crate::error::Result;
use crate::id::QueryId;

/// Turn limits searched (a log scale), as Route's and K8s's.
const TURNS: [&str; 4] = ["3", "5", "10", "20"];
/// Indexes (and generations) tried per id: a generation that exhausts has already tried nine
/// worlds, so a few indexes more are the most worth paying for.
const TRIES: u32 = 4;

fn levels() -> impl Iterator<Item = Level> {
    (1..=4).filter_map(Level::from_number)
}

/// Each level's AS counts: both ends of its range and their geometric mean, rounded.
fn level_sizes(level: Level) -> [u64; 3] {
    let r = level.sizes().ases;
    let (lo, hi) = (*r.start(), *r.end());
    [lo, ((lo * hi) as f64).sqrt().round() as u64, hi]
}

/// The AS counts of every level, ascending (neighbouring levels share an end).
fn sizes() -> Vec<u64> {
    let mut all: Vec<u64> = levels().flat_map(level_sizes).collect();
    all.sort_unstable();
    all.dedup();
    all
}

pub fn space() -> Space {
    let sizes: Vec<String> = sizes().iter().map(u64::to_string).collect();
    let families: Vec<String> = Family::ALL.iter().map(|f| f.code().to_string()).collect();
    Space {
        id: "bgp-space-v1",
        dims: vec![
            Dim::range("level", 1, 4, Via::Level, Enc::Ordinal),
            Dim { name: "ases", values: sizes, via: Via::Knob('n'), enc: Enc::Log2 },
            Dim { name: "family", values: families, via: Via::Knob('f'), enc: Enc::OneHot },
            Dim::new("turns", &TURNS, Via::Knob('t'), Enc::Log2),
        ],
        reference: Reference::Baseline,
    }
}

/// The level's own AS counts and the families it offers.
pub fn feasible(cell: &Cell) -> bool {
    let [level, ases, family, _] = cell.0[..] else { return false };
    let Some(level) = Level::from_number(level as u8 + 1) else { return false };
    let n = sizes().get(ases as usize).copied();
    let fam = Family::ALL.get(family as usize);
    n.is_some_and(|n| level_sizes(level).contains(&n)) && fam.is_some_and(|f| f.first_level() <= level)
}

/// The cell's knobs written out, at the first index of the seed whose task generates.
pub fn realise(info: &crate::app::AppInfo, space: &Space, cell: &Cell, seed: u64) -> Result<QueryId> {
    let id = realise_knobs(info, space, cell, seed)?;
    scan_generating(id, u64::from(TRIES), TRIES, |_| true, |id| Task::generate(id).is_ok())
}

/// The three functions above, as [`crate::App::space_of`] takes them.
pub const SPACE: crate::adapt::SpaceOf = crate::adapt::SpaceOf { space, feasible, realise };
