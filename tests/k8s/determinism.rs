//! Determinism (docs/k8s.md, "Tests"): the content hashes of L1–L3 × seeds 0..99 × indexes 0..9 are
//! recorded in `tests/data/k8s/task_hashes.tsv`; every build, native or wasm32 (through
//! [`netpress::selfcheck::task_hash_lines`]), must reproduce them byte for byte.
//! `NETPRESS_BLESS=1` rewrites the file after an intended generator change (which must also
//! bump the generator version).

use crate::bless::golden;
use netpress::app::App;
use netpress::k8s::K8sApp;
use netpress::selfcheck::task_hash_lines;

const FILE: &str = "tests/data/k8s/task_hashes.tsv";

#[test]
fn recorded_hashes_reproduce() {
    let data = golden(FILE, || {
        let mut out = String::from("# id\tcontent_hash (k8s v1; checked natively and in wasm32)\n");
        for level in 1..=3 {
            for seed in 0..100 {
                for index in 0..10 {
                    let task =
                        K8sApp.generate(&netpress::QueryId::new("k8s", 1, level, seed, index)).unwrap();
                    out.push_str(&format!("{}\t{}\n", task.card().id, task.card().content_hash));
                }
            }
        }
        out
    });
    assert_eq!(task_hash_lines(&data), Ok(3000));
}

#[test]
fn same_id_same_card_and_knobs_change_only_the_prompt() {
    let a = K8sApp.generate(&"k8s-v1-L3-s7-i2".parse().unwrap()).unwrap();
    let b = K8sApp.generate(&"k8s-v1-L3-s7-i2".parse().unwrap()).unwrap();
    assert_eq!(a.card(), b.card());
    let knobbed = K8sApp.generate(&"k8s-v1-L3-s7-i2-t5-vd".parse().unwrap()).unwrap();
    assert_eq!(knobbed.card().params["faults"], a.card().params["faults"]);
    assert_ne!(knobbed.card().content_hash, a.card().content_hash);
    assert_eq!(knobbed.card().max_turns, 5);
    assert!(K8sApp.generate(&"k8s-v1-L3-s7-i2-t0".parse().unwrap()).is_err());
    assert!(K8sApp.generate(&"k8s-v1-L3-s7-i2-vx".parse().unwrap()).is_err());
    assert!(K8sApp.generate(&"k8s-v1-L5-s7-i2".parse().unwrap()).is_err());
    assert!(K8sApp.generate(&"k8s-v1-L4-s7-i2".parse().unwrap()).is_ok());
    assert!(K8sApp.generate(&"k8s-v2-L1-s7-i2".parse().unwrap()).is_err());
}
