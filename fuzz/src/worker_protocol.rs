//! Fuzzes the sandbox worker's protocol: each line of the input is one request to the same
//! worker, so sequences (start, then submit, stop, fail) are reached as well as single
//! messages. No request may panic, and every response is a JSON object with an `op`.
//!
//! Two kinds of request are left out because their cost is a generator's, not the
//! protocol's, and they are fuzzed or timed elsewhere: `bench` (a timed workload of up to
//! 10,000 tasks) and ids with knobs (MALT's `-kxl` builds a fabric of a million nodes).

use netpress::QueryId;
use netpress::sandbox::worker::Worker;
use serde_json::Value;

/// Whether a line asks for work the protocol does not bound.
fn costly(line: &str) -> bool {
    let Ok(v) = serde_json::from_str::<Value>(line) else { return false };
    let knobs =
        v["id"].as_str().and_then(|id| id.parse::<QueryId>().ok()).is_some_and(|id| !id.knobs.is_empty());
    v["op"] == "bench" || knobs
}

pub fn fuzz(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let mut worker = Worker::default();
    for line in text.lines().filter(|l| !costly(l)) {
        let out = worker.handle(line);
        assert!(!out.is_empty(), "{line:?}: no response");
        for response in out {
            let v: Value = serde_json::from_str(&response).expect("a response is JSON");
            assert!(v["op"].is_string(), "{response}");
        }
    }
}
