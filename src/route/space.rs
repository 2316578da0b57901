//! Route's task space for adaptive mode: level, routers, subnets, hosts, fault families and
//! turn limit, with the generator's own constraints between them (docs/adapt.md lists the
//! cells: 560 at level 1, 1,680 at level 2, 21,280 at level 3).

use super::generate::{combinations, draw, faults_at};
use crate::adapt::{Cell, Dim, Enc, Reference, Space, Via, realise_knobs, scan};
use crate::error::Result;
use crate::id::QueryId;

/// Turn limits searched (a log scale).
const TURNS: [&str; 4] = ["3", "5", "10", "20"];

pub fn space() -> Space {
    let families: Vec<String> = (1..=3u8)
        .flat_map(combinations)
        .map(|c| c.iter().map(|f| f.name()).collect::<Vec<_>>().join("+"))
        .collect();
    Space {
        id: "route-space-v1",
        dims: vec![
            Dim::range("level", 1, 3, Via::Level, Enc::Ordinal),
            Dim::range("routers", 1, 4, Via::Knob('r'), Enc::Ordinal),
            Dim::range("subnets", 2, 16, Via::Knob('n'), Enc::Ordinal),
            Dim::range("hosts", 1, 4, Via::Knob('m'), Enc::Ordinal),
            Dim { name: "families", values: families, via: Via::Knob('f'), enc: Enc::Counts },
            Dim::new("turns", &TURNS, Via::Knob('t'), Enc::Log2),
        ],
        reference: Reference::Baseline,
    }
}

/// The generator's constraints: routers only at level 3; subnets 2..8 at levels 1–2, 9..16
/// with one router, routers..12 with more; as many families as the level has faults.
pub fn feasible(cell: &Cell) -> bool {
    let [level, routers, subnets, _, families, _] = cell.0[..] else { return false };
    let (level, r, n) = (level as u8 + 1, u32::from(routers) + 1, u32::from(subnets) + 2);
    let faults = |i: u16| {
        let sizes = [5, 15, 35];
        let mut i = i as usize;
        for (k, size) in sizes.iter().enumerate() {
            if i < *size {
                return k + 1;
            }
            i -= size;
        }
        0
    };
    let subnets_ok = match (level, r) {
        (1 | 2, 1) => (2..=8).contains(&n),
        (3, 1) => (9..=16).contains(&n),
        (3, r) => (r..=12).contains(&n),
        _ => false,
    };
    subnets_ok && faults(families) == faults_at(level)
}

/// The id of a cell: its knobs written out, `-r` left out below level 3 (where it is refused),
/// at the smallest index whose draw succeeds. A few small networks with some fault pairs have
/// no valid draw for some seeds (the generator reports them exhausted); trying the next index
/// keeps every cell's ids generable.
pub fn realise(info: &crate::app::AppInfo, space: &Space, cell: &Cell, seed: u64) -> Result<QueryId> {
    let mut id = realise_knobs(info, space, cell, seed)?;
    if id.level < 3 {
        id.knobs.retain(|k| k.key != 'r');
    }
    scan(id, 64, |id| draw(id).is_ok())
}

/// The three functions above, as [`crate::App::space_of`] takes them.
pub const SPACE: crate::adapt::SpaceOf = crate::adapt::SpaceOf { space, feasible, realise };
