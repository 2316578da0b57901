//! Golden files of the Route app: 300 ids → content hashes, and the few-shot examples.
//! `ROUTE_GOLDEN_WRITE=1 cargo test --test route_golden` rewrites them after an intended
//! generator change (which must also bump the generator version).

use netpress::app::PromptVariant;
use netpress::route::{golden, prompt};

fn write_requested() -> bool {
    std::env::var("ROUTE_GOLDEN_WRITE").is_ok_and(|v| v == "1")
}

#[test]
fn route_golden_hashes() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/route/golden.txt");
    if write_requested() {
        std::fs::write(path, golden::render()).expect("golden file is writable");
    }
    let data = std::fs::read_to_string(path).expect("golden file exists");
    assert_eq!(data.lines().count(), 300);
    assert!(!data.contains("error:"), "every golden id generates");
    let bad = golden::check(&data);
    assert!(bad.is_empty(), "{} golden mismatches, first: {}", bad.len(), bad[0]);
}

#[test]
fn route_golden_fewshot_examples() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/route/fewshot.txt");
    let text = prompt::examples();
    if write_requested() {
        std::fs::write(path, &text).expect("few-shot file is writable");
    }
    assert_eq!(std::fs::read_to_string(path).expect("few-shot file exists"), text);
    let task = netpress::registry::generate("route-v1-L1-s0-i0").expect("generates");
    assert!(task.prompt(PromptVariant::FewshotCot).contains(&text));
}
