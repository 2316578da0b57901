//! The sandbox's Python without a character-name table or regex property tables
//! (docs/malt.md, "Python subset"), natively; `malt_wasm_browser.rs` runs the same cases.

#[path = "../data/malt/python_subset.rs"]
mod cases;

#[test]
fn refusals_are_clear_and_unicode_classes_kept() {
    cases::refusals_are_clear_and_unicode_classes_kept();
}
