//! The application end to end: golden ids pin generation (label and content hash), and the
//! baseline plays whole episodes through the shared runner.

use netpress::registry;
use netpress::run::{RunSettings, run_episode};

/// Ids across levels and knobs, their labels and content hashes. A change here means the
/// generator or the prompt changed: say why in the commit.
const GOLDEN: &[(&str, &str, &str)] = &[
    ("bgp-v1-L1-s0-i0", "L1:RL1", "d3d90f713ea1a6d08d65653a8517a5cbf3fc83d7d3573cd003d6b041208ba8fa"),
    ("bgp-v1-L2-s7-i0", "L2:SH", "eb7de8066efb7340b34d14eee0e78db44ae5ff99a7d64fbfe3c93c4832d0fea5"),
    ("bgp-v1-L3-s5-i0-n200-fRO", "L3:RO", "a1a83a3bd4e16a86c7e6fd5fa7ee13fe6b977bcd5cc07f69845af689a08e5992"),
    ("bgp-v1-L3-s1-i0", "L3:OW", "fdb1c1f40d157c5c767bc7053dd001f88d1b8ce2a6de350f972b4846e6c6528d"),
    ("bgp-v1-L4-s2-i0-n700", "L4:BA", "93b6da10b85fac435d06d44935760130ee20178b88b60fb18c6c20b705566124"),
    (
        "bgp-v1-L2-s3-i1-fRL2+LF-c2-v9-w12-t25",
        "L2:RL2",
        "b44516c601bb77c7920fb91665422d1099c2ace03c964d3df02ce7c1c4929bf1",
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
