//! 300 microseg ids → content hashes in `tests/data/microseg/golden.tsv`, checked here and in
//! the browser (`tests/wasm_determinism.rs`) by the same `netpress::selfcheck::task_hash_lines`.
//! `NETPRESS_BLESS=1 cargo test --test microseg golden::` rewrites the file after an intended
//! generator change (which must also bump the generator version).
//!
//! Building a tenant and its trace is what costs, so the ids are grouped by world (a world is
//! cached and its other indexes are nearly free) and most use small knobs: 300 default-knob
//! tenants take minutes in a debug build. docs/microseg.md ("Golden ids") gives the mix.

const FILE: &str = "tests/data/microseg/golden.tsv";

/// The knobs of the seed sweep: one instance per role, the shortest trace, ten clients.
const SMALL: &str = "-n1-d15-c10";

/// The golden ids, in file order.
fn ids() -> Vec<String> {
    let mut out = Vec::new();
    let mut add = |level: u8, seed: u64, indexes: std::ops::Range<u64>, knobs: &str| {
        out.extend(indexes.map(|i| format!("microseg-v1-L{level}-s{seed}-i{i}{knobs}")));
    };
    // The default tenants, each family several times (wordings, drawn forms, fault draws);
    // level 3's repair (seconds of fault search in debug) is left to the smaller tenants below.
    add(1, 0, 0..12, "");
    add(2, 0, 0..10, "");
    add(3, 0, 0..4, "");
    add(3, 0, 5..9, "");
    add(4, 0, 0..8, "");
    // Every knob and value class once: VNets, scale, minutes, clients, tags, churn, layout,
    // each log format, each rendering, turn limits.
    for (level, seed, knobs) in [
        (1, 2, "-n1-d15-ltier-fgcp"),
        (1, 3, "-n2-d20-k0-faws2"),
        (1, 4, "-a2-n1-d15-lflat-fnsg2"),
        (1, 5, "-n1-d15-c0-k100-u20"),
        (2, 2, SMALL),
        (2, 3, "-a1-n1-d15-c10-faws2-rsg"),
        (2, 4, "-n1-d15-c10-ltier-fgcp-rk8s-t3"),
        (2, 5, "-a3-n1-d15-c10-u20-fvnet4-rnsg"),
        (3, 2, SMALL),
        (3, 3, "-a4-n1-d15-c10-k50-faws5-rnp-t20"),
        (3, 4, "-n1-d15-c10-u0"),
        (4, 2, "-n1-d15-c10-rk8s"),
        (4, 3, "-a1-n1-d15-rnsg"),
        (4, 4, "-n2-d15-c10-rsg-t5"),
    ] {
        // Each family once; level 4's one family in four wordings and forms.
        let families = netpress::microseg::family::Family::of_level(level).len() as u64;
        add(level, seed, 0..if level == 4 { 4 } else { families }, knobs);
    }
    // A sweep of seeds on small tenants: role and policy families (and level 4's pipeline).
    for seed in 10..34 {
        add(1, seed, 0..3, SMALL);
    }
    for seed in 10..22 {
        add(2, seed, 0..4, SMALL);
    }
    for seed in 10..18 {
        add(3, seed, 0..4, SMALL);
    }
    for seed in 10..21 {
        add(4, seed, 0..4, SMALL);
    }
    out
}

#[test]
fn golden_content_hashes_hold() {
    let ids = ids();
    assert_eq!(ids.len(), 300);
    crate::bless::content_hashes(FILE, &ids);
}
