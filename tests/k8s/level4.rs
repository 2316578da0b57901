//! Level 4 (docs/k8s.md, "Level 4"): tasks under the admin network policies. Every task of
//! seeds 0..299 breaks something in both layers, neither fault is masked, its stored fix
//! clears the report, and no seed up to 1999 exhausts the generator.

use netpress::k8s::K8sApp;
use netpress::k8s::generate::{expected, generate, inject, matrix_with_admin};
use netpress::k8s::probe::{ProbeKind, Verdict, probes};
use netpress::k8s::tenancy::intended_admin;
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
