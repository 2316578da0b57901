//! Template parameters cover large spaces (malt.md §4 "Spaces", acceptance 5): distinct
//! questions per family over many seeds, against a documented floor, and each wording's share.
//!
//! `MALT_SPACE_SEEDS` seeds per family (default 1,000; the documented run is
//! `MALT_SPACE_SEEDS=10000 cargo test --profile bench --test malt_spaces`). The floors are for
//! 10,000 seeds on the default shape and scale down with fewer seeds; see docs/malt.md for the
//! counts measured.

use std::collections::BTreeSet;

use netpress::malt::Family;
use netpress::malt::generate::generate;

/// Distinct questions required among 10,000 seeds.
fn floor(family: Family) -> usize {
    match family {
        // Global counts (10 kinds) are a quarter of the draws, but named containers dominate.
        Family::L1Count => 2_000,
        // Agg-block additions have few parents; ports and switches make up the rest.
        _ => 5_000,
    }
}

fn seeds() -> u64 {
    std::env::var("MALT_SPACE_SEEDS").ok().and_then(|s| s.parse().ok()).unwrap_or(1_000)
}

#[test]
fn every_family_has_a_large_question_space() {
    let n = seeds();
    let mut report = Vec::new();
    for family in Family::ALL {
        let pos = Family::of_level(family.level()).iter().position(|f| *f == family).unwrap();
        let mut questions = BTreeSet::new();
        let mut wordings = [0u64; 3];
        for seed in 0..n {
            let id = format!("malt-v1-L{}-s{seed}-i{pos}", family.level()).parse().unwrap();
            let g = generate(&id).unwrap();
            wordings[usize::from(g.wording - 1)] += 1;
            questions.insert(g.question);
        }
        let want = floor(family) * n as usize / 10_000;
        report.push(format!("{} {} distinct of {n}", family.id(), questions.len()));
        assert!(questions.len() >= want, "{}: {} distinct < {want}", family.id(), questions.len());
        for (w, count) in wordings.iter().enumerate() {
            let share = *count as f64 / n as f64;
            assert!((share - 1.0 / 3.0).abs() <= 0.05, "{} W{}: {share:.3}", family.id(), w + 1);
        }
    }
    println!("{}", report.join("\n"));
}
