//! Native half of the prompt byte-identity check; `tests/wasm_agent.rs` runs the same check
//! in Chrome. `NETPRESS_BLESS=1` rewrites the golden file (after a deliberate prompt change
//! or when an application is added).
#![cfg(not(target_arch = "wasm32"))]

use crate::support::prompts;

const GOLDEN: &str = "tests/data/agent_prompts.json";

#[test]
fn first_request_bodies_match_the_golden_file() {
    let golden = crate::bless::golden(GOLDEN, || {
        let cases: Vec<serde_json::Value> = prompts::digests()
            .into_iter()
            .map(|(id, variant, sha256)| serde_json::json!({"id": id, "variant": variant, "sha256": sha256}))
            .collect();
        let text = serde_json::to_string_pretty(&serde_json::json!({"cases": cases})).unwrap();
        text + "\n"
    });
    match prompts::check(&golden) {
        Ok(n) => assert!(n >= 12, "{n}"),
        Err(errors) => panic!("{} differences:\n{}", errors.len(), errors.join("\n")),
    }
}

#[test]
fn variants_differ_and_bodies_embed_the_prompt_exactly() {
    let task = prompts::toy::task(0, 0);
    let bodies: Vec<String> =
        netpress::app::PromptVariant::ALL.iter().map(|v| prompts::first_body(&task, *v)).collect();
    let distinct: std::collections::BTreeSet<&String> = bodies.iter().collect();
    assert_eq!(distinct.len(), 4);
    let parsed: serde_json::Value = serde_json::from_str(&bodies[0]).unwrap();
    assert_eq!(parsed["messages"][0]["content"], task.prompt(netpress::app::PromptVariant::ZeroshotBase));
}
