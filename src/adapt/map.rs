//! The weakness map: the surrogate's posterior mean gap over two dimensions.
//!
//! Each map cell averages the posterior mean uniformly over the feasible values of the other
//! dimensions (within the search's pins and an optional `where` filter), and carries what
//! was observed there: seeds evaluated, whether a cell there was promoted or confirmed weak.

use serde::Serialize;

use super::search::Search;
use super::space::Cell;
use super::state::Verdict;
use crate::error::{Error, Result};

/// One cell of the map.
#[derive(Debug, Clone, Serialize)]
pub struct MapCell {
    /// Posterior mean gap averaged over the other dimensions; `None` where nothing is feasible.
    pub mean: Option<f64>,
    /// Seeds evaluated in this map cell (over all its space cells).
    pub seeds: usize,
    pub promoted: bool,
    /// The confirmed weak cell here with the agent's rate and interval, if any.
    pub weak: Option<(f64, f64, f64)>,
}

/// The map of two dimensions: rows are the first dimension's values, columns the second's.
#[derive(Debug, Clone, Serialize)]
pub struct WeaknessMap {
    pub app: String,
    pub space: String,
    pub row_dim: String,
    pub col_dim: String,
    pub rows: Vec<String>,
    pub cols: Vec<String>,
    pub cells: Vec<Vec<MapCell>>,
    /// The filter applied (`level=2`), as given.
    pub filter: Vec<(String, String)>,
}

impl WeaknessMap {
    /// The map cell at a row and column value (for tests and tables).
    pub fn at(&self, row: &str, col: &str) -> Option<&MapCell> {
        let r = self.rows.iter().position(|v| v == row)?;
        let c = self.cols.iter().position(|v| v == col)?;
        Some(&self.cells[r][c])
    }
}

/// The two dimensions a map shows by default: those with the most values (ties: earlier).
pub fn default_dims(search: &Search<'_>) -> (String, String) {
    let mut dims: Vec<(usize, usize)> =
        search.space().dims.iter().enumerate().map(|(i, d)| (d.values.len(), i)).collect();
    dims.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    let name =
        |k: usize| dims.get(k).map_or(String::new(), |(_, i)| search.space().dims[*i].name.to_string());
    (name(0), name(1))
}

/// The weakness map of a search over dimensions `row` and `col` (`None`: [`default_dims`]),
/// restricted to the cells matching every `(dim, value)` of `filter`.
pub fn weakness_map(
    search: &Search<'_>,
    dims: Option<(&str, &str)>,
    filter: &[(String, String)],
) -> Result<WeaknessMap> {
    let space = search.space();
    let (row, col) = match dims {
        Some((a, b)) => (a.to_string(), b.to_string()),
        None => default_dims(search),
    };
    let find = |name: &str| {
        space.dim(name).map(|(i, _)| i).ok_or_else(|| {
            let names: Vec<&str> = space.dims.iter().map(|d| d.name).collect();
            Error::Invalid(format!(
                "{} has no dimension {name:?} (dimensions: {})",
                space.id,
                names.join(", ")
            ))
        })
    };
    let (ri, ci) = (find(&row)?, find(&col)?);
    let mut filters = Vec::new();
    for (name, value) in filter {
        let d = find(name)?;
        let v = space.dims[d].position(value).ok_or_else(|| {
            Error::Invalid(format!(
                "{value:?} is not a value of {name} (values: {})",
                space.dims[d].values.join(", ")
            ))
        })?;
        filters.push((d, v));
    }
    let (nr, nc) = (space.dims[ri].values.len(), space.dims[ci].values.len());
    let mut sums = vec![vec![(0.0, 0usize); nc]; nr];
    let state = search.state();
    let gp = search.surrogate(state.rounds.len().max(1) as u32, true);
    let encoder = space.encoder();
    for cell in search.cells().iter().filter(|c| filters.iter().all(|&(d, v)| c.0[d] == v)) {
        let mean = gp.as_ref().map_or(0.0, |gp| gp.predict(&encoder.features(cell)).0);
        let s = &mut sums[cell.0[ri] as usize][cell.0[ci] as usize];
        s.0 += mean;
        s.1 += 1;
    }
    let cells = (0..nr)
        .map(|r| {
            (0..nc)
                .map(|c| {
                    let in_map = |index: u64| {
                        let cell: Cell = space.cell_at(index);
                        cell.0[ri] as usize == r
                            && cell.0[ci] as usize == c
                            && filters.iter().all(|&(d, v)| cell.0[d] == v)
                    };
                    let (sum, n) = sums[r][c];
                    MapCell {
                        mean: (n > 0).then(|| sum / n as f64),
                        seeds: state
                            .evaluations
                            .iter()
                            .filter(|e| in_map(e.index))
                            .map(|e| e.ids.len())
                            .sum(),
                        promoted: state.promotions.iter().any(|p| in_map(p.index)),
                        weak: state
                            .confirmations
                            .iter()
                            .find(|k| k.verdict == Verdict::Weak && in_map(k.index))
                            .map(|k| (k.agent.rate, k.agent.lo, k.agent.hi)),
                    }
                })
                .collect()
        })
        .collect();
    Ok(WeaknessMap {
        app: state.app.clone(),
        space: state.space.clone(),
        rows: space.dims[ri].values.clone(),
        cols: space.dims[ci].values.clone(),
        row_dim: row,
        col_dim: col,
        cells,
        filter: filter.to_vec(),
    })
}

/// One row of the weakness table: a confirmed cell with its search and confirmation figures.
#[derive(Debug, Clone, Serialize)]
pub struct WeakRow {
    pub rank: usize,
    pub cell: String,
    /// The round it was promoted in (none for a top cell that was not).
    pub round: Option<u32>,
    /// Its weight in the mixture (0 when not promoted).
    pub weight: f64,
    pub search_gap: f64,
    /// Seeds behind the search gap.
    pub k: usize,
    pub agent: super::state::RateCi,
    pub reference: super::state::RateCi,
    pub gap: f64,
    pub shrinkage: f64,
    pub verdict: Verdict,
}

/// The confirmed cells, weak ones first, then by confirmation gap (highest first).
pub fn weakness_table(search: &Search<'_>) -> Vec<WeakRow> {
    let state = search.state();
    let mut rows: Vec<WeakRow> = state
        .confirmations
        .iter()
        .map(|c| {
            let weight = state
                .mixture
                .iter()
                .find_map(|m| match m {
                    super::state::Component::Cell { index, weight, .. } if *index == c.index => Some(*weight),
                    _ => None,
                })
                .unwrap_or(0.0);
            WeakRow {
                rank: 0,
                cell: search.space().label(&search.space().cell_at(c.index)),
                round: state.promotions.iter().find(|p| p.index == c.index).map(|p| p.round),
                weight,
                search_gap: c.search_gap,
                k: state.evaluations.iter().filter(|e| e.index == c.index).map(|e| e.ids.len()).sum(),
                agent: c.agent,
                reference: c.reference,
                gap: c.gap,
                shrinkage: c.shrinkage,
                verdict: c.verdict,
            }
        })
        .collect();
    rows.sort_by(|a, b| {
        let weak = |r: &WeakRow| r.verdict != Verdict::Weak;
        weak(a).cmp(&weak(b)).then(b.gap.total_cmp(&a.gap))
    });
    for (i, r) in rows.iter_mut().enumerate() {
        r.rank = i + 1;
    }
    rows
}
