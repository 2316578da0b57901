//! Terminal mode: one command per turn typed at a prompt, with the machine chosen beside it
//! (Route) and history on the up and down keys. Each turn shows the command's output, then
//! the observation as panels (the ping matrix as a grid, mismatches as a table). The
//! commands typed so far travel in the URL, so a copied link replays the session.

use std::cell::RefCell;
use std::rc::Rc;

use yew::prelude::*;

use super::lines::Line;
use super::session::{SessionCtl, use_session};
use super::{ModeProps, paste::remember_answer};
use crate::agent::{AgentInfo, AgentReply};
use crate::link::TaskLink;

use super::super::sandbox::EpisodeHandle;
use super::super::show::panels::Panels;
use super::super::show::score::ScoreCard;
use super::super::util::event_value;

fn human() -> AgentInfo {
    AgentInfo::new("human", "terminal")
}

type Typed = Rc<RefCell<Vec<Line>>>;

/// Runs one typed line as a turn.
async fn run_line(ctl: &SessionCtl, handle: &EpisodeHandle, line: Line, typed: &Typed, link: &TaskLink) {
    ctl.update(|s| s.running = true);
    let composed = handle.compose(line.target.as_deref(), &line.command);
    let reply = AgentReply { text: composed, latency_ms: None, tokens: None };
    let snapshot = match handle.submit(Ok(reply)).await {
        Ok(s) => s,
        Err(e) => return ctl.fail(e),
    };
    typed.borrow_mut().push(line);
    let written: Vec<String> = typed.borrow().iter().map(Line::written).collect();
    remember_answer(link, &written.join("\n"));
    ctl.show(&snapshot);
    if snapshot.finished.is_some() {
        ctl.finish(&human()).await;
    } else {
        ctl.update(|s| s.running = false);
    }
}

/// Starts the episode and replays the commands a link carries.
async fn begin(ctl: SessionCtl, typed: Typed, link: TaskLink) {
    typed.borrow_mut().clear();
    let Some((handle, snapshot, cancel)) = ctl.start(&human()).await else { return };
    ctl.update(|s| s.running = false);
    for raw in link.answer.as_deref().unwrap_or_default().lines().filter(|l| !l.trim().is_empty()) {
        if cancel.get() || ctl.get().snapshot.finished.is_some() {
            break;
        }
        run_line(&ctl, &handle, Line::parse(raw, &snapshot.targets), &typed, &link).await;
    }
}

#[function_component(Terminal)]
pub fn terminal(props: &ModeProps) -> Html {
    let ctl = use_session(&props.task, props.link.variant, &props.on_picture);
    let typed: Typed = use_mut_ref(Vec::new);
    let recall = use_mut_ref(|| None::<usize>);
    let target = use_state(|| None::<String>);
    let input = use_node_ref();
    let screen = use_node_ref();
    {
        let (ctl, typed, link) = (ctl.clone(), typed.clone(), props.link.clone());
        use_effect_with((), move |_| wasm_bindgen_futures::spawn_local(begin(ctl, typed, link)));
    }
    {
        // Keep the newest output in view.
        let screen = screen.clone();
        use_effect(move || {
            if let Some(el) = screen.cast::<web_sys::Element>() {
                el.set_scroll_top(el.scroll_height());
            }
        });
    }
    let s = ctl.get();
    let targets = s.snapshot.targets.clone();
    let chosen = (*target).clone().filter(|t| targets.contains(t)).or_else(|| targets.first().cloned());
    let busy = s.running || s.handle.is_none();
    let over = s.snapshot.finished.is_some();

    let submit = {
        let (ctl, typed, input, link, chosen, recall) =
            (ctl.clone(), typed.clone(), input.clone(), props.link.clone(), chosen.clone(), recall.clone());
        move || {
            let Some(field) = input.cast::<web_sys::HtmlInputElement>() else { return };
            let command = field.value().trim().to_string();
            let Some(handle) = ctl.get().handle.clone() else { return };
            if command.is_empty() || ctl.get().running || ctl.get().snapshot.finished.is_some() {
                return;
            }
            field.set_value("");
            *recall.borrow_mut() = None;
            let line = Line { target: chosen.clone(), command };
            let (ctl, typed, link, input) = (ctl.clone(), typed.clone(), link.clone(), input.clone());
            wasm_bindgen_futures::spawn_local(async move {
                run_line(&ctl, &handle, line, &typed, &link).await;
                if let Some(field) = input.cast::<web_sys::HtmlElement>() {
                    let _ = field.focus();
                }
            });
        }
    };
    let onkeydown = {
        let (submit, typed, recall, target, input) =
            (submit.clone(), typed.clone(), recall.clone(), target.clone(), input.clone());
        Callback::from(move |e: KeyboardEvent| {
            let n = typed.borrow().len();
            let at = *recall.borrow();
            let to = match e.key().as_str() {
                "Enter" => {
                    e.prevent_default();
                    return submit();
                }
                "ArrowUp" if n > 0 => Some(at.map_or(n - 1, |i| i.saturating_sub(1))),
                "ArrowDown" => at.and_then(|i| (i + 1 < n).then_some(i + 1)),
                _ => return,
            };
            e.prevent_default();
            *recall.borrow_mut() = to;
            let Some(field) = input.cast::<web_sys::HtmlInputElement>() else { return };
            match to.and_then(|i| typed.borrow().get(i).cloned()) {
                Some(line) => {
                    field.set_value(&line.command);
                    if line.target.is_some() {
                        target.set(line.target);
                    }
                }
                None => field.set_value(""),
            }
        })
    };
    let run_click = {
        let submit = submit.clone();
        Callback::from(move |_| submit())
    };
    let stop = {
        let ctl = ctl.clone();
        Callback::from(move |_| {
            let ctl = ctl.clone();
            let Some(handle) = ctl.get().handle.clone() else { return };
            wasm_bindgen_futures::spawn_local(async move {
                match handle.stop("stopped by the user").await {
                    Ok(snapshot) => {
                        ctl.show(&snapshot);
                        ctl.finish(&human()).await;
                    }
                    Err(e) => ctl.fail(e),
                }
            });
        })
    };
    let restart = {
        let (ctl, typed, link) = (ctl.clone(), typed.clone(), props.link.clone());
        Callback::from(move |_| {
            remember_answer(&link, "");
            let link = TaskLink { answer: None, ..link.clone() };
            wasm_bindgen_futures::spawn_local(begin(ctl.clone(), typed.clone(), link));
        })
    };
    let on_target = {
        let target = target.clone();
        Callback::from(move |e: Event| target.set(Some(event_value(&e))))
    };
    let prompt = chosen.clone().map_or("$".to_string(), |t| format!("{t}$"));
    let typed_now = typed.borrow().clone();
    let last = s.snapshot.turns.len();
    html! {
        <div class="terminal-mode">
            <div class="terminal" ref={screen} role="log" aria-label="Terminal output" tabindex="0">
                if s.snapshot.turns.is_empty() {
                    <p class="muted">{ "Type a command below; each command is one turn. The state after each turn appears under its output." }</p>
                }
                { for s.snapshot.turns.iter().enumerate().map(|(i, t)| {
                    let line = typed_now.get(i).cloned();
                    let shown = line.as_ref().map(|l| l.command.clone()).unwrap_or_else(|| t.action.clone());
                    let who = line.and_then(|l| l.target).map_or("$".to_string(), |t| format!("{t}$"));
                    let panels = s.history.get(i).cloned().unwrap_or_default();
                    html! {
                        <div class="term-turn" data-turn={t.turn.to_string()}>
                            <div class="cmd"><span class="ps1">{ who }</span>{ " " }{ shown }</div>
                            <pre class="out">{ if t.output.is_empty() { "(no output)".to_string() } else { t.output.clone() } }</pre>
                            { for t.notes.iter().map(|n| html! { <p class="note">{ n }</p> }) }
                            if i + 1 == last {
                                <Panels {panels} />
                            } else {
                                <details><summary>{ format!("State after turn {}", t.turn) }</summary><Panels {panels} /></details>
                            }
                            <details class="observation"><summary>{ "Observation text" }</summary><pre>{ &t.observation }</pre></details>
                        </div>
                    }
                }) }
            </div>
            <div class="term-input row">
                if !targets.is_empty() {
                    <label for="term-target" class="sr-only">{ "Machine" }</label>
                    <select id="term-target" onchange={on_target} disabled={over}>
                    { for targets.iter().map(|t| html! { <option value={t.clone()} selected={Some(t) == chosen.as_ref()}>{ t }</option> }) }
                    </select>
                }
                <label for="term-command" class="ps1">{ prompt }</label>
                <input id="term-command" ref={input} class="command" data-autofocus="" autocomplete="off" spellcheck="false"
                       placeholder={if over { "the episode is over" } else { "command, then Enter (↑/↓ history)" }}
                       disabled={over} {onkeydown} />
                <button type="button" onclick={run_click} disabled={busy || over}>{ "Run" }</button>
            </div>
            <div class="row">
                <button type="button" class="secondary" onclick={stop} disabled={busy || over}>{ "Stop and score" }</button>
                <button type="button" class="secondary" onclick={restart}>{ "Restart" }</button>
                if s.running { <span class="muted" role="status">{ "running…" }</span> }
            </div>
            if let Some(e) = &s.error { <p class="error" role="alert">{ e }</p> }
            if let Some(r) = &s.record { <ScoreCard record={r.clone()} saved_as={s.saved_as.clone()} /> }
        </div>
    }
}
