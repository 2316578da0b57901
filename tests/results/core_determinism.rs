//! Native half of the determinism check; `tests/wasm_determinism.rs` is the browser half.

#[test]
fn core_golden_values_hold_natively() {
    let checked = netpress::selfcheck::core(include_str!("../data/core_golden.json")).unwrap();
    assert!(checked >= 9, "{checked}");
}

/// Every application's sample ids (`selfcheck::sample_ids`: each level, seeds up to 2^32 - 1)
/// keep the content hashes of `tests/data/app_hashes.tsv`, which the browser half checks too.
#[test]
fn every_application_s_sample_hashes_hold_natively() {
    let golden =
        crate::bless::golden("tests/data/app_hashes.tsv", || netpress::selfcheck::sample_hashes().unwrap());
    assert_eq!(netpress::selfcheck::sample_hashes().unwrap(), golden);
}
