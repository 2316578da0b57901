//! Digests of the first request body an endpoint receives, per task and prompt variant, for
//! the byte-identity check natively (`tests/agent/prompts.rs`) and in the browser
//! (`tests/wasm_agent.rs`), against one golden file (`tests/data/agent_prompts.json`).
//!
//! The tasks: the toy task (seeds 0..3) and, for every registered application, index 0 of
//! seeds 0 and 1 of every level with default knobs. A new application therefore fails the
//! check until its digests are recorded with `NETPRESS_BLESS=1 cargo test --test agent prompts::`.

use std::sync::Arc;

use netpress::agent::Message;
use netpress::agent::openai::OpenAiConfig;
use netpress::app::{PromptVariant, Task};

#[path = "toy.rs"]
#[allow(dead_code)]
pub mod toy;

/// The tasks the golden file covers, each built when called: the browser test builds them
/// one at a time and yields to the page between them, since a page that stays busy for about
/// 20 s (level-4 BGP and micro-segmentation worlds, one after another) loses its test runner.
pub fn makers() -> Vec<Box<dyn Fn() -> Arc<dyn Task>>> {
    let mut makers: Vec<Box<dyn Fn() -> Arc<dyn Task>>> =
        (0..3).map(|s| Box::new(move || toy::task(s, 0)) as Box<dyn Fn() -> Arc<dyn Task>>).collect();
    for app in netpress::registry::apps() {
        for level in app.info().levels {
            for seed in 0..2 {
                let id = app.default_id(level.level, seed, 0);
                makers.push(Box::new(move || app.generate(&id).unwrap_or_else(|e| panic!("{id}: {e}"))));
            }
        }
    }
    makers
}

/// The exact first chat request body for a task and variant.
pub fn first_body(task: &Arc<dyn Task>, variant: PromptVariant) -> String {
    OpenAiConfig::new("http://127.0.0.1/v1", "golden-model").body(&[Message::user(task.prompt(variant))])
}

/// `(id, variant, sha256 of the first request body)` for every task and variant.
// The browser builds them one task at a time instead (`tests/wasm_agent.rs`).
#[cfg_attr(target_arch = "wasm32", allow(dead_code))]
pub fn digests() -> Vec<(String, String, String)> {
    makers().iter().flat_map(|make| digests_of(&make())).collect()
}

/// `(id, variant, sha256 of the first request body)` of one task, for every variant.
pub fn digests_of(task: &Arc<dyn Task>) -> Vec<(String, String, String)> {
    PromptVariant::ALL
        .iter()
        .map(|&v| {
            let digest = netpress::hash::sha256_hex(first_body(task, v).as_bytes());
            (task.card().id.clone(), v.as_str().to_string(), digest)
        })
        .collect()
}

/// The golden file's digest of one task and variant.
pub fn golden_digest(golden: &str, id: &str, variant: PromptVariant) -> Option<String> {
    let golden: serde_json::Value = serde_json::from_str(golden).ok()?;
    let case =
        golden["cases"].as_array()?.iter().find(|c| c["id"] == id && c["variant"] == variant.as_str())?;
    case["sha256"].as_str().map(str::to_string)
}

/// Compares the digests with the golden file; lists every difference.
#[cfg_attr(target_arch = "wasm32", allow(dead_code))]
pub fn check(golden: &str) -> Result<usize, Vec<String>> {
    compare(golden, &digests())
}

/// Compares computed digests (all of [`digests`]'s) with the golden file.
pub fn compare(golden: &str, computed: &[(String, String, String)]) -> Result<usize, Vec<String>> {
    let golden: serde_json::Value =
        serde_json::from_str(golden).map_err(|e| vec![format!("bad golden: {e}")])?;
    let cases = golden["cases"].as_array().cloned().unwrap_or_default();
    let mut errors = Vec::new();
    for (id, variant, digest) in computed {
        let want = cases.iter().find(|c| c["id"] == id.as_str() && c["variant"] == variant.as_str());
        match want.and_then(|c| c["sha256"].as_str()) {
            Some(w) if w == digest => {}
            Some(w) => errors.push(format!("{id} {variant}: body sha256 {digest}, golden {w}")),
            None => errors
                .push(format!("{id} {variant}: not in the golden file (record it with NETPRESS_BLESS=1)")),
        }
    }
    if cases.len() != computed.len() {
        errors.push(format!("golden has {} cases, this build computes {}", cases.len(), computed.len()));
    }
    if errors.is_empty() { Ok(computed.len()) } else { Err(errors) }
}
