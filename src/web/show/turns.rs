//! The turn-by-turn log of an episode: what the agent replied, the action the application
//! parsed, the command's output and the observation sent back. All of it is agent or user
//! text, so it is rendered as text, never as HTML.

use yew::prelude::*;

use crate::record::TurnRecord;

#[derive(Properties, PartialEq)]
pub struct TurnLogProps {
    pub turns: Vec<TurnRecord>,
    /// Show each turn's raw reply (off in the terminal, where the reply is the typed line).
    #[prop_or(true)]
    pub replies: bool,
}

#[function_component(TurnLog)]
pub fn turn_log(props: &TurnLogProps) -> Html {
    if props.turns.is_empty() {
        return html! {};
    }
    let last = props.turns.len();
    html! {
        <ol class="turns" aria-live="polite">
            { for props.turns.iter().map(|t| turn(t, props.replies, t.turn as usize == last)) }
        </ol>
    }
}

/// "120 ms · 345 tokens" for a turn, or nothing when neither is known.
fn cost(t: &TurnRecord) -> String {
    let mut parts = Vec::new();
    if let Some(ms) = t.latency_ms {
        parts.push(super::super::util::duration(ms));
    }
    if let Some(tokens) = t.tokens {
        parts.push(format!("{} tokens", tokens.total()));
    }
    parts.join(" · ")
}

fn turn(t: &TurnRecord, replies: bool, open: bool) -> Html {
    let status = t.exit_status.map(|s| format!("exit {s}")).unwrap_or_default();
    html! {
        <li class="turn" data-turn={t.turn.to_string()}>
            <div class="turn-head">
                <b>{ format!("Turn {}", t.turn) }</b>
                <span class="muted">{ cost(t) }</span>
            </div>
            if let Some(error) = &t.error {
                <p class="error" role="status">{ format!("✗ the call failed: {error}") }</p>
            }
            if replies && t.error.is_none() {
                <details class="reply" open={open}>
                    <summary>{ "Agent reply" }</summary>
                    <pre>{ &t.reply }</pre>
                </details>
            }
            if !t.action.is_empty() {
                <div class="action"><span class="k">{ "action" }</span><code>{ &t.action }</code></div>
            }
            if !t.output.is_empty() || t.exit_status.is_some() {
                <div class="output">
                    <span class="k">{ "output" }{ " " }<span class="muted">{ status }</span></span>
                    <pre>{ if t.output.is_empty() { "(no output)" } else { &t.output } }</pre>
                </div>
            }
            { for t.notes.iter().map(|n| html! { <p class="note">{ n }</p> }) }
            if t.error.is_none() {
                <details class="observation" open={open}>
                    <summary>{ "Observation sent to the agent" }</summary>
                    <pre>{ &t.observation }</pre>
                </details>
            }
        </li>
    }
}
