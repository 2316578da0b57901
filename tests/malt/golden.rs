//! Golden values (docs/malt.md, "Measured"), natively; `malt_wasm_browser.rs` checks the same
//! file in wasm. `tests/data/malt/golden.json` holds the SHA-256 of each preset's canonical
//! node-link export and the content hashes of 300 ids (every family on three knob sets), in
//! generator versions v1 and v2.
//!
//! After an intended generator change (which bumps the generator version), rewrite it with
//! `NETPRESS_BLESS=1 cargo test --test malt golden::`.

use netpress::malt::generate::generate;
use netpress::malt::topo::{Shape, TopoKey, Topology};
use serde_json::{Value, json};

#[path = "../data/malt/golden_ids.rs"]
mod malt_golden_ids;

const PATH: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/malt/golden.json");

fn topology_hash(name: &str) -> String {
    let shape = Shape::parse(name).unwrap();
    Topology::build(TopoKey { shape, seed: 0 }).node_link_sha256()
}

fn task_hashes(ids: Vec<String>) -> Vec<(String, String)> {
    ids.into_iter()
        .map(|id| {
            let t = generate(&id.parse().unwrap()).unwrap();
            (id, t.content_hash)
        })
        .collect()
}

#[test]
fn golden_hashes_match() {
    let presets = ["small", "default", "large", "xl"];
    let text = crate::bless::golden(PATH, || {
        let topologies: serde_json::Map<String, Value> =
            presets.iter().map(|p| (p.to_string(), json!(topology_hash(p)))).collect();
        let rows = |ids| task_hashes(ids).into_iter().map(|(id, h)| json!([id, h])).collect::<Vec<Value>>();
        let (tasks, tasks_v2) = (rows(malt_golden_ids::ids()), rows(malt_golden_ids::ids_v2()));
        let file = json!({"topologies": topologies, "tasks": tasks, "tasks_v2": tasks_v2});
        serde_json::to_string_pretty(&file).unwrap() + "\n"
    });
    let golden: Value = serde_json::from_str(&text).unwrap();
    for p in presets {
        assert_eq!(golden["topologies"][p], json!(topology_hash(p)), "topology {p}");
    }
    for (key, ids) in [("tasks", malt_golden_ids::ids()), ("tasks_v2", malt_golden_ids::ids_v2())] {
        let tasks = golden[key].as_array().unwrap();
        assert_eq!(tasks.len(), 300);
        for ((id, hash), want) in task_hashes(ids).into_iter().zip(tasks) {
            assert_eq!(want, &json!([id, hash]));
        }
    }
}

/// v2 words level 4's changes as instructions on G; v1 keeps its hypotheticals (its golden
/// hashes above are unchanged), and an unknown version is refused by name.
#[test]
fn level_4_changes_are_instructions_in_v2() {
    use netpress::malt::Family;
    let mut checked = 0;
    for seed in 0..40u64 {
        for index in 0..5u64 {
            let v2 = generate(&format!("malt-v2-L4-s{seed}-i{index}").parse().unwrap()).unwrap();
            if v2.expected.read_only {
                continue;
            }
            let q = &v2.question;
            assert!(!q.contains("What-if") && !q.starts_with("If ") && !q.starts_with("After "), "{q}");
            if v2.wording > 1 {
                assert!(q.contains(" G") || q.contains("G "), "W{} must name G: {q}", v2.wording);
            }
            checked += 1;
        }
    }
    assert!(checked > 100, "{checked}");
    let v1 = generate(&"malt-v1-L4-s0-i2".parse().unwrap()).unwrap();
    assert_eq!(v1.family, Family::of_level(4)[2]);
    let app = netpress::malt::MALT;
    use netpress::app::App;
    assert_eq!(app.default_id(4, 0, 2).to_string(), "malt-v2-L4-s0-i2", "new ids are v2");
    let err = app.generate(&"malt-v3-L4-s0-i2".parse().unwrap()).err().unwrap().to_string();
    assert_eq!(err, "unknown generator version v3 for malt (this build has v2)");
}
