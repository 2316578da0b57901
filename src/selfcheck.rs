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

/// Seeds of the cross-application sample: the first two, and seeds past `u32::MAX / 2` up to the
/// largest the page's "random task" draws (below 2^32), where a generator that narrows a seed
/// or a draw to `usize` would part ways on wasm32.
const SAMPLE_SEEDS: [u64; 4] = [0, 1, 2_654_435_769, 4_294_967_295];

/// One task id per application, level and sample seed (index 0, default knobs): the ids
/// whose content hashes `tests/data/app_hashes.tsv` pins natively and in the browser. An
/// application's top level takes the largest seed only: its tasks are the big ones (a BGP
/// level-4 Internet takes seconds in a debug build), and they run the lower levels' code.
pub fn sample_ids() -> Vec<String> {
    let mut ids = Vec::new();
    for info in crate::registry::catalog() {
        let top = info.levels.iter().map(|l| l.level).max();
        for level in info.levels.iter().map(|l| l.level) {
            let seeds = if Some(level) == top { &SAMPLE_SEEDS[3..] } else { &SAMPLE_SEEDS[..] };
            ids.extend(seeds.iter().map(|&seed| info.default_id(level, seed, 0).to_string()));
        }
    }
    ids
}

/// `id<TAB>content hash` lines of [`sample_ids`], as this build generates them.
pub fn sample_hashes() -> crate::error::Result<String> {
    hash_lines(&sample_ids())
}

/// `id<TAB>content hash` lines of any ids, as this build generates them through the registry:
/// how every golden file that [`task_hash_lines`] checks is recorded.
pub fn hash_lines(ids: &[String]) -> crate::error::Result<String> {
    let mut out = String::new();
    for id in ids {
        let task = crate::registry::generate(id)?;
        out.push_str(&format!("{id}\t{}\n", task.card().content_hash));
    }
    Ok(out)
}

/// Checks `id<TAB>hash` lines (the format of [`sample_hashes`]; a space also separates, as in
/// Route's golden file) by generating each task. Blank lines and `#` comments are skipped.
/// Every application's golden hash file is checked by this one function, natively and in the
/// browser's tests.
pub fn task_hash_lines(text: &str) -> Result<usize, Vec<String>> {
    let pairs = text
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| l.split_once(['\t', ' ']).unwrap_or((l, "")));
    task_hashes(pairs)
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
