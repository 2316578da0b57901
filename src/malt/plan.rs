//! What a task asks for, resolved: the intended actions and the query (docs/malt.md, "Tasks").
//!
//! The generator draws a [`Plan`] and applies it natively to compute the ground truth; the
//! oracle renders the same plan as Python against the G API (`malt::python`); the
//! baseline parses W1 questions back into plans. Group actions (every switch of a block, every
//! superblock of the fabric) stay groups, so the Python they become stays short on any shape.

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::answer::AnswerType;
use super::graph::{Capacity, GraphResult, Id, Working};
use super::kind::{AttrValue, Kind, Rel};

/// One intended change.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "action", rename_all = "snake_case")]
pub enum Action {
    /// Port `port` of capacity `cap` under `switch`.
    AddPort {
        switch: String,
        port: String,
        cap: i64,
    },
    /// Switch `switch` (stage `stage`) in `block` with ports `.p1..p{ports}` of `cap`.
    AddSwitch {
        block: String,
        switch: String,
        stage: i64,
        ports: u32,
        cap: i64,
    },
    /// An empty aggregation block `block` in `superblock`.
    AddAggBlock {
        superblock: String,
        block: String,
    },
    RemovePort {
        port: String,
    },
    /// A switch with its ports.
    RemoveSwitch {
        switch: String,
    },
    /// An aggregation block with its switches and their ports.
    RemoveAggBlock {
        block: String,
    },
    /// Every port of `switch` set to `cap`.
    SetPortCaps {
        switch: String,
        cap: i64,
    },
    /// Port `port` set to `cap`.
    SetPortCap {
        port: String,
        cap: i64,
    },
    /// Every switch of `block` gets `count` ports of `cap`, numbered after its highest port.
    AddPortsEach {
        block: String,
        count: u32,
        cap: i64,
    },
    /// Every node of kind `per` in desc(`scope`) gets one new child `what`, numbered after the
    /// highest existing one.
    ForEach {
        scope: String,
        per: Kind,
        what: Child,
    },
}

/// The child a [`Action::ForEach`] adds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "child", rename_all = "snake_case")]
pub enum Child {
    Port { cap: i64 },
    Switch { stage: i64, ports: u32, cap: i64 },
    AggBlock,
}

/// What is asked after the actions.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "query", rename_all = "snake_case")]
pub enum Query {
    /// The updated graph itself.
    Graph,
    /// children(y) [∩ kind].
    Children { y: String, kind: Option<Kind> },
    /// desc(y) ∩ kind.
    Descendants { y: String, kind: Kind },
    /// |kind ∩ desc(under)| or |kind| in the graph.
    Count { kind: Kind, under: Option<String> },
    /// R(y, dir, k).
    Rank { y: String, high: bool, k: Option<usize> },
    /// cap(y).
    Capacity { y: String },
    /// The child of `z` with the least (or most) capacity, ties by smallest name.
    Extreme { z: String, least: bool },
    /// FD(x) ∩ FD(x2).
    SharedRisk { x: String, x2: String },
}

/// Actions then a query.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Plan {
    pub actions: Vec<Action>,
    pub query: Query,
}

/// The ground truth of a query.
#[derive(Debug, Clone, PartialEq)]
pub struct Truth {
    pub ty: AnswerType,
    pub value: Value,
    pub ordered: bool,
}

/// The highest number `k` among the children of `parent` named `{prefix}{k}` (0 if none).
pub fn highest(g: &Working, parent: Id, prefix: &str) -> u32 {
    g.children(parent)
        .into_iter()
        .filter_map(|c| g.name(c).strip_prefix(prefix).and_then(|rest| rest.parse::<u32>().ok()))
        .max()
        .unwrap_or(0)
}

fn cap_attr(cap: i64) -> Vec<(String, AttrValue)> {
    vec![("physical_capacity_bps".into(), AttrValue::Int(cap))]
}

fn add_port(g: &mut Working, sw: Id, name: &str, cap: i64) -> GraphResult<()> {
    let p = g.add_node(name, Kind::Port, cap_attr(cap))?;
    g.add_edge(sw, p, Rel::Contains)
}

fn add_switch(g: &mut Working, block: Id, name: &str, stage: i64, ports: u32, cap: i64) -> GraphResult<()> {
    let sw = g.add_node(name, Kind::PacketSwitch, vec![("stage".into(), AttrValue::Int(stage))])?;
    g.add_edge(block, sw, Rel::Contains)?;
    (1..=ports).try_for_each(|n| add_port(g, sw, &format!("{name}.p{n}"), cap))
}

fn add_agg(g: &mut Working, sb: Id, name: &str) -> GraphResult<()> {
    let b = g.add_node(name, Kind::AggBlock, vec![])?;
    g.add_edge(sb, b, Rel::Contains)
}

fn remove_switch(g: &mut Working, sw: Id) {
    for p in of_kind(g, g.children(sw), Kind::Port) {
        g.remove_node(p);
    }
    g.remove_node(sw);
}

fn of_kind(g: &Working, ids: Vec<Id>, kind: Kind) -> Vec<Id> {
    ids.into_iter().filter(|&c| g.kind(c) == kind).collect()
}

impl Action {
    /// Applies the action natively.
    pub fn apply(&self, g: &mut Working) -> GraphResult<()> {
        match self {
            Action::AddPort { switch, port, cap } => add_port(g, g.require(switch)?, port, *cap),
            Action::AddSwitch { block, switch, stage, ports, cap } => {
                add_switch(g, g.require(block)?, switch, *stage, *ports, *cap)
            }
            Action::AddAggBlock { superblock, block } => add_agg(g, g.require(superblock)?, block),
            Action::RemovePort { port } => {
                g.remove_node(g.require(port)?);
                Ok(())
            }
            Action::RemoveSwitch { switch } => {
                remove_switch(g, g.require(switch)?);
                Ok(())
            }
            Action::RemoveAggBlock { block } => {
                let b = g.require(block)?;
                for sw in of_kind(g, g.children(b), Kind::PacketSwitch) {
                    remove_switch(g, sw);
                }
                g.remove_node(b);
                Ok(())
            }
            Action::SetPortCaps { switch, cap } => {
                for p in of_kind(g, g.children(g.require(switch)?), Kind::Port) {
                    g.set_attr(p, "physical_capacity_bps", AttrValue::Int(*cap))?;
                }
                Ok(())
            }
            Action::SetPortCap { port, cap } => {
                g.set_attr(g.require(port)?, "physical_capacity_bps", AttrValue::Int(*cap))
            }
            Action::AddPortsEach { block, count, cap } => {
                for sw in of_kind(g, g.children(g.require(block)?), Kind::PacketSwitch) {
                    let prefix = format!("{}.p", g.name(sw));
                    let m = highest(g, sw, &prefix);
                    for k in 1..=*count {
                        add_port(g, sw, &format!("{prefix}{}", m + k), *cap)?;
                    }
                }
                Ok(())
            }
            Action::ForEach { scope, per, what } => {
                for target in of_kind(g, g.descendants(g.require(scope)?), *per) {
                    what.add_to(g, target)?;
                }
                Ok(())
            }
        }
    }
}

impl Child {
    /// The name prefix of this child under `parent`, before its number.
    pub fn prefix(&self, parent: &str) -> String {
        match self {
            Child::Port { .. } => format!("{parent}.p"),
            Child::Switch { stage, .. } => format!("{parent}.s{stage}c"),
            Child::AggBlock => format!("{parent}.m"),
        }
    }

    /// The name the child would get under `parent`.
    pub fn next_name(&self, g: &Working, parent: Id) -> String {
        let prefix = self.prefix(g.name(parent));
        format!("{prefix}{}", highest(g, parent, &prefix) + 1)
    }

    fn add_to(&self, g: &mut Working, parent: Id) -> GraphResult<()> {
        let name = self.next_name(g, parent);
        match self {
            Child::Port { cap } => add_port(g, parent, &name, *cap),
            Child::Switch { stage, ports, cap } => add_switch(g, parent, &name, *stage, *ports, *cap),
            Child::AggBlock => add_agg(g, parent, &name),
        }
    }

    pub fn kind(&self) -> Kind {
        match self {
            Child::Port { .. } => Kind::Port,
            Child::Switch { .. } => Kind::PacketSwitch,
            Child::AggBlock => Kind::AggBlock,
        }
    }
}

/// R(y, dir, k): children of `y` with their capacity, by capacity (descending when `high`)
/// then by name ascending, first `k` rows.
pub fn ranking(g: &Working, y: Id, high: bool, k: Option<usize>) -> Vec<(String, AttrValue)> {
    let mut rows: Vec<(String, Capacity)> =
        g.children(y).into_iter().map(|c| (g.name(c).to_string(), g.capacity(c))).collect();
    rows.sort_by(|a, b| {
        let by_cap = if high { b.1.total_cmp(&a.1) } else { a.1.total_cmp(&b.1) };
        by_cap.then_with(|| a.0.cmp(&b.0))
    });
    rows.truncate(k.unwrap_or(usize::MAX));
    rows.into_iter().map(|(n, c)| (n, c.value())).collect()
}

/// FD(s): the aggregation/spine blocks, superblocks and racks above `s`, and the control
/// domains of the control points that control it.
pub fn failure_domains(g: &Working, s: Id) -> Vec<Id> {
    const KINDS: [Kind; 4] = [Kind::AggBlock, Kind::Spineblock, Kind::Superblock, Kind::Rack];
    let mut out: Vec<Id> = g.ancestors(s).into_iter().filter(|&a| KINDS.contains(&g.kind(a))).collect();
    for (cp, rel) in g.inn(s) {
        if rel == Rel::Controls {
            out.extend(g.ancestors(cp).into_iter().filter(|&a| g.kind(a) == Kind::ControlDomain));
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

fn names(g: &Working, ids: impl IntoIterator<Item = Id>) -> Value {
    Value::Array(ids.into_iter().map(|id| Value::from(g.name(id))).collect())
}

fn number(v: AttrValue) -> Value {
    serde_json::to_value(v).unwrap_or(Value::Null)
}

impl Query {
    /// The answer on a graph the actions have been applied to.
    pub fn evaluate(&self, g: &Working) -> GraphResult<Truth> {
        let truth = |ty, value| Truth { ty, value, ordered: false };
        Ok(match self {
            Query::Graph => truth(AnswerType::Graph, Value::Null),
            Query::Children { y, kind } => {
                let ids =
                    g.children(g.require(y)?).into_iter().filter(|&c| kind.is_none_or(|k| g.kind(c) == k));
                truth(AnswerType::List, names(g, ids))
            }
            Query::Descendants { y, kind } => {
                truth(AnswerType::List, names(g, of_kind(g, g.descendants(g.require(y)?), *kind)))
            }
            Query::Count { kind, under } => {
                let n = match under {
                    Some(y) => of_kind(g, g.descendants(g.require(y)?), *kind).len(),
                    None => g.node_count(Some(*kind)),
                };
                truth(AnswerType::Text, json!(n))
            }
            Query::Rank { y, high, k } => {
                let rows = ranking(g, g.require(y)?, *high, *k);
                let value = rows.into_iter().map(|(n, v)| json!([n, number(v)])).collect();
                Truth { ty: AnswerType::Table, value: Value::Array(value), ordered: true }
            }
            Query::Capacity { y } => truth(AnswerType::Text, number(g.capacity(g.require(y)?).value())),
            Query::Extreme { z, least } => {
                let rows = ranking(g, g.require(z)?, !*least, Some(1));
                truth(AnswerType::Text, rows.first().map_or(Value::Null, |(n, _)| Value::from(n.as_str())))
            }
            Query::SharedRisk { x, x2 } => {
                let a = failure_domains(g, g.require(x)?);
                let b = failure_domains(g, g.require(x2)?);
                truth(AnswerType::List, names(g, a.into_iter().filter(|d| b.contains(d))))
            }
        })
    }
}

impl Plan {
    /// The existing nodes the plan names (the new ones are left out), for pictures.
    pub fn named(&self) -> Vec<String> {
        let mut names = Vec::new();
        for a in &self.actions {
            names.push(match a {
                Action::AddPort { switch, .. } | Action::SetPortCaps { switch, .. } => switch,
                Action::RemoveSwitch { switch } => switch,
                Action::AddSwitch { block, .. } | Action::AddPortsEach { block, .. } => block,
                Action::RemoveAggBlock { block } => block,
                Action::AddAggBlock { superblock, .. } => superblock,
                Action::RemovePort { port } | Action::SetPortCap { port, .. } => port,
                Action::ForEach { scope, .. } => scope,
            });
        }
        match &self.query {
            Query::Graph | Query::Count { under: None, .. } => {}
            Query::Children { y, .. } | Query::Descendants { y, .. } | Query::Rank { y, .. } => names.push(y),
            Query::Count { under: Some(y), .. } | Query::Capacity { y } => names.push(y),
            Query::Extreme { z, .. } => names.push(z),
            Query::SharedRisk { x, x2 } => names.extend([x, x2]),
        }
        names.into_iter().cloned().collect()
    }

    /// Applies the actions to `g` and evaluates the query.
    pub fn run(&self, g: &mut Working) -> GraphResult<Truth> {
        for action in &self.actions {
            action.apply(g)?;
        }
        self.query.evaluate(g)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::malt::topo::{Shape, TopoKey, topology};

    fn small() -> Working {
        Working::new(topology(TopoKey { shape: Shape::SMALL, seed: 0 }))
    }

    #[test]
    fn for_each_numbers_after_the_highest_child() {
        let mut g = small();
        let plan = Plan {
            actions: vec![Action::ForEach {
                scope: "ju1.a1.m1".into(),
                per: Kind::PacketSwitch,
                what: Child::Port { cap: 5_000_000_000 },
            }],
            query: Query::Count { kind: Kind::Port, under: Some("ju1.a1".into()) },
        };
        let truth = plan.run(&mut g).unwrap();
        assert_eq!(truth.value, json!(2 * 4 * 4 + 4));
        assert!(g.lookup("ju1.a1.m1.s3c2.p5").is_some());
    }

    #[test]
    fn rank_ties_by_name_and_extreme() {
        let mut g = small();
        Action::RemovePort { port: "ju1.a1.m2.s2c1.p1".into() }.apply(&mut g).unwrap();
        let rows = ranking(&g, g.require("ju1.a1").unwrap(), false, None);
        assert_eq!(rows[0].0, "ju1.a1.m2", "lowest first after the removal");
        let q = Query::Extreme { z: "ju1.a1".into(), least: false };
        let truth = q.evaluate(&g).unwrap();
        let expected = if ranking(&g, g.require("ju1.a1").unwrap(), true, None)[0].0 == "ju1.a1.m1" {
            "ju1.a1.m1"
        } else {
            "ju1.a1.m2"
        };
        assert_eq!(truth.value, json!(expected));
    }

    #[test]
    fn shared_risk_of_block_mates() {
        let g = small();
        let q = Query::SharedRisk { x: "ju1.a1.m1.s2c1".into(), x2: "ju1.a1.m1.s3c1".into() };
        let v = q.evaluate(&g).unwrap().value;
        assert_eq!(v, json!(["ju1.a1", "ju1.a1.m1", "ju1.a1.m1rack", "ju1.a1.dom"]));
        let q = Query::SharedRisk { x: "ju1.a1.m1.s2c1".into(), x2: "ju1.s1.s1c1".into() };
        assert_eq!(q.evaluate(&g).unwrap().value, json!([]));
    }

    #[test]
    fn removals_cascade_as_stated() {
        let mut g = small();
        Action::RemoveAggBlock { block: "ju1.a2.m1".into() }.apply(&mut g).unwrap();
        assert_eq!(g.node_count(None), 187 - 1 - 4 - 16);
        assert!(g.lookup("ju1.a2.m1.s2c1-chassis").is_some(), "chassis stay");
    }
}
