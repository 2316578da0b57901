//! Fuzzes the environment protocol's stdio dispatcher on raw lines: each line of the input is
//! one request to the same dispatcher, so sequences (reset, then steps, state, close) are
//! reached. No line may panic, and every answer is one JSON object with a `type`.
//!
//! Resets with knobs are left out: their cost is a generator's (a large topology), which the
//! generators' own targets and benchmarks cover, not the protocol's.

use netpress::QueryId;
use netpress::env::{Defaults, Dispatcher, Limits, counter_ids};
use netpress::registry::Registry;
use serde_json::Value;

/// Whether a line asks for a task with knobs.
fn costly(line: &[u8]) -> bool {
    let Ok(v) = serde_json::from_slice::<Value>(line) else { return false };
    let data = &v["data"];
    let id_knobs = data["task_id"]
        .as_str()
        .and_then(|id| id.parse::<QueryId>().ok())
        .is_some_and(|id| !id.knobs.is_empty());
    id_knobs || !data["knobs"].is_null()
}

pub fn fuzz(data: &[u8]) {
    let mut dispatcher =
        Dispatcher::new(Registry::standard(), Defaults::default(), Limits::default(), counter_ids());
    for line in data.split(|&b| b == b'\n').filter(|l| !costly(l)) {
        let answer = dispatcher.handle(line);
        let v: Value = serde_json::from_str(&answer).expect("an answer is JSON");
        assert!(v["type"].is_string(), "{answer}");
    }
}
