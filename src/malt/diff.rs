//! The name-keyed net diff of a working graph against its base and the comparison of an
//! agent's diff with the expected one (docs/malt.md, "The topology", "Answering and checking").
//!
//! Items are keyed by names, never by node identity or graph shape, so comparing two diffs
//! costs O(changes) and is exact about direction and relation kinds, unlike the reference's
//! isomorphism test.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use serde::{Deserialize, Serialize};

use super::kind::AttrValue;

/// One change.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "op")]
pub enum DiffItem {
    #[serde(rename = "+node")]
    AddNode { node: String, kind: String, attrs: BTreeMap<String, AttrValue> },
    #[serde(rename = "-node")]
    DelNode { node: String },
    #[serde(rename = "~attr")]
    Attr { node: String, key: String, old: Option<AttrValue>, new: Option<AttrValue> },
    #[serde(rename = "+edge")]
    AddEdge { src: String, dst: String, rel: String },
    #[serde(rename = "-edge")]
    DelEdge { src: String, dst: String, rel: String },
}

/// What S6 compares: the node, node attribute or node pair an item touches.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Scope {
    Node(String),
    Attr(String, String),
    Pair(String, String),
}

impl fmt::Display for Scope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Scope::Node(n) => write!(f, "node {n}"),
            Scope::Attr(n, k) => write!(f, "attribute {k} of {n}"),
            Scope::Pair(u, v) => write!(f, "edge {u} -> {v}"),
        }
    }
}

impl DiffItem {
    /// The identity of an item: two items with the same key describe the same change, maybe
    /// with different values.
    pub fn key(&self) -> String {
        match self {
            DiffItem::AddNode { node, .. } => format!("+node {node}"),
            DiffItem::DelNode { node } => format!("-node {node}"),
            DiffItem::Attr { node, key, .. } => format!("~attr {node} {key}"),
            DiffItem::AddEdge { src, dst, .. } => format!("+edge {src} {dst}"),
            DiffItem::DelEdge { src, dst, .. } => format!("-edge {src} {dst}"),
        }
    }

    pub fn scope(&self) -> Scope {
        match self {
            DiffItem::AddNode { node, .. } | DiffItem::DelNode { node } => Scope::Node(node.clone()),
            DiffItem::Attr { node, key, .. } => Scope::Attr(node.clone(), key.clone()),
            DiffItem::AddEdge { src, dst, .. } | DiffItem::DelEdge { src, dst, .. } => {
                Scope::Pair(src.clone(), dst.clone())
            }
        }
    }

    /// The names an item mentions.
    pub fn names(&self) -> Vec<&str> {
        match self {
            DiffItem::AddNode { node, .. } | DiffItem::DelNode { node } | DiffItem::Attr { node, .. } => {
                vec![node]
            }
            DiffItem::AddEdge { src, dst, .. } | DiffItem::DelEdge { src, dst, .. } => vec![src, dst],
        }
    }

    /// Same key and same values (numbers within the checker's tolerance).
    pub fn same(&self, other: &DiffItem) -> bool {
        use DiffItem::*;
        match (self, other) {
            (AddNode { node: a, kind: ka, attrs: xa }, AddNode { node: b, kind: kb, attrs: xb }) => {
                a == b && ka == kb && attrs_same(xa, xb)
            }
            (Attr { node: a, key: ka, old: oa, new: na }, Attr { node: b, key: kb, old: ob, new: nb }) => {
                a == b && ka == kb && opt_same(oa, ob) && opt_same(na, nb)
            }
            _ => self == other,
        }
    }
}

fn opt_same(a: &Option<AttrValue>, b: &Option<AttrValue>) -> bool {
    match (a, b) {
        (Some(a), Some(b)) => a.same(b),
        (None, None) => true,
        _ => false,
    }
}

fn attrs_same(a: &BTreeMap<String, AttrValue>, b: &BTreeMap<String, AttrValue>) -> bool {
    a.len() == b.len() && a.iter().all(|(k, v)| b.get(k).is_some_and(|w| v.same(w)))
}

fn show_value(v: &Option<AttrValue>) -> String {
    v.as_ref().map_or_else(|| "(none)".to_string(), AttrValue::py_repr)
}

impl fmt::Display for DiffItem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DiffItem::AddNode { node, kind, attrs } => {
                let attrs: Vec<String> = attrs.iter().map(|(k, v)| format!("{k}: {}", v.py_repr())).collect();
                write!(f, "+node {node} {kind} {{{}}}", attrs.join(", "))
            }
            DiffItem::DelNode { node } => write!(f, "-node {node}"),
            DiffItem::Attr { node, key, old, new } => {
                write!(f, "~attr {node} {key} {}→{}", show_value(old), show_value(new))
            }
            DiffItem::AddEdge { src, dst, rel } => write!(f, "+edge {src} {dst} {rel}"),
            DiffItem::DelEdge { src, dst, rel } => write!(f, "-edge {src} {dst} {rel}"),
        }
    }
}

/// The comparison of an agent's net diff with the expected one.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DiffReport {
    /// Expected items the agent's diff lacks.
    pub missing: Vec<DiffItem>,
    /// Agent items the expected diff lacks.
    pub unexpected: Vec<DiffItem>,
    /// Same key, different value: (expected, agent's).
    pub wrong: Vec<(DiffItem, DiffItem)>,
    /// Expected items the agent made exactly.
    pub matched: usize,
    pub expected_len: usize,
}

/// Lines shown of a diff view before a count of the rest.
pub const MAX_VIEW_LINES: usize = 50;

impl DiffReport {
    pub fn compare(expected: &[DiffItem], agent: &[DiffItem]) -> DiffReport {
        let by_key: BTreeMap<String, &DiffItem> = agent.iter().map(|i| (i.key(), i)).collect();
        let expected_keys: BTreeSet<String> = expected.iter().map(DiffItem::key).collect();
        let mut report = DiffReport { expected_len: expected.len(), ..Default::default() };
        for want in expected {
            match by_key.get(&want.key()) {
                Some(got) if want.same(got) => report.matched += 1,
                Some(got) => report.wrong.push((want.clone(), (*got).clone())),
                None => report.missing.push(want.clone()),
            }
        }
        report.unexpected = agent.iter().filter(|i| !expected_keys.contains(&i.key())).cloned().collect();
        report
    }

    /// The agent's diff equals the expected one.
    pub fn equal(&self) -> bool {
        self.missing.is_empty() && self.unexpected.is_empty() && self.wrong.is_empty()
    }

    /// |agent ∩ expected| / |expected|, 1 when nothing was expected.
    pub fn progress(&self) -> f64 {
        if self.expected_len == 0 { 1.0 } else { self.matched as f64 / self.expected_len as f64 }
    }

    /// `missing:`, `unexpected:` and `wrong value:` lines, at most [`MAX_VIEW_LINES`] and a count.
    pub fn lines(&self) -> Vec<String> {
        let mut lines: Vec<String> = self.missing.iter().map(|i| format!("missing: {i}")).collect();
        lines.extend(self.unexpected.iter().map(|i| format!("unexpected: {i}")));
        lines.extend(self.wrong.iter().map(|(want, got)| format!("wrong value: {got} (expected {want})")));
        if lines.len() > MAX_VIEW_LINES {
            let rest = lines.len() - MAX_VIEW_LINES;
            lines.truncate(MAX_VIEW_LINES);
            lines.push(format!("… and {rest} more differences"));
        }
        lines
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn attr(node: &str, new: i64) -> DiffItem {
        DiffItem::Attr {
            node: node.into(),
            key: "physical_capacity_bps".into(),
            old: Some(AttrValue::Int(1_000_000_000)),
            new: Some(AttrValue::Int(new)),
        }
    }

    #[test]
    fn missing_extra_and_wrong_give_three_lines() {
        let edge = DiffItem::AddEdge { src: "a".into(), dst: "b".into(), rel: "RK_CONTAINS".into() };
        let expected = vec![attr("p1", 10_000_000_000), edge];
        let agent = vec![attr("p1", 2_000_000_000), DiffItem::DelNode { node: "x".into() }];
        let report = DiffReport::compare(&expected, &agent);
        let lines = report.lines();
        assert_eq!(lines.len(), 3, "{lines:?}");
        assert_eq!(lines[0], "missing: +edge a b RK_CONTAINS");
        assert_eq!(lines[1], "unexpected: -node x");
        assert!(lines[2].starts_with("wrong value: ~attr p1 physical_capacity_bps 1000000000→2000000000"));
        assert_eq!(report.progress(), 0.0);
        assert!(!report.equal());
    }

    #[test]
    fn numbers_compare_with_tolerance() {
        let float = DiffItem::Attr {
            node: "p1".into(),
            key: "physical_capacity_bps".into(),
            old: Some(AttrValue::Int(1_000_000_000)),
            new: Some(AttrValue::Float(1e10)),
        };
        let report = DiffReport::compare(&[attr("p1", 10_000_000_000)], &[float]);
        assert!(report.equal());
        assert_eq!(report.progress(), 1.0);
    }

    #[test]
    fn view_is_capped() {
        let agent: Vec<DiffItem> = (0..60).map(|i| DiffItem::DelNode { node: format!("n{i}") }).collect();
        let lines = DiffReport::compare(&[], &agent).lines();
        assert_eq!(lines.len(), MAX_VIEW_LINES + 1);
        assert_eq!(lines[50], "… and 10 more differences");
    }

    #[test]
    fn items_serialise_with_their_op() {
        let item = DiffItem::DelEdge { src: "a".into(), dst: "b".into(), rel: "RK_CONTAINS".into() };
        let json = serde_json::to_string(&item).unwrap();
        assert_eq!(json, r#"{"op":"-edge","src":"a","dst":"b","rel":"RK_CONTAINS"}"#);
        assert_eq!(serde_json::from_str::<DiffItem>(&json).unwrap(), item);
    }
}
