//! Settings that persist in local storage: the agent endpoint, the preferred prompt variant
//! and the baseline's pace.
//!
//! The API key is written to storage only when the user ticks "remember"; otherwise it lives in
//! this tab's memory until the page is closed, and is sent only to the endpoint configured.

use std::cell::RefCell;

use gloo::storage::{LocalStorage, Storage};
use serde::{Deserialize, Serialize};

use crate::app::PromptVariant;

const KEY: &str = "netpress.settings.v1";

/// How to reach an agent.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct EndpointSettings {
    /// `openai` (chat completions) or `a2a` (JSON-RPC `message/send`).
    pub kind: String,
    /// Base URL, e.g. `http://localhost:11434/v1` or the A2A agent's URL.
    pub url: String,
    pub model: String,
    pub temperature: Option<f64>,
    pub max_tokens: Option<u32>,
    /// Seconds before a call is given up.
    pub timeout_s: u32,
    pub remember_key: bool,
    /// Stored only when `remember_key`; see [`api_key`].
    pub api_key: String,
}

impl Default for EndpointSettings {
    fn default() -> Self {
        EndpointSettings {
            kind: "openai".into(),
            url: "http://localhost:11434/v1".into(),
            model: String::new(),
            temperature: Some(0.0),
            max_tokens: None,
            timeout_s: 120,
            remember_key: false,
            api_key: String::new(),
        }
    }
}

/// Everything the app remembers between visits.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(default)]
pub struct Settings {
    pub endpoint: EndpointSettings,
    /// The prompt variant new tasks open with (a link's own variant always wins).
    pub variant: PromptVariant,
    /// Milliseconds between the baseline's turns in the task view, so they can be watched.
    pub pace_ms: u32,
}

thread_local! {
    /// The key typed this session when it is not remembered.
    static SESSION_KEY: RefCell<String> = const { RefCell::new(String::new()) };
}

/// The stored settings (defaults when none or unreadable), with the session's key filled in.
pub fn load() -> Settings {
    let mut s: Settings = LocalStorage::get(KEY).unwrap_or_default();
    if !s.endpoint.remember_key {
        s.endpoint.api_key = SESSION_KEY.with(|k| k.borrow().clone());
    }
    s
}

/// Stores the settings; the key goes to storage only if the user asked to remember it.
pub fn save(settings: &Settings) {
    SESSION_KEY.with(|k| *k.borrow_mut() = settings.endpoint.api_key.clone());
    let mut stored = settings.clone();
    if !stored.endpoint.remember_key {
        stored.endpoint.api_key.clear();
    }
    let _ = LocalStorage::set(KEY, &stored);
}

/// Updates the settings with `f` and stores them.
pub fn update(f: impl FnOnce(&mut Settings)) -> Settings {
    let mut s = load();
    f(&mut s);
    save(&s);
    s
}
