//! The page's side of an adaptive search: the [`Host`] the library's driver
//! ([`crate::adapt::drive_remote`]) asks for ids and scores. Ids are realised in the
//! application's worker (the page links no engine); episodes run through the Batch view's
//! [`run_batch`], so they step in the same time slices and yield to the browser the same way.
//! Between search steps the driver's loop yields too ([`yield_now`]).

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use serde_json::json;
use yew::Callback;

use super::super::agents::{Cancel, PageAgent, remote};
use super::super::batch::job::{Crew, Plan, run_batch};
use super::super::sandbox::{Workers, ask_worker};
use super::super::util::{now_ms, yield_now};
use crate::QueryId;
use crate::adapt::{
    ExportFormat, Host, Remote, Search, SpaceSpec, State, WeakRow, weakness_map, weakness_table,
};
use crate::agent::AgentInfo;
use crate::app::AppInfo;
use crate::run::RunSettings;

/// Where a run stands.
#[derive(Debug, Clone, PartialEq)]
pub enum Phase {
    /// A state opened from a link or a file, not running.
    Loaded,
    Running,
    Done,
    Stopped,
    Failed(String),
}

/// What the view shows of a search: its latest state, map and table.
pub struct Shown {
    pub app: &'static AppInfo,
    /// `None` until the search has begun.
    pub state: Option<State>,
    pub svg: String,
    pub rows: Vec<WeakRow>,
    pub phase: Phase,
    /// Episodes run by the agent and by the reference.
    pub episodes: (usize, usize),
    /// The search's own time in the page (fit, candidates, promotion, map), milliseconds.
    pub search_ms: f64,
    /// Episodes with a failed turn (an agent error, or a worker the page ended), as
    /// `id: error`: their scores count as the episode ended, which a native search would not
    /// have seen, so the view lists them beside the state hash.
    pub cut_short: Vec<String>,
    pub cancel: Cancel,
    pub client: Option<Rc<dyn remote::RemoteClient>>,
}

impl Shown {
    pub fn running(&self) -> bool {
        self.phase == Phase::Running
    }

    pub fn stop(&self) {
        self.cancel.set(true);
        if let Some(c) = &self.client {
            c.abort();
        }
    }
}

pub type SharedRun = Rc<RefCell<Shown>>;

/// Who plays the agent's side.
#[derive(Clone)]
pub enum Agent {
    /// The application's baseline held to a number of turns.
    Baseline(u32),
    /// The endpoint of the page's settings.
    Endpoint(Rc<dyn remote::RemoteClient>),
}

/// The page's host: the worker pool, the agent, and the view's copy of the run.
struct PageHost {
    workers: Workers,
    app: &'static AppInfo,
    agent: Agent,
    shown: SharedRun,
    redraw: Callback<()>,
    score: crate::adapt::ScoreKind,
    /// When the last call into the search began (its time is the search's own).
    since: f64,
}

impl PageHost {
    fn crew_agent(&self, reference: bool) -> (PageAgent, RunSettings) {
        let builtin = PageAgent::Builtin(AgentInfo::new("baseline", &format!("{}-baseline", self.app.name)));
        match (&self.agent, reference) {
            (_, true) => (builtin, RunSettings::default()),
            (Agent::Baseline(t), false) => {
                (builtin, RunSettings { max_turns: Some(*t), ..RunSettings::default() })
            }
            (Agent::Endpoint(c), false) => (PageAgent::Remote(c.clone()), RunSettings::default()),
        }
    }

    /// The search's own time: from the last return into it until now.
    fn searched(&mut self) {
        self.shown.borrow_mut().search_ms += now_ms() - self.since;
    }
}

/// The ids of `(cell index, seed)` pairs, realised in the application's worker.
async fn realise_in_worker(
    workers: &Workers,
    app: &'static AppInfo,
    pairs: &[(u64, u64)],
) -> Result<Vec<Option<String>>, String> {
    let request = json!({"op": "realise", "app": app.name, "cells": pairs});
    let answer = ask_worker(workers, app.name, &request, "realised").await?;
    serde_json::from_value(answer["ids"].clone()).map_err(|e| format!("the worker's ids are unreadable: {e}"))
}

impl Host for PageHost {
    async fn realise(&mut self, pairs: &[(u64, u64)]) -> Result<Vec<Option<String>>, String> {
        self.searched();
        let ids = realise_in_worker(&self.workers, self.app, pairs).await;
        self.since = now_ms();
        ids
    }

    async fn scores(&mut self, ids: &[String], reference: bool) -> Result<Option<Vec<f64>>, String> {
        self.searched();
        yield_now().await;
        let (one, settings) = self.crew_agent(reference);
        let agents = move || match &one {
            PageAgent::Builtin(i) => PageAgent::Builtin(i.clone()),
            PageAgent::Remote(c) => PageAgent::Remote(c.clone()),
            PageAgent::Local(_) => unreachable!("the adaptive view makes no local agents"),
        };
        let ids: Vec<QueryId> =
            ids.iter().map(|i| i.parse()).collect::<crate::Result<_>>().map_err(|e| e.to_string())?;
        let n = ids.len();
        let (cancel, client) = {
            let s = self.shown.borrow();
            (s.cancel.clone(), s.client.clone())
        };
        let crew = Crew { agents: &agents, client, cancel: cancel.clone(), workers: self.workers.clone() };
        let kind = self.score;
        let out = RefCell::new(vec![None::<f64>; n]);
        let plan = Plan { local: None, ids, settings, jobs: 2 };
        run_batch(plan, &crew, |f| {
            if let Some(r) = f.record {
                out.borrow_mut()[f.index] = Some(kind.of(&r.score));
                if let Some(e) = r.turns.iter().find_map(|t| t.error.as_deref()) {
                    self.shown.borrow_mut().cut_short.push(format!("{}: {e}", r.id));
                }
            }
        })
        .await?;
        {
            let mut s = self.shown.borrow_mut();
            if reference { s.episodes.1 += n } else { s.episodes.0 += n }
        }
        self.redraw.emit(());
        self.since = now_ms();
        if cancel.get() {
            return Ok(None);
        }
        out.into_inner()
            .into_iter()
            .collect::<Option<Vec<f64>>>()
            .map(Some)
            .ok_or_else(|| "an episode did not end".into())
    }

    fn save(&mut self, search: &Search<'_>) {
        {
            let mut s = self.shown.borrow_mut();
            s.state = Some(search.state().clone());
            if let Ok(map) = weakness_map(search, None, &[]) {
                s.svg = crate::report::weakness_svg(&map);
            }
            s.rows = weakness_table(search);
        }
        self.searched();
        self.since = now_ms();
        self.redraw.emit(());
    }
}

/// A host that only realises ids: a curriculum export runs no episodes.
struct Realiser {
    workers: Workers,
    app: &'static AppInfo,
}

impl Host for Realiser {
    async fn realise(&mut self, pairs: &[(u64, u64)]) -> Result<Vec<Option<String>>, String> {
        realise_in_worker(&self.workers, self.app, pairs).await
    }

    async fn scores(&mut self, _ids: &[String], _reference: bool) -> Result<Option<Vec<f64>>, String> {
        Err("a curriculum export runs no episodes".into())
    }
}

/// The curriculum file of a state, the bytes `netpress adapt export --count COUNT` writes for it
/// (the library's [`crate::adapt::export`]; the ids come from the worker).
pub async fn export(
    workers: &Workers,
    app: &'static AppInfo,
    state: State,
    format: ExportFormat,
    count: usize,
) -> Result<String, String> {
    if format == ExportFormat::Rl {
        // The lines hold generated tasks: the application's worker writes them.
        let request = json!({"op": "curriculum", "state": state.to_json(), "count": count});
        let answer = ask_worker(workers, app.name, &request, "curriculum").await?;
        return answer["text"]
            .as_str()
            .map(String::from)
            .ok_or_else(|| "the worker's curriculum is unreadable".into());
    }
    let remote = space_of(workers, app).await?;
    let search = Search::from_state(&remote, state).map_err(|e| e.to_string())?;
    let mut host = Realiser { workers: workers.clone(), app };
    crate::adapt::export_remote(&search, &remote, &mut host, format, count).await
}

/// The application's space, from its worker.
pub async fn space_of(workers: &Workers, app: &'static AppInfo) -> Result<Remote, String> {
    let answer = ask_worker(workers, app.name, &json!({"op": "space", "app": app.name}), "space").await?;
    let spec: SpaceSpec = serde_json::from_value(answer["space"].clone())
        .map_err(|e| format!("the worker's space is unreadable: {e}"))?;
    Remote::new(app, &spec).map_err(|e| e.to_string())
}

/// The map and table of a state, without running anything (a link or an imported file).
pub fn draw(remote: &Remote, state: State) -> Result<(String, Vec<WeakRow>, State), String> {
    let search = Search::from_state(remote, state).map_err(|e| e.to_string())?;
    let svg = weakness_map(&search, None, &[])
        .map(|m| crate::report::weakness_svg(&m))
        .map_err(|e| e.to_string())?;
    Ok((svg, weakness_table(&search), search.state().clone()))
}

/// How a run begins.
pub enum Start {
    /// A new search with these settings and agent.
    New(crate::adapt::Settings, AgentInfo),
    /// A saved search continued, to at least this many rounds.
    Resume(State, u32),
}

/// Runs (or continues) a search to its end or the user's Stop.
pub async fn run(
    workers: Workers,
    remote: Remote,
    start: Start,
    agent: Agent,
    shown: SharedRun,
    redraw: Callback<()>,
) {
    let app = shown.borrow().app;
    let search = match start {
        Start::Resume(state, rounds) => {
            // More rounds than the state's: the search runs on and confirms again at the end.
            let mut settings = state.settings.clone();
            settings.rounds = settings.rounds.max(rounds);
            Search::resume(&remote, state, &settings)
        }
        Start::New(settings, info) => Search::new(&remote, settings, info),
    };
    let mut search = match search {
        Ok(s) => s,
        Err(e) => {
            shown.borrow_mut().phase = Phase::Failed(e.to_string());
            redraw.emit(());
            return;
        }
    };
    let score = search.state().settings.score;
    let mut host = PageHost {
        workers,
        app,
        agent,
        shown: shown.clone(),
        redraw: redraw.clone(),
        score,
        since: now_ms(),
    };
    let outcome = crate::adapt::drive_remote(&mut search, &remote, &mut host).await;
    host.save(&search);
    let stopped = shown.borrow().cancel.get();
    shown.borrow_mut().phase = match outcome {
        Ok(true) => Phase::Done,
        Ok(false) => Phase::Stopped,
        Err(_) if stopped => Phase::Stopped,
        Err(e) => Phase::Failed(e),
    };
    redraw.emit(());
}

/// A fresh view copy of a run.
pub fn shown(
    app: &'static AppInfo,
    state: Option<State>,
    client: Option<Rc<dyn remote::RemoteClient>>,
) -> Shown {
    Shown {
        app,
        state,
        svg: String::new(),
        rows: Vec::new(),
        phase: Phase::Running,
        episodes: (0, 0),
        search_ms: 0.0,
        cut_short: Vec::new(),
        cancel: Rc::new(Cell::new(false)),
        client,
    }
}
