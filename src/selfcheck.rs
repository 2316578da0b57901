//! Determinism self-checks: recompute pinned values and report every difference.
//!
//! The same checks run natively (`tests/results/core_determinism.rs`) and in headless Chrome
//! (`tests/wasm_determinism.rs`) over the same golden files, which is how we know a query id
//! gives the same bytes in both places.

use serde_json::Value;

use crate::hash::content_hash;
use crate::seed::{Stream, Width};

/// Checks the core golden file (`tests/data/core_golden.json`): seeded draws, content
/// hashes and id round trips. Returns how many values were checked, or the differences.
pub fn core(golden: &str) -> Result<usize, Vec<String>> {
    let golden: Value = serde_json::from_str(golden).map_err(|e| vec![format!("bad golden file: {e}")])?;
    let mut errors = Vec::new();
    let mut checked = 0;
    for case in golden["draws"].as_array().into_iter().flatten() {
        let width = if case["width"] == 32 { Width::W32 } else { Width::W64 };
        let mut stream = Stream::new(case["material"].as_str().unwrap_or_default(), width);
        let n = case["below"].as_u64().unwrap_or(1);
        let draws: Vec<Value> = (0..8).map(|_| Value::from(stream.below(n))).collect();
        if Value::Array(draws.clone()) != case["values"] {
            errors.push(format!("draws for {}: got {draws:?}", case["material"]));
        }
        checked += 1;
    }
    for case in golden["hashes"].as_array().into_iter().flatten() {
        let prompt = case["prompt"].as_str().unwrap_or_default();
        let hash = content_hash(prompt, &case["expected"]);
        if case["hash"] != hash.as_str() {
            errors.push(format!("content hash of {prompt:?}: got {hash}"));
        }
        checked += 1;
    }
    for id in golden["ids"].as_array().into_iter().flatten() {
        let id = id.as_str().unwrap_or_default();
        match id.parse::<crate::QueryId>() {
            Ok(parsed) if parsed.to_string() == id => {}
            other => errors.push(format!("id {id} does not round-trip: {other:?}")),
        }
        checked += 1;
    }
    if errors.is_empty() { Ok(checked) } else { Err(errors) }
}

/// Checks `(id, content hash)` pairs by generating each task through the registry.
pub fn task_hashes<'a>(pairs: impl IntoIterator<Item = (&'a str, &'a str)>) -> Result<usize, Vec<String>> {
    let mut errors = Vec::new();
    let mut checked = 0;
    for (id, expected) in pairs {
        match crate::registry::generate(id) {
            Ok(task) if task.card().content_hash == expected => {}
            Ok(task) => {
                errors.push(format!("{id}: content hash {} != golden {expected}", task.card().content_hash))
            }
            Err(e) => errors.push(format!("{id}: {e}")),
        }
        checked += 1;
    }
    if errors.is_empty() { Ok(checked) } else { Err(errors) }
}
