//! 469 BGP ids → content hashes in `tests/data/bgp/golden.tsv`, checked here and in the browser
//! (`tests/wasm_determinism.rs`) by the same `netpress::selfcheck::task_hash_lines`.
//! `NETPRESS_BLESS=1 cargo test --test bgp golden::` rewrites the file after an intended
//! generator change, which must also bump the generator version: v1's and v2's ids, and v3's
//! once v4 exists, must never change.
//!
//! Every version at every level over a sweep of seeds (level 3 at 200 ASes and level 4 at 600,
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

/// Knob sets v3 adds at level 2: the session cap's edges (drawn VPs cut to `-c1`'s 20, drawn
/// collectors grown to hold `-v41`, both at the limit). v3 refuses `-c8-v200`; the rest of
/// [`KNOBS`] are v3 ids too.
const V3_KNOBS: [&str; 5] = ["-c1-v20", "-v41", "-c8-v160", "-n150-c2-v40", "-v160"];

/// Level 2 ids of generator `v` with `knobs`, seeds from `first` on.
fn knob_ids<'a>(v: u32, first: usize, knobs: impl Iterator<Item = &'a str>) -> Vec<String> {
    knobs.enumerate().map(|(k, knobs)| format!("bgp-v{v}-L2-s{}-i{}{knobs}", first + k, k % 3)).collect()
}

/// Generator `v`'s sweep of seeds at every level.
fn sweep(v: u32) -> Vec<String> {
    let mut out: Vec<String> = (0..60).map(|s| format!("bgp-v{v}-L1-s{s}-i0")).collect();
    out.extend((0..40).map(|s| format!("bgp-v{v}-L2-s{s}-i0")));
    out.extend((0..25).map(|s| format!("bgp-v{v}-L3-s{s}-i0-n200")));
    out.extend((0..10).map(|s| format!("bgp-v{v}-L4-s{s}-i0-n600")));
    out
}

/// Generator `v`'s ids with each family forced.
fn forced(v: u32) -> impl Iterator<Item = String> {
    FAMILIES.iter().map(move |f| format!("bgp-v{v}-L3-s100-i0-n200-f{f}"))
}

/// The golden ids, in file order: v1's and v2's 300 as they always were, then v3's.
fn ids() -> Vec<String> {
    let mut out = sweep(1);
    out.extend(sweep(2));
    out.extend(forced(2));
    out.extend(knob_ids(2, 200, KNOBS.into_iter()));
    out.extend(sweep(3));
    out.extend(forced(3));
    out.extend(knob_ids(3, 200, KNOBS.into_iter().filter(|k| *k != "-c8-v200").chain(V3_KNOBS)));
    out
}

#[test]
fn golden_content_hashes_hold() {
    let ids = ids();
    assert_eq!(ids.len(), 469);
    crate::bless::content_hashes(FILE, &ids);
}
