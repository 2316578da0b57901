//! Checker fixtures (docs/malt.md, "Answering and checking"): text numbers, names, lists, rank order and
//! ties, the three-line diff, and one fixture per safety rule, each reported under its rule.
//! S2–S6 are provoked through the sandbox by agent code; S1 cannot be (the G API refuses
//! unknown kinds), so its fixture is a hand-made node view.

use netpress::app::Episode;
use netpress::malt::answer::{self, Answer, AnswerType, Text};
use netpress::malt::api::Py;
use netpress::malt::check::{Expected, value_ok};
use netpress::malt::diff::{DiffItem, DiffReport};
use netpress::malt::kind::AttrValue;
use netpress::malt::safety::{self, End, Local, Rule};
use netpress::malt::{MaltTask, generate::generate};
use serde_json::json;

fn text_expected(value: serde_json::Value) -> Expected {
    Expected { ty: AnswerType::Text, value, ordered: false, diff: vec![], read_only: true }
}

fn returned(data: Py) -> Result<Answer, String> {
    answer::parse(Py::Dict(vec![
        (Py::Str("type".into()), Py::Str("text".into())),
        (Py::Str("data".into()), data),
    ]))
}

#[test]
fn fifteen_in_every_spelling() {
    let e = text_expected(json!(15));
    let same = [
        Py::Int(15),
        Py::Str("15".into()),
        Py::Float(15.0),
        Py::Str(" 15 ".into()),
        Py::Str("1.5e1".into()),
        Py::Str("15 bps".into()),
    ];
    for data in same {
        let a = returned(data.clone()).unwrap();
        assert!(value_ok(&e, &a).0, "{data:?}");
    }
    assert!(!value_ok(&e, &returned(Py::Str("15 ports".into())).unwrap()).0);
    let err = returned(Py::Bool(true)).unwrap_err();
    assert!(err.contains("got bool"), "True is not a number: {err}");
    assert!(!value_ok(&e, &Answer::Text(Text::Str("16".into()))).0);
}

#[test]
fn rank_order_and_tie_errors_are_caught() {
    let e = Expected {
        ty: AnswerType::Table,
        value: json!([["ju1.a1.m1", 16], ["ju1.a1.m10", 16], ["ju1.a1.m2", 8]]),
        ordered: true,
        ..text_expected(json!(null))
    };
    let t = |rows: &[(&str, f64)]| Answer::Table(rows.iter().map(|(n, c)| (n.to_string(), *c)).collect());
    assert!(value_ok(&e, &t(&[("ju1.a1.m1", 16.0), ("ju1.a1.m10", 16.0), ("ju1.a1.m2", 8.0)])).0);
    let (ok, why) = value_ok(&e, &t(&[("ju1.a1.m10", 16.0), ("ju1.a1.m1", 16.0), ("ju1.a1.m2", 8.0)]));
    assert!(!ok && why.contains("ordered by name"), "tie error: {why}");
    let (ok, why) = value_ok(&e, &t(&[("ju1.a1.m2", 8.0), ("ju1.a1.m1", 16.0), ("ju1.a1.m10", 16.0)]));
    assert!(!ok && why.starts_with("row 1"), "order error: {why}");
}

#[test]
fn one_missing_one_extra_one_wrong_give_three_lines() {
    let attr = |new| DiffItem::Attr {
        node: "ju1.a1.m1.s2c1.p1".into(),
        key: "physical_capacity_bps".into(),
        old: Some(AttrValue::Int(1_000_000_000)),
        new: Some(AttrValue::Int(new)),
    };
    let removed = DiffItem::DelNode { node: "ju1.a1.m1.s2c1.p2".into() };
    let extra = DiffItem::DelNode { node: "ju1.a1.m1.s2c1.p3".into() };
    let report = DiffReport::compare(&[attr(10_000_000_000), removed], &[attr(2_000_000_000), extra]);
    let lines = report.lines();
    assert_eq!(lines.len(), 3, "{lines:?}");
    assert!(lines[0].starts_with("missing: -node ju1.a1.m1.s2c1.p2"));
    assert!(lines[1].starts_with("unexpected: -node ju1.a1.m1.s2c1.p3"));
    assert!(lines[2].starts_with("wrong value: ~attr ju1.a1.m1.s2c1.p1"));
}

/// Runs `body` as the answer to an L1-update task (expected diff: one `~attr`), returning the
/// safety section of the score.
fn safety_of(body: &str) -> Vec<String> {
    let task = MaltTask::new(generate(&"malt-v1-L1-s0-i2".parse().unwrap()).unwrap());
    let mut ep = task.start_with(None, Default::default());
    ep.step(&format!(
        "```python\ndef process_graph(G):\n{body}\n    return {{'type': 'graph', 'data': None}}\n```"
    ));
    let score = ep.score();
    assert!(!score.safe, "{body}: {score:?}");
    score.details.safety
}

fn reported_under(lines: &[String], rule: Rule) -> bool {
    let header = format!("{} failed:", rule.title());
    lines.first().is_some_and(|l| *l == header) && lines.len() >= 2
}

#[test]
fn each_rule_is_reported_under_itself() {
    let n = Local {
        name: "x",
        kind: "EK_ROUTER",
        capacity: None,
        out: vec![],
        inn: vec![End { name: "ju1", kind: "EK_JUPITER", rel: "RK_CONTAINS" }],
    };
    assert!(reported_under(&safety::report(&safety::check_node(&n)), Rule::S1));
    let s2 = safety_of("    G.add_edge('ju1.a1.m1.s2c1.p1', 'ju1.a1.m1.s2c1.p2', 'RK_CONTAINS')");
    assert!(s2.iter().any(|l| l == "S2 allowed edges failed:"), "{s2:?}");
    let s3 = safety_of("    G.remove_node('ju1.a1.m1')");
    assert!(
        reported_under(&s3, Rule::S3) || s3.iter().any(|l| l == "S3 parents and degree failed:"),
        "{s3:?}"
    );
    let s4 = safety_of("    G.set_attr('ju1.a1.m1.s2c1.p1', 'physical_capacity_bps', 0)");
    assert!(s4.iter().any(|l| l == "S4 port capacity failed:"), "{s4:?}");
    let s5 = safety_of(
        "    G.add_node('ju1.a1.m1.s2c99', 'EK_PACKET_SWITCH', stage=2)\n    G.add_edge('ju1.a1.m1', 'ju1.a1.m1.s2c99', 'RK_CONTAINS')",
    );
    assert!(s5.iter().any(|l| l == "S5 switches have ports failed:"), "{s5:?}");
    let s6 = safety_of("    G.set_attr('ju1.a2', 'note', 'x')");
    assert!(reported_under(&s6, Rule::S6), "{s6:?}");
}
