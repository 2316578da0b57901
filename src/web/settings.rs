//! Settings that persist in local storage: the agent endpoint, the preferred prompt variant
//! and the baseline's pace.
//!
//! They are page state held in Yew context ([`SettingsProvider`] at the root, [`use_settings`]
//! in a view), read from storage once when the page opens and stored on every change. The API
//! key is written to storage only when the user ticks "remember"; otherwise it lives in the
//! page's state until the page is closed, and is sent only to the endpoint configured.

use std::rc::Rc;

use gloo::storage::{LocalStorage, Storage};
use serde::{Deserialize, Serialize};
use yew::prelude::*;

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
    /// Stored only when `remember_key`.
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

/// A change to the settings, applied to the latest value (so two changes made before the
/// page redraws both count).
pub struct Change(Box<dyn FnOnce(&mut Settings)>);

impl Reducible for Settings {
    type Action = Change;

    /// Applies the change and stores the result: every change goes through here, so storage
    /// always holds what the page shows.
    fn reduce(self: Rc<Self>, change: Change) -> Rc<Self> {
        let mut next = (*self).clone();
        (change.0)(&mut next);
        store(&next);
        Rc::new(next)
    }
}

/// The settings every view reads, and the way to change them. The key typed this session
/// lives here, in the page's state, for as long as the page is open; storage has it only if
/// it is remembered.
#[derive(Clone, PartialEq)]
pub struct SettingsHandle(UseReducerHandle<Settings>);

impl std::ops::Deref for SettingsHandle {
    type Target = Settings;

    fn deref(&self) -> &Settings {
        &self.0
    }
}

impl SettingsHandle {
    /// Changes the settings with `f` and stores them; views that read them redraw.
    pub fn update(&self, f: impl FnOnce(&mut Settings) + 'static) {
        self.0.dispatch(Change(Box::new(f)));
    }
}

/// The stored settings (defaults when none or unreadable).
fn load() -> Settings {
    LocalStorage::get(KEY).unwrap_or_default()
}

/// Stores the settings; the key goes to storage only if the user asked to remember it.
fn store(settings: &Settings) {
    let mut stored = settings.clone();
    if !stored.endpoint.remember_key {
        stored.endpoint.api_key.clear();
    }
    let _ = LocalStorage::set(KEY, &stored);
}

#[derive(Properties, PartialEq)]
pub struct ProviderProps {
    pub children: Children,
}

/// Holds the settings for the views below it (the whole page), read from storage once.
#[function_component(SettingsProvider)]
pub fn settings_provider(props: &ProviderProps) -> Html {
    let settings = SettingsHandle(use_reducer(load));
    html! {
        <ContextProvider<SettingsHandle> context={settings}>{ props.children.clone() }</ContextProvider<SettingsHandle>>
    }
}

/// The page's settings (outside a [`SettingsProvider`]: this component's own copy, read from
/// and written to storage the same way).
#[hook]
pub fn use_settings() -> SettingsHandle {
    let own = SettingsHandle(use_reducer(load));
    use_context::<SettingsHandle>().unwrap_or(own)
}
