//! Golden files of the Route app: 300 ids → content hashes, and the few-shot examples.
//! `NETPRESS_BLESS=1 cargo test --test route golden::` rewrites them after an intended
//! generator change (which must also bump the generator version).

use netpress::app::PromptVariant;
use netpress::route::{golden, prompt};
use netpress::selfcheck::task_hash_lines;

#[test]
fn route_golden_hashes() {
    let data = crate::bless::golden("tests/data/route/golden.txt", golden::render);
    assert_eq!(data.lines().count(), 300);
    assert!(!data.contains("error:"), "every golden id generates");
    assert_eq!(task_hash_lines(&data), Ok(300));
}

#[test]
fn route_golden_fewshot_examples() {
    let text = prompt::examples();
    assert_eq!(crate::bless::golden("tests/data/route/fewshot.txt", || text.clone()), text);
    let task = netpress::registry::generate("route-v1-L1-s0-i0").expect("generates");
    assert!(task.prompt(PromptVariant::FewshotCot).contains(&text));
}
