//! Paste mode: a whole answer at once (MALT's Python program; Route and K8s commands one per
//! line, fenced blocks, or a transcript), run turn by turn. Short answers are kept in the
//! URL, compressed, so the link reproduces the run.

use yew::prelude::*;

use super::session::{EpisodeView, SessionCtl, use_session};
use super::{ModeProps, answer_kind};
use crate::agent::{AgentInfo, AgentReply};
use crate::app::{AnswerKind, Starter};
use crate::link::{LinkHolds, MAX_LINK_ANSWER};
use crate::paste::{Piece, split_paste};

use super::super::util::{event_value, plural};

/// This tab's key in the URL and in the drafts.
const MODE: &str = "paste";

fn paster() -> AgentInfo {
    AgentInfo::new("paste", "pasted answer")
}

/// Runs the pieces of a paste as turns until the episode ends or the paste runs out.
async fn run(ctl: SessionCtl, answer: AnswerKind, text: String, acted: bool) {
    let Some((handle, snapshot, cancel)) = ctl.start(&paster(), acted).await else { return };
    let pieces = split_paste(&text, answer, &snapshot.targets);
    let mut last = snapshot;
    for piece in pieces {
        if cancel.get() || last.finished.is_some() {
            break;
        }
        let reply = match piece {
            Piece::Reply(r) => r,
            Piece::Command(line) => match handle.compose(line.target.as_deref(), &line.command).await {
                Ok(c) => c,
                Err(e) => return ctl.fail(e),
            },
        };
        last = match handle.submit(Ok(AgentReply { text: reply, latency_ms: None, tokens: None })).await {
            Ok(s) => s,
            Err(e) => return ctl.fail(e),
        };
        ctl.show(&last);
        super::super::util::yield_now().await;
    }
    if last.finished.is_none() {
        match handle.stop("the pasted answer ended before the episode did").await {
            Ok(s) => ctl.show(&s),
            Err(e) => return ctl.fail(e),
        }
    }
    ctl.finish().await;
}

/// The text the editor opens with: the link's answer, else the draft this browser kept,
/// else the task's first starter (a runnable template), else nothing.
fn opening_text(props: &ModeProps, starters: &[Starter]) -> String {
    props
        .link
        .answer
        .clone()
        .or_else(|| props.drafts.get(MODE))
        .or_else(|| starters.first().map(|s| s.text.clone()))
        .unwrap_or_default()
}

#[derive(Properties, PartialEq)]
struct StartFromProps {
    starters: Vec<Starter>,
    on_pick: Callback<Starter>,
}

/// The "Start from" menu: the task's template and examples.
#[function_component(StartFrom)]
fn start_from(props: &StartFromProps) -> Html {
    let onchange = {
        let (starters, on_pick) = (props.starters.clone(), props.on_pick.clone());
        Callback::from(move |e: Event| {
            let picked = event_value(&e).parse::<usize>().ok().and_then(|i| starters.get(i).cloned());
            if let Some(s) = picked {
                on_pick.emit(s);
            }
            // Back to the prompt line, so the same entry can be picked again.
            if let Some(select) = e.target_dyn_into::<web_sys::HtmlSelectElement>() {
                select.set_value("");
            }
        })
    };
    html! {
        <div class="row start-from">
            <label for="paste-start">{ "Start from" }</label>
            <select id="paste-start" {onchange}>
                <option value="" selected=true>{ "a template or an example…" }</option>
                { for props.starters.iter().enumerate().map(|(i, s)| html! { <option value={i.to_string()}>{ &s.title }</option> }) }
            </select>
        </div>
    }
}

#[function_component(Paste)]
pub fn paste(props: &ModeProps) -> Html {
    let ctl = use_session(&props.task, props.link.variant, &props.on_picture);
    let starters = use_memo(props.task.clone(), |t| t.view.starters.clone());
    let text = use_state(|| opening_text(props, &starters));
    // The text a "Start from" choice replaced, for Undo.
    let replaced = use_state(|| None::<String>);
    let answer = answer_kind(&props.task);
    let sandboxed = crate::registry::info(&props.task.view.card.app).is_ok_and(|i| i.sandboxed);
    let start = {
        let (ctl, text, drafts) = (ctl.clone(), text.clone(), props.drafts.clone());
        move |acted: bool| {
            drafts.remember(MODE, &text, acted);
            wasm_bindgen_futures::spawn_local(run(ctl.clone(), answer, (*text).clone(), acted));
        }
    };
    {
        // A link that carries an answer runs it, so the link shows its result; that replay
        // is the link's, not a run of the viewer's.
        let (start, has) = (start.clone(), props.from_link && props.link.answer.is_some());
        use_effect_with((), move |_| {
            if has {
                start(false);
            }
        });
    }
    let edit = {
        let (text, drafts) = (text.clone(), props.drafts.clone());
        move |value: String| {
            drafts.set(MODE, &value, true);
            text.set(value);
        }
    };
    let oninput = {
        let (edit, replaced) = (edit.clone(), replaced.clone());
        Callback::from(move |e: InputEvent| {
            replaced.set(None);
            edit(event_value(&e));
        })
    };
    let on_pick = {
        let (edit, replaced, text) = (edit.clone(), replaced.clone(), text.clone());
        Callback::from(move |s: Starter| {
            let before = (*text).clone();
            let untouched = before.trim().is_empty() || before == s.text;
            replaced.set((!untouched).then_some(before));
            edit(s.text);
        })
    };
    let undo = {
        let (edit, replaced) = (edit.clone(), replaced.clone());
        Callback::from(move |_| {
            if let Some(before) = (*replaced).clone() {
                replaced.set(None);
                edit(before);
            }
        })
    };
    let onkeydown = {
        let start = start.clone();
        Callback::from(move |e: KeyboardEvent| {
            if e.key() == "Enter" && (e.ctrl_key() || e.meta_key()) {
                e.prevent_default();
                start(true);
            }
        })
    };
    let onclick = Callback::from(move |_| start(true));
    let s = ctl.get();
    let running = s.running;
    let turns = s.snapshot.turns.len();
    drop(s);
    let hint = answer.hint();
    let progress = match (sandboxed, turns) {
        (true, _) => "Running in the sandbox worker… Switching tabs does not stop it.".to_string(),
        (false, n) => format!("Running… {} so far. Switching tabs does not stop it.", plural(n, "turn")),
    };
    html! {
        <div class="paste-mode">
            if !starters.is_empty() {
                <StartFrom starters={(*starters).clone()} {on_pick} />
            }
            <label for="paste-text">{ "Answer" }</label>
            <p class="muted hint">{ hint }{ " Ctrl+Enter runs it. Your draft is kept in this browser." }</p>
            <textarea id="paste-text" rows="12" spellcheck="false" data-autofocus="" value={(*text).clone()} {oninput} {onkeydown} />
            if replaced.is_some() {
                <p class="muted" role="status">{ "The draft was replaced. " }
                    <button type="button" class="secondary" id="paste-undo" onclick={undo}>{ "Undo" }</button></p>
            }
            <div class="row">
                <button type="button" id="paste-run" {onclick} disabled={running || text.trim().is_empty()}>{ "Run" }</button>
                if running {
                    <span class="running" id="paste-running" role="status"><span class="spinner" aria-hidden="true"></span>{ progress }</span>
                }
                if let LinkHolds::TooLong { bytes } = LinkHolds::of(Some(&text)) {
                    <span class="muted">{ format!("At {bytes} bytes this answer is too long to travel in a link (over {MAX_LINK_ANSWER}); Copy link gives the task only.") }</span>
                }
            </div>
            <EpisodeView ctl={ctl.clone()} />
        </div>
    }
}
