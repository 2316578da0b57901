//! Levels 1–3: single changes and single queries, alone (L1) or chained (L2 after a removal,
//! L3 after an addition or a for-each expansion).

use super::super::answer::AnswerType;
use super::super::graph::{Id, Working};
use super::super::kind::Kind;
use super::super::plan::{Action, Child, Plan, Query, highest};
use super::words::{FABRIC, Words};
use super::{Ctx, Draft, Redraw};

fn draft(question: String, actions: Vec<Action>, query: Query) -> Result<Draft, Redraw> {
    Ok(Draft { question, plan: Plan { actions, query } })
}

/// `{change} {query} {ret}` in W1, `{change} {joint}{query} {ret}` in W2/W3.
fn chain(w: Words, change: &str, query: &str, ret: &str) -> String {
    if w.w1() { format!("{change} {query} {ret}") } else { format!("{change} {} {ret}", w.then(query)) }
}

/// A removal drawn by kind weights: the node, its kind, its action and its `{rm}` text.
pub struct Removal {
    pub x: Id,
    pub action: Action,
    pub text: String,
}

pub fn removal(c: &mut Ctx<'_>, weights: &[(Kind, u64)]) -> Result<Removal, Redraw> {
    let kind = weights[c.rng.weighted(&weights.iter().map(|w| w.1).collect::<Vec<_>>())].0;
    let x = c.pick(&c.g.nodes_of(kind), kind.as_str())?;
    let name = c.name(x);
    if kind == Kind::Port {
        let sw = c.g.parents(x);
        let ports = sw.first().map_or(0, |&s| c.g.children(s).len());
        if ports < 2 {
            return Err(Redraw(format!("{name} is its switch's only port")));
        }
    }
    c.set("x_kind", kind.as_str());
    c.set("x", name.clone());
    let action = match kind {
        Kind::Port => Action::RemovePort { port: name.clone() },
        Kind::PacketSwitch => Action::RemoveSwitch { switch: name.clone() },
        _ => Action::RemoveAggBlock { block: name.clone() },
    };
    Ok(Removal { x, action, text: c.w.rm(kind, &name) })
}

/// An addition: the parent, the new node's name, the action and the `{add}` text.
pub struct Addition {
    pub parent: Id,
    pub new: String,
    pub action: Action,
    pub text: String,
}

/// L1-add's parameters: case port/switch/agg block (2/2/1); parent; port: C; switch: st, n, C.
pub fn addition(c: &mut Ctx<'_>) -> Result<Addition, Redraw> {
    let case = [Kind::Port, Kind::PacketSwitch, Kind::AggBlock][c.rng.weighted(&[2, 2, 1])];
    let parents = match case {
        Kind::Port => c.g.nodes_of(Kind::PacketSwitch),
        Kind::PacketSwitch => c.blocks(),
        _ => c.g.nodes_of(Kind::Superblock),
    };
    let parent = c.pick(&parents, "parent")?;
    let pname = c.name(parent);
    c.set("case", case.as_str());
    c.set("parent", pname.clone());
    let (new, new_text, action) = match case {
        Kind::Port => {
            let cap = c.cap();
            let new = Child::Port { cap }.next_name(c.g, parent);
            c.set("capacity_bps", cap);
            (new.clone(), c.w.new_port(&new, cap), Action::AddPort { switch: pname.clone(), port: new, cap })
        }
        Kind::PacketSwitch => {
            let stages = if c.g.kind(parent) == Kind::AggBlock { [2, 3] } else { [1, 2] };
            let stage = *c.rng.choose(&stages);
            let ports = c.rng.range(1, u64::from(c.g.base().shape().p)) as u32;
            let cap = c.cap();
            let new = Child::Switch { stage, ports, cap }.next_name(c.g, parent);
            c.set("stage", stage);
            c.set("ports", ports);
            c.set("capacity_bps", cap);
            let text = c.w.new_switch(&new, stage, ports, cap);
            (new.clone(), text, Action::AddSwitch { block: pname.clone(), switch: new, stage, ports, cap })
        }
        _ => {
            let new = Child::AggBlock.next_name(c.g, parent);
            (new.clone(), c.w.new_agg(&new), Action::AddAggBlock { superblock: pname.clone(), block: new })
        }
    };
    c.set("new", new.clone());
    let text = c.w.add(&new_text, c.g.kind(parent), &pname);
    Ok(Addition { parent, new, action, text })
}

pub fn l1_add(c: &mut Ctx<'_>) -> Result<Draft, Redraw> {
    let add = addition(c)?;
    draft(format!("{} {}", add.text, c.w.ret(AnswerType::Graph, false)), vec![add.action], Query::Graph)
}

pub fn l1_remove(c: &mut Ctx<'_>) -> Result<Draft, Redraw> {
    let rm = removal(c, &[(Kind::Port, 9), (Kind::PacketSwitch, 9), (Kind::AggBlock, 2)])?;
    draft(format!("{} {}", rm.text, c.w.ret(AnswerType::Graph, false)), vec![rm.action], Query::Graph)
}

pub fn l1_update(c: &mut Ctx<'_>) -> Result<Draft, Redraw> {
    let x = c.pick(&c.g.nodes_of(Kind::Port), "port")?;
    let cap = c.cap();
    let name = c.name(x);
    c.set("x", name.clone());
    c.set("capacity_bps", cap);
    if c.g.base().port_capacity(x) == cap {
        return Err(Redraw(format!("{name} already runs at {cap} bps")));
    }
    let w = c.w;
    let sentence = match w.0 {
        1 => format!("Set physical_capacity_bps of EK_PORT {name} to {}.", w.cap(cap)),
        2 => format!("Port {name} is being re-provisioned at {}.", w.cap(cap)),
        _ => format!("Change the capacity of port {name} to {}.", w.cap(cap)),
    };
    let question = format!("{sentence} {}", w.ret(AnswerType::Graph, false));
    draft(question, vec![Action::SetPortCap { port: name, cap }], Query::Graph)
}

/// Distinct kinds of some nodes, in [`Kind::ALL`] order.
fn kinds_of(g: &Working, ids: &[Id]) -> Vec<Kind> {
    Kind::ALL.into_iter().filter(|k| ids.iter().any(|&i| g.kind(i) == *k)).collect()
}

fn set_y(c: &mut Ctx<'_>, y: Id) -> String {
    let name = c.name(y);
    c.set("y", name.clone());
    c.set("y_kind", c.g.kind(y).as_str());
    name
}

pub fn l1_list(c: &mut Ctx<'_>) -> Result<Draft, Redraw> {
    let y = c.kind_first(&Kind::CONTAINERS)?;
    let name = set_y(c, y);
    let drawn = ["a", "b", "c"][c.rng.weighted(&[2, 1, 1])];
    let (children, desc) = (c.g.children(y), c.g.descendants(y));
    let eligible: Vec<Kind> = match drawn {
        "b" => kinds_of(c.g, &children),
        "c" => kinds_of(c.g, &desc)
            .into_iter()
            .filter(|k| desc.iter().filter(|&&d| c.g.kind(d) == *k).count() <= 1024)
            .collect(),
        _ => Vec::new(),
    };
    let mode = match drawn {
        "b" if eligible.len() >= 2 => "b",
        "c" if !eligible.is_empty() => "c",
        _ => "a",
    };
    c.set("mode", mode);
    let k = (mode != "a").then(|| *c.rng.choose(&eligible));
    if let Some(k) = k {
        c.set("k_kind", k.as_str());
    }
    let ykind = c.g.kind(y);
    let question =
        format!("{} {}", c.w.list(&name, ykind, k, mode == "c", false), c.w.ret(AnswerType::List, false));
    let query = match k {
        Some(kind) if mode == "c" => Query::Descendants { y: name, kind },
        kind => Query::Children { y: name, kind },
    };
    draft(question, vec![], query)
}

pub fn l1_count(c: &mut Ctx<'_>) -> Result<Draft, Redraw> {
    let global = c.rng.chance(1, 4);
    c.set("global", global);
    let (k, y) = if global {
        (*c.rng.choose(&Kind::ALL), None)
    } else {
        let y = c.kind_first(&Kind::CONTAINERS)?;
        let name = set_y(c, y);
        let kinds = kinds_of(c.g, &c.g.descendants(y));
        (*c.rng.choose(&kinds), Some((c.g.kind(y), name)))
    };
    c.set("k_kind", k.as_str());
    let sentence = c.w.count(k, y.as_ref().map(|(yk, n)| (*yk, n.as_str())));
    let question = format!("{sentence} {}", c.w.ret(AnswerType::Text, false));
    draft(question, vec![], Query::Count { kind: k, under: y.map(|(_, n)| n) })
}

/// dir 1/2, no k 1/2, else k ∈ 1..n−1 over the `n` children `y` has in `g`.
fn rank_params(c: &mut Ctx<'_>, g: &Working, y: Id) -> (bool, Option<usize>) {
    let high = c.rng.chance(1, 2);
    let all = c.rng.chance(1, 2);
    let n = g.children(y).len() as u64;
    let k = (!all && n >= 2).then(|| c.rng.range(1, n - 1) as usize);
    c.set("dir", if high { "high" } else { "low" });
    c.set("k", k);
    (high, k)
}

pub fn l1_rank(c: &mut Ctx<'_>) -> Result<Draft, Redraw> {
    let y = c.kind_first(&Kind::RANK)?;
    let name = set_y(c, y);
    let (high, k) = rank_params(c, c.g, y);
    let question = format!("{} {}", c.w.rank(&name, high, k, false), c.w.ret(AnswerType::Table, false));
    draft(question, vec![], Query::Rank { y: name, high, k })
}

const L2_KINDS: [(Kind, u64); 2] = [(Kind::Port, 1), (Kind::PacketSwitch, 1)];

pub fn l2_remove_list(c: &mut Ctx<'_>) -> Result<Draft, Redraw> {
    let rm = removal(c, &L2_KINDS)?;
    let y = c.pick(&c.g.parents(rm.x), "parent")?;
    let name = set_y(c, y);
    let query = c.w.list(&name, c.g.kind(y), None, false, true);
    let question = chain(c.w, &rm.text, &query, c.w.ret(AnswerType::List, false));
    draft(question, vec![rm.action], Query::Children { y: name, kind: None })
}

/// Nodes of `ids` whose kind is a rank kind.
fn rankable(g: &Working, ids: Vec<Id>) -> Vec<Id> {
    ids.into_iter().filter(|&i| Kind::RANK.contains(&g.kind(i))).collect()
}

pub fn l2_remove_rank(c: &mut Ctx<'_>) -> Result<Draft, Redraw> {
    let rm = removal(c, &L2_KINDS)?;
    let y = c.pick(&rankable(c.g, c.g.ancestors(rm.x)), "ranked ancestor")?;
    let name = set_y(c, y);
    let after = c.after(std::slice::from_ref(&rm.action))?;
    let (high, k) = rank_params(c, &after, y);
    let question = chain(c.w, &rm.text, &c.w.rank(&name, high, k, true), c.w.ret(AnswerType::Table, false));
    draft(question, vec![rm.action], Query::Rank { y: name, high, k })
}

/// The kinds of `wanted` present in desc(y) of `g`.
fn present(g: &Working, y: Id, wanted: &[Kind]) -> Vec<Kind> {
    let kinds = kinds_of(g, &g.descendants(y));
    wanted.iter().copied().filter(|k| kinds.contains(k)).collect()
}

pub fn l2_remove_count(c: &mut Ctx<'_>) -> Result<Draft, Redraw> {
    let rm = removal(c, &L2_KINDS)?;
    let y = c.pick(&c.g.ancestors(rm.x), "ancestor")?;
    let name = set_y(c, y);
    let kinds = present(c.g, y, &[Kind::Port, Kind::PacketSwitch]);
    let k = *c.rng.choose(&kinds);
    c.set("k_kind", k.as_str());
    let w = c.w;
    let query = if w.w1() {
        format!("How many {} remain in {name}?", w.kinds(k))
    } else {
        w.count(k, Some((c.g.kind(y), &name)))
    };
    let question = chain(w, &rm.text, &query, w.ret(AnswerType::Text, false));
    draft(question, vec![rm.action], Query::Count { kind: k, under: Some(name) })
}

pub fn l3_add_list(c: &mut Ctx<'_>) -> Result<Draft, Redraw> {
    let add = addition(c)?;
    let parent = c.name(add.parent);
    let query = c.w.list(&parent, c.g.kind(add.parent), None, false, true);
    let question = chain(c.w, &add.text, &query, c.w.ret(AnswerType::List, false));
    draft(question, vec![add.action], Query::Children { y: parent, kind: None })
}

/// The ancestors of the newly added node in the updated graph.
fn new_ancestors(after: &Working, add: &Addition) -> Result<Vec<Id>, Redraw> {
    let new = after.lookup(&add.new).ok_or_else(|| Redraw(format!("{} was not added", add.new)))?;
    Ok(after.ancestors(new))
}

pub fn l3_add_rank(c: &mut Ctx<'_>) -> Result<Draft, Redraw> {
    let add = addition(c)?;
    let after = c.after(std::slice::from_ref(&add.action))?;
    let y = c.pick(&rankable(&after, new_ancestors(&after, &add)?), "ranked ancestor")?;
    let name = after.name(y).to_string();
    c.set("y", name.clone());
    c.set("y_kind", after.kind(y).as_str());
    let (high, k) = rank_params(c, &after, y);
    let question = chain(c.w, &add.text, &c.w.rank(&name, high, k, true), c.w.ret(AnswerType::Table, false));
    draft(question, vec![add.action], Query::Rank { y: name, high, k })
}

pub fn l3_add_count(c: &mut Ctx<'_>) -> Result<Draft, Redraw> {
    let add = addition(c)?;
    let after = c.after(std::slice::from_ref(&add.action))?;
    let y = c.pick(&new_ancestors(&after, &add)?, "ancestor")?;
    let name = after.name(y).to_string();
    c.set("y", name.clone());
    c.set("y_kind", after.kind(y).as_str());
    let kinds = present(&after, y, &[Kind::Port, Kind::PacketSwitch, Kind::AggBlock]);
    let k = *c.rng.choose(&kinds);
    c.set("k_kind", k.as_str());
    let w = c.w;
    let query = if w.w1() {
        format!("How many {} does {name} contain in the updated graph?", w.kinds(k))
    } else {
        w.count(k, Some((after.kind(y), &name)))
    };
    let question = chain(w, &add.text, &query, w.ret(AnswerType::Text, false));
    draft(question, vec![add.action], Query::Count { kind: k, under: Some(name) })
}

/// L3-foreach-count: case a (every switch gets a port), b (every aggregation block gets a
/// switch with ports), c (every superblock gets an aggregation block); Z ∈ {Y, fabric}.
pub fn l3_foreach_count(c: &mut Ctx<'_>) -> Result<Draft, Redraw> {
    let case = c.rng.weighted(&[2, 2, 1]);
    let ju = c.g.require(FABRIC).map_err(|_| Redraw("no fabric".into()))?;
    let scopes: Vec<Vec<Id>> = match case {
        0 => vec![c.blocks(), c.g.nodes_of(Kind::Superblock), vec![ju]],
        1 => vec![c.g.nodes_of(Kind::Superblock), vec![ju]],
        _ => vec![vec![ju]],
    };
    let category = c.rng.index(scopes.len());
    let y = c.pick(&scopes[category], "scope")?;
    let (per, placeholder, what) = match case {
        0 => (Kind::PacketSwitch, "<switch>", Child::Port { cap: c.cap() }),
        1 => {
            let stage = *c.rng.choose(&[2, 3]);
            let ports = c.rng.range(1, u64::from(c.g.base().shape().p)) as u32;
            (Kind::AggBlock, "<block>", Child::Switch { stage, ports, cap: c.cap() })
        }
        _ => (Kind::Superblock, "<sb>", Child::AggBlock),
    };
    let z = if c.rng.chance(1, 2) { y } else { ju };
    let (yname, zname) = (c.name(y), c.name(z));
    let targets: Vec<Id> = c.g.descendants(y).into_iter().filter(|&t| c.g.kind(t) == per).collect();
    let numbers: Vec<u32> = targets.iter().map(|&t| highest(c.g, t, &what.prefix(c.g.name(t))) + 1).collect();
    let Some(&number) = numbers.first().filter(|&&n| numbers.iter().all(|&m| m == n)) else {
        return Err(Redraw("the new children would be numbered differently".into()));
    };
    let new = format!("{}{number}", what.prefix(placeholder));
    c.set("case", ["port", "switch", "agg_block"][case]);
    c.set("y", yname.clone());
    c.set("z", zname.clone());
    c.set("new", new.clone());
    c.set("what", serde_json::to_value(&what).unwrap_or_default());
    let w = c.w;
    let new_text = match &what {
        Child::Port { cap } => w.new_port(&new, *cap),
        Child::Switch { stage, ports, cap } => w.new_switch(&new, *stage, *ports, *cap),
        Child::AggBlock => w.new_agg(&new),
    };
    let ck = what.kind();
    let (yy, zz) = (w.node(&yname), w.node(&zname));
    let sentence = match w.0 {
        1 => format!(
            "For each {} in {yy}, add {new_text}. Then count the {} in {zz}.",
            w.kind(per),
            w.kinds(ck)
        ),
        2 => format!(
            "Give every {} of {yy} one more {}: {new_text}. How many {} does {zz} have afterwards?",
            w.kind(per),
            w.kind(ck),
            w.kinds(ck)
        ),
        _ => format!(
            "Expansion plan: add {new_text} to each {} in {yy}, then report the {} count of {zz}.",
            w.kind(per),
            w.kind(ck)
        ),
    };
    let question = format!("{sentence} {}", w.ret(AnswerType::Text, false));
    let action = Action::ForEach { scope: yname, per, what };
    draft(question, vec![action], Query::Count { kind: ck, under: Some(zname) })
}
