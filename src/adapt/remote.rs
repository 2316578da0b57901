//! Adaptive mode where the engines live elsewhere: the web page.
//!
//! The page links no application engine (docs/bundles.md): generators, emulators and baselines
//! run in each application's worker. The search itself is pure and runs in the page, but it
//! needs three things from the engine: the application's space, which cells are feasible, and
//! the id of a cell on a seed ([`crate::App::realise`], which for Route tries the generator's
//! draw and for K8s and MALT scans indexes). This module carries those across:
//!
//! - [`SpaceSpec`]: the space and its feasible cells as JSON, made in the worker
//!   ([`SpaceSpec::of`]), read in the page.
//! - [`Remote`]: an [`App`] stand-in built from a spec, whose `realise` answers from ids the
//!   worker realised. An id it does not know yet is noted as missing and answered with a
//!   placeholder, so one call of [`Search::next_step`] lists every id it needs.
//! - [`drive`]: the asynchronous driver loop. It asks the [`Host`] to realise what is
//!   missing and calls the step again (a step is a function of the state, so repeating it
//!   changes nothing), and runs episodes through the host. It makes the same calls of the
//!   search, in the same order, as the native driver, so the state ends byte-identical
//!   (`tests/adapt/remote.rs`).

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use serde::{Deserialize, Serialize};

use super::search::{Next, Point, Search};
use super::space::{Cell, Dim, Enc, Reference, Space, Via, feasible_cells};
use crate::app::{App, AppInfo, Task};
use crate::error::{Error, Result};
use crate::id::QueryId;

/// A space as data: dimensions, reference and the feasible cells' grid indexes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SpaceSpec {
    pub id: String,
    pub reference: Reference,
    pub dims: Vec<DimSpec>,
    /// The grid indexes of the feasible cells, ascending.
    pub feasible: Vec<u64>,
}

/// One dimension as data. `via` is `level`, `scan` or `knob:<letter>`; `enc` is `ordinal`,
/// `log2`, `one_hot` or `counts`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DimSpec {
    pub name: String,
    pub values: Vec<String>,
    pub via: String,
    pub enc: String,
}

impl SpaceSpec {
    /// The spec of an application's space (in the worker, where the engine is).
    pub fn of(app: &dyn App) -> SpaceSpec {
        let space = app.space();
        let dims = space
            .dims
            .iter()
            .map(|d| DimSpec {
                name: d.name.to_string(),
                values: d.values.clone(),
                via: match d.via {
                    Via::Level => "level".into(),
                    Via::Scan => "scan".into(),
                    Via::Knob(k) => format!("knob:{k}"),
                },
                enc: match d.enc {
                    Enc::Ordinal => "ordinal",
                    Enc::Log2 => "log2",
                    Enc::OneHot => "one_hot",
                    Enc::Counts => "counts",
                }
                .into(),
            })
            .collect();
        let feasible = feasible_cells(app, &space).iter().map(|c| space.index(c)).collect();
        SpaceSpec { id: space.id.to_string(), reference: space.reference, dims, feasible }
    }

    /// The space the spec describes.
    pub fn space(&self) -> Result<Space> {
        let bad = |what: String| Error::Invalid(format!("space {}: {what}", self.id));
        let dims = self
            .dims
            .iter()
            .map(|d| {
                let via = match d.via.as_str() {
                    "level" => Via::Level,
                    "scan" => Via::Scan,
                    k => match k.strip_prefix("knob:").map(|k| k.chars().collect::<Vec<_>>()).as_deref() {
                        Some([c]) => Via::Knob(*c),
                        _ => return Err(bad(format!("dimension {:?} has an unknown via {k:?}", d.name))),
                    },
                };
                let enc = match d.enc.as_str() {
                    "ordinal" => Enc::Ordinal,
                    "log2" => Enc::Log2,
                    "one_hot" => Enc::OneHot,
                    "counts" => Enc::Counts,
                    e => return Err(bad(format!("dimension {:?} has an unknown encoding {e:?}", d.name))),
                };
                if d.values.is_empty() || d.values.len() > usize::from(u16::MAX) {
                    return Err(bad(format!("dimension {:?} has {} values", d.name, d.values.len())));
                }
                Ok(Dim { name: intern(&d.name), values: d.values.clone(), via, enc })
            })
            .collect::<Result<Vec<Dim>>>()?;
        Ok(Space { id: intern(&self.id), dims, reference: self.reference })
    }
}

/// A `'static` copy of a name, made once per distinct name: [`Space`]'s names are static
/// (every application's space is a constant of its code), and a page reads only a handful.
fn intern(name: &str) -> &'static str {
    static NAMES: Mutex<BTreeSet<&'static str>> = Mutex::new(BTreeSet::new());
    let mut names = lock(&NAMES);
    if let Some(n) = names.get(name) {
        return n;
    }
    let n: &'static str = Box::leak(name.to_string().into_boxed_str());
    names.insert(n);
    n
}

/// The ids of `(cell index, seed)` pairs (in the worker): `None` where the generator has no
/// task for the cell on that seed.
pub fn realise_all(app: &dyn App, pairs: &[(u64, u64)]) -> Result<Vec<Option<String>>> {
    let space = app.space();
    pairs
        .iter()
        .map(|&(index, seed)| {
            if index >= space.grid_len() {
                return Err(Error::Invalid(format!("cell {index} is outside {}", space.id)));
            }
            match app.realise(&space, &space.cell_at(index), seed) {
                Ok(id) => Ok(Some(id.to_string())),
                Err(Error::GenerationExhausted(_)) => Ok(None),
                Err(e) => Err(e),
            }
        })
        .collect()
}

/// An [`App`] stand-in for the search in the page: the space and feasibility of a
/// [`SpaceSpec`], ids from what the worker realised. It generates nothing.
pub struct Remote {
    info: &'static AppInfo,
    space: Space,
    feasible: BTreeSet<u64>,
    // Mutexes only because an `App` is `Sync`; the page has one thread.
    known: Mutex<BTreeMap<(u64, u64), Option<QueryId>>>,
    missing: Mutex<BTreeSet<(u64, u64)>>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Remote {
    pub fn new(info: &'static AppInfo, spec: &SpaceSpec) -> Result<Remote> {
        Ok(Remote {
            info,
            space: spec.space()?,
            feasible: spec.feasible.iter().copied().collect(),
            known: Mutex::default(),
            missing: Mutex::default(),
        })
    }

    /// The pairs asked for since the last call and not known yet, in order.
    pub fn take_missing(&self) -> Vec<(u64, u64)> {
        std::mem::take(&mut *lock(&self.missing)).into_iter().collect()
    }

    /// Takes in the worker's answer for `pairs` ([`realise_all`]).
    pub fn learn(&self, pairs: &[(u64, u64)], ids: Vec<Option<String>>) -> Result<()> {
        if ids.len() != pairs.len() {
            return Err(Error::Invalid(format!("{} ids for {} cells", ids.len(), pairs.len())));
        }
        let mut known = lock(&self.known);
        for (pair, id) in pairs.iter().zip(ids) {
            let id = id.map(|s| s.parse::<QueryId>()).transpose()?;
            known.insert(*pair, id);
        }
        Ok(())
    }
}

impl App for Remote {
    fn info(&self) -> &'static AppInfo {
        self.info
    }

    fn generate(&self, id: &QueryId) -> Result<Arc<dyn Task>> {
        Err(Error::Invalid(format!("{id}: the page generates tasks in the application's worker")))
    }

    fn baseline(&self) -> Box<dyn crate::conversation::Agent> {
        Box::new(super::fake::Noop(super::fake::noop_reply(self.info.name)))
    }

    fn space(&self) -> Space {
        self.space.clone()
    }

    fn feasible(&self, cell: &Cell) -> bool {
        self.feasible.contains(&self.space.index(cell))
    }

    fn realise(&self, space: &Space, cell: &Cell, seed: u64) -> Result<QueryId> {
        let key = (space.index(cell), seed);
        match lock(&self.known).get(&key) {
            Some(Some(id)) => return Ok(id.clone()),
            Some(None) => return Err(Error::GenerationExhausted(format!("{} s{seed}", space.label(cell)))),
            None => {}
        }
        lock(&self.missing).insert(key);
        // A placeholder the driver never runs: it realises the missing ids and asks again.
        Ok(QueryId::new(self.info.name, self.info.version, 1, seed, 0))
    }
}

/// What the page provides to [`drive`]: realising ids and running episodes.
// The page's futures hold `Rc`s and are not `Send`; no caller needs them to be.
#[allow(async_fn_in_trait)]
pub trait Host {
    /// The ids of `(cell index, seed)` pairs ([`realise_all`] in the worker).
    async fn realise(&mut self, pairs: &[(u64, u64)]) -> std::result::Result<Vec<Option<String>>, String>;
    /// The scores of `ids` in order, by the agent or (`reference`) the application's
    /// baseline; `None` when the user stopped the run.
    async fn scores(
        &mut self,
        ids: &[String],
        reference: bool,
    ) -> std::result::Result<Option<Vec<f64>>, String>;
    /// The search after an evaluation, a round or the confirmation (its state to keep, its
    /// map to draw).
    fn save(&mut self, _search: &Search<'_>) {}
}

/// Runs `search` (made over `remote`) to its end or until the host stops; returns whether it
/// finished. The reference's scores are cached by id.
pub async fn drive(
    search: &mut Search<'_>,
    remote: &Remote,
    host: &mut impl Host,
) -> std::result::Result<bool, String> {
    let mut cache: BTreeMap<String, f64> = BTreeMap::new();
    loop {
        let rounds_before = search.state().rounds.len();
        let next = loop {
            let next = search.next_step();
            let missing = remote.take_missing();
            if missing.is_empty() {
                break next.map_err(|e| e.to_string())?;
            }
            let ids = host.realise(&missing).await?;
            remote.learn(&missing, ids).map_err(|e| e.to_string())?;
        };
        if search.state().rounds.len() > rounds_before {
            host.save(search);
        }
        match next {
            Next::Done => return Ok(true),
            Next::Evaluate(point) => {
                let Some((a, r)) = evaluate(search, &point, host, &mut cache).await? else {
                    return Ok(false);
                };
                search.record(&point, a, r);
                host.save(search);
            }
            Next::Confirm(points) => {
                let mut runs = Vec::new();
                for point in points {
                    let Some((a, r)) = evaluate(search, &point, host, &mut cache).await? else {
                        return Ok(false);
                    };
                    runs.push((point, a, r));
                }
                search.confirm(&runs);
                host.save(search);
            }
        }
    }
}

/// The agent's and the reference's scores on a point's ids; `None` when stopped.
async fn evaluate(
    search: &Search<'_>,
    point: &Point,
    host: &mut impl Host,
    cache: &mut BTreeMap<String, f64>,
) -> std::result::Result<Option<(Vec<f64>, Vec<f64>)>, String> {
    let ids: Vec<String> = point.ids.iter().map(ToString::to_string).collect();
    let Some(a) = host.scores(&ids, false).await? else { return Ok(None) };
    if search.state().settings.reference == Reference::Oracle {
        return Ok(Some((a, vec![1.0; ids.len()])));
    }
    let missing: Vec<String> = ids.iter().filter(|id| !cache.contains_key(*id)).cloned().collect();
    if !missing.is_empty() {
        let Some(r) = host.scores(&missing, true).await? else { return Ok(None) };
        cache.extend(missing.into_iter().zip(r));
    }
    let r = ids.iter().map(|id| cache.get(id).copied().unwrap_or(0.0)).collect();
    Ok(Some((a, r)))
}

/// A host with the engine linked, doing everything in the calling thread: for tests and
/// measurements of the page's path where the engine is at hand (natively, or a wasm test that
/// links it). Its futures never wait, so [`drive_linked`] runs them to the end.
pub struct Linked<'a> {
    pub app: &'static dyn App,
    /// The agent of an id.
    pub agent: &'a dyn Fn(&str) -> Box<dyn crate::conversation::Agent>,
    /// The agent's run settings (a turn limit to hold it to); the reference runs with the
    /// tasks' own.
    pub settings: crate::run::RunSettings,
    pub score: super::state::ScoreKind,
}

impl Host for Linked<'_> {
    async fn realise(&mut self, pairs: &[(u64, u64)]) -> std::result::Result<Vec<Option<String>>, String> {
        realise_all(self.app, pairs).map_err(|e| e.to_string())
    }

    async fn scores(
        &mut self,
        ids: &[String],
        reference: bool,
    ) -> std::result::Result<Option<Vec<f64>>, String> {
        ids.iter()
            .map(|id| {
                let task = id.parse().and_then(|q| self.app.generate(&q)).map_err(|e| e.to_string())?;
                let (mut agent, settings) = if reference {
                    (self.app.baseline(), crate::run::RunSettings::default())
                } else {
                    ((self.agent)(id), self.settings)
                };
                Ok(self.score.of(&crate::run::run_episode(task, &mut *agent, settings).score))
            })
            .collect::<std::result::Result<Vec<f64>, String>>()
            .map(Some)
    }
}

/// [`drive`] with a [`Linked`] host, to the end.
pub fn drive_linked(
    search: &mut Search<'_>,
    remote: &Remote,
    host: &mut Linked<'_>,
) -> std::result::Result<bool, String> {
    block_on(drive(search, remote, host))
}

/// [`export`](super::curriculum::export) of a search made over `remote`: the ids the stream
/// needs are fetched through the host (the page's worker) until none is missing, so the bytes
/// are those `netpress adapt export` writes for the same state. Ids and the mixture only: `rl`
/// lines hold generated tasks, which the application's worker writes whole.
pub async fn export_remote(
    search: &Search<'_>,
    remote: &Remote,
    host: &mut impl Host,
    format: super::curriculum::ExportFormat,
    count: usize,
) -> std::result::Result<String, String> {
    if format == super::curriculum::ExportFormat::Rl {
        return Err("rl lines hold generated tasks: the application's worker writes them".into());
    }
    let rl = super::curriculum::RlLines { variant: Default::default(), command: "" };
    loop {
        let text = super::curriculum::export(search, format, count, rl);
        let missing = remote.take_missing();
        if missing.is_empty() {
            return text.map_err(|e| e.to_string());
        }
        let ids = host.realise(&missing).await?;
        remote.learn(&missing, ids).map_err(|e| e.to_string())?;
    }
}

/// [`export_remote`] with a [`Linked`] host.
pub fn export_linked(
    search: &Search<'_>,
    remote: &Remote,
    host: &mut Linked<'_>,
    format: super::curriculum::ExportFormat,
    count: usize,
) -> std::result::Result<String, String> {
    block_on(export_remote(search, remote, host, format, count))
}

/// Runs a future that never waits (a [`Linked`] host's) to its end.
fn block_on<T>(
    future: impl Future<Output = std::result::Result<T, String>>,
) -> std::result::Result<T, String> {
    use std::task::{Context, Poll, Waker};
    let mut future = std::pin::pin!(future);
    match future.as_mut().poll(&mut Context::from_waker(Waker::noop())) {
        Poll::Ready(out) => out,
        Poll::Pending => Err("a linked host never waits".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_spec_round_trips_and_bad_ones_are_refused() {
        let space = Space {
            id: "t-v1",
            dims: vec![
                Dim::range("level", 1, 2, Via::Level, Enc::Ordinal),
                Dim::new("turns", &["3", "5"], Via::Knob('t'), Enc::Log2),
                Dim::new("f", &["DR", "DR+WR"], Via::Scan, Enc::Counts),
                Dim::new("c", &["a", "b"], Via::Knob('c'), Enc::OneHot),
            ],
            reference: Reference::Oracle,
        };
        let spec = SpaceSpec {
            id: "t-v1".into(),
            reference: Reference::Oracle,
            dims: space
                .dims
                .iter()
                .map(|d| DimSpec {
                    name: d.name.into(),
                    values: d.values.clone(),
                    via: match d.via {
                        Via::Level => "level".into(),
                        Via::Scan => "scan".into(),
                        Via::Knob(k) => format!("knob:{k}"),
                    },
                    enc: ["ordinal", "log2", "counts", "one_hot"]
                        [space.dims.iter().position(|x| x.name == d.name).unwrap()]
                    .into(),
                })
                .collect(),
            feasible: vec![0, 3],
        };
        let back = spec.space().unwrap();
        assert_eq!(back.id, space.id);
        for (a, b) in back.dims.iter().zip(&space.dims) {
            assert_eq!((a.name, &a.values, a.via, a.enc), (b.name, &b.values, b.via, b.enc));
        }
        let mut bad = spec.clone();
        bad.dims[1].via = "knob:tt".into();
        assert!(bad.space().unwrap_err().to_string().contains("unknown via"));
        let mut bad = spec;
        bad.dims[0].enc = "cubic".into();
        assert!(bad.space().unwrap_err().to_string().contains("unknown encoding"));
    }
}
