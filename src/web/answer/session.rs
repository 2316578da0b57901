//! The state every answer mode shares: the live episode, its latest snapshot, the panels after
//! each turn, and the scored record at the end. Async code updates it in place and asks the
//! component to redraw, so long loops never read stale state.
//!
//! A record is saved to the history only for an episode the user acted in (typed, pressed
//! Run, started an agent). An episode that only replays a link (or a restored draft) shows
//! its score with a "Save to history" button instead, so opening a shared link, however
//! often, adds nothing to the viewer's history; and an episode is saved at most once.

use std::cell::{Cell, Ref, RefCell};
use std::rc::Rc;

use yew::prelude::*;

use super::super::agents::Cancel;
use super::super::sandbox::{EpisodeHandle, Snapshot, Workers, use_workers};
use super::super::show::panels::Panels;
use super::super::show::score::ScoreCard;
use super::super::show::turns::TurnLog;
use super::super::store;
use super::super::task::TaskRef;
use crate::agent::AgentInfo;
use crate::app::{Finish, PromptVariant};
use crate::record::ResultRecord;
use crate::run::RunSettings;
use crate::view::{Panel, Picture};

#[derive(Default)]
pub struct Session {
    pub handle: Option<EpisodeHandle>,
    pub snapshot: Snapshot,
    /// The panels after each turn (index turn − 1), for the terminal's scrollback.
    pub history: Vec<Vec<Panel>>,
    pub running: bool,
    pub record: Option<ResultRecord>,
    pub saved_as: Option<String>,
    pub error: Option<String>,
    pub cancel: Cancel,
    /// The user acted in this episode (rather than watching a replay).
    pub acted: bool,
    /// Who played the episode, for the history run's name.
    pub agent: Option<AgentInfo>,
}

/// A mode's handle on its session.
#[derive(Clone)]
pub struct SessionCtl {
    state: Rc<RefCell<Session>>,
    redraw: UseForceUpdateHandle,
    task: TaskRef,
    settings: RunSettings,
    on_picture: Callback<Option<Picture>>,
    /// The page's sandbox workers, for episodes of sandboxed applications.
    workers: Workers,
}

/// The session changes in place, so a view of it is never up to date by comparison: a
/// component given a `SessionCtl` redraws whenever its parent does.
impl PartialEq for SessionCtl {
    fn eq(&self, _: &Self) -> bool {
        false
    }
}

/// The session of one mode on one task; it is cancelled when the mode goes away.
#[hook]
pub fn use_session(
    task: &TaskRef,
    variant: PromptVariant,
    on_picture: &Callback<Option<Picture>>,
) -> SessionCtl {
    let state = use_mut_ref(Session::default);
    let redraw = use_force_update();
    let workers = use_workers();
    {
        let state = state.clone();
        use_effect_with((), move |_| move || state.borrow().cancel.set(true));
    }
    SessionCtl {
        state,
        redraw,
        task: task.clone(),
        settings: RunSettings { variant, max_turns: None },
        on_picture: on_picture.clone(),
        workers,
    }
}

impl SessionCtl {
    pub fn get(&self) -> Ref<'_, Session> {
        self.state.borrow()
    }

    pub fn update(&self, f: impl FnOnce(&mut Session)) {
        f(&mut self.state.borrow_mut());
        self.redraw.force_update();
    }

    /// Starts a fresh episode played by `agent`, replacing any earlier one (which is
    /// cancelled). `acted` says whether the user started it (else it replays a link).
    pub async fn start(&self, agent: &AgentInfo, acted: bool) -> Option<(EpisodeHandle, Snapshot, Cancel)> {
        let cancel: Cancel = Rc::new(Cell::new(false));
        self.update(|s| {
            s.cancel.set(true);
            *s = Session {
                running: true,
                cancel: cancel.clone(),
                acted,
                agent: Some(agent.clone()),
                ..Session::default()
            };
        });
        match EpisodeHandle::start(&self.workers, &self.task, self.settings, agent.clone()).await {
            Ok((handle, snapshot)) => {
                self.show(&snapshot);
                self.update(|s| s.handle = Some(handle.clone()));
                Some((handle, snapshot, cancel))
            }
            Err(e) => {
                self.update(|s| {
                    s.running = false;
                    s.error = Some(e);
                });
                None
            }
        }
    }

    /// Shows a new snapshot.
    pub fn show(&self, snapshot: &Snapshot) {
        self.on_picture.emit(snapshot.picture.clone());
        self.update(|s| {
            s.history.resize(snapshot.turns.len(), Vec::new());
            if let Some(last) = s.history.last_mut() {
                *last = snapshot.panels.clone();
            }
            s.snapshot = snapshot.clone();
        });
    }

    /// Reports an error from the episode or the worker and ends the run.
    pub fn fail(&self, error: String) {
        self.update(|s| {
            s.running = false;
            s.error = Some(error);
        });
    }

    /// Marks the episode as the user's own: it is saved when it ends.
    pub fn act(&self) {
        self.state.borrow_mut().acted = true;
    }

    /// Scores the episode as it stands and, if the user acted in it, saves it as a run.
    pub async fn finish(&self) {
        let Some(handle) = self.get().handle.clone() else { return };
        let record = match handle.record() {
            Ok(r) => r,
            Err(e) => return self.fail(e),
        };
        let acted = self.get().acted;
        self.update(|s| {
            s.running = false;
            s.record = Some(record);
        });
        if acted {
            self.save().await;
        }
    }

    /// Saves the finished episode to the history, once.
    pub async fn save(&self) {
        let (record, agent) = {
            let s = self.get();
            if s.saved_as.is_some() {
                return;
            }
            match (s.record.clone(), s.agent.clone()) {
                (Some(r), Some(a)) => (r, a),
                _ => return,
            }
        };
        // Claimed before the await, so a second click while saving cannot save it twice.
        self.state.borrow_mut().saved_as = Some(String::new());
        let name = format!("{} on {}", agent.label(), record.id);
        let saved = store::save(&name, store::Source::Task, std::slice::from_ref(&record)).await;
        self.update(|s| match saved {
            Ok(meta) => s.saved_as = Some(meta.name),
            Err(e) => {
                s.saved_as = None;
                s.error = Some(format!("not saved to the history: {e}"));
            }
        });
    }

    /// The score card of the finished episode, with a save button for a replay.
    pub fn score_card(&self) -> Html {
        let s = self.get();
        let Some(r) = &s.record else { return html! {} };
        let on_save = (s.saved_as.is_none()).then(|| {
            let ctl = self.clone();
            Callback::from(move |(): ()| {
                let ctl = ctl.clone();
                wasm_bindgen_futures::spawn_local(async move { ctl.save().await });
            })
        });
        let saved_as = s.saved_as.clone().filter(|n| !n.is_empty());
        html! { <ScoreCard record={r.clone()} {saved_as} {on_save} /> }
    }
}

fn finish_line(snapshot: &Snapshot) -> Option<String> {
    let f = snapshot.finished?;
    let words = match f {
        Finish::Solved => "Solved: every intended behaviour works.".to_string(),
        Finish::TurnLimit => "The turn limit was reached.".to_string(),
        Finish::Answered => "Answer submitted.".to_string(),
        Finish::Stopped => {
            format!("Stopped: {}.", snapshot.stop_reason.as_deref().unwrap_or("no reason given"))
        }
    };
    Some(words)
}

#[derive(Properties, PartialEq)]
pub struct EpisodeViewProps {
    pub ctl: SessionCtl,
    #[prop_or(true)]
    pub replies: bool,
}

/// The turns so far, the current state panels, and the score card once finished.
#[function_component(EpisodeView)]
pub fn episode_view(props: &EpisodeViewProps) -> Html {
    let s = props.ctl.get();
    // The log ends with the newest turn: keep it in view as turns arrive.
    let turns = s.snapshot.turns.len();
    use_effect_with(turns, |turns| {
        if *turns > 0 {
            super::scroll_to_latest(".turn:last-child");
        }
    });
    html! {
        <div class="episode">
            if let Some(e) = &s.error { <p class="error" role="alert">{ e }</p> }
            <TurnLog turns={s.snapshot.turns.clone()} replies={props.replies} />
            if !s.snapshot.panels.is_empty() && s.handle.is_some() {
                <section class="state">
                    <h4 class="muted">{ format!("State after turn {}", s.snapshot.turns.len()) }</h4>
                    <Panels panels={s.snapshot.panels.clone()} />
                </section>
            }
            if let Some(line) = finish_line(&s.snapshot) { <p class="finish" role="status">{ line }</p> }
            { props.ctl.score_card() }
        </div>
    }
}
