//! Browser half of the determinism check: the same golden files as the native tests
//! (`tests/determinism.rs`, `route_golden.rs`, `k8s_determinism.rs`, `k8s_conformance`), run by
//! wasm-bindgen-test in headless Chrome. MALT's browser goldens are in `malt_wasm_browser.rs`.
#![cfg(target_arch = "wasm32")]

use wasm_bindgen_test::*;

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
    let bad = netpress::route::golden::check(data);
    assert!(bad.is_empty(), "{} mismatches, first: {}", bad.len(), bad[0]);
}

#[wasm_bindgen_test]
fn k8s_content_hashes_hold_in_the_browser() {
    let data = include_str!("data/k8s/task_hashes.tsv");
    assert_eq!(netpress::k8s::conformance::task_hashes(data), Ok(3000));
}

#[wasm_bindgen_test]
fn k8s_evaluator_suites_pass_in_the_browser() {
    use netpress::k8s::conformance::{e2e_scenarios, knp_cases};
    let e2e = e2e_scenarios(include_str!("data/k8s/e2e_netpol.yaml"));
    assert!(e2e.as_ref().is_ok_and(|n| *n > 0), "{e2e:?}");
    let knp = knp_cases(include_str!("data/k8s/knp_cases.yaml"));
    assert!(knp.as_ref().is_ok_and(|n| *n > 0), "{knp:?}");
}
