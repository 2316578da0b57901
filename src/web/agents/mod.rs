//! Agents as the page runs them, and the one loop that drives an episode with any of them.
//!
//! Library agents (baselines, replays of pasted text) answer at once; network agents answer
//! through the endpoint adapter ([`remote`]). [`drive`] feeds each reply to the episode
//! handle and reports every step, yielding between steps so the page stays responsive.

pub mod form;
pub mod remote;

use std::cell::Cell;
use std::rc::Rc;

use crate::agent::{Agent, AgentError, AgentInfo, AgentReply};

use super::sandbox::{EpisodeHandle, Snapshot};
use super::util::{Slicer, sleep};

/// Set to stop a running loop; shared between the loop and its Stop button.
pub type Cancel = Rc<Cell<bool>>;

/// Why a loop ends early when its Stop button is pressed.
pub const CANCELLED: &str = "cancelled by the user";

/// Anything that can answer an episode's conversation in the page.
pub enum PageAgent {
    /// A library agent that answers synchronously (baselines, replays).
    Local(Box<dyn Agent>),
    /// A network agent behind the endpoint adapter.
    Remote(Rc<dyn remote::RemoteClient>),
    /// The application's built-in agent (its baseline), which runs beside the engine in the
    /// application's worker; the info is the one the task view reports for it.
    Builtin(AgentInfo),
}

impl PageAgent {
    pub fn info(&self) -> AgentInfo {
        match self {
            PageAgent::Local(a) => a.info(),
            PageAgent::Remote(c) => c.info(),
            PageAgent::Builtin(info) => info.clone(),
        }
    }

    async fn reply(&mut self, handle: &EpisodeHandle, snapshot: &Snapshot) -> Result<AgentReply, AgentError> {
        match self {
            PageAgent::Local(a) => a.reply(&snapshot.messages),
            PageAgent::Remote(c) => c.call(snapshot).await,
            PageAgent::Builtin(_) => handle.builtin_reply().await,
        }
    }
}

/// How the loop gives the page room: a pause between turns so people can watch them, or
/// time slices (shared across episodes of a batch) after which it yields.
pub enum Pace<'a> {
    Watch(u32),
    Slices(&'a mut Slicer),
}

/// Runs an episode to its end with `agent`, calling `on_step` after every turn. A set
/// `cancel` stops the episode with [`CANCELLED`].
pub async fn drive(
    handle: &EpisodeHandle,
    mut snapshot: Snapshot,
    agent: &mut PageAgent,
    cancel: &Cancel,
    mut pace: Pace<'_>,
    mut on_step: impl FnMut(&Snapshot),
) -> Result<Snapshot, String> {
    while snapshot.finished.is_none() {
        if cancel.get() {
            return handle.stop(CANCELLED).await;
        }
        let reply = agent.reply(handle, &snapshot).await;
        if cancel.get() {
            return handle.stop(CANCELLED).await;
        }
        snapshot = handle.submit(reply).await?;
        on_step(&snapshot);
        match &mut pace {
            Pace::Watch(ms) if snapshot.finished.is_none() => sleep(*ms).await,
            Pace::Watch(_) => {}
            Pace::Slices(slicer) => slicer.tick().await,
        }
    }
    Ok(snapshot)
}
