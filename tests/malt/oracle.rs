//! The oracle cross-check (docs/malt.md, "Agents without a language model"): for every family, generation succeeds, the expected state passes
//! S1–S5, read-only families have empty expected diffs, and the `oracle` scores 100% correct
//! and safe through the sandbox.
//!
//! Seeds per family: `MALT_ORACLE_SEEDS` (default 20 on the default shape, a quarter of that on
//! small and large). The acceptance run is
//! `MALT_ORACLE_SEEDS=2000 cargo test --profile bench --test malt oracle::` (200 on small and large).

use netpress::app::App;
use netpress::malt::graph::Working;
use netpress::malt::oracle;
use netpress::malt::{Family, MALT, MaltTask, safety};
use netpress::{QueryId, agent::Agent};

fn seeds() -> u64 {
    std::env::var("MALT_ORACLE_SEEDS").ok().and_then(|s| s.parse().ok()).unwrap_or(20)
}

fn id(family: Family, seed: u64, shape: &str) -> QueryId {
    let pos = Family::of_level(family.level()).iter().position(|f| *f == family).unwrap() as u64;
    let knob = if shape.is_empty() { String::new() } else { format!("-k{shape}") };
    format!("malt-v1-L{}-s{seed}-i{pos}{knob}", family.level()).parse().unwrap()
}

fn check(family: Family, seed: u64, shape: &str) {
    let qid = id(family, seed, shape);
    let task = MALT.generate(&qid).unwrap_or_else(|e| panic!("{qid}: {e}"));
    assert_eq!(task.card().label, family.id());
    let malt = MaltTask::new(netpress::malt::generate::generate(&qid).unwrap());
    let generated = malt.generated();
    let mut g = Working::new(generated.topology.clone());
    generated.plan.run(&mut g).unwrap();
    let diff = g.net_diff();
    assert_eq!(diff, generated.expected.diff, "{qid}");
    let violations = safety::check(&g, &diff, &diff, family.read_only());
    assert!(violations.is_empty(), "{qid}: expected state breaks safety: {violations:?}");
    if family.read_only() {
        assert!(diff.is_empty(), "{qid}: read-only family with a diff");
    }
    let mut agent = oracle::for_id(&qid.to_string()).unwrap();
    let reply = agent.reply(&[]).unwrap().text;
    let mut episode = task.start(None);
    let step = episode.step(&reply);
    let score = episode.score();
    assert!(
        score.correct && score.safe && score.progress == 1.0,
        "{qid}: oracle scored {score:?}\nobservation: {}\nquestion: {}\ncode:\n{reply}",
        step.observation,
        generated.question
    );
}

#[test]
fn oracle_scores_everything_on_the_default_shape() {
    for family in Family::ALL {
        for seed in 0..seeds() {
            check(family, seed, "");
        }
    }
}

#[test]
fn oracle_scores_everything_on_small_and_large() {
    let n = (seeds() / 10).max(4);
    for shape in ["small", "large"] {
        for family in Family::ALL {
            for seed in 0..n {
                check(family, seed, shape);
            }
        }
    }
}

/// Generation never exhausts its redraws on valid knobs, down to the smallest shapes.
#[test]
fn oracle_scores_everything_at_the_knob_extremes() {
    for shape in ["1x2x2x2", "1x2x3x2", "2x3x2x5"] {
        for family in Family::ALL {
            for seed in 0..3 {
                check(family, seed, shape);
            }
        }
    }
}
