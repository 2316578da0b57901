//! Micro-segmentation's task space for adaptive mode: level, family, scale (instances per role)
//! and turn limit (docs/adapt.md, "Task spaces").
//!
//! The family is not a knob: an id's family is its index modulo the level's family count
//! ([`Family::of_index`]), so a cell's id is the smallest index of the seed with the cell's
//! family. Families repeat across levels, so the dimension lists each once and a level takes
//! those it offers. A turn limit above 5 makes every family but repair single-shot (the same
//! episode as one turn), so only repair's cells have the default limit of 10. A repair
//! family's faults can fail to show on a tenant, so an id must also generate.

use super::family::Family;
use super::task::generate;
use super::world::DEFAULT_SCALE;
use crate::adapt::{Cell, Dim, Enc, Reference, Space, Via, first_appearance, realise_knobs, scan_generating};
use crate::error::Result;
use crate::id::QueryId;

/// The levels of the space.
const LEVELS: u8 = 4;
/// Turn limits searched: the resubmitting range and repair's default.
const TURNS: [&str; 5] = ["1", "2", "3", "5", "10"];
/// Generations tried per id (a tenant, and so a failure, is the seed's, not the index's).
const TRIES: u32 = 4;

/// Every family once, in order of first appearance by level.
fn families() -> Vec<Family> {
    first_appearance((1..=LEVELS).flat_map(|l| Family::of_level(l).iter().copied()))
}

/// Instances per role: half the default, the default and twice it.
fn scales() -> [u32; 3] {
    [DEFAULT_SCALE / 2, DEFAULT_SCALE, DEFAULT_SCALE * 2]
}

pub fn space() -> Space {
    let families: Vec<String> = families().iter().map(|f| f.id().to_string()).collect();
    let scales: Vec<String> = scales().iter().map(u32::to_string).collect();
    Space {
        id: "microseg-space-v1",
        dims: vec![
            Dim::range("level", 1, u32::from(LEVELS), Via::Level, Enc::Ordinal),
            Dim { name: "family", values: families, via: Via::Scan, enc: Enc::OneHot },
            Dim { name: "scale", values: scales, via: Via::Knob('n'), enc: Enc::Log2 },
            Dim::new("turns", &TURNS, Via::Knob('t'), Enc::Log2),
        ],
        reference: Reference::Baseline,
    }
}

/// The level's families; more than 5 turns for repair only.
pub fn feasible(cell: &Cell) -> bool {
    let [level, family, _, turns] = cell.0[..] else { return false };
    let Some(f) = families().get(family as usize).copied() else { return false };
    let multi = TURNS.get(turns as usize).and_then(|t| t.parse::<u32>().ok()).is_some_and(|t| t > 5);
    Family::of_level(level as u8 + 1).contains(&f) && (!multi || f == Family::Repair)
}

pub fn realise(info: &crate::app::AppInfo, space: &Space, cell: &Cell, seed: u64) -> Result<QueryId> {
    let id = realise_knobs(info, space, cell, seed)?;
    let want = families().get(cell.0[1] as usize).copied();
    let count = Family::of_level(id.level).len() as u64;
    let fits = |id: &QueryId| Some(Family::of_index(id.level, id.index)) == want;
    scan_generating(id, 64 * count, TRIES, fits, |id| generate(id).is_ok())
}

/// The three functions above, as [`crate::App::space_of`] takes them.
pub const SPACE: crate::adapt::SpaceOf = crate::adapt::SpaceOf { space, feasible, realise };
