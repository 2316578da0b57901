//! The application end to end: golden ids pin generation (label and content hash), and the
//! baseline plays whole episodes through the shared runner.

use netpress::registry;
use netpress::run::{RunSettings, run_episode};

/// Ids across levels and knobs, their labels and content hashes. A change here means the
/// generator or the prompt changed: say why in the commit.
const GOLDEN: &[(&str, &str, &str)] = &[
    ("bgp-v1-L1-s0-i0", "L1:OW", "5e6a877340571a1431746212f106e22fa35eb982b150583c0f115f042d7a70dc"),
    ("bgp-v1-L2-s7-i0", "L2:RL4", "9f9560a8a6800e39346e512cb7735208197d983679d06c7251b663af924bb49c"),
    ("bgp-v1-L3-s1-i0", "L3:OW", "fdb1c1f40d157c5c767bc7053dd001f88d1b8ce2a6de350f972b4846e6c6528d"),
    ("bgp-v1-L4-s2-i0-n700", "L4:BP", "5ba988e5b53d68efac9c52eb36140930013a8bb6f6de5c4a82b33bcb88662919"),
    (
        "bgp-v1-L2-s3-i1-fRL2+LF-c2-v9-w12-t25",
        "L2:LF",
        "2028a8fd24b22a7201cf7c361860f1a5461df34d1ca93243173d2078a4b05769",
    ),
];

#[test]
fn golden_ids_keep_their_label_and_hash() {
    for (id, label, hash) in GOLDEN {
        let task = registry::generate(id).unwrap();
        let card = task.card();
        assert_eq!((card.label.as_str(), card.content_hash.as_str()), (*label, *hash), "{id}");
        assert_eq!(registry::generate(id).unwrap().card(), card, "{id}: same id, same card");
    }
}

#[test]
fn the_baseline_investigates_through_the_runner() {
    let app = registry::app("bgp").unwrap();
    let mut correct = 0;
    for seed in 0..10 {
        let task = app.generate(&app.default_id(1, seed, 0)).unwrap();
        let record = run_episode(task.clone(), app.baseline().as_mut(), RunSettings::default());
        assert!(record.score.safe, "{}: {}", record.id, record.score.explanation);
        assert!(record.turns.len() >= 4 && record.turns.len() <= 12, "{}", record.id);
        let last = record.turns.last().unwrap();
        assert!(last.reply.starts_with("submit {"), "{}: {}", record.id, last.reply);
        correct += usize::from(record.score.correct);
    }
    assert!(correct >= 9, "the baseline solves L1 tasks: {correct}/10");
}

#[test]
fn bad_verdicts_cost_a_turn_and_end_nothing() {
    let task = registry::generate("bgp-v1-L1-s0-i0").unwrap();
    let mut ep = task.start(None);
    let out = ep.step("submit {\"incident_type\": \"outage\", \"offender_asn\": \"ASx\"}");
    assert!(
        out.observation.starts_with("Error: verdict rejected: offender_asn: not an AS number"),
        "{}",
        out.observation
    );
    assert!(ep.finished().is_none());
    let out = ep.step("I think it is fine.");
    assert!(out.observation.starts_with("Error: no command found"), "{}", out.observation);
    let out = ep.step("```\n$ ls\n```");
    assert_eq!((out.action.as_str(), out.observation.as_str()), ("ls", "rc00\n"));
    let truth = task.card().expected.clone();
    ep.step(&format!("submit {truth}"));
    assert!(ep.finished().is_some());
    let s = ep.score();
    assert!(s.correct && s.safe, "{}", s.explanation);
}
