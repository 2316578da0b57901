//! Task spaces: the typed, discretised dimensions an application's ids vary along.
//!
//! A [`Space`] lists dimensions ([`Dim`]) in a fixed order; a [`Cell`] picks one value index
//! per dimension. Every cell becomes an ordinary, replayable id through [`crate::App::realise`],
//! so an adaptive search never runs anything a benchmark run could not. How a dimension reaches
//! an id ([`Via`]) and how it enters the surrogate's kernel ([`Enc`]) are declared per
//! dimension; the surrogate's features are computed here (docs/adapt.md, "Features").

use serde::{Deserialize, Serialize};

use crate::app::{App, AppInfo};
use crate::error::{Error, Result};
use crate::id::QueryId;

/// How a dimension reaches an id.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Via {
    /// The id's level (`L2`).
    Level,
    /// A knob of the id (`-n7`).
    Knob(char),
    /// The id's index: the smallest index of the seed whose task lies in the cell.
    Scan,
}

/// How a dimension enters the surrogate's kernel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Enc {
    /// `index / (values − 1)`.
    Ordinal,
    /// The base-2 logarithm of the (numeric) value, scaled to [0, 1] over the values.
    Log2,
    /// One coordinate per value, scaled so that two categories are at distance 1.
    OneHot,
    /// A `+`-joined multiset of codes: each code's count over the multiset's size.
    Counts,
}

/// One dimension of a space.
#[derive(Debug, Clone)]
pub struct Dim {
    pub name: &'static str,
    pub values: Vec<String>,
    pub via: Via,
    pub enc: Enc,
}

impl Dim {
    /// A dimension whose values are the given strings.
    pub fn new(name: &'static str, values: &[&str], via: Via, enc: Enc) -> Dim {
        Dim { name, values: values.iter().map(|v| v.to_string()).collect(), via, enc }
    }

    /// A dimension over the integers `lo..=hi`.
    pub fn range(name: &'static str, lo: u32, hi: u32, via: Via, enc: Enc) -> Dim {
        Dim { name, values: (lo..=hi).map(|v| v.to_string()).collect(), via, enc }
    }

    /// The index of `value`, if it is one of the dimension's values.
    pub fn position(&self, value: &str) -> Option<u16> {
        self.values.iter().position(|v| v == value).map(|i| i as u16)
    }
}

/// What an agent's score is compared with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Reference {
    /// The application's deterministic baseline, run on the same ids.
    Baseline,
    /// A perfect solver: score 1 on every task (every generated task is solvable).
    Oracle,
}

impl Reference {
    pub fn parse(s: &str) -> Result<Reference> {
        match s {
            "baseline" => Ok(Reference::Baseline),
            "oracle" => Ok(Reference::Oracle),
            _ => Err(Error::Invalid(format!("unknown reference {s:?} (baseline, oracle)"))),
        }
    }
}

/// An application's task space.
#[derive(Debug, Clone)]
pub struct Space {
    /// Names the dims and their values, e.g. `route-space-v1`; a change of either bumps it.
    pub id: &'static str,
    pub dims: Vec<Dim>,
    pub reference: Reference,
}

/// What an application's `space` module gives adaptive mode: its space, which cells name
/// tasks the generator makes, and how a cell becomes an id. An application hands these three
/// functions to [`App::space_of`] as one value, so that the trait's `space`, `feasible` and
/// `realise` are written once instead of forwarded by every application.
#[derive(Clone, Copy)]
pub struct SpaceOf {
    pub space: fn() -> Space,
    pub feasible: fn(&Cell) -> bool,
    pub realise: fn(&AppInfo, &Space, &Cell, u64) -> Result<QueryId>,
}

/// One value index per dimension, in dimension order.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Cell(pub Vec<u16>);

impl Space {
    /// The space of an application that declares none: its levels, compared with its baseline.
    pub fn levels(info: &AppInfo) -> Space {
        let values: Vec<String> = info.levels.iter().map(|l| l.level.to_string()).collect();
        let dim = Dim { name: "level", values, via: Via::Level, enc: Enc::Ordinal };
        Space { id: "levels-space-v1", dims: vec![dim], reference: Reference::Baseline }
    }

    /// The dimension called `name` and its position.
    pub fn dim(&self, name: &str) -> Option<(usize, &Dim)> {
        self.dims.iter().enumerate().find(|(_, d)| d.name == name)
    }

    /// The value of dimension `name` in `cell`.
    pub fn value<'a>(&'a self, cell: &Cell, name: &str) -> Option<&'a str> {
        let (i, d) = self.dim(name)?;
        d.values.get(*cell.0.get(i)? as usize).map(String::as_str)
    }

    /// The grid index of a cell: mixed radix, the first dimension most significant.
    pub fn index(&self, cell: &Cell) -> u64 {
        self.dims.iter().zip(&cell.0).fold(0, |acc, (d, &v)| acc * d.values.len() as u64 + u64::from(v))
    }

    /// The cell of a grid index (the inverse of [`Space::index`]).
    pub fn cell_at(&self, mut index: u64) -> Cell {
        let mut out = vec![0u16; self.dims.len()];
        for (slot, d) in out.iter_mut().zip(&self.dims).rev() {
            let m = d.values.len() as u64;
            *slot = (index % m) as u16;
            index /= m;
        }
        Cell(out)
    }

    /// Every cell of the grid, feasible or not, in index order.
    pub fn grid_len(&self) -> u64 {
        self.dims.iter().map(|d| d.values.len() as u64).product()
    }

    /// The cell's values by dimension name, in dimension order.
    pub fn named(&self, cell: &Cell) -> Vec<(String, String)> {
        self.dims
            .iter()
            .zip(&cell.0)
            .map(|(d, &v)| (d.name.to_string(), d.values[v as usize].clone()))
            .collect()
    }

    /// The cell from values by dimension name (every dimension named once).
    pub fn parse_named(&self, named: &[(String, String)]) -> Result<Cell> {
        let mut out = Vec::with_capacity(self.dims.len());
        for d in &self.dims {
            let value =
                named.iter().find(|(n, _)| n == d.name).map(|(_, v)| v.as_str()).ok_or_else(|| {
                    Error::Invalid(format!("cell has no value for dimension {:?} of {}", d.name, self.id))
                })?;
            let pos = d.position(value).ok_or_else(|| {
                Error::Invalid(format!("{value:?} is not a value of dimension {:?} of {}", d.name, self.id))
            })?;
            out.push(pos);
        }
        Ok(Cell(out))
    }

    /// A short label, e.g. `L2 n7 m2 fDI+WR t10`.
    pub fn label(&self, cell: &Cell) -> String {
        let parts: Vec<String> = self
            .dims
            .iter()
            .zip(&cell.0)
            .map(|(d, &v)| {
                let value = &d.values[v as usize];
                match d.via {
                    Via::Level => format!("L{value}"),
                    Via::Knob(k) => format!("{k}{value}"),
                    Via::Scan => format!("{}={value}", d.name),
                }
            })
            .collect();
        parts.join(" ")
    }

    /// The surrogate's feature vector of a cell (see [`Enc`]).
    pub fn features(&self, cell: &Cell) -> Vec<f64> {
        let mut out = Vec::new();
        for (d, &v) in self.dims.iter().zip(&cell.0) {
            encode(d, v as usize, &mut out);
        }
        out
    }

    /// Every dimension's values encoded once, for encoding many cells (see [`Encoder`]).
    pub fn encoder(&self) -> Encoder {
        let table = self.dims.iter().map(|d| {
            (0..d.values.len())
                .map(|v| {
                    let mut out = Vec::new();
                    encode(d, v, &mut out);
                    out
                })
                .collect()
        });
        Encoder(table.collect())
    }
}

/// [`Space::features`] from a table: a round encodes thousands of candidate cells, and encoding
/// one fault-family value scans every value of its dimension, which was a tenth of a round's
/// search time. Same features, bit for bit.
#[derive(Debug, Clone)]
pub struct Encoder(Vec<Vec<Vec<f64>>>);

impl Encoder {
    pub fn features(&self, cell: &Cell) -> Vec<f64> {
        let mut out = Vec::new();
        for (values, &v) in self.0.iter().zip(&cell.0) {
            out.extend_from_slice(values.get(v as usize).map_or(&[][..], Vec::as_slice));
        }
        out
    }
}

fn encode(d: &Dim, v: usize, out: &mut Vec<f64>) {
    let m = d.values.len();
    match d.enc {
        Enc::Ordinal => out.push(if m > 1 { v as f64 / (m - 1) as f64 } else { 0.0 }),
        Enc::Log2 => {
            let logs: Vec<f64> = d.values.iter().map(|s| log2(s.parse::<f64>().unwrap_or(1.0))).collect();
            let (lo, hi) = logs.iter().fold((f64::MAX, f64::MIN), |(a, b), &x| (a.min(x), b.max(x)));
            out.push(if hi > lo { (logs[v] - lo) / (hi - lo) } else { 0.0 });
        }
        Enc::OneHot => {
            let scale = 1.0 / core::f64::consts::SQRT_2;
            out.extend((0..m).map(|i| if i == v { scale } else { 0.0 }));
        }
        Enc::Counts => {
            let codes = count_codes(d);
            let parts: Vec<&str> = d.values[v].split('+').collect();
            let total = parts.len().max(1) as f64;
            out.extend(codes.iter().map(|c| parts.iter().filter(|p| *p == c).count() as f64 / total));
        }
    }
}

/// Each item once, in order of first appearance: a family dimension lists the families of
/// every level, and a family several levels offer must be one value, not one per level.
pub fn first_appearance<T: PartialEq>(items: impl IntoIterator<Item = T>) -> Vec<T> {
    let mut out: Vec<T> = Vec::new();
    for item in items {
        if !out.contains(&item) {
            out.push(item);
        }
    }
    out
}

/// The distinct codes of a Counts dimension, in order of first appearance.
fn count_codes(d: &Dim) -> Vec<&str> {
    first_appearance(d.values.iter().flat_map(|v| v.split('+')))
}

/// `log2` through libm, so natively and in wasm32 the bits agree.
fn log2(x: f64) -> f64 {
    libm::log2(x)
}

/// Every feasible cell of an application's space, in index order.
pub fn feasible_cells(app: &dyn App, space: &Space) -> Vec<Cell> {
    (0..space.grid_len()).map(|i| space.cell_at(i)).filter(|c| app.feasible(c)).collect()
}

/// The id of a cell for an application whose dims are its level and knobs (the default of
/// [`crate::App::realise`]): level and knob values written as they are, index 0. A knob value
/// `none` leaves the knob out. [`Via::Scan`] dimensions are left to the application's own
/// realise, which calls this and then [`scan`]s the index.
pub fn realise_knobs(info: &AppInfo, space: &Space, cell: &Cell, seed: u64) -> Result<QueryId> {
    let mut id = QueryId::new(info.name, info.version, 1, seed, 0);
    let order = info.knob_order();
    for (d, &v) in space.dims.iter().zip(&cell.0) {
        let value = d.values.get(v as usize).ok_or_else(|| {
            Error::Invalid(format!("value index {v} out of range for dimension {:?}", d.name))
        })?;
        match d.via {
            Via::Level => {
                id.level =
                    value.parse().map_err(|_| Error::Invalid(format!("level {value:?} is not a number")))?
            }
            Via::Knob(_) if value == "none" => {}
            Via::Knob(k) => id = id.with_knob(k, value.clone(), &order),
            // Scanned dims choose the index, which the application's own realise does.
            Via::Scan => {}
        }
    }
    Ok(id)
}

/// The smallest index below `limit` whose task satisfies `fits`, or `GenerationExhausted`
/// naming the first id tried: how [`Via::Scan`] dimensions reach an id.
pub fn scan(id: QueryId, limit: u64, fits: impl Fn(&QueryId) -> bool) -> Result<QueryId> {
    for index in 0..limit {
        let candidate = QueryId { index, ..id.clone() };
        if fits(&candidate) {
            return Ok(candidate);
        }
    }
    Err(Error::GenerationExhausted(id.to_string()))
}

/// [`scan`] for an application whose fitting ids can still fail to generate (a family forced
/// into a world that cannot hold it): the smallest fitting index that also generates, with at
/// most `tries` generations (a failure can be the seed's, not the index's, and one generation
/// can take seconds), else `GenerationExhausted`.
pub fn scan_generating(
    id: QueryId,
    limit: u64,
    tries: u32,
    fits: impl Fn(&QueryId) -> bool,
    generates: impl Fn(&QueryId) -> bool,
) -> Result<QueryId> {
    let left = std::cell::Cell::new(tries);
    scan(id, limit, |c| {
        fits(c) && left.get() > 0 && {
            left.set(left.get() - 1);
            generates(c)
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn space() -> Space {
        Space {
            id: "t-v1",
            dims: vec![
                Dim::range("level", 1, 2, Via::Level, Enc::Ordinal),
                Dim::new("turns", &["3", "5", "10", "20"], Via::Knob('t'), Enc::Log2),
                Dim::new("f", &["DR", "WR", "DR+WR"], Via::Knob('f'), Enc::Counts),
                Dim::new("c", &["a", "b"], Via::Knob('c'), Enc::OneHot),
            ],
            reference: Reference::Baseline,
        }
    }

    #[test]
    fn grid_indexes_round_trip() {
        let s = space();
        assert_eq!(s.grid_len(), 2 * 4 * 3 * 2);
        for i in 0..s.grid_len() {
            assert_eq!(s.index(&s.cell_at(i)), i);
        }
        assert_eq!(s.index(&Cell(vec![1, 0, 0, 0])), 24);
    }

    #[test]
    fn features_follow_the_encodings() {
        let s = space();
        let e = s.encoder();
        for cell in [Cell(vec![1, 3, 2, 1]), Cell(vec![0, 0, 1, 0])] {
            assert_eq!(e.features(&cell), s.features(&cell));
        }
        let f = s.features(&Cell(vec![1, 3, 2, 1]));
        let h = 1.0 / 2f64.sqrt();
        assert_eq!(f, vec![1.0, 1.0, 0.5, 0.5, 0.0, h]);
        let f = s.features(&Cell(vec![0, 0, 1, 0]));
        assert_eq!(f, vec![0.0, 0.0, 0.0, 1.0, h, 0.0]);
        // two categories are at distance 1
        let d2: f64 = [h, -h].iter().map(|x| x * x).sum();
        assert!((d2 - 1.0).abs() < 1e-12);
    }

    #[test]
    fn scan_generating_generates_only_fitting_ids_and_at_most_its_tries() {
        let id = QueryId::new("t", 1, 1, 0, 0);
        let generated = std::cell::Cell::new(0);
        let generates = |id: &QueryId| {
            generated.set(generated.get() + 1);
            id.index == 7
        };
        let odd = |id: &QueryId| id.index % 2 == 1;
        assert_eq!(scan_generating(id.clone(), 64, 4, odd, generates).unwrap().index, 7);
        assert_eq!(generated.replace(0), 4, "indexes 1, 3, 5 and 7");
        let err = scan_generating(id, 64, 3, odd, generates).unwrap_err();
        assert!(matches!(err, Error::GenerationExhausted(_)), "{err}");
        assert_eq!(generated.get(), 3);
    }

    #[test]
    fn named_cells_round_trip_and_bad_ones_are_refused() {
        let s = space();
        let c = Cell(vec![1, 2, 2, 0]);
        assert_eq!(s.parse_named(&s.named(&c)).unwrap(), c);
        assert_eq!(s.label(&c), "L2 t10 fDR+WR ca");
        let mut bad = s.named(&c);
        bad[1].1 = "7".into();
        assert!(s.parse_named(&bad).unwrap_err().to_string().contains("\"7\" is not a value"));
        assert!(s.parse_named(&bad[..1]).unwrap_err().to_string().contains("no value"));
    }
}
