//! K8s's task space for adaptive mode: level, fault types, allowed verbs and turn limit.
//!
//! The fault types are not a knob: the generator's first draw from the id's seed material
//! (which the turn and verb knobs do not enter) picks the level's type set. A cell's id is
//! therefore the smallest index whose first draw lands on the cell's set, found without
//! generating anything. Level 4 draws its pair (a NetworkPolicy fault type and an admin-policy
//! fault type) from its own list the same way, so its pairs are fault values like the others'.

use super::generate::{label, type_sets};
use super::tenancy;
use crate::adapt::{Cell, Dim, Enc, Reference, Space, Via, realise_knobs, scan};
use crate::error::Result;
use crate::id::QueryId;
use crate::seed::{Stream, Width};

/// The levels of the space.
const LEVELS: u8 = 4;

/// How many type sets a level draws from.
fn set_count(level: u8) -> usize {
    if level == 4 { tenancy::type_sets().len() } else { type_sets(level).len() }
}

/// A set's value: its label without the level (`NP+EDNS`, `CP+SHD`).
fn set_name(level: u8, i: usize) -> String {
    let l = if level == 4 {
        let (np, admin) = tenancy::type_sets()[i];
        tenancy::label(np, admin)
    } else {
        label(level, &type_sets(level)[i])
    };
    l.split_once(':').map_or(l.clone(), |(_, s)| s.to_string())
}

pub fn space() -> Space {
    let faults: Vec<String> =
        (1..=LEVELS).flat_map(|level| (0..set_count(level)).map(move |i| set_name(level, i))).collect();
    Space {
        // v2: level 4 and its 25 fault pairs joined.
        id: "k8s-space-v2",
        dims: vec![
            Dim::range("level", 1, u32::from(LEVELS), Via::Level, Enc::Ordinal),
            Dim { name: "faults", values: faults, via: Via::Scan, enc: Enc::Counts },
            Dim::new("verbs", &["none", "a", "c", "d", "ac", "ad", "cd", "acd"], Via::Knob('v'), Enc::OneHot),
            Dim::new("turns", &["3", "5", "10", "20"], Via::Knob('t'), Enc::Log2),
        ],
        reference: Reference::Baseline,
    }
}

/// The position of a fault-set value within its level's sets, and that level.
fn set_of(value: u16) -> (u8, usize) {
    let mut i = value as usize;
    for level in 1..=LEVELS {
        let n = set_count(level);
        if i < n {
            return (level, i);
        }
        i -= n;
    }
    (0, 0)
}

pub fn feasible(cell: &Cell) -> bool {
    let (level, _) = set_of(cell.0[1]);
    cell.0[0] as u8 + 1 == level
}

pub fn realise(info: &crate::app::AppInfo, space: &Space, cell: &Cell, seed: u64) -> Result<QueryId> {
    let id = realise_knobs(info, space, cell, seed)?;
    let (level, want) = set_of(cell.0[1]);
    let sets = set_count(level);
    scan(id, 64 * sets as u64, |id| Stream::new(&id.seed_material(false), Width::W32).index(sets) == want)
}

/// The three functions above, as [`crate::App::space_of`] takes them.
pub const SPACE: crate::adapt::SpaceOf = crate::adapt::SpaceOf { space, feasible, realise };
