//! Terminal mode: one command per turn typed at a prompt, with the machine chosen beside it
//! (Route) and history on the up and down keys. Each turn shows the command's output, then
//! the observation as panels (the ping matrix as a grid, mismatches as a table). The
//! commands typed so far travel in the URL, so a copied link replays the session.

use std::cell::RefCell;
use std::rc::Rc;

use wasm_bindgen::JsCast;
use yew::prelude::*;

use super::ModeProps;
use super::drafts::Drafts;
use super::session::{SessionCtl, use_session};
use crate::agent::{AgentInfo, AgentReply};
use crate::paste::{Line, MAX_TYPED_COMMAND, refusal};

use super::super::sandbox::EpisodeHandle;
use super::super::show::panels::Panels;
use super::super::util::{event_value, plural};

/// This tab's key in the URL and in the drafts.
const MODE: &str = "terminal";

fn human() -> AgentInfo {
    AgentInfo::new("human", "terminal")
}

type Typed = Rc<RefCell<Vec<Line>>>;

/// Runs one line as a turn; `own` when the user typed it (not a replay), so it is kept.
async fn run_line(
    ctl: &SessionCtl,
    handle: &EpisodeHandle,
    line: Line,
    typed: &Typed,
    drafts: &Drafts,
    own: bool,
) {
    ctl.update(|s| s.running = true);
    let composed = match handle.compose(line.target.as_deref(), &line.command).await {
        Ok(c) => c,
        Err(e) => return ctl.fail(e),
    };
    let reply = AgentReply { text: composed, latency_ms: None, tokens: None };
    let snapshot = match handle.submit(Ok(reply)).await {
        Ok(s) => s,
        Err(e) => return ctl.fail(e),
    };
    typed.borrow_mut().push(line);
    drafts.remember(MODE, &written(typed), own);
    ctl.show(&snapshot);
    if snapshot.finished.is_some() {
        ctl.finish().await;
    } else {
        ctl.update(|s| s.running = false);
    }
}

/// The typed lines as a link or the drafts hold them.
fn written(typed: &Typed) -> String {
    typed.borrow().iter().map(Line::written).collect::<Vec<_>>().join("\n")
}

/// Starts the episode and replays `commands` (from a link, a draft or an undo) into it.
async fn begin(ctl: SessionCtl, typed: Typed, drafts: Drafts, commands: String) {
    typed.borrow_mut().clear();
    let Some((handle, snapshot, cancel)) = ctl.start(&human(), false).await else { return };
    ctl.update(|s| s.running = false);
    for raw in commands.lines().filter(|l| !l.trim().is_empty()) {
        if cancel.get() || ctl.get().snapshot.finished.is_some() {
            break;
        }
        run_line(&ctl, &handle, Line::parse(raw, &snapshot.targets), &typed, &drafts, false).await;
    }
}

/// Where the commands a new terminal replays come from.
#[derive(Clone, PartialEq)]
enum Origin {
    Fresh,
    Link(usize),
    Restored(usize),
}

/// The commands to replay on opening: the link's, else those this browser kept (which a tab
/// switch also puts into the link).
fn opening(props: &ModeProps) -> (String, Origin) {
    let count = |s: &str| s.lines().filter(|l| !l.trim().is_empty()).count();
    if let Some(a) = props.link.answer.clone().filter(|a| props.from_link && !a.trim().is_empty()) {
        let n = count(&a);
        return (a, Origin::Link(n));
    }
    match props.drafts.get(MODE) {
        Some(d) => {
            let n = count(&d);
            (d, Origin::Restored(n))
        }
        None => (String::new(), Origin::Fresh),
    }
}

/// Puts the newest command at the top of the terminal's scroll box, its output under it.
fn show_latest(screen: &NodeRef) {
    let screen = screen.clone();
    gloo::timers::callback::Timeout::new(0, move || {
        let Some(el) = screen.cast::<web_sys::HtmlElement>() else { return };
        let Some(cmd) = el.query_selector(".term-turn:last-child .cmd").ok().flatten() else { return };
        let cmd: web_sys::HtmlElement = cmd.unchecked_into();
        // The terminal is the command's offset parent (it is positioned; see answer.css).
        el.set_scroll_top(cmd.offset_top());
    })
    .forget();
}

#[function_component(Terminal)]
pub fn terminal(props: &ModeProps) -> Html {
    let ctl = use_session(&props.task, props.link.variant, &props.on_picture);
    let typed: Typed = use_mut_ref(Vec::new);
    let recall = use_mut_ref(|| None::<usize>);
    let target = use_state(|| None::<String>);
    // What the last Enter did without using a turn, or what a reset can undo.
    let notice = use_state(|| None::<String>);
    let undo = use_state(|| None::<String>);
    let origin = use_state(|| opening(props).1);
    let input = use_node_ref();
    let screen = use_node_ref();
    {
        let (ctl, typed, drafts) = (ctl.clone(), typed.clone(), props.drafts.clone());
        let commands = opening(props).0;
        use_effect_with((), move |_| wasm_bindgen_futures::spawn_local(begin(ctl, typed, drafts, commands)));
    }
    let s = ctl.get();
    let last = s.snapshot.turns.len();
    {
        let screen = screen.clone();
        use_effect_with(last, move |_| show_latest(&screen));
    }
    let targets = s.snapshot.targets.clone();
    let chosen = (*target).clone().filter(|t| targets.contains(t)).or_else(|| targets.first().cloned());
    let busy = s.running || s.handle.is_none();
    let over = s.snapshot.finished.is_some();
    let max_turns = props.task.view.card.max_turns;

    let submit = {
        let (ctl, typed, input, drafts, chosen, recall, notice, target, targets) = (
            ctl.clone(),
            typed.clone(),
            input.clone(),
            props.drafts.clone(),
            chosen.clone(),
            recall.clone(),
            notice.clone(),
            target.clone(),
            targets.clone(),
        );
        move || {
            let Some(field) = input.cast::<web_sys::HtmlInputElement>() else { return };
            let Some(handle) = ctl.get().handle.clone() else { return };
            if ctl.get().running || ctl.get().snapshot.finished.is_some() {
                return;
            }
            let text = field.value();
            if let Some(why) = refusal(&text) {
                notice.set(Some(why));
                return;
            }
            notice.set(None);
            field.set_value("");
            *recall.borrow_mut() = None;
            // `r0: ip route` names its machine, as in Paste; otherwise the chosen one runs it.
            let mut line = Line::parse(&text, &targets);
            match &line.target {
                Some(named) => target.set(Some(named.clone())),
                None => line.target = chosen.clone(),
            }
            ctl.act();
            let (ctl, typed, drafts, input) = (ctl.clone(), typed.clone(), drafts.clone(), input.clone());
            wasm_bindgen_futures::spawn_local(async move {
                run_line(&ctl, &handle, line, &typed, &drafts, true).await;
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
            ctl.act();
            wasm_bindgen_futures::spawn_local(async move {
                match handle.stop("stopped by the user").await {
                    Ok(snapshot) => {
                        ctl.show(&snapshot);
                        ctl.finish().await;
                    }
                    Err(e) => ctl.fail(e),
                }
            });
        })
    };
    // Starts afresh, keeping the discarded commands for Undo: a session is never lost
    // without a way back.
    let restart_with = {
        let (ctl, typed, drafts, undo, origin, notice) =
            (ctl.clone(), typed.clone(), props.drafts.clone(), undo.clone(), origin.clone(), notice.clone());
        move |commands: String, keep_undo: Option<String>| {
            drafts.remember(MODE, &commands, true);
            undo.set(keep_undo);
            origin.set(Origin::Fresh);
            notice.set(None);
            wasm_bindgen_futures::spawn_local(begin(ctl.clone(), typed.clone(), drafts.clone(), commands));
        }
    };
    let reset = {
        let (restart_with, typed) = (restart_with.clone(), typed.clone());
        Callback::from(move |_| {
            let before = written(&typed);
            restart_with(String::new(), (!before.is_empty()).then_some(before));
        })
    };
    let undo_click = {
        let (restart_with, undo) = (restart_with.clone(), undo.clone());
        Callback::from(move |_| {
            if let Some(commands) = (*undo).clone() {
                restart_with(commands, None);
            }
        })
    };
    let on_target = {
        let target = target.clone();
        Callback::from(move |e: Event| target.set(Some(event_value(&e))))
    };
    let prompt = chosen.clone().map_or("$".to_string(), |t| format!("{t}$"));
    let field_name = chosen.clone().map_or("Command".to_string(), |t| format!("Command to run on {t}"));
    let typed_now = typed.borrow().clone();
    let used = s.snapshot.turns.len();
    let origin_note = match &*origin {
        Origin::Link(n) if *n > 0 => Some(format!("Replayed the {} from the link.", plural(*n, "command"))),
        Origin::Restored(n) if *n > 0 => Some(format!(
            "Restored the {} you typed on this task before (kept in this browser).",
            plural(*n, "command")
        )),
        _ => None,
    };
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
                                <Panels {panels} compact=true />
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
                <span class="ps1" aria-hidden="true">{ prompt }</span>
                <input id="term-command" ref={input} class="command" data-autofocus="" autocomplete="off" spellcheck="false"
                       aria-label={field_name} aria-describedby="term-turns"
                       placeholder={if over { "the episode is over" } else { "command, or machine: command; Enter runs it (↑/↓ history)" }}
                       disabled={over} {onkeydown} />
                <button type="button" onclick={run_click} disabled={busy || over}>{ "Run" }</button>
            </div>
            <p id="term-turns" class="muted hint">
                { format!("Turns used: {used} of {max_turns}. Each command run uses one turn; an empty line or one over {MAX_TYPED_COMMAND} bytes is refused and uses none.") }
            </p>
            if let Some(n) = &*notice { <p class="notice" id="term-notice" role="status">{ n }</p> }
            if let Some(n) = origin_note { <p class="muted" id="term-origin">{ n }</p> }
            <div class="row">
                <button type="button" class="secondary" onclick={stop} disabled={busy || over}>{ "Stop and score" }</button>
                <button type="button" class="secondary" id="term-reset" onclick={reset} disabled={s.running}
                        title="Start the task again; Undo brings the session back">{ "Reset" }</button>
                if let Some(cleared) = &*undo {
                    <span class="muted" role="status">{ format!("Cleared {}. ", plural(cleared.lines().count(), "command")) }</span>
                    <button type="button" class="secondary" id="term-undo" onclick={undo_click}>{ "Undo" }</button>
                }
                if s.running { <span class="muted" role="status">{ "running…" }</span> }
            </div>
            if let Some(e) = &s.error { <p class="error" role="alert">{ e }</p> }
            { ctl.score_card() }
        </div>
    }
}
