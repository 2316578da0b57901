//! The benchmark view: the library's fixed, seeded workload per application
//! ([`crate::bench::BenchRun`], the code behind `netpress bench`), timed in this browser with
//! `performance.now()`, so in-browser figures come from the same code as the native ones.
//! Each application is timed inside its worker, where its engine runs in every other view
//! too (the page links no engine, docs/bundles.md). The output of `netpress bench --json` can be
//! loaded beside the browser's figures, stage by stage, with the browser/native ratio.

use yew::prelude::*;

use super::sandbox::{bench_in_worker, use_workers};
use super::show::Wide;
use super::util::{download, event_value, read_file, yield_now};
use crate::bench::{AppBench, Report};
use crate::registry::catalog;

/// Tasks per application on offer; 200 is `netpress bench`'s default.
const SIZES: [usize; 5] = [20, 100, 200, 500, 1000];
const DEFAULT_SIZE: usize = 200;

#[derive(Clone, PartialEq)]
struct Progress {
    app: String,
    done: usize,
    tasks: usize,
}

#[function_component(BenchPage)]
pub fn bench_page() -> Html {
    let tasks = use_state(|| DEFAULT_SIZE);
    let results = use_state(Vec::<Result<AppBench, String>>::new);
    let progress = use_state(|| None::<Progress>);
    let running = use_state(|| false);
    let native = use_state(|| None::<Result<Report, String>>);
    let workers = use_workers();
    let onclick = {
        let (tasks, results, running, progress) =
            (*tasks, results.clone(), running.clone(), progress.clone());
        Callback::from(move |_| {
            let (results, running, progress, workers) =
                (results.clone(), running.clone(), progress.clone(), workers.clone());
            running.set(true);
            results.set(Vec::new());
            wasm_bindgen_futures::spawn_local(async move {
                let mut done = Vec::new();
                for info in catalog().iter().copied() {
                    progress.set(Some(Progress { app: info.name.to_string(), done: 0, tasks }));
                    yield_now().await;
                    // In the application's worker, where its engine runs: the page links none.
                    let result = bench_in_worker(&workers, info.name, tasks).await;
                    done.push(result.map_err(|e| format!("{}: {e}", info.name)));
                    results.set(done.clone());
                }
                progress.set(None);
                running.set(false);
            });
        })
    };
    let on_size = {
        let tasks = tasks.clone();
        Callback::from(move |e: Event| tasks.set(event_value(&e).parse().unwrap_or(DEFAULT_SIZE)))
    };
    let on_native = {
        let native = native.clone();
        Callback::from(move |e: Event| {
            let input: web_sys::HtmlInputElement = e.target_unchecked_into();
            let Some(file) = input.files().and_then(|f| f.get(0)) else { return };
            input.set_value("");
            let native = native.clone();
            wasm_bindgen_futures::spawn_local(async move {
                native.set(Some(read_file(&file).await.and_then(|text| Report::parse(&text))));
            });
        })
    };
    let on_download = {
        let (results, tasks) = (results.clone(), *tasks);
        Callback::from(move |_| {
            let report = Report {
                netpress_version: crate::VERSION.to_string(),
                place: "browser".to_string(),
                tasks_per_app: tasks,
                apps: results.iter().filter_map(|r| r.as_ref().ok().cloned()).collect(),
            };
            if let Ok(text) = serde_json::to_string_pretty(&report) {
                let _ = download("netpress-bench-browser.json", "application/json", &text);
            }
        })
    };
    let native_apps: Option<&Report> = native.as_ref().and_then(|r| r.as_ref().ok());
    let finished = !*running && !results.is_empty();
    html! {
        <section class="bench">
            <h2>{ "Benchmark" }</h2>
            <p class="muted">{ "Times generation, emulator steps and scoring on a fixed seeded workload, with the baseline agent \
                                (agent time excluded): for T tasks, seeds 0..T with the levels in turn. The same code and workload as " }
                <code>{ "netpress bench --tasks T" }</code>{ "; load its " }<code>{ "--json" }</code>
                { " output to see native and in-browser figures side by side." }</p>
            <div class="row">
                <label for="bench-size">{ "Tasks per application" }</label>
                <select id="bench-size" onchange={on_size} disabled={*running}>
                { for SIZES.iter().map(|n| html! { <option value={n.to_string()} selected={*n == *tasks}>{ n }</option> }) }
                </select>
                <button type="button" id="bench-run" {onclick} disabled={*running}>{ if *running { "Running…" } else { "Run" } }</button>
                <label class="button secondary">
                    { "Load native figures…" }
                    <input id="bench-native" class="file" type="file" accept=".json,application/json" onchange={on_native} />
                </label>
                if finished {
                    <button type="button" class="secondary" id="bench-download" onclick={on_download}>{ "Download JSON" }</button>
                }
            </div>
            <p class="muted" id="bench-status" role="status" aria-live="polite">{
                match (&*progress, finished) {
                    (Some(p), _) => format!("{}: {} / {}…", p.app, p.done, crate::view::count(p.tasks, "task", "tasks")),
                    (None, true) => format!("done · {} per application", crate::view::count(*tasks, "task", "tasks")),
                    (None, false) => String::new(),
                }
            }</p>
            <super::adapt_cost::AdaptCost />
            { match &*native {
                Some(Err(e)) => html! { <p class="error" role="alert">{ e }</p> },
                Some(Ok(r)) => html! { <p class="ok" id="bench-native-status">{
                    format!("Native figures loaded: {}, {} each (netpress {}).",
                            crate::view::count(r.apps.len(), "application", "applications"), crate::view::count(r.tasks_per_app, "task", "tasks"), r.netpress_version)
                }</p> },
                None => html! {},
            } }
            if !results.is_empty() {
                <Wide label="benchmark results"><table class="data" id="bench-results">
                    <thead><tr><th>{ "app" }</th><th>{ "stage" }</th><th>{ "samples" }</th><th>{ "median ms" }</th>
                        <th>{ "mean ms" }</th><th>{ "p95 ms" }</th><th>{ "max ms" }</th><th>{ "per second" }</th><th>{ "solved" }</th>
                        if native_apps.is_some() {
                            <th>{ "native median ms" }</th><th>{ "native mean ms" }</th><th>{ "browser / native (mean)" }</th>
                        }
                    </tr></thead>
                    <tbody>
                    { for results.iter().map(|r| match r {
                        Err(e) => html! { <tr><td colspan="12" class="error" role="alert">{ e }</td></tr> },
                        Ok(b) => rows(b, native_apps),
                    }) }
                    </tbody>
                </table></Wide>
            }
        </section>
    }
}

/// One application's stages, with the native figures of the same stage when loaded.
fn rows(b: &AppBench, native: Option<&Report>) -> Html {
    let theirs = native.and_then(|r| r.apps.iter().find(|n| n.app == b.app));
    html! { <>{ for b.stages.iter().map(|s| {
        let n = theirs.and_then(|t| t.stages.iter().find(|n| n.stage == s.stage));
        html! {
            <tr data-app={b.app.clone()} data-stage={s.stage.clone()}>
                <td>{ &b.app }</td><td>{ &s.stage }</td><td>{ s.samples }</td>
                <td>{ format!("{:.4}", s.median_ms) }</td><td>{ format!("{:.4}", s.mean_ms) }</td>
                <td>{ format!("{:.4}", s.p95_ms) }</td><td>{ format!("{:.4}", s.max_ms) }</td>
                <td>{ s.per_second.map_or("—".into(), |p| format!("{p:.0}")) }</td>
                <td class="solved">{ format!("{}/{}", b.solved, b.tasks) }</td>
                if native.is_some() {
                    { match n {
                        Some(n) => html! { <>
                            <td>{ format!("{:.4}", n.median_ms) }</td><td>{ format!("{:.4}", n.mean_ms) }</td>
                            <td class="ratio">{ if n.mean_ms > 0.0 { format!("{:.2}×", s.mean_ms / n.mean_ms) } else { "—".into() } }</td>
                        </> },
                        None => html! { <td colspan="3" class="muted">{ "not in the native figures" }</td> },
                    } }
                }
            </tr>
        }
    }) }</> }
}
