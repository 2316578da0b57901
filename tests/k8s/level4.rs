//! Level 4 (docs/k8s.md, "Level 4"): tasks under the admin network policies. Every task of
//! seeds 0..299 breaks something in both layers, neither fault is masked, its stored fix
//! clears the report, and no seed up to 1999 exhausts the generator.

use crate::bless::golden;
use netpress::k8s::K8sApp;
use netpress::k8s::generate::{expected, generate, inject, matrix_with_admin};
use netpress::k8s::probe::{ProbeKind, Verdict, probes};
use netpress::k8s::tenancy::intended_admin;
use netpress::selfcheck::task_hash_lines;
use netpress::{QueryId, app::App};

fn id(seed: u64) -> QueryId {
    K8sApp.default_id(4, seed, 0)
}

#[test]
fn fixes_clear_the_report_for_seeds_0_to_299() {
    for seed in 0..300 {
        super::generation::assert_fix_solves(&id(seed));
    }
}

#[test]
fn neither_layer_is_masked_for_seeds_0_to_299() {
    for seed in 0..300 {
        let g = generate(&id(seed)).unwrap();
        assert_eq!((g.faults.len(), g.admin_faults.len()), (1, 1));
        assert_ne!(&g.matrix, expected());
        let np_only = matrix_with_admin(&inject(&[&g.faults[0]]).unwrap(), intended_admin());
        assert_ne!(np_only, g.matrix, "s{seed}: the admin fault is masked");
        let mut set = netpress::k8s::fault::intended_set();
        let mut admin = intended_admin().clone();
        g.admin_faults[0].apply(&mut set, &mut admin).unwrap();
        let admin_only = matrix_with_admin(&set, &admin);
        // Behind a cluster-wide DNS failure the NetworkPolicy fault shows once DNS is back.
        let behind_dns =
            admin_only.iter().zip(probes()).all(|(v, p)| p.kind != ProbeKind::Name || *v == Verdict::False);
        assert!(
            admin_only != g.matrix || (behind_dns && &np_only != expected()),
            "s{seed}: the NetworkPolicy fault is masked"
        );
    }
}

#[test]
fn generation_never_exhausts_up_to_seed_1999() {
    for seed in 0..2000 {
        if let Err(e) = generate(&id(seed)) {
            panic!("L4 s{seed}: {e}");
        }
    }
}

#[test]
fn every_type_pair_is_a_label() {
    let labels = K8sApp.labels(4);
    assert_eq!(labels.len(), 25);
    assert!(labels.contains(&"L4:CP+SHD".to_string()));
    let task = K8sApp.generate(&id(0)).unwrap();
    assert!(labels.contains(&task.card().label));
}

const HASHES: &str = "tests/data/k8s/task_hashes_l4.tsv";
const CARDS: &str = "tests/data/k8s/level4-tasks.json";

/// Level 4's content hashes for seeds 0..49 × indexes 0..1, kept apart from the L1–L3 file
/// (which the browser check counts).
#[test]
fn recorded_level4_hashes_reproduce() {
    let data = golden(HASHES, || {
        let mut out = String::from("# id\tcontent_hash (k8s v1 level 4)\n");
        for seed in 0..50 {
            for index in 0..2 {
                let task = K8sApp.generate(&QueryId::new("k8s", 1, 4, seed, index)).unwrap();
                out.push_str(&format!("{}\t{}\n", task.card().id, task.card().content_hash));
            }
        }
        out
    });
    assert_eq!(task_hash_lines(&data), Ok(100));
}

/// Three whole task cards (every drawn value, the injected objects, the report and the fix),
/// for review of what a level-4 task is.
#[test]
fn seeded_level4_cards() {
    let render = || {
        let cards: Vec<serde_json::Value> = (0..3)
            .map(|seed| {
                let task = K8sApp.generate(&id(seed)).unwrap();
                let c = task.card();
                serde_json::json!({"id": c.id, "label": c.label, "content_hash": c.content_hash, "params": c.params, "expected": c.expected})
            })
            .collect();
        format!("{}\n", serde_json::to_string_pretty(&cards).unwrap())
    };
    assert_eq!(golden(CARDS, render), render());
}

/// The scripted baseline solves level 4 (docs/k8s.md, "Level 4", has the rate over 300
/// seeds; this is a CI-sized sample of it).
#[test]
fn the_baseline_solves_seeds_0_to_29() {
    use netpress::run::{RunSettings, run_episode};
    for seed in 0..30 {
        let task = K8sApp.generate(&id(seed)).unwrap();
        let record = run_episode(task, K8sApp.baseline().as_mut(), RunSettings::default());
        assert!(record.score.correct, "{}: {:?}", record.id, record.finish);
        let admin_notes: Vec<&String> =
            record.score.details.hygiene.iter().filter(|n| n.contains("AdminNetworkPolicy")).collect();
        assert!(
            admin_notes.is_empty(),
            "{}: the baseline restores the admin specs: {admin_notes:?}",
            record.id
        );
    }
}

/// An agent that relaxes the baseline instead of repairing a NetworkPolicy gets a hygiene
/// note saying so (docs/k8s.md, "Scoring").
#[test]
fn relaxing_the_baseline_is_a_hygiene_note() {
    let task = K8sApp.generate(&id(0)).unwrap();
    let mut episode = task.start(None);
    let patch = "kubectl patch banp default --type=json -p '[{\"op\":\"replace\",\"path\":\"/spec/egress/0/action\",\"value\":\"Allow\"}]'";
    let out = episode.step(&format!("```bash\n{patch}\n```"));
    assert!(out.output.contains("patched"), "{}", out.output);
    let hygiene = episode.score().details.hygiene;
    assert!(
        hygiene.iter().any(|n| n.starts_with(
            "BaselineAdminNetworkPolicy default: egress rule default-deny: action Allow (intended Deny): the baseline is relaxed"
        )),
        "{hygiene:?}"
    );
}
