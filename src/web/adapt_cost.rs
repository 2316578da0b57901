//! The Benchmark view's figure of adaptive mode's own cost: one round's search work on the
//! whole Route space with 150 evaluations behind it, timed in the page with
//! `performance.now()`. The fixture and the timed call are the library's
//! ([`crate::adapt::route_search_with_history`], [`crate::adapt::round_work`]), the ones
//! `cargo bench --bench adapt` times natively; the space comes from the Route worker, as the
//! Adapt view's search gets it.

use yew::prelude::*;

use super::adaptive::space_of;
use super::sandbox::use_workers;
use super::util::{now_ms, yield_now};
use crate::adapt::{EVALUATIONS, round_work, route_search_with_history};

/// Rounds timed (each one blocks the page for its duration, so few).
const SAMPLES: usize = 5;

/// The times of [`SAMPLES`] rounds, in milliseconds.
async fn time_rounds(workers: &super::sandbox::Workers) -> Result<Vec<f64>, String> {
    let info = crate::registry::info("route").map_err(|e| e.to_string())?;
    let remote = space_of(workers, info).await?;
    let search = route_search_with_history(&remote).map_err(|e| e.to_string())?;
    let mut times = Vec::with_capacity(SAMPLES);
    for _ in 0..SAMPLES {
        yield_now().await;
        let t = now_ms();
        let batch = round_work(&search);
        times.push(now_ms() - t);
        std::hint::black_box(batch);
    }
    Ok(times)
}

#[function_component(AdaptCost)]
pub fn adapt_cost() -> Html {
    let workers = use_workers();
    let result = use_state(|| None::<Result<Vec<f64>, String>>);
    let running = use_state(|| false);
    let onclick = {
        let (result, running) = (result.clone(), running.clone());
        Callback::from(move |_| {
            let (result, running, workers) = (result.clone(), running.clone(), workers.clone());
            running.set(true);
            wasm_bindgen_futures::spawn_local(async move {
                result.set(Some(time_rounds(&workers).await));
                running.set(false);
            });
        })
    };
    let shown = match &*result {
        None => String::new(),
        Some(Err(e)) => format!("failed: {e}"),
        Some(Ok(times)) => {
            let mut sorted = times.clone();
            sorted.sort_by(f64::total_cmp);
            let samples: Vec<String> = times.iter().map(|t| format!("{t:.1}")).collect();
            format!(
                "one round's search work (Route space, {EVALUATIONS} evaluations): median {:.1} ms of {} rounds ({} ms)",
                sorted[sorted.len() / 2],
                times.len(),
                samples.join(", ")
            )
        }
    };
    html! {
        <div class="row" aria-label="adaptive search cost">
            <button type="button" class="secondary" id="bench-adapt-run" {onclick} disabled={*running}>
                { if *running { "Timing…" } else { "Time the adaptive search" } }
            </button>
            <span class="muted" id="bench-adapt" role="status" aria-live="polite">{ shown }</span>
        </div>
    }
}
