//! The MALT golden values and a sandboxed oracle run in wasm32 under Node (malt.md §10,
//! acceptances 1–3): `CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER=wasm-bindgen-test-runner
//! cargo test --target wasm32-unknown-unknown --test malt_wasm`.
#![cfg(target_arch = "wasm32")]

use wasm_bindgen_test::wasm_bindgen_test;

#[path = "data/malt/wasm_cases.rs"]
mod cases;
#[path = "data/malt/golden_ids.rs"]
mod golden_ids;

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
