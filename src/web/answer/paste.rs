//! Paste mode: a whole answer at once (MALT's Python program; Route and K8s commands one per
//! line, fenced blocks, or a transcript), run turn by turn. Short answers are kept in the
//! URL, compressed, so the link reproduces the run.

use yew::prelude::*;

use super::ModeProps;
use super::lines::{Piece, split_paste};
use super::session::{EpisodeView, SessionCtl, use_session};
use crate::agent::{AgentInfo, AgentReply};
use crate::app::AnswerKind;
use crate::link::{MAX_LINK_ANSWER, TaskLink, View};

use super::super::replace;
use super::super::util::event_value;

/// Puts the current answer into the URL without reloading the view (dropped when too long
/// for a link, and when empty).
pub fn remember_answer(link: &TaskLink, answer: &str) {
    let answer = (!answer.is_empty() && answer.len() <= MAX_LINK_ANSWER).then(|| answer.to_string());
    replace(&View::Task(TaskLink { answer, ..link.clone() }));
}

fn paster() -> AgentInfo {
    AgentInfo::new("paste", "pasted answer")
}

/// Runs the pieces of a paste as turns until the episode ends or the paste runs out.
async fn run(ctl: SessionCtl, answer: AnswerKind, text: String) {
    let Some((handle, snapshot, cancel)) = ctl.start(&paster()).await else { return };
    let pieces = split_paste(&text, answer, &snapshot.targets);
    let mut last = snapshot;
    for piece in pieces {
        if cancel.get() || last.finished.is_some() {
            break;
        }
        let reply = match piece {
            Piece::Reply(r) => r,
            Piece::Command(line) => handle.compose(line.target.as_deref(), &line.command),
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
    ctl.finish(&paster()).await;
}

#[function_component(Paste)]
pub fn paste(props: &ModeProps) -> Html {
    let ctl = use_session(&props.task, props.link.variant, &props.on_picture);
    let text = use_state(|| props.link.answer.clone().unwrap_or_default());
    let answer =
        crate::registry::app(&props.task.0.card().app).map_or(AnswerKind::Commands, |a| a.info().answer);
    let start = {
        let (ctl, text, link) = (ctl.clone(), text.clone(), props.link.clone());
        move || {
            remember_answer(&link, &text);
            wasm_bindgen_futures::spawn_local(run(ctl.clone(), answer, (*text).clone()));
        }
    };
    {
        // A link that carries an answer runs it, so the link shows its result.
        let (start, has) = (start.clone(), props.link.answer.is_some());
        use_effect_with((), move |_| {
            if has {
                start();
            }
        });
    }
    let oninput = {
        let text = text.clone();
        Callback::from(move |e: InputEvent| text.set(event_value(&e)))
    };
    let onkeydown = {
        let start = start.clone();
        Callback::from(move |e: KeyboardEvent| {
            if e.key() == "Enter" && (e.ctrl_key() || e.meta_key()) {
                e.prevent_default();
                start();
            }
        })
    };
    let onclick = Callback::from(move |_| start());
    let running = ctl.get().running;
    let hint = match answer {
        AnswerKind::Python => "A Python program defining process_graph(G), as an agent would answer.",
        AnswerKind::MachineCommands => {
            "One command per line as `machine: command` (e.g. r0: ip route), JSON actions, or a transcript."
        }
        AnswerKind::Commands => "One command per line, fenced blocks, or a transcript.",
    };
    html! {
        <div class="paste-mode">
            <label for="paste-text">{ "Answer" }</label>
            <p class="muted hint">{ hint }{ " Ctrl+Enter runs it." }</p>
            <textarea id="paste-text" rows="12" spellcheck="false" data-autofocus="" value={(*text).clone()} {oninput} {onkeydown} />
            <div class="row">
                <button type="button" id="paste-run" {onclick} disabled={running || text.trim().is_empty()}>{ "Run" }</button>
                if (*text).len() > MAX_LINK_ANSWER {
                    <span class="muted">{ "Too long to travel in the link; the link names the task only." }</span>
                }
            </div>
            <EpisodeView ctl={ctl.clone()} />
        </div>
    }
}
