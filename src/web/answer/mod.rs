//! The answer modes of the task view, all driving the same kind of episode: a terminal for
//! typing commands, a box for pasting a whole answer, the built-in baseline agent, and a
//! network agent endpoint. The mode is part of the URL.

mod baseline;
mod endpoint;
mod lines;
mod paste;
mod session;
mod terminal;

use yew::prelude::*;

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
}

/// The modes an answer kind offers, with their tab names; the first is the default.
fn modes(answer: AnswerKind) -> Vec<(&'static str, &'static str)> {
    let mut modes = vec![("paste", "Paste"), ("baseline", "Baseline"), ("endpoint", "Endpoint")];
    if answer != AnswerKind::Python {
        modes.insert(0, ("terminal", "Terminal"));
    }
    modes
}

#[function_component(AnswerPanel)]
pub fn answer_panel(props: &ModeProps) -> Html {
    let app = crate::registry::app(&props.task.0.card().app).ok();
    let answer = app.map_or(AnswerKind::Commands, |a| a.info().answer);
    let modes = modes(answer);
    let current = props
        .link
        .mode
        .as_deref()
        .and_then(|m| modes.iter().find(|(k, _)| *k == m))
        .map_or(modes[0].0, |(k, _)| *k);
    let select = {
        let link = props.link.clone();
        move |mode: &str| {
            go(&View::Task(TaskLink { mode: Some(mode.to_string()), answer: None, ..link.clone() }))
        }
    };
    let onkeydown = {
        let keys: Vec<&'static str> = modes.iter().map(|(k, _)| *k).collect();
        let link = props.link.clone();
        Callback::from(move |e: KeyboardEvent| {
            let at = keys.iter().position(|k| *k == current).unwrap_or(0);
            let to = match e.key().as_str() {
                "ArrowRight" => (at + 1) % keys.len(),
                "ArrowLeft" => (at + keys.len() - 1) % keys.len(),
                _ => return,
            };
            e.prevent_default();
            go(&View::Task(TaskLink { mode: Some(keys[to].to_string()), answer: None, ..link.clone() }));
            focus_tab(keys[to]);
        })
    };
    let tabs = modes.iter().map(|(key, name)| {
        let selected = *key == current;
        let key = *key;
        let onclick = {
            let select = select.clone();
            Callback::from(move |_| select(key))
        };
        html! {
            <button type="button" role="tab" id={format!("tab-{key}")} class="tab" aria-selected={selected.to_string()}
                    aria-controls="answer-panel" tabindex={if selected { "0" } else { "-1" }} {onclick}>{ *name }</button>
        }
    });
    let mode_key = format!("{}|{}|{current}", props.task.0.card().id, props.link.variant.as_str());
    let p = ModeProps {
        task: props.task.clone(),
        link: props.link.clone(),
        on_picture: props.on_picture.clone(),
    };
    let panel = match current {
        "terminal" => html! { <terminal::Terminal key={mode_key} ..p /> },
        "paste" => html! { <paste::Paste key={mode_key} ..p /> },
        "baseline" => html! { <baseline::Baseline key={mode_key} ..p /> },
        _ => html! { <endpoint::Endpoint key={mode_key} ..p /> },
    };
    html! {
        <section class="card answer">
            <h3>{ "Answer" }</h3>
            <div class="tabs" role="tablist" aria-label="Answer mode" {onkeydown}>{ for tabs }</div>
            <div id="answer-panel" role="tabpanel" aria-labelledby={format!("tab-{current}")}>{ panel }</div>
        </section>
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
