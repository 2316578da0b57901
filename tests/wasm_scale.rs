//! Route and K8s at their largest sizes, in the page's own thread in headless Chrome: the
//! baseline plays each task to the end and the test prints how long generation, each step and
//! scoring took in wasm (README's Performance table). A step must stay far below a frame
//! budget's worth of blocking for the page to stay responsive, so the figures matter; they are
//! printed, not asserted (benchmarks measure, tests check behaviour).
#![cfg(target_arch = "wasm32")]

use netpress::agent::Message;
use netpress::app::PromptVariant;
use netpress::registry;
use netpress::run::RunSettings;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

fn now() -> f64 {
    js_sys::Date::now()
}

/// Plays `id` with its app's baseline; returns (generate ms, step times ms, score ms, turns).
fn play(id: &str) -> (f64, Vec<f64>, f64, bool) {
    let t = now();
    let task = registry::generate(id).expect("generates");
    let generate = now() - t;
    let app = registry::app(&task.card().app).expect("registered");
    let mut agent = app.baseline();
    let mut episode = task.start(Some(RunSettings::default().max_turns.unwrap_or(50)));
    let mut messages = vec![Message::user(task.prompt(PromptVariant::ZeroshotBase))];
    let mut steps = Vec::new();
    while episode.finished().is_none() {
        let reply = agent.reply(&messages).expect("the baseline always replies").text;
        let t = now();
        let outcome = episode.step(&reply);
        steps.push(now() - t);
        messages.push(Message::assistant(reply));
        messages.push(Message::user(outcome.observation));
    }
    let t = now();
    let correct = episode.score().correct;
    (generate, steps, now() - t, correct)
}

#[wasm_bindgen_test]
fn largest_route_and_k8s_tasks_run_in_the_page() {
    // Route L3 with one router and 16 subnets of 4 hosts (65 machines, 4,160 pings a step);
    // Route L3 with four routers; K8s level 3 (three faults of all eleven types).
    for id in ["route-v1-L3-s0-i0-n16-m4-r1", "route-v1-L3-s1-i0-n12-m4-r4", "k8s-v1-L3-s0-i0"] {
        let (generate, steps, score, correct) = play(id);
        assert!(!steps.is_empty(), "{id}: the baseline acted");
        let worst = steps.iter().cloned().fold(0.0, f64::max);
        let mean = steps.iter().sum::<f64>() / steps.len() as f64;
        console_log!(
            "{id}: generate {generate:.0} ms; {} steps, mean {mean:.1} ms, worst {worst:.0} ms; score {score:.1} ms; correct {correct}",
            steps.len()
        );
    }
}

#[wasm_bindgen_test]
fn one_adaptive_search_round_in_the_page() {
    // The fixture and call `cargo bench --bench adapt` times natively (docs/adapt.md, "Cost"):
    // one round's search work on the whole Route space with 150 evaluations behind it.
    let search =
        netpress::adapt::route_search_with_history(&netpress::route::RouteApp).expect("route's space");
    let mut times: Vec<f64> = (0..5)
        .map(|_| {
            let t = now();
            let batch = netpress::adapt::round_work(&search);
            let took = now() - t;
            assert_eq!(batch.len(), 5, "a batch of five guided cells");
            took
        })
        .collect();
    let samples = format!("{times:.1?}");
    times.sort_by(f64::total_cmp);
    console_log!(
        "adaptive search, one round (route space, 150 evaluations): median {:.1} ms of 5 {samples}",
        times[2]
    );
}
