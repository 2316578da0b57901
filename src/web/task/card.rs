//! The task's identity (query id, content hash, label, copy-link) and its prompt in the chosen
//! variant, exactly as an agent receives it.

use yew::prelude::*;

use super::super::answer::Drafts;
use super::super::settings::use_settings;
use super::super::show::terms::Terms;
use super::super::{go, util};
use super::TaskRef;
use crate::app::PromptVariant;
use crate::link::{self, LinkHolds, TaskLink, View};

#[derive(Properties, PartialEq)]
pub struct CardProps {
    pub task: TaskRef,
    pub link: TaskLink,
}

/// A copy button with its own status line.
#[derive(Properties, PartialEq)]
pub struct CopyProps {
    pub label: AttrValue,
    /// Copies this text; `None` copies the page's URL at click time.
    #[prop_or_default]
    pub text: Option<AttrValue>,
    #[prop_or_default]
    pub id: Option<AttrValue>,
}

#[function_component(CopyButton)]
pub fn copy_button(props: &CopyProps) -> Html {
    let status = use_state(String::new);
    let onclick = {
        let status = status.clone();
        let text = props.text.clone();
        Callback::from(move |_| {
            let text = text
                .as_ref()
                .map(|t| t.to_string())
                .unwrap_or_else(|| gloo::utils::window().location().href().unwrap_or_default());
            let status = status.clone();
            wasm_bindgen_futures::spawn_local(async move {
                status.set(match util::copy_text(&text).await {
                    Ok(()) => "copied".into(),
                    Err(e) => e,
                });
            });
        })
    };
    html! {
        <span class="copy">
            <button type="button" class="secondary" id={props.id.clone()} {onclick}>{ &props.label }</button>
            <span class="muted" role="status">{ &*status }</span>
        </span>
    }
}

#[derive(Properties, PartialEq)]
pub struct IdProps {
    pub task: TaskRef,
    pub link: TaskLink,
    pub drafts: Drafts,
}

/// "Copy link": the link of the view with the answer of the tab in view, and a status that
/// says what that link holds, above all when the answer is too long to travel in it.
#[function_component(CopyLink)]
fn copy_link(props: &IdProps) -> Html {
    let status = use_state(|| None::<(LinkHolds, Result<(), String>)>);
    let onclick = {
        let (status, drafts, link) = (status.clone(), props.drafts.clone(), props.link.clone());
        Callback::from(move |_| {
            let live = drafts.live_link().unwrap_or_else(|| link.clone());
            let mode = drafts.mode_of(&live).to_string();
            let answer = drafts.get(&mode);
            let holds = LinkHolds::of(answer.as_deref());
            let href = gloo::utils::window().location().href().unwrap_or_default();
            let base = href.split('#').next().unwrap_or_default().to_string();
            let url = format!("{base}{}", link::format(&View::Task(drafts.link_for(&live, &mode))));
            let status = status.clone();
            wasm_bindgen_futures::spawn_local(async move {
                let copied = util::copy_text(&url).await;
                status.set(Some((holds, copied)));
            });
        })
    };
    let (class, words) = match &*status {
        None => ("muted", String::new()),
        Some((_, Err(e))) => ("error", e.clone()),
        Some((holds @ LinkHolds::TooLong { .. }, Ok(()))) => ("notice", holds.describe()),
        Some((holds, Ok(()))) => ("muted", holds.describe()),
    };
    html! {
        <span class="copy">
            <button type="button" class="secondary" id="copy-link" {onclick}>{ "Copy link" }</button>
            <span class={class} id="copy-link-status" role="status">{ words }</span>
        </span>
    }
}

#[function_component(IdCard)]
pub fn id_card(props: &IdProps) -> Html {
    let card = &props.task.view.card;
    let level = crate::registry::info(&card.app)
        .ok()
        .and_then(|a| a.levels.iter().find(|l| l.level == card.level).map(|l| l.summary))
        .unwrap_or_default();
    html! {
        <div class="card ids">
            <div><span class="k">{ "query id" }</span><code id="query-id">{ &card.id }</code></div>
            <div><span class="k">{ "content hash" }</span><code id="content-hash" class="hash">{ &card.content_hash }</code></div>
            <div><span class="k">{ "label" }</span><code id="task-label">{ &card.label }</code></div>
            <div><span class="k">{ "level" }</span>{ format!("L{} — {level}", card.level) }</div>
            <div><span class="k">{ "turn limit" }</span>{ card.max_turns }</div>
            <Terms app={card.app.clone()} texts={vec![AttrValue::from(card.label.clone()), AttrValue::from(level)]} />
            <CopyLink task={props.task.clone()} link={props.link.clone()} drafts={props.drafts.clone()} />
        </div>
    }
}

#[function_component(PromptCard)]
pub fn prompt_card(props: &CardProps) -> Html {
    let link = props.link.clone();
    let settings = use_settings();
    let prompt = use_memo((props.task.clone(), link.variant), |(task, variant)| {
        task.view.prompt(*variant).to_string()
    });
    let on_variant = Callback::from(move |e: Event| {
        if let Ok(variant) = PromptVariant::parse(&util::event_value(&e)) {
            settings.update(move |s| s.variant = variant);
            go(&View::Task(TaskLink { variant, ..link.clone() }));
        }
    });
    let card = &props.task.view.card;
    html! {
        <section class="card">
            <div class="row spread">
                <h3>{ "Prompt" }</h3>
                <div class="row">
                    <label for="variant">{ "Variant" }</label>
                    <select id="variant" onchange={on_variant}>
                    { for PromptVariant::ALL.iter().map(|v| html! {
                        <option value={v.as_str()} selected={*v == props.link.variant}>{ v.title() }</option>
                    }) }
                    </select>
                    <CopyButton label="Copy prompt" text={AttrValue::from((*prompt).clone())} />
                </div>
            </div>
            if let Some(q) = &card.question {
                <p class="question"><span class="k">{ "question" }</span>{ q }</p>
            }
            <pre id="prompt" class="prompt" tabindex="0" aria-label="The prompt as the agent receives it">{ (*prompt).clone() }</pre>
        </section>
    }
}
