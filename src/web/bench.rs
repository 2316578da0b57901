//! The benchmark view: the library's fixed, seeded workload per application
//! ([`crate::bench::run_app`]), timed in this browser with `performance.now()`, so in-browser
//! figures come from the same code as `netpress bench`. Sandboxed applications step in the
//! worker, so they are measured by their worker, not here.

use yew::prelude::*;

use super::util::{event_value, yield_now};
use crate::bench::{AppBench, run_app};
use crate::registry::apps;

const SIZES: [usize; 3] = [20, 100, 500];

#[function_component(BenchPage)]
pub fn bench_page() -> Html {
    let tasks = use_state(|| SIZES[0]);
    let results = use_state(Vec::<Result<AppBench, String>>::new);
    let running = use_state(|| false);
    let onclick = {
        let (tasks, results, running) = (*tasks, results.clone(), running.clone());
        Callback::from(move |_| {
            let (results, running) = (results.clone(), running.clone());
            running.set(true);
            results.set(Vec::new());
            wasm_bindgen_futures::spawn_local(async move {
                let mut done = Vec::new();
                for app in apps().iter().filter(|a| !a.info().sandboxed) {
                    // One application per slice: the page redraws between them.
                    yield_now().await;
                    let clock = super::util::now_ms;
                    done.push(run_app(*app, tasks, &clock).map_err(|e| e.to_string()));
                    results.set(done.clone());
                }
                running.set(false);
            });
        })
    };
    let on_size = {
        let tasks = tasks.clone();
        Callback::from(move |e: Event| tasks.set(event_value(&e).parse().unwrap_or(SIZES[0])))
    };
    let sandboxed: Vec<&str> = apps().iter().filter(|a| a.info().sandboxed).map(|a| a.info().title).collect();
    html! {
        <section class="bench">
            <h2>{ "Benchmark" }</h2>
            <p class="muted">{ "Times generation, emulator steps and scoring on a fixed seeded workload, with the baseline agent \
                                (agent time excluded). The same workload as " }<code>{ "netpress bench" }</code>{ "." }</p>
            <div class="row">
                <label for="bench-size">{ "Tasks per application" }</label>
                <select id="bench-size" onchange={on_size} disabled={*running}>
                { for SIZES.iter().map(|n| html! { <option value={n.to_string()} selected={*n == *tasks}>{ n }</option> }) }
                </select>
                <button type="button" id="bench-run" {onclick} disabled={*running}>{ if *running { "Running…" } else { "Run" } }</button>
            </div>
            if !sandboxed.is_empty() {
                <p class="muted">{ format!("Not timed here: {} (its episodes run in the sandbox worker).", sandboxed.join(", ")) }</p>
            }
            if !results.is_empty() {
                <div class="table-wrap"><table class="data" id="bench-results">
                    <thead><tr><th>{ "app" }</th><th>{ "stage" }</th><th>{ "samples" }</th><th>{ "median ms" }</th>
                        <th>{ "mean ms" }</th><th>{ "p95 ms" }</th><th>{ "max ms" }</th><th>{ "solved" }</th></tr></thead>
                    <tbody>
                    { for results.iter().map(|r| match r {
                        Err(e) => html! { <tr><td colspan="8" class="error">{ e }</td></tr> },
                        Ok(b) => html! { <>{ for b.stages.iter().map(|s| html! {
                            <tr><td>{ &b.app }</td><td>{ &s.stage }</td><td>{ s.samples }</td>
                                <td>{ format!("{:.4}", s.median_ms) }</td><td>{ format!("{:.4}", s.mean_ms) }</td>
                                <td>{ format!("{:.4}", s.p95_ms) }</td><td>{ format!("{:.4}", s.max_ms) }</td>
                                <td>{ format!("{}/{}", b.solved, b.tasks) }</td></tr>
                        }) }</> },
                    }) }
                    </tbody>
                </table></div>
            }
        </section>
    }
}
