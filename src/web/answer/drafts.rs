//! Each answer tab's work on the task in view: the pasted text, the commands typed into the
//! terminal. It outlives a tab switch (so a tab comes back as it was left, and Back brings its
//! `answer=` back), it is what "Copy link" puts into the link, and what the user wrote is kept
//! in local storage under the task's id, so a reload or a later visit finds it again.
//!
//! What a link replays is shown, not stored: only the user's own typing overwrites what this
//! browser kept for the task, so opening someone's link never discards one's own work.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;

use gloo::storage::{LocalStorage, Storage};

use super::super::{current_fragment, replace};
use crate::link::{self, LinkHolds, TaskLink, View};

/// The local-storage key of a task's drafts.
fn storage_key(task_id: &str) -> String {
    format!("netpress.draft.v1.{task_id}")
}

/// The answers of every tab of one task, by mode key. Cheap to clone; clones share.
#[derive(Clone)]
pub struct Drafts {
    task_id: String,
    /// The mode a link without `mode=` opens.
    default_mode: &'static str,
    answers: Rc<RefCell<BTreeMap<String, String>>>,
}

impl PartialEq for Drafts {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.answers, &other.answers)
    }
}

impl Drafts {
    /// The drafts this browser kept for `task_id` (none if storage is unavailable).
    pub fn load(task_id: &str, default_mode: &'static str) -> Drafts {
        let answers: BTreeMap<String, String> = LocalStorage::get(storage_key(task_id)).unwrap_or_default();
        Drafts { task_id: task_id.to_string(), default_mode, answers: Rc::new(RefCell::new(answers)) }
    }

    /// The current answer of a tab, if it has one.
    pub fn get(&self, mode: &str) -> Option<String> {
        self.answers.borrow().get(mode).filter(|a| !a.is_empty()).cloned()
    }

    /// Sets a tab's answer; `keep` also writes it to local storage (the user's own work).
    pub fn set(&self, mode: &str, answer: &str, keep: bool) {
        self.answers.borrow_mut().insert(mode.to_string(), answer.to_string());
        if keep {
            self.store(mode, answer);
        }
    }

    /// Writes one tab's answer to storage, leaving the other tabs' stored answers alone.
    fn store(&self, mode: &str, answer: &str) {
        let key = storage_key(&self.task_id);
        let mut stored: BTreeMap<String, String> = LocalStorage::get(&key).unwrap_or_default();
        if answer.is_empty() {
            stored.remove(mode);
        } else {
            stored.insert(mode.to_string(), answer.to_string());
        }
        // A full storage only loses persistence; the answer is still in memory and the URL.
        if stored.is_empty() {
            LocalStorage::delete(&key);
        } else {
            let _ = LocalStorage::set(&key, &stored);
        }
    }

    /// Sets a tab's answer and, if the page shows this task in that tab, writes it into the
    /// URL (without a history entry). A tab that runs on while another is shown leaves the
    /// URL alone.
    pub fn remember(&self, mode: &str, answer: &str, keep: bool) {
        self.set(mode, answer, keep);
        if let Some(live) = self.live_link().filter(|l| self.mode_of(l) == mode) {
            let answer = (LinkHolds::of(Some(answer)) == LinkHolds::Answer).then(|| answer.to_string());
            replace(&View::Task(TaskLink { answer, ..live }));
        }
    }

    /// The link of the task view as the URL names it now, if it names this task.
    pub fn live_link(&self) -> Option<TaskLink> {
        match link::parse(&current_fragment()) {
            View::Task(t) if t.id.to_string() == self.task_id => Some(t),
            _ => None,
        }
    }

    /// The tab a link opens.
    pub fn mode_of<'a>(&'a self, link: &'a TaskLink) -> &'a str {
        link.mode.as_deref().unwrap_or(self.default_mode)
    }

    /// The link for the tab `mode` with its answer, when the answer fits in a link. A link
    /// that named no tab and stays on the default one still names none.
    pub fn link_for(&self, link: &TaskLink, mode: &str) -> TaskLink {
        let answer = self.get(mode).filter(|a| LinkHolds::of(Some(a)) == LinkHolds::Answer);
        let mode = (link.mode.is_some() || mode != self.default_mode).then(|| mode.to_string());
        TaskLink { mode, answer, ..link.clone() }
    }
}
