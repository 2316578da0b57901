//! Browser half of the determinism check: the same golden files as `tests/determinism.rs`,
//! run by wasm-bindgen-test in headless Chrome.
#![cfg(target_arch = "wasm32")]

use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen_test]
fn core_golden_values_hold_in_the_browser() {
    let checked = netpress::selfcheck::core(include_str!("data/core_golden.json")).unwrap();
    assert!(checked >= 9, "{checked}");
}
