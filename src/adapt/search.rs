//! The search: which cell to evaluate next, on which seeds, and what a round promotes.
//!
//! [`Search`] is a state machine over a [`State`]: [`Search::next_step`] says what to do, a driver
//! runs the episodes through the ordinary runner and hands the scores back
//! ([`Search::record`], [`Search::confirm`]). Each round draws its random points, fits the
//! surrogate, picks the guided batch by GP-UCB with a kriging believer, and promotes
//! (docs/adapt.md). Every choice is a function of the settings and the evaluations so far, so
//! a state resumes exactly where it stopped.

use std::collections::BTreeMap;

use super::gp::{Candidate, Gp, Obs};
use super::space::{Cell, Encoder, Space, feasible_cells};
use super::state::{
    Component, Confirmation, Evaluation, Mode, Phase, Promotion, RateCi, RoundNote, Select, Settings, State,
    Verdict, promote,
};
use crate::app::App;
use crate::conversation::AgentInfo;
use crate::error::{Error, Result};
use crate::id::QueryId;
use crate::seed::{Stream, Width};
use crate::stats;

/// Candidates scored per guided pick when the space is larger.
pub const MAX_CANDIDATES: usize = 4096;
/// Evaluated cells (by posterior mean) whose neighbours join the candidates.
const TOP_NEIGHBOURS: usize = 20;
/// Search seeds lie in `[SEARCH_SEEDS.0, SEARCH_SEEDS.1)`; benchmarks use the seeds below.
pub const SEARCH_SEEDS: (u64, u64) = (1_000_000, 1_000_000_000);
/// Confirmation seeds.
pub const CONFIRM_SEEDS: (u64, u64) = (1_000_000_000, 2_000_000_000);

/// One cell to run on its paired ids.
#[derive(Debug, Clone)]
pub struct Point {
    pub round: u32,
    pub phase: Phase,
    pub cell: Cell,
    pub ids: Vec<QueryId>,
}

/// What the driver does next.
#[derive(Debug, Clone)]
pub enum Next {
    /// Run the agent and the reference on the point's ids, then [`Search::record`].
    Evaluate(Point),
    /// Run the cells on fresh seeds, then [`Search::confirm`].
    Confirm(Vec<Point>),
    Done,
}

/// A search over one application's space.
pub struct Search<'a> {
    app: &'a dyn App,
    space: Space,
    /// The space's features, tabled once (every round encodes thousands of cells).
    encoder: Encoder,
    /// The feasible cells the pins allow, in index order.
    cells: Vec<Cell>,
    state: State,
    /// The guided batch of a round, once picked.
    guided: Option<(u32, Vec<Cell>)>,
}

impl<'a> Search<'a> {
    /// A new search of `app` by an agent.
    pub fn new(app: &'a dyn App, settings: Settings, agent: AgentInfo) -> Result<Search<'a>> {
        settings.check()?;
        let space = app.space();
        let state = State {
            schema: super::state::SCHEMA.to_string(),
            netpress_version: crate::VERSION.to_string(),
            app: app.info().name.to_string(),
            space: space.id.to_string(),
            agent: vec![agent],
            settings,
            evaluations: Vec::new(),
            rounds: Vec::new(),
            promotions: Vec::new(),
            mixture: vec![Component::Default { levels: Vec::new(), weight: 1.0 }],
            confirmations: Vec::new(),
            confirmed_after: 0,
            state_hash: String::new(),
        };
        Search::from_state(app, state)
    }

    /// Continues a saved search, refusing one of another application or space version.
    pub fn from_state(app: &'a dyn App, mut state: State) -> Result<Search<'a>> {
        state.settings.check()?;
        let space = app.space();
        if state.app != app.info().name {
            return Err(Error::Invalid(format!("the state is of {}, not {}", state.app, app.info().name)));
        }
        if state.space != space.id {
            return Err(Error::Invalid(format!(
                "the state is of space {}, this build has {} (start a new search)",
                state.space, space.id
            )));
        }
        let pinned = pinned_cells(app, &space, &state.settings)?;
        if let Some(Component::Default { levels, .. }) = state.mixture.first_mut()
            && levels.is_empty()
        {
            *levels = levels_of(&space, &pinned);
        }
        Ok(Search { app, encoder: space.encoder(), space, cells: pinned, state, guided: None })
    }

    /// Continues a saved search with `settings`, refusing any difference by naming the field.
    /// The agent's turn limit and `allow_xl` are kept from the state when `settings` leave them
    /// unset, so a resume without `--max-turns` runs the agent the state measured.
    pub fn resume(app: &'a dyn App, state: State, settings: &Settings) -> Result<Search<'a>> {
        state.check_resumable()?;
        let mut settings = settings.clone();
        settings.max_turns = settings.max_turns.or(state.settings.max_turns);
        settings.allow_xl |= state.settings.allow_xl;
        let a = serde_json::to_value(&state.settings).unwrap_or_default();
        let b = serde_json::to_value(&settings).unwrap_or_default();
        if let (Some(a), Some(b)) = (a.as_object(), b.as_object()) {
            for (k, v) in a {
                if b.get(k) != Some(v) && k != "rounds" {
                    return Err(Error::Invalid(format!("--resume with a different {k} (the state has {v})")));
                }
            }
            // A setting the state leaves out (at its default) given now.
            if let Some(k) = b.keys().find(|k| !a.contains_key(*k)) {
                return Err(Error::Invalid(format!("--resume with a different {k} (the state has none)")));
            }
        }
        let mut state = state;
        if settings.rounds > state.settings.rounds {
            // More rounds (mode train's `--rounds +1`): the confirmation runs again at the new end.
            state.settings.rounds = settings.rounds;
            state.confirmations.clear();
        }
        Search::from_state(app, state)
    }

    pub fn state(&self) -> &State {
        &self.state
    }

    pub fn app(&self) -> &'a dyn App {
        self.app
    }

    pub fn space(&self) -> &Space {
        &self.space
    }

    /// The cells the search ranges over (feasible and within the pins), in index order.
    pub fn cells(&self) -> &[Cell] {
        &self.cells
    }

    /// Adds an agent description (mode train: the agent of a new round).
    pub fn note_agent(&mut self, agent: AgentInfo) {
        if self.state.agent.last() != Some(&agent) {
            self.state.agent.push(agent);
        }
    }

    /// What to do next. Rounds end by promoting, which this call does itself.
    pub fn next_step(&mut self) -> Result<Next> {
        loop {
            let round = self.state.rounds.len() as u32 + 1;
            if self.confirm_now(round) {
                return Ok(Next::Confirm(self.confirmation_points()?));
            }
            if round > self.state.settings.rounds {
                return if self.state.confirmations.is_empty() && self.state.settings.confirm > 0 {
                    Ok(Next::Confirm(self.confirmation_points()?))
                } else {
                    Ok(Next::Done)
                };
            }
            let done = self.state.evaluations.iter().filter(|e| e.round == round).count();
            let random = self.random_cells(round);
            let (phase, cell) = if done < random.len() {
                (Phase::Random, random[done].clone())
            } else {
                let guided = self.guided_cells(round, &random);
                match guided.get(done - random.len()) {
                    Some(cell) => (Phase::Guided, cell.clone()),
                    None => {
                        self.end_round(round);
                        continue;
                    }
                }
            };
            match self.point(round, phase, cell.clone()) {
                Ok(point) => return Ok(Next::Evaluate(point)),
                // A cell the generator has no task for (a rare fault combination on a small
                // network): an empty evaluation keeps the plan's count, and the cell is not
                // drawn again.
                Err(Error::GenerationExhausted(_)) => {
                    self.record(&Point { round, phase, cell, ids: Vec::new() }, Vec::new(), Vec::new());
                }
                Err(e) => return Err(e),
            }
        }
    }

    /// With `confirm_each`, whether the cells are due a confirmation before `round` (the
    /// round after the last one included): the round before promoted, or the search is over,
    /// and no confirmation was made since.
    fn confirm_now(&self, round: u32) -> bool {
        let (s, st) = (&self.state.settings, &self.state);
        let finished = st.rounds.len() as u32;
        s.confirm_each
            && s.confirm > 0
            && finished > st.confirmed_after
            && (round > s.rounds || st.rounds.last().is_some_and(|r| r.promoted))
    }

    /// The ids of one evaluation: k seeds from the evaluation's own stream, each realised.
    fn point(&self, round: u32, phase: Phase, cell: Cell) -> Result<Point> {
        let s = &self.state.settings;
        let material = format!(
            "netpress|adapt|v1|{}|s{}|r{round}|e{}",
            self.state.app,
            s.seed,
            self.state.evaluations.len()
        );
        let mut stream = Stream::new(&material, Width::W64);
        let (lo, hi) = SEARCH_SEEDS;
        let ids = (0..s.k)
            .map(|_| self.app.realise(&self.space, &cell, lo + stream.below(hi - lo)))
            .collect::<Result<Vec<_>>>()?;
        Ok(Point { round, phase, cell, ids })
    }

    /// Takes in the scores of a point (agent and reference per id, in id order).
    pub fn record(&mut self, point: &Point, agent: Vec<f64>, reference: Vec<f64>) {
        let k = agent.len().max(1) as f64;
        let gap = (reference.iter().sum::<f64>() - agent.iter().sum::<f64>()) / k;
        self.state.evaluations.push(Evaluation {
            round: point.round,
            phase: point.phase,
            cell: self.named(&point.cell),
            index: self.space.index(&point.cell),
            ids: point.ids.iter().map(ToString::to_string).collect(),
            agent,
            reference,
            gap,
        });
    }

    fn named(&self, cell: &Cell) -> BTreeMap<String, String> {
        self.space.named(cell).into_iter().collect()
    }

    /// The round's random points: each dim in order, uniform among the values feasible given
    /// the earlier dims; distinct within the round.
    fn random_cells(&self, round: u32) -> Vec<Cell> {
        let s = &self.state.settings;
        let want = (s.random as usize).min(self.cells.len());
        let mut stream = Stream::new(&self.round_material(round, "random"), Width::W64);
        let mut out: Vec<Cell> = Vec::with_capacity(want);
        let mut tries = 0;
        while out.len() < want && tries < 64 * want.max(1) {
            tries += 1;
            let cell = self.draw_cell(&mut stream);
            if !out.contains(&cell) && !self.unrealisable(round, &cell) {
                out.push(cell);
            }
        }
        out
    }

    fn draw_cell(&self, stream: &mut Stream) -> Cell {
        let mut range: &[Cell] = &self.cells;
        for d in 0..self.space.dims.len() {
            let mut values: Vec<u16> = range.iter().map(|c| c.0[d]).collect();
            values.dedup();
            let v = values[stream.index(values.len())];
            // Cells are in index order, so those with a given prefix are contiguous.
            let start = range.iter().position(|c| c.0[d] == v).unwrap_or(0);
            let len = range[start..].iter().take_while(|c| c.0[d] == v).count();
            range = &range[start..start + len];
        }
        range[0].clone()
    }

    /// A cell found to have no task in an earlier round.
    fn unrealisable(&self, round: u32, cell: &Cell) -> bool {
        let index = self.space.index(cell);
        self.state.evaluations.iter().any(|e| e.round < round && e.index == index && e.ids.is_empty())
    }

    fn round_material(&self, round: u32, what: &str) -> String {
        format!("netpress|adapt|v1|{}|s{}|r{round}|{what}", self.state.app, self.state.settings.seed)
    }

    /// The observations the surrogate fits before round `round`'s guided batch (mode
    /// evaluate: every evaluation so far; train: this round's), or at the end with `all`.
    fn observations(&self, round: u32, all: bool) -> Vec<Obs> {
        let train = self.state.settings.mode == Mode::Train;
        self.state
            .evaluations
            .iter()
            .filter(|e| if train { e.round == round } else { e.round <= round })
            .filter(|e| all || e.round < round || e.phase == Phase::Random)
            .filter(|e| !e.ids.is_empty())
            .map(|e| Obs {
                x: self.encoder.features(&self.space.cell_at(e.index)),
                y: e.gap,
                noise: e.noise(),
            })
            .collect()
    }

    /// The surrogate of round `round`: fitted before its guided batch (mode evaluate: every
    /// evaluation so far; train: this round's), or on everything with `all`.
    pub fn surrogate(&self, round: u32, all: bool) -> Option<Gp> {
        Gp::fit(&self.observations(round, all))
    }

    fn guided_cells(&mut self, round: u32, random: &[Cell]) -> Vec<Cell> {
        if let Some((r, cells)) = &self.guided
            && *r == round
        {
            return cells.clone();
        }
        let cells = self.pick_guided(round, random);
        self.guided = Some((round, cells.clone()));
        cells
    }

    /// GP-UCB on the candidates, a batch by kriging believer (GP-BUCB).
    pub fn pick_guided(&self, round: u32, random: &[Cell]) -> Vec<Cell> {
        let s = &self.state.settings;
        let want = (s.budget - s.random.min(s.budget)) as usize;
        let Some(mut gp) = self.surrogate(round, false).filter(|_| want > 0) else {
            return Vec::new();
        };
        let candidates = self.candidates(round, &gp, random);
        let mut cached: Vec<Candidate> =
            candidates.iter().map(|c| gp.candidate(&self.encoder.features(c))).collect();
        let mut noises: Vec<f64> =
            self.evaluations_for(round).filter(|e| !e.ids.is_empty()).map(Evaluation::noise).collect();
        noises.sort_by(f64::total_cmp);
        let median = noises.get(noises.len() / 2).copied().unwrap_or(0.04);
        let mut taken = vec![false; candidates.len()];
        let mut out = Vec::new();
        for _ in 0..want {
            let mut best: Option<(usize, f64)> = None;
            for (i, c) in cached.iter().enumerate() {
                if taken[i] {
                    continue;
                }
                let a = round9(c.mu + s.kappa * libm::sqrt(gp.variance(c)));
                // Candidates are in index order: a strictly larger value wins, ties stay lower.
                if best.is_none_or(|(_, b)| a > b) {
                    best = Some((i, a));
                }
            }
            let Some((i, _)) = best else { break };
            taken[i] = true;
            out.push(candidates[i].clone());
            let x = cached[i].x.clone();
            gp.believe(&x, median, &mut cached);
        }
        out
    }

    fn evaluations_for(&self, round: u32) -> impl Iterator<Item = &Evaluation> {
        let train = self.state.settings.mode == Mode::Train;
        self.state.evaluations.iter().filter(move |e| if train { e.round == round } else { e.round <= round })
    }

    /// The candidate cells: all if few, else a uniform sample plus the neighbours of the
    /// evaluated cells of highest posterior mean; never a cell already in this round.
    fn candidates(&self, round: u32, gp: &Gp, random: &[Cell]) -> Vec<Cell> {
        let mut out: Vec<Cell> = if self.cells.len() <= MAX_CANDIDATES {
            self.cells.clone()
        } else {
            let mut stream = Stream::new(&self.round_material(round, "candidates"), Width::W64);
            let mut v: Vec<Cell> =
                (0..MAX_CANDIDATES).map(|_| self.cells[stream.index(self.cells.len())].clone()).collect();
            v.extend(self.top_neighbours(gp));
            v.sort();
            v.dedup();
            v
        };
        out.retain(|c| !random.contains(c) && !self.unrealisable(round, c));
        out.sort_by_key(|c| self.space.index(c));
        out
    }

    fn top_neighbours(&self, gp: &Gp) -> Vec<Cell> {
        let mut out = Vec::new();
        for (i, _) in self.by_mean(gp).into_iter().take(TOP_NEIGHBOURS) {
            let cell = self.space.cell_at(i);
            for d in 0..cell.0.len() {
                for step in [-1i32, 1] {
                    let v = i32::from(cell.0[d]) + step;
                    if v < 0 || v as usize >= self.space.dims[d].values.len() {
                        continue;
                    }
                    let mut n = cell.clone();
                    n.0[d] = v as u16;
                    if self.cells.binary_search_by_key(&self.space.index(&n), |c| self.space.index(c)).is_ok()
                    {
                        out.push(n);
                    }
                }
            }
        }
        out
    }

    /// Promotion at the end of a round (Genet's `param_select`, `add_ranges`).
    fn end_round(&mut self, round: u32) {
        let s = self.state.settings.clone();
        let evals: Vec<&Evaluation> =
            self.state.evaluations.iter().filter(|e| e.round == round && !e.ids.is_empty()).collect();
        let gp = (s.select == Select::Mean).then(|| self.surrogate(round, true)).flatten();
        let key = |e: &Evaluation| match &gp {
            Some(gp) => round9(gp.predict(&self.encoder.features(&self.space.cell_at(e.index))).0),
            None => e.gap,
        };
        let mut best: Option<&Evaluation> = None;
        for e in &evals {
            let better = match best {
                None => true,
                Some(b) => key(e) > key(b) || (key(e) == key(b) && e.index < b.index),
            };
            if better {
                best = Some(e);
            }
        }
        let Some(best) = best.cloned() else {
            self.state.rounds.push(RoundNote {
                round,
                best: BTreeMap::new(),
                best_index: 0,
                gap: 0.0,
                promoted: false,
            });
            return;
        };
        let promoted = best.gap > s.min_gap;
        self.state.rounds.push(RoundNote {
            round,
            best: best.cell.clone(),
            best_index: best.index,
            gap: best.gap,
            promoted,
        });
        if promoted {
            let p = Promotion { round, cell: best.cell, index: best.index, gap: best.gap, weight: s.weight };
            promote(&mut self.state.mixture, &p, s.decay, s.weight);
            self.state.promotions.push(p);
        }
    }

    /// The posterior mean of every evaluated cell under the final surrogate, highest first
    /// (ties to the lower index).
    pub fn ranked(&self) -> Vec<(u64, f64)> {
        let last = self.state.rounds.len().max(1) as u32;
        let Some(gp) = self.surrogate(last, true) else { return Vec::new() };
        self.by_mean(&gp)
    }

    /// Every evaluated cell (with ids) and its posterior mean under `gp`, highest first, ties
    /// to the lower index.
    fn by_mean(&self, gp: &Gp) -> Vec<(u64, f64)> {
        let mut evaluated: Vec<u64> =
            self.state.evaluations.iter().filter(|e| !e.ids.is_empty()).map(|e| e.index).collect();
        evaluated.sort();
        evaluated.dedup();
        let mut out: Vec<(u64, f64)> = evaluated
            .into_iter()
            .map(|i| (i, round9(gp.predict(&self.encoder.features(&self.space.cell_at(i))).0)))
            .collect();
        out.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        out
    }

    /// The cells to confirm: the promoted ones, then the top cells by posterior mean.
    fn confirm_cells(&self) -> Vec<(u64, bool)> {
        let mut out: Vec<(u64, bool)> = Vec::new();
        for p in &self.state.promotions {
            if !out.iter().any(|(i, _)| *i == p.index) {
                out.push((p.index, true));
            }
        }
        let top = self.state.settings.confirm_top as usize;
        let promoted = out.len();
        for (i, _) in self.ranked() {
            if out.len() >= promoted + top {
                break;
            }
            if !out.iter().any(|(j, _)| *j == i) {
                out.push((i, false));
            }
        }
        out
    }

    fn confirmation_points(&self) -> Result<Vec<Point>> {
        let s = &self.state.settings;
        let (lo, hi) = CONFIRM_SEEDS;
        let mut points = Vec::new();
        for (index, _) in self.confirm_cells() {
            let cell = self.space.cell_at(index);
            let material = format!("netpress|adapt|v1|{}|s{}|confirm|{index}", self.state.app, s.seed);
            let mut stream = Stream::new(&material, Width::W64);
            let mut ids: Vec<QueryId> = Vec::new();
            let mut tries = 0;
            while ids.len() < s.confirm as usize && tries < 4 * s.confirm {
                tries += 1;
                let seed = lo + stream.below(hi - lo);
                if ids.iter().any(|id| id.seed == seed) {
                    continue;
                }
                match self.app.realise(&self.space, &cell, seed) {
                    Ok(id) => ids.push(id),
                    Err(Error::GenerationExhausted(_)) => {}
                    Err(e) => return Err(e),
                }
            }
            points.push(Point { round: self.state.settings.rounds + 1, phase: Phase::Random, cell, ids });
        }
        Ok(points)
    }

    /// Takes in the confirmation runs (the points of [`Next::Confirm`], in order, with the
    /// agent's and the reference's scores) and gives each cell its verdict.
    pub fn confirm(&mut self, runs: &[(Point, Vec<f64>, Vec<f64>)]) {
        let cells = self.confirm_cells();
        let m = runs.len().max(1) as f64;
        let z = normal_quantile(1.0 - 0.025 / m);
        let oracle = self.state.settings.reference == super::space::Reference::Oracle;
        let tolerance = self.state.settings.tolerance;
        let mut out = Vec::new();
        for ((point, agent, reference), (index, promoted)) in runs.iter().zip(cells) {
            let a = rate(agent, z);
            let r = rate(reference, z);
            let verdict = if oracle {
                if a.hi < 1.0 - tolerance { Verdict::Weak } else { Verdict::NotConfirmed }
            } else if a.hi < r.lo {
                Verdict::Weak
            } else if r.hi < a.lo {
                Verdict::Better
            } else {
                Verdict::NotConfirmed
            };
            let searched: Vec<f64> = self
                .state
                .evaluations
                .iter()
                .filter(|e| e.index == index && !e.ids.is_empty())
                .map(|e| e.gap)
                .collect();
            let search_gap = searched.iter().sum::<f64>() / searched.len().max(1) as f64;
            let gap = r.rate - a.rate;
            out.push(Confirmation {
                cell: self.named(&point.cell),
                index,
                promoted,
                ids: point.ids.iter().map(ToString::to_string).collect(),
                agent_scores: agent.clone(),
                reference_scores: reference.clone(),
                agent: a,
                reference: r,
                search_gap,
                gap,
                shrinkage: search_gap - gap,
                verdict,
            });
        }
        self.state.confirmations = out;
        if self.state.settings.confirm_each {
            self.state.confirmed_after = self.state.rounds.len() as u32;
        }
    }
}

/// The rate of scores in [0, 1] with its Wilson interval at quantile `z` (fractional scores
/// count as their rounded sum of successes).
fn rate(scores: &[f64], z: f64) -> RateCi {
    let n = scores.len() as u64;
    let sum: f64 = scores.iter().sum();
    let ci = stats::wilson(libm::round(sum) as u64, n, z);
    RateCi { rate: if n == 0 { 0.0 } else { sum / n as f64 }, lo: ci.lo, hi: ci.hi }
}

/// Φ⁻¹(p) by bisection on `libm::erfc` (64 halvings: exact to the last bits, and the same
/// natively and in wasm32).
pub fn normal_quantile(p: f64) -> f64 {
    let cdf = |x: f64| 0.5 * libm::erfc(-x / core::f64::consts::SQRT_2);
    let (mut lo, mut hi) = (-40.0, 40.0);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if cdf(mid) < p {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

/// Rounds to 1e-9 so that last-bit differences never decide an argmax.
fn round9(x: f64) -> f64 {
    libm::round(x * 1e9) / 1e9
}

/// A dimension value searched only with `allow_xl` (`--allow-xl`): an extra-large size whose
/// tasks cost much more to build than the rest (MALT's `xl` shape).
pub const XL: &str = "xl";

/// The cells a search ranges over: feasible, within the pins, and without an [`XL`] value
/// unless the settings allow it. Refuses a pin that names no dimension or value, or `xl`
/// without `allow_xl`.
fn pinned_cells(app: &dyn App, space: &Space, settings: &Settings) -> Result<Vec<Cell>> {
    let mut allowed: Vec<Option<Vec<u16>>> = vec![None; space.dims.len()];
    for pin in &settings.pins {
        let (d, dim) = space.dim(&pin.dim).ok_or_else(|| {
            let names: Vec<&str> = space.dims.iter().map(|d| d.name).collect();
            Error::Invalid(format!(
                "{} has no dimension {:?} (dimensions: {})",
                space.id,
                pin.dim,
                names.join(", ")
            ))
        })?;
        if !settings.allow_xl && pin.values.iter().any(|v| v == XL) {
            return Err(Error::Invalid(format!("{} {XL} is searched only with --allow-xl", pin.dim)));
        }
        let values = pin
            .values
            .iter()
            .map(|v| {
                dim.position(v).ok_or_else(|| {
                    Error::Invalid(format!(
                        "{v:?} is not a value of {} (values: {})",
                        pin.dim,
                        dim.values.join(", ")
                    ))
                })
            })
            .collect::<Result<Vec<u16>>>()?;
        allowed[d] = Some(values);
    }
    let xl: Vec<Option<u16>> =
        space.dims.iter().map(|d| d.position(XL).filter(|_| !settings.allow_xl)).collect();
    let cells: Vec<Cell> = feasible_cells(app, space)
        .into_iter()
        .filter(|c| c.0.iter().zip(&allowed).all(|(v, a)| a.as_ref().is_none_or(|a| a.contains(v))))
        .filter(|c| c.0.iter().zip(&xl).all(|(v, x)| Some(*v) != *x))
        .collect();
    if cells.is_empty() {
        return Err(Error::Invalid("no cell of the space is feasible within the pins".into()));
    }
    Ok(cells)
}

/// The levels the cells span (all the space's levels when `cells` is empty).
fn levels_of(space: &Space, cells: &[Cell]) -> Vec<u8> {
    let Some((d, dim)) = space.dims.iter().enumerate().find(|(_, d)| d.via == super::space::Via::Level)
    else {
        return Vec::new();
    };
    let mut idx: Vec<u16> = if cells.is_empty() {
        (0..dim.values.len() as u16).collect()
    } else {
        cells.iter().map(|c| c.0[d]).collect()
    };
    idx.sort();
    idx.dedup();
    idx.iter().filter_map(|&i| dim.values[i as usize].parse().ok()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normal_quantiles() {
        assert!((normal_quantile(0.975) - stats::Z95).abs() < 1e-12);
        assert!(normal_quantile(0.5).abs() < 1e-12);
        // Bonferroni over 4 cells: Φ⁻¹(1 − 0.025/4)
        assert!((normal_quantile(1.0 - 0.00625) - 2.497_705_474).abs() < 1e-6);
    }
}
