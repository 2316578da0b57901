//! The history view: every saved run (task episodes, batches, imports), kept in IndexedDB.
//! Select runs to compare, export or delete; export all or a selection as JSONL; import a JSONL
//! file, checked line by line before anything is written.

use std::collections::BTreeSet;
use std::rc::Rc;

use yew::prelude::*;

use super::batch::result_row;
use super::go;
use super::latest::{Latest, use_latest};
use super::show::Wide;
use super::store::{self, RunMeta};
use super::util::{date_time, download, epoch_ms, event_checked, pct, read_file};
use crate::history;
use crate::link::View;
use crate::record::ResultRecord;
use crate::view::count;

/// A file read but not yet imported because some lines are bad.
#[derive(Clone, PartialEq)]
struct Pending {
    file: String,
    plan: history::ImportPlan,
}

/// Saves an import plan and says what happened.
async fn apply(plan: &history::ImportPlan) -> Result<String, String> {
    store::save_all(&plan.runs).await?;
    let mut msg = format!(
        "Imported {} in {}.",
        count(plan.record_count(), "record", "records"),
        count(plan.runs.len(), "run", "runs")
    );
    if !plan.already_present.is_empty() {
        let n = plan.already_present.len();
        let were = if n == 1 { "was" } else { "were" };
        msg.push_str(&format!(
            " {} {were} already in the history and left as {}.",
            count(n, "run", "runs"),
            if n == 1 { "it is" } else { "they are" }
        ));
    }
    Ok(msg)
}

/// Exports runs (oldest first) as a JSONL download.
async fn export(runs: Vec<RunMeta>) -> Result<String, String> {
    let mut all = Vec::new();
    for meta in runs.into_iter().rev() {
        let records = store::records(&meta.id).await?;
        all.push((meta, records));
    }
    let n: usize = all.iter().map(|(_, r)| r.len()).sum();
    download("netpress-results.jsonl", "application/x-ndjson", &history::export(&all))?;
    Ok(format!("Exported {} from {}.", count(n, "record", "records"), count(all.len(), "run", "runs")))
}

#[function_component(HistoryPage)]
pub fn history_page() -> Html {
    let runs = use_state(|| None::<Result<Vec<RunMeta>, String>>);
    // Read at its latest value: two ticks and a click can arrive before a redraw.
    let selected = use_latest(BTreeSet::<String>::new);
    let message = use_state(|| None::<Result<String, String>>);
    let pending = use_state(|| None::<Pending>);
    let open = use_state(|| None::<(String, Vec<ResultRecord>)>);
    let reload = {
        let runs = runs.clone();
        Callback::from(move |_: ()| {
            let runs = runs.clone();
            wasm_bindgen_futures::spawn_local(async move { runs.set(Some(store::list().await)) });
        })
    };
    {
        let reload = reload.clone();
        use_effect_with((), move |_| reload.emit(()));
    }
    let list: Vec<RunMeta> = match &*runs {
        Some(Ok(list)) => list.clone(),
        _ => Vec::new(),
    };
    // The runs ticked now (a button reads them when clicked, not as last drawn).
    let chosen_now = {
        let (list, selected) = (list.clone(), selected.clone());
        move || -> Vec<RunMeta> {
            selected.with(|s| list.iter().filter(|m| s.contains(&m.id)).cloned().collect())
        }
    };
    let chosen = chosen_now();

    let on_export = |which: Rc<dyn Fn() -> Vec<RunMeta>>| {
        let message = message.clone();
        Callback::from(move |_| {
            let (message, which) = (message.clone(), which());
            wasm_bindgen_futures::spawn_local(async move { message.set(Some(export(which).await)) });
        })
    };
    let on_delete = {
        let (chosen_now, message, selected, reload) =
            (chosen_now.clone(), message.clone(), selected.clone(), reload.clone());
        Callback::from(move |_| {
            let chosen = chosen_now();
            let ask = format!(
                "Delete {} from the history? This cannot be undone.",
                count(chosen.len(), "run", "runs")
            );
            if !gloo::utils::window().confirm_with_message(&ask).unwrap_or(false) {
                return;
            }
            let ids: Vec<String> = chosen.iter().map(|m| m.id.clone()).collect();
            let (message, selected, reload) = (message.clone(), selected.clone(), reload.clone());
            wasm_bindgen_futures::spawn_local(async move {
                message.set(Some(
                    store::delete(&ids)
                        .await
                        .map(|_| format!("Deleted {}.", count(ids.len(), "run", "runs"))),
                ));
                selected.set(BTreeSet::new());
                reload.emit(());
            });
        })
    };
    let on_compare = {
        let chosen_now = chosen_now.clone();
        Callback::from(move |_| go(&View::Compare(chosen_now().iter().map(|m| m.id.clone()).collect())))
    };
    let on_import = {
        let (message, pending, reload, list) =
            (message.clone(), pending.clone(), reload.clone(), list.clone());
        Callback::from(move |e: Event| {
            let input: web_sys::HtmlInputElement = e.target_unchecked_into();
            let Some(file) = input.files().and_then(|f| f.get(0)) else { return };
            input.set_value("");
            let existing: Vec<String> = list.iter().map(|m| m.id.clone()).collect();
            let (message, pending, reload) = (message.clone(), pending.clone(), reload.clone());
            wasm_bindgen_futures::spawn_local(async move {
                let text = match read_file(&file).await {
                    Ok(t) => t,
                    Err(e) => return message.set(Some(Err(e))),
                };
                let plan =
                    history::plan_import(&text, &file.name(), &existing, epoch_ms(), store::new_run_id);
                if plan.errors.is_empty() {
                    message.set(Some(apply(&plan).await));
                    reload.emit(());
                } else {
                    message.set(None);
                    pending.set(Some(Pending { file: file.name(), plan }));
                }
            });
        })
    };
    html! {
        <section class="history">
            <h2>{ "History" }</h2>
            <div class="card row toolbar">
                <button type="button" id="export-all" onclick={on_export({ let l = list.clone(); Rc::new(move || l.clone()) })} disabled={list.is_empty()}>{ "Export all" }</button>
                <button type="button" class="secondary" id="export-selected" onclick={on_export(Rc::new(chosen_now.clone()))} disabled={chosen.is_empty()}>
                    { format!("Export {} selected", chosen.len()) }
                </button>
                <button type="button" class="secondary" id="compare-selected" onclick={on_compare} disabled={chosen.len() < 2}>{ "Compare selected" }</button>
                <button type="button" class="secondary danger" onclick={on_delete} disabled={chosen.is_empty()}>{ "Delete selected" }</button>
                <label class="button secondary">
                    { "Import JSONL…" }
                    <input id="import-file" class="file" type="file" accept=".jsonl,.json,.txt,application/x-ndjson" onchange={on_import} />
                </label>
            </div>
            { message_html(&message) }
            if let Some(p) = &*pending { { pending_html(p, &pending, &message, &reload) } }
            { match &*runs {
                None => html! { <p class="muted">{ "Loading…" }</p> },
                Some(Err(e)) => html! { <p class="error" role="alert">{ e }</p> },
                Some(Ok(list)) if list.is_empty() => html! {
                    <p class="muted">{ "No runs yet. Answer a task or run a batch; every run is kept here, in this browser." }</p>
                },
                Some(Ok(list)) => table(list, &selected, &open),
            } }
        </section>
    }
}

fn message_html(message: &UseStateHandle<Option<Result<String, String>>>) -> Html {
    match &**message {
        Some(Ok(m)) => html! { <p class="ok" role="status" id="history-message">{ m }</p> },
        Some(Err(e)) => html! { <p class="error" role="alert" id="history-message">{ e }</p> },
        None => html! {},
    }
}

/// The errors of a file with bad lines, and the choice to import its good lines or nothing.
fn pending_html(
    p: &Pending,
    pending: &UseStateHandle<Option<Pending>>,
    message: &UseStateHandle<Option<Result<String, String>>>,
    reload: &Callback<()>,
) -> Html {
    const SHOWN: usize = 20;
    let good = p.plan.record_count();
    let import = {
        let (plan, pending, message, reload) =
            (p.plan.clone(), pending.clone(), message.clone(), reload.clone());
        Callback::from(move |_| {
            let (plan, pending, message, reload) =
                (plan.clone(), pending.clone(), message.clone(), reload.clone());
            wasm_bindgen_futures::spawn_local(async move {
                message.set(Some(apply(&plan).await));
                pending.set(None);
                reload.emit(());
            });
        })
    };
    let discard = {
        let (pending, message) = (pending.clone(), message.clone());
        Callback::from(move |_| {
            pending.set(None);
            message.set(Some(Ok("Nothing was imported.".into())));
        })
    };
    let errors = &p.plan.errors;
    html! {
        <section class="card import-errors" role="alert" id="import-errors">
            <h3>{ format!("{} has {}", p.file, count(errors.len(), "bad line", "bad lines")) }</h3>
            <p>{ "Nothing has been imported yet, and nothing in the history has changed." }</p>
            <ul>{ for errors.iter().take(SHOWN).map(|e| html! { <li><code>{ e.to_string() }</code></li> }) }</ul>
            if errors.len() > SHOWN { <p class="muted">{ format!("… and {} more", errors.len() - SHOWN) }</p> }
            <div class="row">
                <button type="button" onclick={import} disabled={good == 0}>{ if good == 1 { "Import the valid record".to_string() } else { format!("Import the {good} valid records") } }</button>
                <button type="button" class="secondary" onclick={discard}>{ "Import nothing" }</button>
            </div>
        </section>
    }
}

fn table(
    list: &[RunMeta],
    selected: &Latest<BTreeSet<String>>,
    open: &UseStateHandle<Option<(String, Vec<ResultRecord>)>>,
) -> Html {
    let all_checked = !list.is_empty() && selected.with(|s| list.iter().all(|m| s.contains(&m.id)));
    let toggle_all = {
        let (selected, ids) = (selected.clone(), list.iter().map(|m| m.id.clone()).collect::<BTreeSet<_>>());
        Callback::from(move |e: Event| {
            selected.set(if event_checked(&e) { ids.clone() } else { BTreeSet::new() })
        })
    };
    html! {
        <Wide label="saved runs">
            <table class="data runs" id="runs">
                <thead><tr>
                    <th scope="col"><input type="checkbox" aria-label="select all runs" checked={all_checked} onchange={toggle_all} /></th>
                    <th scope="col">{ "run" }</th><th scope="col">{ "saved" }</th><th scope="col">{ "from" }</th>
                    <th scope="col">{ "agent" }</th><th scope="col">{ "apps" }</th><th scope="col">{ "tasks" }</th>
                    <th scope="col">{ "correct" }</th><th scope="col">{ "safe" }</th>
                </tr></thead>
                <tbody>{ for list.iter().map(|m| run_row(m, selected, open)) }</tbody>
            </table>
        </Wide>
    }
}

fn run_row(
    m: &RunMeta,
    selected: &Latest<BTreeSet<String>>,
    open: &UseStateHandle<Option<(String, Vec<ResultRecord>)>>,
) -> Html {
    let toggle = {
        let (selected, id) = (selected.clone(), m.id.clone());
        Callback::from(move |e: Event| {
            let checked = event_checked(&e);
            selected.update(|s| {
                if checked {
                    s.insert(id.clone());
                } else {
                    s.remove(&id);
                }
            });
        })
    };
    let is_open = open.as_ref().is_some_and(|(id, _)| *id == m.id);
    let expand = {
        let (open, id) = (open.clone(), m.id.clone());
        Callback::from(move |_| {
            if is_open {
                return open.set(None);
            }
            let (open, id) = (open.clone(), id.clone());
            wasm_bindgen_futures::spawn_local(async move {
                if let Ok(records) = store::records(&id).await {
                    open.set(Some((id, records)));
                }
            });
        })
    };
    let rate = |k: u64| if m.n == 0 { "—".into() } else { pct(k as f64 / m.n as f64) };
    html! {
        <>
            <tr data-run={m.id.clone()}>
                <td><input type="checkbox" aria-label={format!("select {}", m.name)} checked={selected.with(|s| s.contains(&m.id))} onchange={toggle} /></td>
                <td>
                    <button type="button" class="link" aria-expanded={is_open.to_string()} onclick={expand}>{ &m.name }</button>
                </td>
                <td>{ date_time(m.created) }</td>
                <td>{ m.source.as_str() }</td>
                <td><code>{ &m.agent }</code></td>
                <td>{ &m.apps }</td>
                <td>{ m.n }</td>
                <td>{ rate(m.correct) }</td>
                <td>{ rate(m.safe) }</td>
            </tr>
            if let Some((_, records)) = open.as_ref().filter(|_| is_open) {
                <tr class="expanded"><td colspan="9">
                    <table class="data inner">
                        <thead><tr><th>{ "query" }</th><th>{ "label" }</th><th>{ "correct" }</th><th>{ "safe" }</th>
                            <th>{ "progress" }</th><th>{ "turns" }</th><th>{ "latency" }</th></tr></thead>
                        <tbody>{ for records.iter().map(result_row) }</tbody>
                    </table>
                </td></tr>
            }
        </>
    }
}
