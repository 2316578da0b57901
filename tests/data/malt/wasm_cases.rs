//! The wasm32 checks of `malt_wasm_browser.rs` (headless Chrome): the golden values and a
//! sandboxed oracle run, as natively.

use netpress::agent::Agent;
use netpress::malt::MaltTask;
use netpress::malt::generate::generate;
use netpress::malt::oracle;
use netpress::malt::topo::{Shape, TopoKey, Topology};
use serde_json::Value;

const GOLDEN: &str = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/malt/golden.json"));

fn golden() -> Value {
    serde_json::from_str(GOLDEN).unwrap()
}

pub fn topology_exports_match() {
    let g = golden();
    for p in ["small", "default", "large", "xl"] {
        let t = Topology::build(TopoKey { shape: Shape::parse(p).unwrap(), seed: 0 });
        assert_eq!(g["topologies"][p].as_str().unwrap(), t.node_link_sha256(), "{p}");
    }
}

pub fn content_hashes_match() {
    let g = golden();
    for (key, ids) in [("tasks", super::golden_ids::ids()), ("tasks_v2", super::golden_ids::ids_v2())] {
        let tasks = g[key].as_array().unwrap();
        assert_eq!(tasks.len(), 300);
        for (id, want) in ids.into_iter().zip(tasks) {
            let t = generate(&id.parse().unwrap()).unwrap();
            assert_eq!(want[0].as_str().unwrap(), id);
            assert_eq!(want[1].as_str().unwrap(), t.content_hash, "{id}");
        }
    }
}

pub fn oracle_scores_in_the_wasm_sandbox() {
    for id in ["malt-v1-L1-s3-i5", "malt-v1-L3-s3-i3", "malt-v1-L4-s3-i1"] {
        let task = MaltTask::new(generate(&id.parse().unwrap()).unwrap());
        let mut ep = task.start_with(None, Default::default());
        let reply = oracle::for_id(id).unwrap().reply(&[]).unwrap().text;
        netpress::app::Episode::step(&mut ep, &reply);
        let score = netpress::app::Episode::score(&ep);
        assert!(score.correct && score.safe, "{id}: {score:?}");
    }
}
