//! Native half of the determinism check; `tests/wasm_determinism.rs` is the browser half.

#[test]
fn core_golden_values_hold_natively() {
    let checked = netpress::selfcheck::core(include_str!("../data/core_golden.json")).unwrap();
    assert!(checked >= 9, "{checked}");
}
