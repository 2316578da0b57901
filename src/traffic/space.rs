//! Traffic's task space for adaptive mode: level, question family, mock graph size and turn
//! limit (docs/adapt.md, "Task spaces").
//!
//! The family is not a knob: an id's family is its index modulo the level's family count
//! ([`Family::of_index`]), so a cell's id is the smallest index of the seed with the cell's
//! family. The nodes of the mock graph range over powers of two around its default; the flow
//! families (flow-graph among them) read the tenant's logs, not the mock, so their cells keep
//! the default size; a composed question runs on the mock, so it takes every size. A
//! clique count can exceed its step budget on some graphs, so an id must also generate.

use super::family::Family;
use super::task::{DEFAULT_NODES, MAX_TURNS, generate};
use crate::adapt::{Cell, Dim, Enc, Reference, Space, Via, first_appearance, realise_knobs, scan_generating};
use crate::error::Result;
use crate::id::QueryId;

/// The levels of the space.
const LEVELS: u8 = 4;
/// Generations tried per id (the mock, and so a failure, is the seed's, not the index's).
const TRIES: u32 = 4;

/// Every family once, in order of first appearance by level.
fn families() -> Vec<Family> {
    first_appearance((1..=LEVELS).flat_map(|l| Family::of_level(l).iter().copied()))
}

/// The mock's node counts: its default over four, over two, itself, twice and four times.
fn nodes() -> Vec<u64> {
    [DEFAULT_NODES / 4, DEFAULT_NODES / 2, DEFAULT_NODES, DEFAULT_NODES * 2, DEFAULT_NODES * 4].to_vec()
}

pub fn space() -> Space {
    let families: Vec<String> = families().iter().map(|f| f.id().to_string()).collect();
    let nodes: Vec<String> = nodes().iter().map(u64::to_string).collect();
    Space {
        // v2: label-prefix, edge-stat, color-extreme, label-graph and prefix-graph joined;
        // v3: level 4 (compose, flow-graph) joined.
        id: "traffic-space-v3",
        dims: vec![
            Dim::range("level", 1, u32::from(LEVELS), Via::Level, Enc::Ordinal),
            Dim { name: "family", values: families, via: Via::Scan, enc: Enc::OneHot },
            Dim { name: "nodes", values: nodes, via: Via::Knob('n'), enc: Enc::Log2 },
            Dim::range("turns", 1, MAX_TURNS, Via::Knob('t'), Enc::Ordinal),
        ],
        reference: Reference::Baseline,
    }
}

/// The level's families; a flow family at the default size only.
pub fn feasible(cell: &Cell) -> bool {
    let [level, family, n, _] = cell.0[..] else { return false };
    let Some(f) = families().get(family as usize).copied() else { return false };
    let level_ok = Family::of_level(level as u8 + 1).contains(&f);
    level_ok && (!f.is_flow() || nodes().get(n as usize) == Some(&DEFAULT_NODES))
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
