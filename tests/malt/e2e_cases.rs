//! Writes the cases of the browser test (`tests/e2e/malt-worker.spec.mjs`): oracle answers of
//! every family and the result records the native worker protocol gives for them, which the
//! browser worker must reproduce exactly. Ignored by default; `scripts/malt-worker-e2e.sh`
//! runs it with `MALT_E2E_CASES=path`.

use netpress::agent::Agent;
use netpress::malt::Family;
use netpress::malt::oracle;
use netpress::sandbox::worker::Worker;
use serde_json::{Value, json};

/// Oracle checks per family (the mutating ones are timed in the browser).
const PER_FAMILY: u64 = 10;

#[test]
#[ignore = "writes the browser test's cases; run by scripts/malt-worker-e2e.sh"]
fn write_cases() {
    let path = std::env::var("MALT_E2E_CASES").expect("MALT_E2E_CASES=path");
    let mut worker = Worker::default();
    let mut cases = Vec::new();
    for family in Family::ALL {
        let pos = Family::of_level(family.level()).iter().position(|f| *f == family).unwrap();
        for seed in 0..PER_FAMILY {
            let id = format!("malt-v1-L{}-s{}-i{pos}", family.level(), 500 + seed);
            let answer = oracle::for_id(&id).unwrap().reply(&[]).unwrap().text;
            let request = json!({"op": "check", "id": id, "answer": answer});
            let response: Value = serde_json::from_str(&worker.handle(&request.to_string())[0]).unwrap();
            assert_eq!(response["record"]["score"]["correct"], true, "{id}");
            cases.push(json!({
                "family": family.id(), "mutating": !family.read_only(), "id": id, "answer": answer,
                "record": response["record"],
            }));
        }
    }
    std::fs::write(path, serde_json::to_string(&cases).unwrap()).unwrap();
}
