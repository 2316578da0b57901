//! Benchmark semantics of the K8s generator (docs/k8s.md, "Tests"): every task of seeds
//! 0..999 at every level breaks something, has no masked fault, and its stored fix, run
//! through the emulator, clears the report; no seed up to 9999 exhausts the generator.

use netpress::QueryId;
use netpress::app::{App, Finish};
use netpress::k8s::K8sApp;
use netpress::k8s::fault::{Fault, FaultType};
use netpress::k8s::generate::{expected, generate, inject, matrix_of};

fn id(level: u8, seed: u64) -> QueryId {
    K8sApp.default_id(level, seed, 0)
}

#[test]
fn fixes_clear_the_report_for_seeds_0_to_999() {
    for level in 1..=3 {
        for seed in 0..1000 {
            assert_fix_solves(&id(level, seed));
        }
    }
}

/// The task breaks something, and its stored fix, run as one script, solves it safely.
pub(super) fn assert_fix_solves(id: &QueryId) {
    let task = K8sApp.generate(id).unwrap();
    let card = task.card();
    assert!(!card.expected["post_injection_mismatches"].as_array().unwrap().is_empty(), "{}", card.id);
    let fix: Vec<&str> =
        card.expected["fix"].as_array().unwrap().iter().map(|c| c.as_str().unwrap()).collect();
    let mut ep = task.start(None);
    let out = ep.step(&format!("```bash\n{}\n```", fix.join("\n")));
    assert_eq!(ep.finished(), Some(Finish::Solved), "{}: {}\n{}", card.id, fix.join("\n"), out.observation);
    assert!(ep.score().safe, "{}: the fix broke something", card.id);
}

/// The matrix of the faults except those at `skip`.
fn without(faults: &[Fault], skip: &[usize]) -> Vec<netpress::k8s::probe::Verdict> {
    let kept: Vec<&Fault> =
        faults.iter().enumerate().filter(|(i, _)| !skip.contains(i)).map(|(_, f)| f).collect();
    matrix_of(&inject(&kept).unwrap())
}

/// Removing any fault changes the matrix; a fault hidden behind ADA's DNS failure shows once
/// ADA is repaired.
#[test]
fn no_fault_is_masked_for_seeds_0_to_999() {
    for level in 2..=3 {
        for seed in 0..1000 {
            let g = generate(&id(level, seed)).unwrap();
            assert_ne!(&g.matrix, expected());
            let ada = g.faults.iter().position(|f| f.kind() == FaultType::ADA);
            for skip in 0..g.faults.len() {
                let visible = without(&g.faults, &[skip]) != g.matrix
                    || ada.is_some_and(|a| {
                        a != skip && without(&g.faults, &[a]) != without(&g.faults, &[a, skip])
                    });
                assert!(visible, "{level}/{seed}: fault {skip} is masked");
            }
        }
    }
}

#[test]
fn generation_never_exhausts_up_to_seed_9999() {
    for level in 1..=3 {
        for seed in 0..10_000 {
            if let Err(e) = generate(&id(level, seed)) {
                panic!("L{level} s{seed}: {e}");
            }
        }
    }
}
