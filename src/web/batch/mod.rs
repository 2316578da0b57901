//! The batch view: run N tasks (a range of seeds, chosen levels, knobs) with the baseline or
//! an endpoint agent; a progress bar with ETA and cancel; live pass rates per label with
//! Wilson intervals; and a results table that fills in as tasks finish. The settings are the
//! URL; the finished batch is saved to the history as one run.

pub mod job;

use yew::prelude::*;

use super::agents::form::EndpointForm;
use super::sandbox::use_workers;
use super::settings::{EndpointSettings, use_settings};
use super::show::Wide;
use super::show::chart::chart;
use super::util::{duration, event_checked, event_value, pct};
use super::{go, show::tone_class};
use crate::app::{AppInfo, PromptVariant};
use crate::link::{BatchLink, TaskLink, View};
use crate::provenance::Provenance;
use crate::record::ResultRecord;
use crate::report::{Chart, Tables};
use crate::stats::{Metric, Summary};
use crate::view::{Tone, count as count_of};

#[derive(Properties, PartialEq)]
pub struct BatchProps {
    pub link: BatchLink,
}

/// The application a link names (the first one when it names none).
fn app_of(link: &BatchLink) -> Option<&'static AppInfo> {
    match &link.app {
        Some(name) => crate::registry::info(name).ok(),
        None => crate::registry::catalog().first().copied(),
    }
}

/// A callback that edits the link and opens the edited view.
fn edit(link: &BatchLink, f: fn(&mut BatchLink, String)) -> Callback<Event> {
    let link = link.clone();
    Callback::from(move |e: Event| {
        let mut next = link.clone();
        f(&mut next, event_value(&e));
        go(&View::Batch(next));
    })
}

/// The batch as its fields show it: the link, plus what is typed in a field not yet left.
#[derive(Clone, PartialEq)]
struct Draft {
    /// The link the draft was typed over; a new link (navigation, a commit) discards it.
    of: BatchLink,
    now: BatchLink,
}

/// Sets a numeric field the task count depends on.
type SetNumber = fn(&mut BatchLink, u64);

/// The `oninput` and `onchange` of a numeric field the task count depends on: each keystroke
/// that reads as a number updates the draft, so "Run N tasks" follows what is typed, and
/// leaving the field puts the value in the URL.
fn counted(
    link: &BatchLink,
    shown: &BatchLink,
    draft: &UseStateHandle<Option<Draft>>,
    set: SetNumber,
) -> (Callback<InputEvent>, Callback<Event>) {
    let shown = shown.clone();
    let apply = move |value: String| {
        value.trim().parse().ok().map(|n| {
            let mut next = shown.clone();
            set(&mut next, n);
            next
        })
    };
    let oninput = {
        let (apply, draft, of) = (apply.clone(), draft.clone(), link.clone());
        Callback::from(move |e: InputEvent| {
            if let Some(now) = apply(event_value(&e)) {
                // Leaving one field for the next commits the first (`onchange` navigates), and
                // its hashchange can arrive after the next field's first keystroke: the draft
                // is then typed over the link the URL already names, not the rendered one, or
                // that render would discard it (the count would ignore the keystroke).
                let of = match super::current_view() {
                    View::Batch(link) => link,
                    _ => of.clone(),
                };
                draft.set(Some(Draft { of, now }));
            }
        })
    };
    let onchange = Callback::from(move |e: Event| {
        if let Some(next) = apply(event_value(&e)) {
            go(&View::Batch(next));
        }
    });
    (oninput, onchange)
}

#[function_component(BatchPage)]
pub fn batch_page(props: &BatchProps) -> Html {
    let jobs = job::use_jobs();
    let workers = use_workers();
    let job = jobs.job_now();
    let error = use_state(|| None::<String>);
    let draft = use_state(|| None::<Draft>);
    let settings = use_settings();
    let link = &props.link;
    let Some(app) = app_of(link) else {
        return html! { <super::layout::NotFound reason={format!("no application {:?}", link.app.clone().unwrap_or_default())} /> };
    };
    // What the fields show, typed but not yet left included: the count and Run follow it.
    let shown = draft.as_ref().filter(|d| d.of == *link).map_or_else(|| link.clone(), |d| d.now.clone());
    let running = job.as_ref().is_some_and(|j| j.borrow().running());
    let count = shown.task_count(app.levels.len());
    let start = {
        let (link, error, jobs, endpoint) =
            (shown.clone(), error.clone(), jobs.clone(), settings.endpoint.clone());
        Callback::from(move |_| {
            let (link, error, jobs, workers, endpoint) =
                (link.clone(), error.clone(), jobs.clone(), workers.clone(), endpoint.clone());
            wasm_bindgen_futures::spawn_local(async move {
                error.set(job::start(jobs, workers, link, endpoint).await.err());
            });
        })
    };
    let cancel = {
        let job = job.clone();
        Callback::from(move |_| {
            if let Some(j) = &job {
                j.borrow().cancel();
            }
        })
    };
    html! {
        <section class="batch">
            <h2>{ "Batch" }</h2>
            { form(link, &shown, &draft, app, running) }
            if link.agent == "endpoint" { <EndpointForm /> }
            <div class="row">
                <button type="button" id="batch-run" onclick={start} disabled={running}>
                    { format!("Run {}", count_of(count, "task", "tasks")) }
                </button>
                <button type="button" class="secondary" id="batch-cancel" onclick={cancel} disabled={!running}>{ "Cancel" }</button>
                <span class="muted cli-line">{ "Larger batches: " }<code>{ cli_line(&shown, app, &settings.endpoint) }</code></span>
            </div>
            <p class="note">{ "Tasks run seed by seed, every chosen level of a seed together, so a batch stopped early still covers each level." }</p>
            if let Some(e) = &*error { <p class="error" role="alert">{ e }</p> }
            if let Some(job) = job { { progress(&job.borrow()) } }
        </section>
    }
}

/// The CLI command that runs the same batch natively (an endpoint agent as `e` reaches it).
fn cli_line(link: &BatchLink, app: &AppInfo, e: &EndpointSettings) -> String {
    let agent = match link.agent.as_str() {
        "endpoint" => {
            if e.kind == "a2a" {
                format!("a2a --url {}", e.url)
            } else {
                format!("openai --base-url {} --model {}", e.url, e.model)
            }
        }
        other => other.to_string(),
    };
    let mut s =
        format!("netpress run --app {} --agent {agent} --seeds {}..{}", app.name, link.seeds.0, link.seeds.1);
    if !link.levels.is_empty() {
        let levels: Vec<String> = link.levels.iter().map(u8::to_string).collect();
        s.push_str(&format!(" --levels {}", levels.join(",")));
    }
    // The page runs seed by seed (`BatchLink::ids`); the CLI does so when asked.
    if link.levels.len() != 1 && app.levels.len() > 1 {
        s.push_str(" --interleave");
    }
    if link.per_seed != 1 {
        s.push_str(&format!(" --per-seed {}", link.per_seed));
    }
    if link.variant != PromptVariant::default() {
        s.push_str(&format!(" --prompt {}", link.variant.as_str()));
    }
    if let Some(t) = link.max_turns {
        s.push_str(&format!(" --max-turns {t}"));
    }
    if link.jobs != 1 {
        s.push_str(&format!(" --jobs {}", link.jobs));
    }
    s
}

fn form(
    link: &BatchLink,
    shown: &BatchLink,
    draft: &UseStateHandle<Option<Draft>>,
    info: &'static AppInfo,
    running: bool,
) -> Html {
    let (from_input, from_change) = counted(link, shown, draft, |b, s| b.seeds = (s, b.seeds.1.max(s)));
    let (to_input, to_change) = counted(link, shown, draft, |b, s| b.seeds = (b.seeds.0.min(s), s));
    let (per_input, per_change) = counted(link, shown, draft, |b, n| b.per_seed = n.max(1));
    let link = shown;
    let level_boxes = info.levels.iter().map(|l| {
        let (link, level) = (link.clone(), l.level);
        let checked = link.levels.is_empty() || link.levels.contains(&level);
        let onchange = Callback::from(move |e: Event| {
            let mut next = link.clone();
            let all: Vec<u8> = info.levels.iter().map(|l| l.level).collect();
            let mut chosen = if next.levels.is_empty() { all.clone() } else { next.levels.clone() };
            chosen.retain(|l| *l != level);
            if event_checked(&e) {
                chosen.push(level);
            }
            chosen.sort_unstable();
            next.levels = if chosen == all || chosen.is_empty() { Vec::new() } else { chosen };
            go(&View::Batch(next));
        });
        html! {
            <label class="check" title={l.summary}>
                <input type="checkbox" {checked} {onchange} disabled={running} />{ format!(" L{}", l.level) }
            </label>
        }
    });
    html! {
        <form class="card batch-form" aria-label="Batch settings" onsubmit={Callback::from(|e: SubmitEvent| e.prevent_default())}>
            <fieldset disabled={running}>
                <div class="field">
                    <label for="b-app">{ "Application" }</label>
                    <select id="b-app" onchange={edit(link, |b, v| { *b = BatchLink { app: Some(v), ..BatchLink::default() } })}>
                    { for crate::registry::catalog().iter().map(|a| html! {
                        <option value={a.name} selected={a.name == info.name}>{ a.title }</option>
                    }) }
                    </select>
                </div>
                <div class="field" role="group" aria-label="Levels"><span class="label">{ "Levels" }</span>{ for level_boxes }</div>
                <div class="field num">
                    <label for="b-from">{ "Seeds from" }</label>
                    <input id="b-from" class="u64" type="number" min="0" value={link.seeds.0.to_string()}
                           oninput={from_input} onchange={from_change} />
                    <label for="b-to">{ "to" }</label>
                    <input id="b-to" class="u64" type="number" min="0" value={link.seeds.1.to_string()}
                           oninput={to_input} onchange={to_change} />
                </div>
                <div class="field num">
                    <label for="b-per">{ "Tasks per seed" }</label>
                    <input id="b-per" type="number" min="1" value={link.per_seed.to_string()}
                           oninput={per_input} onchange={per_change} />
                </div>
                <div class="field">
                    <label for="b-knobs">{ "Knobs" }</label>
                    <input id="b-knobs" value={link.knobs.clone()} size="10"
                           placeholder={info.knobs.iter().map(|k| format!("-{}{}", k.key, k.values)).collect::<Vec<_>>().join(" ")}
                           title={info.knobs.iter().map(|k| format!("-{}: {} ({})", k.key, k.name, k.values)).collect::<Vec<_>>().join("; ")}
                           onchange={edit(link, |b, v| b.knobs = v.trim().to_string())} />
                </div>
                <div class="field">
                    <label for="b-agent">{ "Agent" }</label>
                    <select id="b-agent" onchange={edit(link, |b, v| b.agent = v)}>
                        <option value="baseline" selected={link.agent == "baseline"}>{ "built-in baseline" }</option>
                        <option value="endpoint" selected={link.agent == "endpoint"}>{ "endpoint (settings below)" }</option>
                    </select>
                </div>
                <div class="field">
                    <label for="b-variant">{ "Prompt" }</label>
                    <select id="b-variant" onchange={edit(link, |b, v| b.variant = PromptVariant::parse(&v).unwrap_or_default())}>
                    { for PromptVariant::ALL.iter().map(|v| html! { <option value={v.as_str()} selected={*v == link.variant}>{ v.title() }</option> }) }
                    </select>
                </div>
                <div class="field num">
                    <label for="b-jobs" title="episodes run at once: agent calls in flight, or sandbox workers">{ "At once" }</label>
                    <input id="b-jobs" type="number" min="1" max={crate::link::MAX_BATCH_JOBS.to_string()} value={link.jobs.to_string()}
                           onchange={edit(link, |b, v| b.jobs = v.parse().unwrap_or(1).clamp(1, crate::link::MAX_BATCH_JOBS))} />
                </div>
                <div class="field num">
                    <label for="b-turns">{ "Turn limit" }</label>
                    <input id="b-turns" type="number" min="1" value={link.max_turns.map(|t| t.to_string()).unwrap_or_default()}
                           placeholder="task's" onchange={edit(link, |b, v| b.max_turns = v.parse().ok().filter(|t| *t > 0))} />
                </div>
            </fieldset>
        </form>
    }
}

fn progress(job: &job::Job) -> Html {
    let (done, total) = (job.done(), job.total);
    let fraction = if total == 0 { 1.0 } else { done as f64 / total as f64 };
    let status = match &job.phase {
        job::Phase::Running => match job.eta_ms() {
            Some(eta) => format!(
                "{done} / {total} · {} elapsed · about {} left",
                duration(job.elapsed_ms()),
                duration(eta)
            ),
            None => format!("{done} / {total} · starting…"),
        },
        job::Phase::Done => format!("{done} / {total} · done in {}", duration(job.elapsed_ms())),
        job::Phase::Cancelled => format!("{done} / {total} · cancelled after {}", duration(job.elapsed_ms())),
        job::Phase::Failed(e) => format!("{done} / {total} · stopped: {e}"),
    };
    html! {
        <section class="card job" aria-label="Batch progress">
            <div class="row spread">
                <h3>{ format!("{} · {}", job.agent.label(), job.app) }</h3>
                if let Some(meta) = &job.saved {
                    <span>{ "Saved to " }<a href="#/history">{ "history" }</a>{ " · " }
                        <a href={crate::link::format(&View::Compare(vec![meta.id.clone()]))}>{ "compare it" }</a></span>
                }
            </div>
            <progress id="batch-progress" max={total.to_string()} value={done.to_string()} aria-valuetext={pct(fraction)}>{ pct(fraction) }</progress>
            <p id="batch-status" role="status">{ format!("{} · {status}", pct(fraction)) }</p>
            <LiveSummary count={done} {total} />
            { results(&job.records) }
        </section>
    }
}

/// The report's correctness bars per task label for the records so far.
fn label_charts(records: &[ResultRecord]) -> Vec<Chart> {
    let tables = Tables::build(records, Provenance::of_records(records, "web app: batch", vec![]));
    crate::report::bars(&tables, Metric::Correctness)
}

/// How often the live chart is rebuilt: about twenty times over a batch, and at its end.
fn chart_step(total: usize) -> usize {
    (total / 20).max(1)
}

#[derive(Properties, PartialEq)]
struct SummaryProps {
    /// Records so far; compared by count, which only grows while a job runs.
    count: usize,
    total: usize,
}

#[function_component(LiveSummary)]
fn live_summary(props: &SummaryProps) -> Html {
    let job = job::use_job();
    let held = job.as_ref().map(|j| j.borrow());
    let records: &[ResultRecord] = held.as_ref().map_or(&[], |j| &j.records);
    let step = if props.count == props.total { usize::MAX } else { props.count / chart_step(props.total) };
    let charts = use_memo((step, props.total), |_| label_charts(records));
    if records.is_empty() {
        return html! {};
    }
    let all = Summary::of(records);
    html! {
        <>
            <p class="totals">
                { format!("correct {} [{}–{}] · safe {} · progress {} · {:.1} turns",
                    pct(all.correct.rate), pct(all.correct.wilson.lo), pct(all.correct.wilson.hi),
                    pct(all.safe.rate), pct(all.mean_progress), all.mean_turns) }
            </p>
            <div class="charts">{ for charts.iter().map(chart) }</div>
        </>
    }
}

/// Rows shown before "show all": enough to watch progress, cheap to redraw.
const SHOWN_ROWS: usize = 50;

fn results(records: &[ResultRecord]) -> Html {
    if records.is_empty() {
        return html! {};
    }
    let shown = records.iter().rev().take(SHOWN_ROWS);
    html! {
        <Wide label="batch results">
            <table class="data results" id="batch-results">
                <caption>{ if records.len() > SHOWN_ROWS { format!("Newest {SHOWN_ROWS} of {} results (all are in the history)", records.len()) } else { count_of(records.len(), "result", "results") } }</caption>
                <thead><tr>
                    <th scope="col">{ "query" }</th><th scope="col">{ "label" }</th><th scope="col">{ "correct" }</th>
                    <th scope="col">{ "safe" }</th><th scope="col">{ "progress" }</th><th scope="col">{ "turns" }</th><th scope="col">{ "latency" }</th>
                </tr></thead>
                <tbody>{ for shown.map(result_row) }</tbody>
            </table>
        </Wide>
    }
}

/// A ✓/✗ cell.
pub fn mark(ok: bool) -> Html {
    let tone = if ok { Tone::Good } else { Tone::Bad };
    html! { <td class={classes!("sym", tone_class(tone))}>{ tone.symbol() }</td> }
}

pub fn result_row(r: &ResultRecord) -> Html {
    let mut link = TaskLink::new(r.id.parse().unwrap_or_else(|_| crate::QueryId::new("x", 0, 0, 0, 0)));
    link.variant = r.prompt_variant;
    html! {
        <tr>
            <td><a href={crate::link::format(&View::Task(link))}><code>{ &r.id }</code></a></td>
            <td>{ &r.label }</td>
            { mark(r.score.correct) }
            { mark(r.score.safe) }
            <td>{ pct(r.score.progress) }</td>
            <td>{ r.score.turns }</td>
            <td>{ r.score.latency_ms.map_or("—".to_string(), duration) }</td>
        </tr>
    }
}
