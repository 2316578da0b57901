//! The MALT golden values and a sandboxed oracle run in wasm32 in headless Chrome, so the
//! browser computes what the native build does: `CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER=wasm-bindgen-test-runner
//! cargo test --target wasm32-unknown-unknown --test malt_wasm_browser` (webdriver.json holds the Chrome flags).
#![cfg(target_arch = "wasm32")]

use wasm_bindgen_test::wasm_bindgen_test;

wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

#[path = "data/malt/big_ops.rs"]
mod big_ops;
#[path = "data/malt/wasm_cases.rs"]
mod cases;
#[path = "data/malt/golden_ids.rs"]
mod golden_ids;
#[path = "data/malt/python_subset.rs"]
mod python_subset;

#[wasm_bindgen_test]
fn topology_exports_match() {
    cases::topology_exports_match();
}

#[wasm_bindgen_test]
fn content_hashes_match() {
    cases::content_hashes_match();
}

#[wasm_bindgen_test]
fn oracle_scores_in_the_wasm_sandbox() {
    cases::oracle_scores_in_the_wasm_sandbox();
}

#[wasm_bindgen_test]
fn single_big_operations_end_at_once_in_the_browser() {
    big_ops::single_operations_are_bounded(1000.0);
}

#[wasm_bindgen_test]
fn python_subset_answers_as_natively() {
    python_subset::refusals_are_clear_and_unicode_classes_kept();
}
