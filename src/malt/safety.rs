//! The safety invariants S1–S6 (docs/malt.md, "Answering and checking").
//!
//! S1–S5 are rules about one node and its incident edges, so they are written over a
//! [`Local`] view (names, kind and relation *strings*, attributes, in- and out-edges) that is
//! built only for the nodes touched by the net diff and their neighbours: O(changes), and
//! every rule can be shown to fire on a hand-made view, including S1 and S2 whose violations
//! the G API itself already refuses. S6 compares the scopes of two diffs.

use std::collections::BTreeSet;
use std::fmt;

use super::diff::{DiffItem, Scope};
use super::graph::{Id, Working};
use super::kind::{AttrValue, EDGE_RULES, EdgeRule, Kind, Parents, Rel, edge_rule};

/// A rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Rule {
    S1,
    S2,
    S3,
    S4,
    S5,
    S6,
}

impl Rule {
    pub const ALL: [Rule; 6] = [Rule::S1, Rule::S2, Rule::S3, Rule::S4, Rule::S5, Rule::S6];

    pub fn title(self) -> &'static str {
        match self {
            Rule::S1 => "S1 valid kind",
            Rule::S2 => "S2 allowed edges",
            Rule::S3 => "S3 parents and degree",
            Rule::S4 => "S4 port capacity",
            Rule::S5 => "S5 switches have ports",
            Rule::S6 => "S6 scope",
        }
    }
}

/// One broken rule at one place.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Violation {
    pub rule: Rule,
    pub node: String,
    pub message: String,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}: {}", self.rule.title(), self.node, self.message)
    }
}

/// An edge end seen from a node: the other node's name and kind, and the relation. Borrowed:
/// the check builds one view per touched node, and owned strings for every neighbour were a
/// fifth of generating a task that touches the whole fabric.
#[derive(Debug, Clone, PartialEq)]
pub struct End<'a> {
    pub name: &'a str,
    pub kind: &'a str,
    pub rel: &'a str,
}

/// One node as the rules see it.
#[derive(Debug, Clone, PartialEq)]
pub struct Local<'a> {
    pub name: &'a str,
    pub kind: &'a str,
    /// `physical_capacity_bps`, the one attribute a rule reads (S4).
    pub capacity: Option<AttrValue>,
    pub out: Vec<End<'a>>,
    pub inn: Vec<End<'a>>,
}

impl<'a> Local<'a> {
    /// The view of a live node of a working graph.
    pub fn of(g: &'a Working, id: Id) -> Local<'a> {
        let end = |(other, rel): (Id, Rel)| End {
            name: g.name(other),
            kind: g.kind(other).as_str(),
            rel: rel.as_str(),
        };
        Local {
            name: g.name(id),
            kind: g.kind(id).as_str(),
            capacity: g.attr(id, "physical_capacity_bps"),
            out: g.out(id).into_iter().map(end).collect(),
            inn: g.inn(id).into_iter().map(end).collect(),
        }
    }
}

/// S1–S5 on one node.
pub fn check_node(n: &Local) -> Vec<Violation> {
    let mut found = Vec::new();
    let mut flag = |rule, message: String| found.push(Violation { rule, node: n.name.to_string(), message });
    let Some(kind) = Kind::parse(n.kind) else {
        flag(Rule::S1, format!("kind {:?} is not one of {}", n.kind, Kind::valid_list()));
        return found;
    };
    for e in &n.out {
        if let Some(problem) = edge_problem(n.name, kind, e) {
            flag(Rule::S2, problem);
        }
    }
    for problem in parent_problems(kind, n) {
        flag(Rule::S3, problem);
    }
    if let Some(problem) = (kind == Kind::Port).then(|| capacity_problem(n)).flatten() {
        flag(Rule::S4, problem);
    }
    if kind == Kind::PacketSwitch
        && !n.out.iter().any(|e| e.rel == Rel::Contains.as_str() && e.kind == "EK_PORT")
    {
        flag(Rule::S5, "switch has no EK_PORT child".into());
    }
    found
}

fn edge_problem(name: &str, kind: Kind, e: &End) -> Option<String> {
    let Some(rel) = Rel::parse(e.rel) else {
        return Some(format!(
            "edge to {} has relation {:?}, not one of {}",
            e.name,
            e.rel,
            Rel::valid_list()
        ));
    };
    if e.name == name {
        return Some(format!("self-loop {rel}"));
    }
    let dst = Kind::parse(e.kind)?;
    edge_rule(rel, kind, dst)
        .is_none()
        .then(|| format!("{rel} edge {kind} -> {dst} ({}) is not allowed", e.name))
}

fn parent_problems(kind: Kind, n: &Local) -> Vec<String> {
    let mut problems = Vec::new();
    if n.out.is_empty() && n.inn.is_empty() {
        problems.push("isolated node (degree 0)".into());
    }
    let has_contains_parent = n.inn.iter().any(|e| e.rel == Rel::Contains.as_str());
    if !kind.is_root() && !has_contains_parent {
        problems.push("orphan: no RK_CONTAINS parent".into());
    }
    // Each group once, at its first rule (the table lists groups in ascending order); this runs
    // for every node a diff touches, so the clean path allocates nothing.
    let of_kind = |r: &&EdgeRule| r.dst == kind;
    for (i, first) in EDGE_RULES.iter().enumerate().filter(|(_, r)| of_kind(r)) {
        let group = first.group;
        if EDGE_RULES[..i].iter().filter(of_kind).any(|r| r.group == group) {
            continue;
        }
        let rules = || EDGE_RULES.iter().filter(move |r| r.dst == kind && r.group == group);
        let parents = || {
            n.inn
                .iter()
                .filter(move |e| rules().any(|r| r.rel.as_str() == e.rel && r.src.as_str() == e.kind))
                .map(|e| e.name)
        };
        let count = parents().count();
        let exactly = match first.parents {
            Parents::One if count > 1 => "exactly one",
            Parents::AtMostOne if count > 1 => "at most one",
            Parents::One if count == 0 && has_contains_parent => "",
            _ => continue,
        };
        let rel = first.rel;
        let what = rules().map(|r| r.src.as_str()).collect::<Vec<_>>().join(" or ");
        problems.push(if exactly.is_empty() {
            format!("no {rel} parent of kind {what}")
        } else {
            let names = parents().collect::<Vec<_>>().join(", ");
            format!("{count} {rel} parents of kind {what} ({names}); {exactly} allowed")
        });
    }
    problems
}

fn capacity_problem(n: &Local) -> Option<String> {
    match &n.capacity {
        None => Some("port has no physical_capacity_bps".into()),
        Some(AttrValue::Int(i)) if *i > 0 => None,
        Some(AttrValue::Float(f)) if f.is_finite() && *f > 0.0 => None,
        Some(v) => {
            Some(format!("physical_capacity_bps {} is not a positive int or finite float", v.py_repr()))
        }
    }
}

/// S6: every scope of the agent's diff occurs in the expected diff; read-only questions need
/// an empty diff.
pub fn check_scope(agent: &[DiffItem], expected: &[DiffItem], read_only: bool) -> Vec<Violation> {
    let allowed: BTreeSet<Scope> = expected.iter().map(DiffItem::scope).collect();
    let mut seen = BTreeSet::new();
    agent
        .iter()
        .filter(|item| read_only || !allowed.contains(&item.scope()))
        .filter(|item| seen.insert(item.scope()))
        .map(|item| {
            let why =
                if read_only { "a read-only question changed" } else { "outside the requested change:" };
            Violation {
                rule: Rule::S6,
                node: item.names()[0].to_string(),
                message: format!("{why} {}", item.scope()),
            }
        })
        .collect()
}

/// The nodes S1–S5 look at: live nodes named by the diff and their live neighbours.
pub fn touched(g: &Working, diff: &[DiffItem]) -> Vec<Id> {
    let mut ids = BTreeSet::new();
    for item in diff {
        for name in item.names() {
            if let Some(id) = g.lookup(name) {
                ids.insert(id);
                ids.extend(g.out(id).into_iter().map(|(v, _)| v));
                ids.extend(g.inn(id).into_iter().map(|(v, _)| v));
            }
        }
    }
    ids.into_iter().collect()
}

/// All six rules on a working graph given its net diff.
pub fn check(g: &Working, diff: &[DiffItem], expected: &[DiffItem], read_only: bool) -> Vec<Violation> {
    let mut found: Vec<Violation> =
        touched(g, diff).into_iter().flat_map(|id| check_node(&Local::of(g, id))).collect();
    found.extend(check_scope(diff, expected, read_only));
    found.sort();
    found
}

/// S1–S5 over every live node (tests of the base topology, `O(nodes)`).
pub fn check_all(g: &Working) -> Vec<Violation> {
    g.nodes().flat_map(|id| check_node(&Local::of(g, id))).collect()
}

/// Violations listed in a report before a count of the rest.
pub const MAX_LISTED: usize = 20;

/// Report lines grouped under their rule: the first [`MAX_LISTED`] violations, then a count.
pub fn report(violations: &[Violation]) -> Vec<String> {
    let shown = &violations[..violations.len().min(MAX_LISTED)];
    let mut lines = Vec::new();
    for rule in Rule::ALL {
        let under: Vec<&Violation> = shown.iter().filter(|v| v.rule == rule).collect();
        if !under.is_empty() {
            lines.push(format!("{} failed:", rule.title()));
            lines.extend(under.iter().map(|v| format!("  {}: {}", v.node, v.message)));
        }
    }
    if violations.len() > shown.len() {
        lines.push(format!("… and {} more violations", violations.len() - shown.len()));
    }
    lines
}

/// The safety rules as explanations name them (`S1–S6 hold`, `S4 port capacity`).
pub const GLOSSARY: &[crate::app::Term] = &[
    crate::app::Term { abbr: "S1–S6", meaning: "all six safety rules below" },
    crate::app::Term { abbr: "S1", meaning: "every node has a valid kind" },
    crate::app::Term { abbr: "S2", meaning: "every edge joins kinds the fabric allows" },
    crate::app::Term { abbr: "S3", meaning: "every node has its parents and the degree its kind needs" },
    crate::app::Term { abbr: "S4", meaning: "port capacities are positive numbers" },
    crate::app::Term { abbr: "S5", meaning: "every switch has ports" },
    crate::app::Term { abbr: "S6", meaning: "nothing changed outside the requested scope" },
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::malt::topo::{Shape, TopoKey, topology};

    fn end<'a>(name: &'a str, kind: &'a str, rel: &'a str) -> End<'a> {
        End { name, kind, rel }
    }

    /// A well-formed port under a switch.
    fn port() -> Local<'static> {
        Local {
            name: "ju1.a1.m1.s2c1.p1",
            kind: "EK_PORT",
            capacity: Some(AttrValue::Int(1_000_000_000)),
            out: vec![],
            inn: vec![end("ju1.a1.m1.s2c1", "EK_PACKET_SWITCH", "RK_CONTAINS")],
        }
    }

    fn rules(n: &Local) -> Vec<Rule> {
        check_node(n).into_iter().map(|v| v.rule).collect()
    }

    /// `parent_problems` visits groups at their first rule, in table order.
    #[test]
    fn edge_rule_groups_ascend() {
        assert!(EDGE_RULES.windows(2).all(|w| w[0].group <= w[1].group));
    }

    #[test]
    fn a_good_port_passes() {
        assert!(check_node(&port()).is_empty());
    }

    #[test]
    fn s1_unknown_kind() {
        let n = Local { kind: "EK_ROUTER", ..port() };
        assert_eq!(rules(&n), [Rule::S1]);
    }

    #[test]
    fn s2_bad_pair_relation_and_self_loop() {
        let mut n = port();
        n.out = vec![
            end("ju1", "EK_JUPITER", "RK_CONTAINS"),
            end("x", "EK_PORT", "RK_LINKS"),
            end("ju1.a1.m1.s2c1.p1", "EK_PORT", "RK_CONTAINS"),
        ];
        assert_eq!(rules(&n), [Rule::S2, Rule::S2, Rule::S2]);
    }

    #[test]
    fn s3_orphan_two_parents_and_isolated() {
        let orphan = Local { inn: vec![], out: vec![end("y", "EK_PORT", "RK_CONTROLS")], ..port() };
        assert!(rules(&orphan).contains(&Rule::S3));
        let mut two = port();
        two.inn.push(end("ju1.a1.m1.s2c2", "EK_PACKET_SWITCH", "RK_CONTAINS"));
        let v = check_node(&two);
        assert!(v[0].message.contains("exactly one allowed"), "{v:?}");
        let isolated = Local { inn: vec![], ..port() };
        let msgs: Vec<String> = check_node(&isolated).into_iter().map(|v| v.message).collect();
        assert!(msgs.iter().any(|m| m.contains("degree 0")), "{msgs:?}");
    }

    #[test]
    fn s4_port_capacity() {
        for bad in [
            AttrValue::Int(0),
            AttrValue::Float(f64::INFINITY),
            AttrValue::Str("10G".into()),
            AttrValue::Bool(true),
        ] {
            let n = Local { capacity: Some(bad), ..port() };
            assert_eq!(rules(&n), [Rule::S4]);
        }
        assert_eq!(rules(&Local { capacity: None, ..port() }), [Rule::S4]);
    }

    #[test]
    fn s5_switch_without_ports() {
        let sw = Local {
            name: "ju1.a1.m1.s2c9",
            kind: "EK_PACKET_SWITCH",
            capacity: None,
            out: vec![],
            inn: vec![end("ju1.a1.m1", "EK_AGG_BLOCK", "RK_CONTAINS")],
        };
        assert_eq!(rules(&sw), [Rule::S5]);
    }

    #[test]
    fn s6_scope_and_read_only() {
        let add = DiffItem::DelNode { node: "a".into() };
        let other = DiffItem::DelNode { node: "b".into() };
        assert!(check_scope(std::slice::from_ref(&add), std::slice::from_ref(&add), false).is_empty());
        let v = check_scope(&[add.clone(), other], std::slice::from_ref(&add), false);
        assert_eq!((v.len(), v[0].rule, v[0].node.as_str()), (1, Rule::S6, "b"));
        assert_eq!(check_scope(&[add], &[], true).len(), 1);
        let lines = report(&v);
        assert_eq!(lines, ["S6 scope failed:", "  b: outside the requested change: node b"]);
    }

    #[test]
    fn base_topologies_pass_everything() {
        for shape in [Shape::SMALL, Shape::DEFAULT] {
            let g = Working::new(topology(TopoKey { shape, seed: 3 }));
            assert_eq!(check_all(&g), Vec::<Violation>::new());
        }
    }

    #[test]
    fn orphaning_removal_is_flagged_on_the_neighbour() {
        let mut g = Working::new(topology(TopoKey { shape: Shape::SMALL, seed: 0 }));
        let sw = g.require("ju1.a1.m1.s2c1").unwrap();
        g.remove_node(sw);
        let diff = g.net_diff();
        let v = check(&g, &diff, &diff, false);
        let rules: BTreeSet<Rule> = v.iter().map(|v| v.rule).collect();
        assert!(rules.contains(&Rule::S3), "ports are orphaned: {v:?}");
    }
}
