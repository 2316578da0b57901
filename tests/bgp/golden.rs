//! 300 BGP ids → content hashes in `tests/data/bgp/golden.tsv`, checked here and in the browser
//! (`tests/wasm_determinism.rs`) by the same `netpress::selfcheck::task_hash_lines`.
//! `NETPRESS_BLESS=1 cargo test --test bgp golden::` rewrites the file after an intended
//! generator change, which must also bump the generator version: v1's ids, and v2's once v3
//! exists, must never change.
//!
//! Both versions at every level over a sweep of seeds (level 3 at 200 ASes and level 4 at 600,
//! the smallest worlds of their levels, so the debug build and the page take seconds), every
//! family forced once, and the knobs: collectors, vantage points, window, turns, family sets
//! and sizes at both ends of their ranges. docs/bgp.md ("Golden ids") gives the mix.

const FILE: &str = "tests/data/bgp/golden.tsv";

/// Every incident family and benign control.
const FAMILIES: [&str; 15] =
    ["EH", "SH", "FO", "RL1", "RL2", "RL3", "RL4", "RO", "MS", "OW", "LF", "RM", "BM", "BA", "BP"];

/// Knob sets at level 2, one id each.
const KNOBS: [&str; 15] = [
    "-c1",
    "-c3",
    "-v2",
    "-v20",
    "-w1",
    "-w48",
    "-t5",
    "-c2-v9-w12-t25",
    "-fRL2+LF",
    "-n50-c1",
    "-n150-c2-v30",
    "-fEH+SH-w24",
    "-fBM+BA+BP-t10",
    "-c8-v200",
    "-v2-w2",
];

/// The golden ids, in file order.
fn ids() -> Vec<String> {
    let mut out = Vec::new();
    for v in [1, 2] {
        out.extend((0..60).map(|s| format!("bgp-v{v}-L1-s{s}-i0")));
        out.extend((0..40).map(|s| format!("bgp-v{v}-L2-s{s}-i0")));
        out.extend((0..25).map(|s| format!("bgp-v{v}-L3-s{s}-i0-n200")));
        out.extend((0..10).map(|s| format!("bgp-v{v}-L4-s{s}-i0-n600")));
    }
    out.extend(FAMILIES.iter().map(|f| format!("bgp-v2-L3-s100-i0-n200-f{f}")));
    out.extend(
        KNOBS.iter().enumerate().map(|(k, knobs)| format!("bgp-v2-L2-s{}-i{}{knobs}", 200 + k, k % 3)),
    );
    out
}

#[test]
fn golden_content_hashes_hold() {
    let ids = ids();
    assert_eq!(ids.len(), 300);
    crate::bless::content_hashes(FILE, &ids);
}
