//! K8s's task space for adaptive mode: level, fault types, allowed verbs and turn limit.
//!
//! The fault types are not a knob: the generator's first draw from the id's seed material
//! (which the turn and verb knobs do not enter) picks the level's type set. A cell's id is
//! therefore the smallest index whose first draw lands on the cell's set, found without
//! generating anything.

use super::generate::{label, type_sets};
use crate::adapt::{Cell, Dim, Enc, Reference, Space, Via, realise_knobs, scan};
use crate::error::Result;
use crate::id::QueryId;
use crate::seed::{Stream, Width};

fn set_name(level: u8, i: usize) -> String {
    let l = label(level, &type_sets(level)[i]);
    l.split_once(':').map_or(l.clone(), |(_, s)| s.to_string())
}

pub fn space() -> Space {
    let faults: Vec<String> =
        (1..=3u8).flat_map(|level| (0..type_sets(level).len()).map(move |i| set_name(level, i))).collect();
    Space {
        id: "k8s-space-v1",
        dims: vec![
            Dim::range("level", 1, 3, Via::Level, Enc::Ordinal),
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
    for level in 1..=3u8 {
        let n = type_sets(level).len();
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
    let sets = type_sets(level).len();
    scan(id, 64 * sets as u64, |id| Stream::new(&id.seed_material(false), Width::W32).index(sets) == want)
}
