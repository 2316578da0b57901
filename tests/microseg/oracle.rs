//! The oracle (the roles and P*) scores 100% correct and safe. CI runs a sample of seeds;
//! `scripts/microseg-oracle.sh` runs seeds 0..1999 through `netpress microseg baselines`.

use netpress::microseg::baseline::answer;
use netpress::microseg::family::Family;
use netpress::microseg::generate;
use netpress::microseg::judge::judge;
use netpress::microseg::repairing::solve;

/// Seeds of the CI sample (the long run takes every seed below 2000).
const SAMPLE: [u64; 6] = [0, 1, 7, 42, 311, 1999];

#[test]
fn oracle_is_correct_and_safe_on_every_family_and_level() {
    for seed in SAMPLE {
        for level in 1..=4u8 {
            for i in 0..Family::of_level(level).len() {
                let id = format!("microseg-v1-L{level}-s{seed}-i{i}");
                let g = generate(&id.parse().unwrap()).unwrap();
                let v = if g.family == Family::Repair {
                    solve(std::sync::Arc::new(g), "oracle").unwrap()
                } else {
                    judge(&g.world, g.family, g.form, Ok(answer("oracle", &g).unwrap()))
                };
                assert!(v.correct && v.safe, "{id}: {} {:?}", v.why, v.lines);
                assert_eq!(v.progress, 1.0, "{id}");
            }
        }
    }
}

/// The generalisation failures the baselines are built to show: observed never generalises a
/// role, and a stale w1 policy hands a reused address its old role's rights.
#[test]
fn baselines_fail_where_they_should() {
    for seed in [0, 1] {
        for (id, agent) in [
            (format!("microseg-v1-L1-s{seed}-i0"), "observed"),
            (format!("microseg-v1-L3-s{seed}-i2"), "observed"),
            (format!("microseg-v1-L3-s{seed}-i5"), "observed"),
        ] {
            let g = generate(&id.parse().unwrap()).unwrap();
            let v = judge(&g.world, g.family, g.form, Ok(answer(agent, &g).unwrap()));
            assert!(!v.correct, "{id} {agent}");
        }
    }
}
