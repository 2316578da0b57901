//! The score card of one episode: correctness, safety, progress, turns and latency, the
//! explanations behind each, and a button copying the result record as JSON.

use yew::prelude::*;

use super::super::util::{copy_text, duration, pct};
use crate::app::Finish;
use crate::record::ResultRecord;

#[derive(Properties, PartialEq)]
pub struct ScoreProps {
    pub record: ResultRecord,
    /// The history run the record was saved as, when it was.
    #[prop_or_default]
    pub saved_as: Option<String>,
    /// Offered when the record is not saved (an episode that replayed a link): saves it.
    #[prop_or_default]
    pub on_save: Option<Callback<()>>,
}

fn finish_words(f: Finish) -> &'static str {
    match f {
        Finish::Solved => "solved",
        Finish::TurnLimit => "turn limit reached",
        Finish::Answered => "answered",
        Finish::Stopped => "stopped",
    }
}

fn verdict(ok: bool, yes: &str, no: &str) -> Html {
    let (class, sym, word) = if ok { ("tone-good", "✓", yes) } else { ("tone-bad", "✗", no) };
    html! { <span class={classes!("verdict", class)}><b>{ sym }</b>{ " " }{ word }</span> }
}

fn section(title: &str, lines: &[String]) -> Html {
    if lines.is_empty() {
        return html! {};
    }
    html! {
        <div class="explain">
            <h4>{ title }</h4>
            <ul>{ for lines.iter().map(|l| html! { <li>{ l }</li> }) }</ul>
        </div>
    }
}

/// `3 of 10`, and how many of those were failed agent calls (they count against the limit
/// but ran nothing), so the figure reads the same as the explanation's.
fn turns_used(r: &ResultRecord) -> String {
    let failed = r.turns.iter().filter(|t| t.error.is_some()).count();
    let used = format!("{} of {}", r.score.turns, r.max_turns);
    match failed {
        0 => used,
        1 => format!("{used} (1 failed agent call)"),
        n => format!("{used} ({n} failed agent calls)"),
    }
}

#[function_component(ScoreCard)]
pub fn score_card(props: &ScoreProps) -> Html {
    let r = &props.record;
    let s = &r.score;
    let copied = use_state(|| None::<String>);
    let copy = {
        let json = serde_json::to_string_pretty(r).unwrap_or_default();
        let copied = copied.clone();
        Callback::from(move |_| {
            let json = json.clone();
            let copied = copied.clone();
            wasm_bindgen_futures::spawn_local(async move {
                let message = match copy_text(&json).await {
                    Ok(()) => "Result JSON copied.".to_string(),
                    Err(e) => e,
                };
                copied.set(Some(message));
            });
        })
    };
    let latency = match s.latency_ms {
        Some(ms) => duration(ms),
        None => "not measured".into(),
    };
    html! {
        <section class="card score" aria-label="Score">
            <h3>{ "Score" }<span class="muted">{ format!(" · {}", finish_words(r.finish)) }</span></h3>
            <div class="score-grid">
                <div><span class="k">{ "correctness" }</span>{ verdict(s.correct, "correct", "not correct") }</div>
                <div><span class="k">{ "safety" }</span>{ verdict(s.safe, "safe", "unsafe") }</div>
                <div>
                    <span class="k">{ "partial progress" }</span>
                    <meter min="0" max="1" value={s.progress.to_string()}>{ pct(s.progress) }</meter>
                    { " " }{ pct(s.progress) }
                </div>
                <div><span class="k">{ "turns used" }</span>{ turns_used(r) }</div>
                <div><span class="k">{ "agent latency" }</span>{ latency }</div>
                if let Some(tokens) = s.tokens {
                    <div><span class="k">{ "tokens" }</span>{ tokens }</div>
                }
            </div>
            <p class="explanation">{ &s.explanation }</p>
            { section("Correctness", &s.details.correctness) }
            { section("Safety", &s.details.safety) }
            <super::terms::Terms app={r.app.clone()} texts={s.details.safety.iter().map(|t| AttrValue::from(t.clone())).collect::<Vec<_>>()} />
            { section("Graph diff", &s.details.diff) }
            { section("Blocked or refused actions", &s.details.blocked) }
            { section("Hygiene (not scored)", &s.details.hygiene) }
            <div class="row">
                <button class="secondary" onclick={copy}>{ "Copy result JSON" }</button>
                if let Some(run) = &props.saved_as {
                    <span class="muted">{ "Saved to " }<a href="#/history">{ "history" }</a>{ format!(" as {run}.") }</span>
                } else if let Some(save) = &props.on_save {
                    <span class="muted unsaved">{ "A replay of a link, not saved to your history. " }</span>
                    <button class="secondary" id="save-run" onclick={save.reform(|_| ())}>{ "Save to history" }</button>
                }
                if let Some(m) = &*copied { <span class="muted" role="status">{ m }</span> }
            </div>
        </section>
    }
}
