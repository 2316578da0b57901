//! MALT's task space for adaptive mode: level, query family, topology shape and wording.
//!
//! Family and wording are not knobs: an id's family is its index modulo the level's family
//! count, and its wording the first draw of its canonical id's stream. A cell's id is the
//! smallest index with both, found without generating. The topology seed is not searched and
//! the `xl` shape is searched only with `--allow-xl` (its build alone takes about half a
//! second; see [`crate::adapt::XL`]).

use super::family::Family;
use super::generate::{canonical, family_of, topo_key, wording};
use crate::adapt::{Cell, Dim, Enc, Reference, Space, Via, realise_knobs, scan};
use crate::error::Result;
use crate::id::QueryId;

fn families() -> Vec<Family> {
    (1..=4u8).flat_map(Family::of_level).collect()
}

pub fn space() -> Space {
    let names: Vec<String> = families().iter().map(|f| f.id().to_string()).collect();
    Space {
        // v2: the `xl` shape joined (searched only with `--allow-xl`).
        id: "malt-space-v2",
        dims: vec![
            Dim::range("level", 1, 4, Via::Level, Enc::Ordinal),
            Dim { name: "family", values: names, via: Via::Scan, enc: Enc::OneHot },
            Dim::new("shape", &["small", "default", "large", "xl"], Via::Knob('k'), Enc::Ordinal),
            Dim::range("wording", 1, 3, Via::Scan, Enc::OneHot),
        ],
        reference: Reference::Oracle,
    }
}

pub fn feasible(cell: &Cell) -> bool {
    families().get(cell.0[1] as usize).is_some_and(|f| f.level() == cell.0[0] as u8 + 1)
}

pub fn realise(info: &crate::app::AppInfo, space: &Space, cell: &Cell, seed: u64) -> Result<QueryId> {
    let mut id = realise_knobs(info, space, cell, seed)?;
    id.knobs.retain(|k| !(k.key == 'k' && k.value == "default"));
    let id = canonical(&id, topo_key(&id)?);
    let family = families().get(cell.0[1] as usize).copied();
    let want = cell.0[3] as u8 + 1;
    let count = Family::of_level(id.level).len() as u64;
    scan(id, 64 * 3 * count, |id| Some(family_of(id.level, id.index)) == family && wording(id) == want)
}

/// The three functions above, as [`crate::App::space_of`] takes them.
pub const SPACE: crate::adapt::SpaceOf = crate::adapt::SpaceOf { space, feasible, realise };
