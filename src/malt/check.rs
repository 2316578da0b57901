//! Checking an answer (docs/malt.md, "Answering and checking"): the value against the expected one (numbers with
//! tolerance, lists as multisets, tables in order or as name-keyed multisets), the agent's net
//! diff against the expected diff, and the safety rules.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::answer::{Answer, AnswerType, Text, fmt_number, quoted, shown};
use super::diff::{DiffItem, DiffReport};
use super::graph::Working;
use super::kind::numbers_equal;
use super::safety::{self, Violation};

/// The hidden expected outcome of a task.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Expected {
    #[serde(rename = "type")]
    pub ty: AnswerType,
    /// text: a number or a name; list: names; table: `[name, number]` rows; graph: null.
    pub value: Value,
    /// Tables: compared row by row (rank order matters).
    pub ordered: bool,
    /// The net diff the intended operations make.
    pub diff: Vec<DiffItem>,
    /// The question must leave the graph untouched.
    pub read_only: bool,
}

/// Parses a text answer as a number: whitespace, one trailing `bps` (any case) and `,`/`_`
/// separators are ignored; then a decimal int or float, exponent allowed.
pub fn parse_number(s: &str) -> Option<f64> {
    let t = s.trim();
    let t = match t.len().checked_sub(3) {
        Some(cut) if t.is_char_boundary(cut) && t[cut..].eq_ignore_ascii_case("bps") => t[..cut].trim_end(),
        _ => t,
    };
    let cleaned: String = t.chars().filter(|c| *c != ',' && *c != '_').collect();
    let numeric = !cleaned.is_empty()
        && cleaned.chars().all(|c| c.is_ascii_digit() || matches!(c, '+' | '-' | '.' | 'e' | 'E'))
        && cleaned.chars().any(|c| c.is_ascii_digit());
    if !numeric {
        return None;
    }
    cleaned.parse::<f64>().ok().filter(|f| f.is_finite())
}

fn show(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Whether the answer's value is right, with the reason.
pub fn value_ok(expected: &Expected, answer: &Answer) -> (bool, String) {
    if answer.answer_type() != expected.ty {
        return (false, format!("expected type {}, got {}", expected.ty, answer.answer_type()));
    }
    match answer {
        Answer::Graph => (true, "type graph: the graph diff decides".into()),
        Answer::Text(text) => text_ok(&expected.value, text),
        Answer::List(names) => list_ok(&expected.value, names),
        Answer::Table(rows) => table_ok(&expected.value, rows, expected.ordered),
    }
}

fn text_ok(want: &Value, got: &Text) -> (bool, String) {
    match (want, got) {
        (Value::String(name), Text::Str(s)) => {
            let ok = s.trim() == name;
            (
                ok,
                if ok {
                    format!("value {name} is right")
                } else {
                    format!("expected {name}, got {}", quoted(s))
                },
            )
        }
        (Value::String(name), Text::Number(n)) => {
            (false, format!("expected the name {name}, got {}", fmt_number(*n)))
        }
        (want, got) => {
            let w = want.as_f64().unwrap_or(f64::NAN);
            let g = match got {
                Text::Number(n) => Some(*n),
                Text::Str(s) => parse_number(s),
            };
            match g {
                Some(g) if numbers_equal(w, g) => (true, format!("value {} is right", show(want))),
                Some(g) => (false, format!("expected {}, got {}", show(want), fmt_number(g))),
                None => (false, format!("expected the number {}, got text that is not a number", show(want))),
            }
        }
    }
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array().into_iter().flatten().map(show).collect()
}

fn list_ok(want: &Value, got: &[String]) -> (bool, String) {
    let mut w = strings(want);
    let mut g = got.to_vec();
    w.sort();
    g.sort();
    if w == g {
        return (true, format!("all {} names are right", w.len()));
    }
    let missing = multiset_minus(&w, &g);
    let extra = multiset_minus(&g, &w);
    (
        false,
        format!(
            "expected {} names, got {}; missing: {}; unexpected: {}",
            w.len(),
            g.len(),
            few(&missing),
            few(&extra)
        ),
    )
}

fn multiset_minus(a: &[String], b: &[String]) -> Vec<String> {
    let mut rest = b.to_vec();
    a.iter()
        .filter(|x| match rest.iter().position(|y| y == *x) {
            Some(i) => {
                rest.swap_remove(i);
                false
            }
            None => true,
        })
        .cloned()
        .collect()
}

fn few(names: &[String]) -> String {
    if names.is_empty() {
        return "none".into();
    }
    let first: Vec<String> = names.iter().take(10).map(|n| shown(n)).collect();
    let more = if names.len() > 10 { format!(" (+{} more)", names.len() - 10) } else { String::new() };
    format!("{}{more}", first.join(", "))
}

fn rows(v: &Value) -> Vec<(String, f64)> {
    v.as_array().into_iter().flatten().filter_map(|r| Some((show(r.get(0)?), r.get(1)?.as_f64()?))).collect()
}

fn table_ok(want: &Value, got: &[(String, f64)], ordered: bool) -> (bool, String) {
    let mut w = rows(want);
    let mut g = got.to_vec();
    if w.len() != g.len() {
        return (false, format!("expected {} rows, got {}", w.len(), g.len()));
    }
    if !ordered {
        let by_name = |a: &(String, f64), b: &(String, f64)| a.0.cmp(&b.0).then(a.1.total_cmp(&b.1));
        w.sort_by(by_name);
        g.sort_by(by_name);
    }
    for (i, (a, b)) in w.iter().zip(&g).enumerate() {
        if a.0 != b.0 || !numbers_equal(a.1, b.1) {
            let hint =
                if ordered && tie_order(&w, a, b) { " (equal capacities are ordered by name)" } else { "" };
            return (
                false,
                format!(
                    "row {}: expected [{}, {}], got [{}, {}]{hint}",
                    i + 1,
                    a.0,
                    fmt_number(a.1),
                    shown(&b.0),
                    fmt_number(b.1)
                ),
            );
        }
    }
    (true, format!("all {} rows are right{}", w.len(), if ordered { ", in order" } else { "" }))
}

/// Whether the first wrong row `got` (where `want` was expected) is a tie put in the wrong
/// order: another expected row of the same capacity, with the right capacity. A wrong capacity
/// under the right name is not a tie.
fn tie_order(expected: &[(String, f64)], want: &(String, f64), got: &(String, f64)) -> bool {
    want.0 != got.0
        && numbers_equal(want.1, got.1)
        && expected.iter().any(|r| r.0 == got.0 && numbers_equal(r.1, got.1))
}

/// The full judgement of one answer on its final working graph.
#[derive(Debug, Clone, PartialEq)]
pub struct Verdict {
    pub correct: bool,
    pub safe: bool,
    pub progress: f64,
    pub value_ok: bool,
    pub state_ok: bool,
    /// Why correct or not.
    pub correctness: Vec<String>,
    /// Rule violations, grouped (empty when safe).
    pub safety: Vec<String>,
    /// `missing:` / `unexpected:` / `wrong value:` lines.
    pub diff: Vec<String>,
    pub violations: Vec<Violation>,
    pub agent_diff: Vec<DiffItem>,
    /// What `progress` measures, for the explanation.
    pub progress_note: String,
}

/// Judges an answer (or the error that replaced it) and the graph it left.
pub fn judge(expected: &Expected, answer: Result<&Answer, &str>, g: &Working) -> Verdict {
    let agent_diff = g.net_diff();
    let report = DiffReport::compare(&expected.diff, &agent_diff);
    let (value_ok, why) = match answer {
        Ok(a) => value_ok(expected, a),
        Err(e) => (false, format!("no valid answer: {e}")),
    };
    let state_ok = report.equal();
    let correct = value_ok && (expected.read_only || state_ok);
    let mut correctness = vec![format!("value: {why}")];
    if !expected.read_only {
        correctness.push(if state_ok {
            format!("graph: the {} expected changes, nothing else", expected.diff.len())
        } else {
            format!(
                "graph: {} of {} expected changes made, {} missing, {} wrong, {} unexpected",
                report.matched,
                expected.diff.len(),
                report.missing.len(),
                report.wrong.len(),
                report.unexpected.len()
            )
        });
    }
    let violations = safety::check(g, &agent_diff, &expected.diff, expected.read_only);
    let progress = if expected.read_only { f64::from(u8::from(correct)) } else { report.progress() };
    let progress_note = if expected.read_only {
        "a read-only question: 100% when correct, else 0%".to_string()
    } else {
        format!("the share of the expected graph changes made: {} of {}", report.matched, expected.diff.len())
    };
    Verdict {
        correct,
        safe: violations.is_empty(),
        progress,
        value_ok,
        state_ok,
        correctness,
        safety: safety::report(&violations),
        diff: report.lines(),
        violations,
        agent_diff,
        progress_note,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn text_expected(v: Value) -> Expected {
        Expected { ty: AnswerType::Text, value: v, ordered: false, diff: vec![], read_only: true }
    }

    fn ok(e: &Expected, a: Answer) -> bool {
        value_ok(e, &a).0
    }

    #[test]
    fn text_numbers_are_equal_in_every_spelling() {
        let e = text_expected(json!(15));
        for s in ["15", " 15 ", "1.5e1", "15 bps", "15BPS", "1_5", "15.0"] {
            assert!(ok(&e, Answer::Text(Text::Str(s.into()))), "{s}");
        }
        assert!(ok(&e, Answer::Text(Text::Number(15.0))));
        assert!(ok(&e, Answer::Text(Text::Number(15.000_000_000_01))));
        for s in ["15 ports", "", "inf", "bps", "fifteen", "15 bps bps"] {
            assert!(!ok(&e, Answer::Text(Text::Str(s.into()))), "{s}");
        }
        assert!(!ok(&e, Answer::Text(Text::Number(16.0))));
        assert!(!ok(&e, Answer::List(vec![])), "type must match");
        assert_eq!(parse_number("1,000,000 bps"), Some(1e6));
    }

    #[test]
    fn non_finite_numbers_are_never_right() {
        let e = text_expected(json!(15));
        for odd in [f64::INFINITY, f64::NEG_INFINITY, f64::NAN] {
            let (good, why) = value_ok(&e, &Answer::Text(Text::Number(odd)));
            assert!(!good, "{odd}: {why}");
        }
        let rows = json!([["ju1.a1.m1", 16], ["ju1.a1.m2", 8]]);
        let inf =
            Answer::Table(vec![("ju1.a1.m1".into(), f64::INFINITY), ("ju1.a1.m2".into(), f64::INFINITY)]);
        for ordered in [true, false] {
            let t = Expected {
                ty: AnswerType::Table,
                value: rows.clone(),
                ordered,
                ..text_expected(json!(null))
            };
            assert!(!ok(&t, inf.clone()), "ordered {ordered}");
        }
    }

    #[test]
    fn messages_quote_at_most_a_few_hundred_characters_of_the_answer() {
        let huge = "9".repeat(10_000_000);
        let name = text_expected(json!("ju1.a1.m2"));
        let (_, why) = value_ok(&name, &Answer::Text(Text::Str(huge.clone())));
        assert!(why.len() < 400 && why.contains("10000000 characters in all"), "{} bytes", why.len());
        let list = Expected { ty: AnswerType::List, value: json!(["a"]), ..text_expected(json!(null)) };
        let (_, why) = value_ok(&list, &Answer::List(vec![huge.clone(); 20]));
        assert!(why.len() < 4_000, "{} bytes", why.len());
        let table = Expected { ty: AnswerType::Table, value: json!([["a", 1]]), ordered: true, ..list };
        let (_, why) = value_ok(&table, &Answer::Table(vec![(huge, 1.0)]));
        assert!(why.len() < 400, "{} bytes", why.len());
    }

    #[test]
    fn names_are_stripped_and_case_sensitive() {
        let e = text_expected(json!("ju1.a1.m2"));
        assert!(ok(&e, Answer::Text(Text::Str(" ju1.a1.m2\n".into()))));
        assert!(!ok(&e, Answer::Text(Text::Str("JU1.A1.M2".into()))));
        assert!(!ok(&e, Answer::Text(Text::Number(1.0))));
    }

    #[test]
    fn lists_are_multisets() {
        let e =
            Expected { ty: AnswerType::List, value: json!(["a", "b", "b"]), ..text_expected(json!(null)) };
        let l = |v: &[&str]| Answer::List(v.iter().map(|s| s.to_string()).collect());
        assert!(ok(&e, l(&["b", "a", "b"])));
        assert!(!ok(&e, l(&["a", "b"])));
        let (_, why) = value_ok(&e, &l(&["a", "b", "c"]));
        assert!(why.contains("missing: b; unexpected: c"), "{why}");
    }

    #[test]
    fn rank_order_and_ties_are_checked() {
        let rows = json!([["ju1.a1.m1", 16], ["ju1.a1.m2", 16], ["ju1.a1.m3", 8]]);
        let e = Expected { ty: AnswerType::Table, value: rows, ordered: true, ..text_expected(json!(null)) };
        let t = |v: &[(&str, f64)]| Answer::Table(v.iter().map(|(n, c)| (n.to_string(), *c)).collect());
        assert!(ok(&e, t(&[("ju1.a1.m1", 16.0), ("ju1.a1.m2", 16.0), ("ju1.a1.m3", 8.0)])));
        let (good, why) = value_ok(&e, &t(&[("ju1.a1.m2", 16.0), ("ju1.a1.m1", 16.0), ("ju1.a1.m3", 8.0)]));
        assert!(!good && why.contains("equal capacities are ordered by name"), "{why}");
        assert!(!ok(&e, t(&[("ju1.a1.m3", 8.0), ("ju1.a1.m1", 16.0), ("ju1.a1.m2", 16.0)])), "order");
        assert!(!ok(&e, t(&[("ju1.a1.m1", 16.0), ("ju1.a1.m2", 16.0)])), "row count");
        let (_, why) = value_ok(&e, &t(&[("ju1.a1.m1", 15.0), ("ju1.a1.m2", 16.0), ("ju1.a1.m3", 8.0)]));
        assert!(why.starts_with("row 1: expected [ju1.a1.m1, 16], got [ju1.a1.m1, 15]"), "{why}");
        assert!(!why.contains("ordered by name"), "a wrong capacity is not a tie: {why}");
        let (_, why) = value_ok(&e, &t(&[("ju1.a1.m3", 16.0), ("ju1.a1.m1", 16.0), ("ju1.a1.m2", 8.0)]));
        assert!(!why.contains("ordered by name"), "m3 is not one of the tied rows: {why}");
        let unordered = Expected { ordered: false, ..e };
        assert!(ok(&unordered, t(&[("ju1.a1.m3", 8.0), ("ju1.a1.m2", 16.0), ("ju1.a1.m1", 16.0)])));
    }
}
