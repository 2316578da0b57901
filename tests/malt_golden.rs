//! Golden values (malt.md §10, acceptances 2 and 3), natively; `malt_wasm.rs` checks the same
//! file in wasm. `tests/data/malt/golden.json` holds the SHA-256 of each preset's canonical
//! node-link export and the content hashes of 300 ids (every family on three knob sets).
//!
//! After an intended generator change (which bumps the generator version), rewrite it with
//! `MALT_GOLDEN_WRITE=1 cargo test --test malt_golden`.

use netpress::malt::generate::generate;
use netpress::malt::topo::{Shape, TopoKey, Topology};
use serde_json::{Value, json};

#[path = "data/malt/golden_ids.rs"]
mod malt_golden_ids;

const PATH: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/malt/golden.json");

fn topology_hash(name: &str) -> String {
    let shape = Shape::parse(name).unwrap();
    Topology::build(TopoKey { shape, seed: 0 }).node_link_sha256()
}

fn task_hashes() -> Vec<(String, String)> {
    malt_golden_ids::ids()
        .into_iter()
        .map(|id| {
            let t = generate(&id.parse().unwrap()).unwrap();
            (id, t.content_hash)
        })
        .collect()
}

#[test]
fn golden_hashes_match() {
    let presets = ["small", "default", "large", "xl"];
    if std::env::var("MALT_GOLDEN_WRITE").is_ok() {
        let topologies: serde_json::Map<String, Value> =
            presets.iter().map(|p| (p.to_string(), json!(topology_hash(p)))).collect();
        let tasks: Vec<Value> = task_hashes().into_iter().map(|(id, h)| json!([id, h])).collect();
        let file = json!({"topologies": topologies, "tasks": tasks});
        std::fs::write(PATH, serde_json::to_string_pretty(&file).unwrap() + "\n").unwrap();
    }
    let golden: Value = serde_json::from_str(&std::fs::read_to_string(PATH).unwrap()).unwrap();
    for p in presets {
        assert_eq!(golden["topologies"][p], json!(topology_hash(p)), "topology {p}");
    }
    let tasks = golden["tasks"].as_array().unwrap();
    assert_eq!(tasks.len(), 300);
    for ((id, hash), want) in task_hashes().into_iter().zip(tasks) {
        assert_eq!(want, &json!([id, hash]));
    }
}
