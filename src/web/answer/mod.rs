//! The answer modes of the task view, all driving the same kind of episode: a terminal for
//! typing commands, a box for pasting a whole answer, the built-in baseline agent, and a
//! network agent endpoint. The mode is part of the URL.

mod baseline;
mod drafts;
mod endpoint;
mod paste;
mod session;
mod terminal;

use std::collections::{BTreeMap, BTreeSet};

use yew::prelude::*;

pub use drafts::Drafts;

use super::go;
use super::task::TaskRef;
use crate::app::AnswerKind;
use crate::link::{TaskLink, View};
use crate::view::Picture;

#[derive(Properties, PartialEq)]
pub struct ModeProps {
    pub task: TaskRef,
    pub link: TaskLink,
    pub on_picture: Callback<Option<Picture>>,
    /// Every tab's answer on this task (shared with "Copy link").
    pub drafts: Drafts,
    /// The tab is the one the page was opened on, so `link.answer` came with the link (not
    /// from a tab switch, which puts the tab's own draft there).
    pub from_link: bool,
}

/// The modes an answer kind offers, with their tab names; the first is the default.
fn modes(answer: AnswerKind) -> Vec<(&'static str, &'static str)> {
    let mut modes = vec![("paste", "Paste"), ("baseline", "Baseline"), ("endpoint", "Endpoint")];
    if answer.terminal() {
        modes.insert(0, ("terminal", "Terminal"));
    }
    modes
}

/// How `task` is answered (its own kind, else its application's).
pub fn answer_kind(task: &TaskRef) -> AnswerKind {
    crate::registry::info(&task.view.card.app).map_or(AnswerKind::Commands, |i| task.view.answer_kind(i))
}

/// The tab a link to a task of `app` opens when it names none (the application's usual
/// kind: a link may name a task that cannot be generated).
pub fn default_mode(app: &str) -> &'static str {
    modes(crate::registry::info(app).map_or(AnswerKind::Commands, |i| i.answer))[0].0
}

#[derive(Properties, PartialEq)]
pub struct AnswerProps {
    pub task: TaskRef,
    pub link: TaskLink,
    pub on_picture: Callback<Option<Picture>>,
    pub drafts: Drafts,
}

/// The answer tabs. A tab, once opened, stays mounted (hidden while another is shown), so
/// its session, a run in flight and its draft survive switching tabs; switching puts the
/// tab's own answer into the URL, so Back returns to the tab as it was.
#[function_component(AnswerPanel)]
pub fn answer_panel(props: &AnswerProps) -> Html {
    let modes = modes(answer_kind(&props.task));
    let current = props
        .link
        .mode
        .as_deref()
        .and_then(|m| modes.iter().find(|(k, _)| *k == m))
        .map_or(modes[0].0, |(k, _)| *k);
    let opened_on = *use_mut_ref(|| current).borrow();
    let visited = use_mut_ref(BTreeSet::<&'static str>::new);
    visited.borrow_mut().insert(current);
    let shown = use_mut_ref(|| current);
    *shown.borrow_mut() = current;
    let pictures = use_mut_ref(BTreeMap::<&'static str, Option<Picture>>::new);
    {
        // The picture follows the tab in view: each tab keeps the state of its own episode.
        let (pictures, on_picture) = (pictures.clone(), props.on_picture.clone());
        use_effect_with(current, move |current| {
            on_picture.emit(pictures.borrow().get(current).cloned().flatten());
        });
    }
    let open = {
        let (link, drafts) = (props.link.clone(), props.drafts.clone());
        move |mode: &str| go(&View::Task(drafts.link_for(&link, mode)))
    };
    let onkeydown = {
        let keys: Vec<&'static str> = modes.iter().map(|(k, _)| *k).collect();
        let open = open.clone();
        Callback::from(move |e: KeyboardEvent| {
            let at = keys.iter().position(|k| *k == current).unwrap_or(0);
            let to = match e.key().as_str() {
                "ArrowRight" => (at + 1) % keys.len(),
                "ArrowLeft" => (at + keys.len() - 1) % keys.len(),
                _ => return,
            };
            e.prevent_default();
            open(keys[to]);
            focus_tab(keys[to]);
        })
    };
    let tabs = modes.iter().map(|(key, name)| {
        let selected = *key == current;
        let key = *key;
        let onclick = {
            let open = open.clone();
            Callback::from(move |_| {
                if key != current {
                    open(key)
                }
            })
        };
        html! {
            <button type="button" role="tab" id={format!("tab-{key}")} class="tab" aria-selected={selected.to_string()}
                    aria-controls="answer-panel" tabindex={if selected { "0" } else { "-1" }} {onclick}>{ *name }</button>
        }
    });
    let panes = modes.iter().filter(|(k, _)| visited.borrow().contains(k)).map(|(key, _)| {
        let key = *key;
        let on_picture = {
            let (pictures, shown, on_picture) = (pictures.clone(), shown.clone(), props.on_picture.clone());
            Callback::from(move |p: Option<Picture>| {
                pictures.borrow_mut().insert(key, p.clone());
                if *shown.borrow() == key {
                    on_picture.emit(p);
                }
            })
        };
        let p = ModeProps {
            task: props.task.clone(),
            link: props.link.clone(),
            on_picture,
            drafts: props.drafts.clone(),
            from_link: key == opened_on,
        };
        let body = match key {
            "terminal" => html! { <terminal::Terminal ..p /> },
            "paste" => html! { <paste::Paste ..p /> },
            "baseline" => html! { <baseline::Baseline ..p /> },
            _ => html! { <endpoint::Endpoint ..p /> },
        };
        html! { <div key={key} class="mode-pane" data-mode={key} hidden={key != current}>{ body }</div> }
    });
    html! {
        <section class="card answer">
            <h3>{ "Answer" }</h3>
            <div class="tabs" role="tablist" aria-label="Answer mode" {onkeydown}>{ for tabs }</div>
            <div id="answer-panel" role="tabpanel" aria-labelledby={format!("tab-{current}")}>{ for panes }</div>
        </section>
    }
}

/// The element of the tab in view matching `selector`.
fn in_view(selector: &str) -> Option<web_sys::Element> {
    let query = format!(".answer .mode-pane:not([hidden]) {selector}");
    gloo::utils::document().query_selector(&query).ok().flatten()
}

/// Brings the top of the newest turn of the tab in view into sight, once it is drawn.
pub fn scroll_to_latest(selector: &'static str) {
    gloo::timers::callback::Timeout::new(0, move || {
        if let Some(el) = in_view(selector) {
            el.scroll_into_view_with_bool(true);
        }
    })
    .forget();
}

/// Focuses the answer field of the tab in view; true if there is one.
pub fn focus_answer() -> bool {
    use wasm_bindgen::JsCast;
    match in_view("[data-autofocus]") {
        Some(el) => el.unchecked_into::<web_sys::HtmlElement>().focus().is_ok(),
        None => false,
    }
}

/// Keeps keyboard focus on the tab that arrow keys moved to, once it is redrawn.
fn focus_tab(key: &str) {
    let id = format!("tab-{key}");
    gloo::timers::callback::Timeout::new(0, move || {
        if let Some(el) = gloo::utils::document().get_element_by_id(&id) {
            use wasm_bindgen::JsCast;
            let _ = el.unchecked_into::<web_sys::HtmlElement>().focus();
        }
    })
    .forget();
}
