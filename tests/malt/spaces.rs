//! Template parameters cover large spaces (docs/malt.md, "Tasks"): distinct
//! questions per family over many seeds against a documented floor, and each wording's share.
//!
//! `MALT_SPACE_SEEDS` seeds per family (default 300; the documented run is
//! `MALT_SPACE_SEEDS=10000 cargo test --profile bench --test malt spaces:: -- --nocapture`).
//! The floors are for 10,000 seeds on the default shape, set below the counts measured (see
//! docs/malt.md); the number of distinct questions grows concavely with the seeds, so the floor
//! scaled by seeds/10,000 is a valid bound for fewer seeds.

use std::collections::BTreeSet;

use netpress::malt::Family;
use netpress::malt::generate::{generate, wording};

/// Distinct questions required among 10,000 seeds: about 90% of the counts measured with
/// generator v1 (in parentheses). Families drawing from small pools (the fabric's few blocks,
/// ten kinds for global counts) have the smaller spaces.
fn floor(family: Family) -> usize {
    use Family::*;
    match family {
        L1Add => 6_000,          // 6,877
        L1Remove => 4_500,       // 4,990
        L1Update => 9_000,       // 9,650
        L1List => 2_200,         // 2,447
        L1Count => 1_600,        // 1,845
        L1Rank => 3_200,         // 3,545
        L2RemoveList => 5_400,   // 6,035
        L2RemoveRank => 8_500,   // 9,523
        L2RemoveCount => 7_800,  // 8,752
        L3AddList => 6_000,      // 6,861
        L3AddRank => 7_500,      // 8,298
        L3AddCount => 7_100,     // 7,941
        L3ForeachCount => 3_300, // 3,684
        L4Drain => 7_400,        // 8,221
        L4Least => 7_800,        // 8,649
        L4Expand => 6_300,       // 7,080
        L4UpgradeRank => 8_600,  // 9,635
        L4SharedRisk => 8_400,   // 9,325
    }
}

fn seeds() -> u64 {
    std::env::var("MALT_SPACE_SEEDS").ok().and_then(|s| s.parse().ok()).unwrap_or(300)
}

fn id(family: Family, seed: u64) -> netpress::QueryId {
    let pos = Family::of_level(family.level()).iter().position(|f| *f == family).unwrap();
    format!("malt-v1-L{}-s{seed}-i{pos}", family.level()).parse().unwrap()
}

#[test]
fn every_family_has_a_large_question_space() {
    let n = seeds();
    let mut short = Vec::new();
    for family in Family::ALL {
        let questions: BTreeSet<String> =
            (0..n).map(|s| generate(&id(family, s)).unwrap().question).collect();
        let want = floor(family) * n as usize / 10_000;
        println!("{} {} distinct of {n} (floor {want})", family.id(), questions.len());
        if questions.len() < want {
            short.push(format!("{}: {} distinct < {want}", family.id(), questions.len()));
        }
    }
    assert!(short.is_empty(), "{short:?}");
}

#[test]
fn each_wording_is_a_third() {
    for family in Family::ALL {
        let mut counts = [0u32; 3];
        for s in 0..10_000 {
            counts[usize::from(wording(&id(family, s)) - 1)] += 1;
        }
        for (w, c) in counts.iter().enumerate() {
            let share = f64::from(*c) / 10_000.0;
            assert!((share - 1.0 / 3.0).abs() <= 0.05, "{} W{}: {share:.3}", family.id(), w + 1);
        }
    }
}
