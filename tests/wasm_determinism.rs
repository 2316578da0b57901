//! Browser half of the determinism check: the same golden files as the native tests
//! (`tests/results/core_determinism.rs`, `tests/route`, `tests/k8s`, `tests/microseg`,
//! `tests/bgp`, `tests/traffic`, `tests/flows`; every application's sample ids), run by
//! wasm-bindgen-test in headless Chrome. MALT's browser goldens are in `malt_wasm_browser.rs`.
#![cfg(target_arch = "wasm32")]

use wasm_bindgen_test::*;

#[path = "flows/cases.rs"]
mod flows_cases;

wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen_test]
fn core_golden_values_hold_in_the_browser() {
    let checked = netpress::selfcheck::core(include_str!("data/core_golden.json")).unwrap();
    assert!(checked >= 9, "{checked}");
}

#[wasm_bindgen_test]
fn route_content_hashes_hold_in_the_browser() {
    let data = include_str!("data/route/golden.txt");
    assert_eq!(data.lines().count(), 300);
    assert_eq!(netpress::selfcheck::task_hash_lines(data), Ok(300));
}

#[wasm_bindgen_test]
fn k8s_content_hashes_hold_in_the_browser() {
    let data = include_str!("data/k8s/task_hashes.tsv");
    assert_eq!(netpress::selfcheck::task_hash_lines(data), Ok(3000));
}

/// Checks `id<TAB>hash` lines one task at a time, yielding to the event loop after each, since
/// the runner gives up on a page that stays silent for about 20 s and a long file takes longer
/// than that.
async fn hash_lines_hold(data: &str) {
    let mut errors = Vec::new();
    for line in data.lines() {
        if let Err(e) = netpress::selfcheck::task_hash_lines(line) {
            errors.extend(e);
        }
        gloo::timers::future::TimeoutFuture::new(0).await;
    }
    assert!(errors.is_empty(), "native and wasm32 generation disagree:\n{}", errors.join("\n"));
}

/// One task per application, level and sample seed (seeds up to 2^32 - 1, as the page's random
/// task draws them): the hashes `tests/results/core_determinism.rs` pins natively.
#[wasm_bindgen_test]
async fn every_application_s_sample_hashes_hold_in_the_browser() {
    let data = include_str!("data/app_hashes.tsv");
    assert_eq!(data.lines().count(), netpress::selfcheck::sample_ids().len());
    hash_lines_hold(data).await;
}

/// BGP's 469 golden ids (generators v1 to v3), which `tests/bgp/golden.rs` pins natively.
#[wasm_bindgen_test]
async fn bgp_content_hashes_hold_in_the_browser() {
    let data = include_str!("data/bgp/golden.tsv");
    assert_eq!(data.lines().count(), 469);
    hash_lines_hold(data).await;
}

/// Micro-segmentation's 300 golden ids, which `tests/microseg/golden.rs` pins natively.
#[wasm_bindgen_test]
async fn microseg_content_hashes_hold_in_the_browser() {
    let data = include_str!("data/microseg/golden.tsv");
    assert_eq!(data.lines().count(), 300);
    hash_lines_hold(data).await;
}

/// Traffic's 348 golden ids (252 of the standard modes, 48 of NeMoEval's, 48 of the second
/// generator version), which `tests/traffic/golden.rs` pins natively; the first two files hold
/// `[id, hash]` pairs, the third hash lines.
#[wasm_bindgen_test]
async fn traffic_content_hashes_hold_in_the_browser() {
    let mut lines = String::new();
    for file in [include_str!("data/traffic/golden.json"), include_str!("data/traffic/golden_nemo.json")] {
        let pairs: Vec<(String, String)> = serde_json::from_str(file).unwrap();
        for (id, hash) in pairs {
            lines.push_str(&format!("{id}\t{hash}\n"));
        }
    }
    lines.push_str(include_str!("data/traffic/golden_v2.tsv"));
    assert_eq!(lines.lines().count(), 348);
    hash_lines_hold(&lines).await;
}

/// The flows model's 20 golden tenants (every format's export and the graph, hashed), which
/// `tests/flows/golden.rs` pins natively, computed here by the same shared code.
#[wasm_bindgen_test]
async fn flows_goldens_hold_in_the_browser() {
    let golden: serde_json::Value = serde_json::from_str(include_str!("data/flows/golden.json")).unwrap();
    let want = golden["tenants"].as_array().unwrap();
    let cases = flows_cases::cases();
    assert_eq!(want.len(), cases.len());
    let mut errors = Vec::new();
    for ((name, knobs, sc), w) in cases.iter().zip(want) {
        if flows_cases::tenant_entry(name, knobs, sc) != *w {
            errors.push(name.clone());
        }
        gloo::timers::future::TimeoutFuture::new(0).await;
    }
    assert!(errors.is_empty(), "native and wasm32 tenants disagree: {errors:?}");
}

#[wasm_bindgen_test]
fn k8s_evaluator_suites_pass_in_the_browser() {
    use netpress::k8s::conformance::{e2e_scenarios, knp_cases};
    let e2e = e2e_scenarios(include_str!("data/k8s/e2e_netpol.yaml"));
    assert!(e2e.as_ref().is_ok_and(|n| *n > 0), "{e2e:?}");
    let knp = knp_cases(include_str!("data/k8s/knp_cases.yaml"));
    assert!(knp.as_ref().is_ok_and(|n| *n > 0), "{knp:?}");
}

/// Adaptive mode's search, run as the page runs it (space, ids and episodes from the linked
/// engine through the page's driver), ends with the state hash the native test
/// (`tests/adapt/remote.rs`) holds: the GP, the acquisition and the promotions agree bit for
/// bit in wasm32.
#[wasm_bindgen_test]
fn adapt_state_hash_holds_in_the_browser() {
    use netpress::adapt::{
        Fake, Linked, Pin, Reference, Remote, ScoreKind, Search, Settings, SpaceSpec, drive_linked,
    };
    use netpress::conversation::{Agent, AgentInfo};
    let app = netpress::registry::Registry::standard().app("route").unwrap();
    let mut s = Settings::new(Reference::Baseline);
    (s.rounds, s.k, s.budget, s.random, s.seed, s.confirm) = (2, 3, 4, Settings::random_of(4), 5, 6);
    s.pins = vec![
        Pin { dim: "level".into(), values: vec!["1".into()] },
        Pin { dim: "turns".into(), values: vec!["10".into()] },
    ];
    let remote = Remote::new(app.info(), &SpaceSpec::of(app)).unwrap();
    let pred = "subnets>=6";
    let mut search = Search::new(&remote, s, AgentInfo::new("fake", pred)).unwrap();
    let fake = Fake::parse(app, pred).unwrap();
    let agent = |id: &str| -> Box<dyn Agent> { fake.agent(app, id) };
    let mut host = Linked { app, agent: &agent, settings: Default::default(), score: ScoreKind::Correct };
    assert!(drive_linked(&mut search, &remote, &mut host).unwrap());
    // The version is left out, so a release does not change the golden.
    let mut state = search.state().clone();
    state.netpress_version.clear();
    assert_eq!(state.hash(), include_str!("data/adapt/state_hash.txt").trim());
}
