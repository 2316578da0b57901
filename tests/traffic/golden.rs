//! Golden content hashes of seeded traffic tasks: every family of levels 1–4 on seeds 0..3 at
//! the default knobs, and on two other knob sets (adding level 4 left every other id's hash as
//! it was). Re-record after an intended generator change
//! (which bumps the generator version) with `NETPRESS_BLESS=1 cargo test --test traffic golden::`.

use serde_json::{Value, json};

const PATH: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/traffic/golden.json");

fn ids() -> Vec<String> {
    let mut out = Vec::new();
    for knobs in ["", "-n10-p1-d20", "-n300-p8-e20-d15-faws2"] {
        for (level, families) in [(1, 8), (2, 9), (3, 9), (4, 2)] {
            for seed in 0..3 {
                for index in 0..families {
                    out.push(format!("traffic-v1-L{level}-s{seed}-i{index}{knobs}"));
                }
            }
        }
    }
    out
}

fn hashes() -> Vec<Value> {
    ids()
        .into_iter()
        .map(|id| {
            let task = netpress::registry::generate(&id).unwrap_or_else(|e| panic!("{id}: {e}"));
            json!([id, task.card().content_hash])
        })
        .collect()
}

#[test]
fn golden_hashes_match() {
    let text = crate::bless::golden(PATH, || serde_json::to_string_pretty(&hashes()).unwrap() + "\n");
    let golden: Vec<Value> = serde_json::from_str(&text).unwrap();
    assert_eq!(golden.len(), 252);
    assert_eq!(golden, hashes());
}

const NEMO_PATH: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/traffic/golden_nemo.json");

/// The `nemo` mode's ids: NeMoEval's easy eight on seeds 0..3, at the default nemo mock and
/// at a larger, sparser one (a file of their own: adding them moved no other id's hash).
fn nemo_hashes() -> Vec<Value> {
    let mut out = Vec::new();
    for knobs in ["-mnemo", "-n200-e20-mnemo"] {
        for seed in 0..3 {
            for index in 0..8 {
                let id = format!("traffic-v1-L1-s{seed}-i{index}{knobs}");
                let task = netpress::registry::generate(&id).unwrap_or_else(|e| panic!("{id}: {e}"));
                out.push(json!([id, task.card().content_hash]));
            }
        }
    }
    out
}

#[test]
fn nemo_golden_hashes_match() {
    let text =
        crate::bless::golden(NEMO_PATH, || serde_json::to_string_pretty(&nemo_hashes()).unwrap() + "\n");
    let golden: Vec<Value> = serde_json::from_str(&text).unwrap();
    assert_eq!(golden.len(), 48);
    assert_eq!(golden, nemo_hashes());
}

/// The `nemo` mode's level-2 ids: NeMoEval's medium questions 9–15 (index 7, question 16,
/// has the next file, made after it was built) on seeds 0..3 at the same two knob sets; a file of their own, so the level-1 file
/// and the standard one did not move.
#[test]
fn nemo_level_two_golden_hashes_match() {
    let mut ids = Vec::new();
    for knobs in ["-mnemo", "-n200-e20-mnemo"] {
        for seed in 0..3 {
            ids.extend((0..7).map(|index| format!("traffic-v1-L2-s{seed}-i{index}{knobs}")));
        }
    }
    assert_eq!(ids.len(), 42);
    crate::bless::content_hashes("tests/data/traffic/golden_nemo_l2.tsv", &ids);
}

/// Question 16 (level 2, index 7) and the `nemo` mode's level 3, NeMoEval's hard eight
/// (questions 17–24), on seeds 0..3 at the same two knob sets; a file of their own, so the
/// earlier files did not move.
#[test]
fn nemo_question_sixteen_and_level_three_golden_hashes_match() {
    let mut ids = Vec::new();
    for knobs in ["-mnemo", "-n200-e20-mnemo"] {
        for seed in 0..3 {
            ids.push(format!("traffic-v1-L2-s{seed}-i7{knobs}"));
            ids.extend((0..8).map(|index| format!("traffic-v1-L3-s{seed}-i{index}{knobs}")));
        }
    }
    assert_eq!(ids.len(), 54);
    crate::bless::content_hashes("tests/data/traffic/golden_nemo_l3.tsv", &ids);
}

/// The same id gives the same card twice, and another seed another graph.
#[test]
fn generation_is_deterministic() {
    let a = netpress::registry::generate("traffic-v1-L2-s7-i3").unwrap();
    let b = netpress::registry::generate("traffic-v1-L2-s7-i3").unwrap();
    assert_eq!(serde_json::to_string(a.card()).unwrap(), serde_json::to_string(b.card()).unwrap());
    let c = netpress::registry::generate("traffic-v1-L2-s8-i3").unwrap();
    assert_ne!(a.card().content_hash, c.card().content_hash);
    for bad in ["traffic-v1-L5-s0-i0", "traffic-v1-L1-s0-i0-n5", "traffic-v1-L1-s0-i0-px"] {
        assert!(netpress::registry::generate(bad).is_err(), "{bad}");
    }
    // Tenant knobs are checked whatever the family, and the message names the knob.
    refused(&[
        ("traffic-v1-L1-s0-i0-d1", "knob d=1"),
        ("traffic-v1-L1-s0-i0-a5", "knob a=5"),
        ("traffic-v1-L2-s0-i4-fcsv", "knob f must be one of"),
        ("traffic-v1-L2-s0-i4-c100001", "knob c=100001"),
        ("traffic-v1-L1-s0-i0-gtenant", "knob g must be mock or flows"),
        ("traffic-v1-L4-s0-i0-mstraw", "not in this version"),
        ("traffic-v1-L4-s0-i0-mchain-t3", "t must be 24, got 3"),
        ("traffic-v1-L1-s0-i0-mfoo", "knob m must be"),
        ("traffic-v1-L1-s0-i0-t9", "knob t must be 1..5"),
        ("traffic-v1-L1-s0-i0-gflows-n1001", "knob n=1001"),
    ]);
}

/// Each id fails to generate with a message that contains its text.
pub(crate) fn refused(cases: &[(&str, &str)]) {
    for (bad, says) in cases {
        let err = netpress::registry::generate(bad).err().map(|e| e.to_string()).unwrap_or_default();
        assert!(err.contains(says), "{bad}: {err}");
    }
}

/// The families the second generator version changed, at levels 1–3 (docs/traffic.md,
/// "Versions").
const WIDENED: [&str; 4] = ["count", "nbr-count", "label-graph", "cliques"];

/// The second version: every task of another family (and every level-4 task, and every task of
/// the `nemo`, `straw` and `chain` modes) is the first version's task under the other id, prompt
/// and expected bytes alike; the four widened
/// families' second-version hashes are pinned in a file of their own, on seeds 0..12 so that
/// each of their new forms appears (the test checks that it does).
#[test]
fn second_version_changes_only_the_widened_families() {
    let mut pinned = Vec::new();
    let mut forms = std::collections::BTreeSet::new();
    for (level, families) in [(1, 8), (2, 9), (3, 9), (4, 2)] {
        for seed in 0..12 {
            for index in 0..families {
                let at = |v: u32| format!("traffic-v{v}-L{level}-s{seed}-i{index}");
                let (old, new) = (generate(&at(1)), generate(&at(2)));
                let label = new.card().label.clone();
                if !WIDENED.contains(&label.as_str()) || level == 4 {
                    assert_eq!(old.card().content_hash, new.card().content_hash, "{}", at(2));
                    continue;
                }
                let params = serde_json::to_value(&new.card().params).unwrap();
                let form =
                    ["prefix", "node"].into_iter().find(|k| params.to_string().contains(&format!("\"{k}\"")));
                forms.insert((label, form.is_some()));
                pinned.push(at(2));
            }
        }
    }
    // NeMoEval's modes ask their own fixed questions: the same tasks in both versions.
    for knobs in ["-mnemo", "-mstraw", "-n200-e20-mnemo"] {
        for (level, seed, index) in
            (1..=3).flat_map(|l| (0..2).flat_map(move |s| (0..8).map(move |i| (l, s, i))))
        {
            let at = |v: u32| format!("traffic-v{v}-L{level}-s{seed}-i{index}{knobs}");
            assert_eq!(
                generate(&at(1)).card().content_hash,
                generate(&at(2)).card().content_hash,
                "{}",
                at(2)
            );
        }
    }
    let chain = |v: u32| generate(&format!("traffic-v{v}-L4-s0-i0-mchain-t24")).card().content_hash.clone();
    assert_eq!(chain(1), chain(2));
    assert_eq!(forms.len(), 8, "each widened family in an old and a new form: {forms:?}");
    assert_eq!(pinned.len(), 4 * 12);
    crate::bless::content_hashes("tests/data/traffic/golden_v2.tsv", &pinned);
}

fn generate(id: &str) -> std::sync::Arc<dyn netpress::Task> {
    netpress::registry::generate(id).unwrap_or_else(|e| panic!("{id}: {e}"))
}
