//! The working graph: a copy-on-write overlay over a shared base topology (docs/malt.md, "The topology").
//!
//! An agent's run, and the generator's intended operations, change only the overlay (added
//! and removed nodes and edges, attribute overrides, an op log), so a task over a million-node
//! topology costs memory in proportion to its changes. Node ids are canonical positions: base
//! nodes keep their base index and added nodes follow in order of addition, so sorting ids
//! gives the documented order.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::sync::Arc;

use fixedbitset::FixedBitSet;

use super::diff::DiffItem;
use super::kind::{AttrValue, Kind, Rel, valid_name};
use super::topo::Topology;

/// A node of a working graph (its canonical position).
pub type Id = u32;

/// Why a graph operation was refused; the G API raises it as the named Python exception.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GraphError {
    /// `KeyError`: a missing node or edge.
    NotFound(String),
    /// `ValueError`: a malformed request.
    Invalid(String),
}

pub type GraphResult<T> = Result<T, GraphError>;

/// Attributes in insertion order (Python dict order).
pub type Attrs = Vec<(String, AttrValue)>;

fn set_in(attrs: &mut Attrs, key: &str, value: AttrValue) {
    match attrs.iter_mut().find(|(k, _)| k == key) {
        Some((_, v)) => *v = value,
        None => attrs.push((key.to_string(), value)),
    }
}

#[derive(Debug, Clone)]
struct Added {
    name: String,
    kind: Kind,
    attrs: Attrs,
    live: bool,
}

/// A total capacity: an integer unless a float capacity was summed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Capacity {
    Int(i128),
    Float(f64),
}

impl Capacity {
    pub fn as_f64(self) -> f64 {
        match self {
            Capacity::Int(i) => i as f64,
            Capacity::Float(f) => f,
        }
    }

    /// As an attribute value: an `int` when it fits 64 bits, else a `float`.
    pub fn value(self) -> AttrValue {
        match self {
            Capacity::Int(i) => i64::try_from(i).map_or(AttrValue::Float(i as f64), AttrValue::Int),
            Capacity::Float(f) => AttrValue::Float(f),
        }
    }

    /// Exact for integers, by value otherwise.
    pub fn total_cmp(&self, other: &Capacity) -> std::cmp::Ordering {
        match (self, other) {
            (Capacity::Int(a), Capacity::Int(b)) => a.cmp(b),
            _ => self.as_f64().total_cmp(&other.as_f64()),
        }
    }

    fn add(self, v: &AttrValue) -> Capacity {
        match (self, v) {
            (Capacity::Int(a), AttrValue::Int(b)) => Capacity::Int(a + i128::from(*b)),
            (Capacity::Int(a), AttrValue::Float(b)) => Capacity::Float(a as f64 + b),
            (Capacity::Float(a), v) => Capacity::Float(a + v.as_number().unwrap_or(0.0)),
            (c, _) => c,
        }
    }
}

/// A base topology plus the changes made to it.
#[derive(Debug, Clone)]
pub struct Working {
    base: Arc<Topology>,
    /// Base nodes removed (lookups only; sorted when listed).
    removed: HashSet<Id>,
    /// Added nodes; the node `base.len() + i` is `added[i]`.
    added: Vec<Added>,
    /// Live added nodes by name.
    added_names: HashMap<String, Id>,
    /// Attribute changes of base nodes.
    overrides: BTreeMap<Id, Attrs>,
    /// Base edges removed while both ends stay.
    removed_edges: HashSet<(Id, Id)>,
    /// Overlay edges by source and by destination.
    extra_out: BTreeMap<Id, Vec<(Id, Rel)>>,
    extra_in: BTreeMap<Id, Vec<(Id, Rel)>>,
    ops: Vec<String>,
}

impl Working {
    pub fn new(base: Arc<Topology>) -> Working {
        Working {
            base,
            removed: HashSet::new(),
            added: Vec::new(),
            added_names: HashMap::new(),
            overrides: BTreeMap::new(),
            removed_edges: HashSet::new(),
            extra_out: BTreeMap::new(),
            extra_in: BTreeMap::new(),
            ops: Vec::new(),
        }
    }

    pub fn base(&self) -> &Arc<Topology> {
        &self.base
    }

    /// The operations applied, one line each.
    pub fn ops(&self) -> &[String] {
        &self.ops
    }

    fn base_len(&self) -> Id {
        self.base.len() as Id
    }

    fn added_node(&self, id: Id) -> Option<&Added> {
        id.checked_sub(self.base_len()).and_then(|i| self.added.get(i as usize))
    }

    pub fn is_live(&self, id: Id) -> bool {
        match self.added_node(id) {
            Some(a) => a.live,
            None => id < self.base_len() && !self.removed.contains(&id),
        }
    }

    /// The live node called `name`.
    pub fn lookup(&self, name: &str) -> Option<Id> {
        if let Some(&id) = self.added_names.get(name) {
            return Some(id);
        }
        self.base.lookup(name).filter(|id| !self.removed.contains(id))
    }

    /// The live node called `name`, or `KeyError: node not found: 'x'`.
    pub fn require(&self, name: &str) -> GraphResult<Id> {
        self.lookup(name).ok_or_else(|| GraphError::NotFound(format!("node not found: {}", quote(name))))
    }

    pub fn name(&self, id: Id) -> &str {
        match self.added_node(id) {
            Some(a) => &a.name,
            None => self.base.name(id),
        }
    }

    pub fn kind(&self, id: Id) -> Kind {
        match self.added_node(id) {
            Some(a) => a.kind,
            None => self.base.kind(id),
        }
    }

    /// Effective attributes (without `name` and `kind`), in insertion order.
    pub fn attrs(&self, id: Id) -> Attrs {
        if let Some(a) = self.added_node(id) {
            return a.attrs.clone();
        }
        let mut attrs: Attrs = self.base.attrs(id).into_iter().map(|(k, v)| (k.to_string(), v)).collect();
        for (k, v) in self.overrides.get(&id).into_iter().flatten() {
            set_in(&mut attrs, k, v.clone());
        }
        attrs
    }

    pub fn attr(&self, id: Id, key: &str) -> Option<AttrValue> {
        if let Some(a) = self.added_node(id) {
            return a.attrs.iter().find(|(k, _)| k == key).map(|(_, v)| v.clone());
        }
        let over = self.overrides.get(&id).and_then(|o| o.iter().find(|(k, _)| k == key));
        match over {
            Some((_, v)) => Some(v.clone()),
            None => self.base.attr(id, key),
        }
    }

    /// A port's `physical_capacity_bps`, if it is a number.
    fn port_capacity(&self, id: Id) -> Option<AttrValue> {
        if id < self.base_len() && !self.overrides.contains_key(&id) {
            return Some(AttrValue::Int(self.base.port_capacity(id)));
        }
        self.attr(id, "physical_capacity_bps").filter(|v| v.as_number().is_some())
    }

    /// Live out-neighbours with their relation, in canonical order.
    pub fn out(&self, id: Id) -> Vec<(Id, Rel)> {
        self.neighbours(id, true)
    }

    /// Live in-neighbours with their relation, in canonical order.
    pub fn inn(&self, id: Id) -> Vec<(Id, Rel)> {
        self.neighbours(id, false)
    }

    fn neighbours(&self, id: Id, out: bool) -> Vec<(Id, Rel)> {
        let mut list = Vec::new();
        self.each_neighbour(id, out, |n| list.push(n));
        list.sort_unstable();
        list
    }

    /// Calls `f` on each live out- (`out`) or in-neighbour, in no particular order.
    fn each_neighbour(&self, id: Id, out: bool, mut f: impl FnMut((Id, Rel))) {
        if id < self.base_len() && !self.removed.contains(&id) {
            let pair = |other: Id| if out { (id, other) } else { (other, id) };
            self.base
                .edges_unordered(id, out)
                .filter(|&(o, _)| !self.removed.contains(&o) && !self.removed_edges.contains(&pair(o)))
                .for_each(&mut f);
        }
        let extra = if out { &self.extra_out } else { &self.extra_in };
        extra.get(&id).into_iter().flatten().copied().for_each(f);
    }

    /// The relation of the live edge `u → v`.
    pub fn edge(&self, u: Id, v: Id) -> Option<Rel> {
        if !self.is_live(u) || !self.is_live(v) {
            return None;
        }
        let base_edge = u < self.base_len() && v < self.base_len() && !self.removed_edges.contains(&(u, v));
        if let Some(rel) = self.base.edge(u, v).filter(|_| base_edge) {
            return Some(rel);
        }
        self.extra_out.get(&u).and_then(|l| l.iter().find(|(w, _)| *w == v)).map(|&(_, r)| r)
    }

    /// Every live node in canonical order.
    pub fn nodes(&self) -> impl Iterator<Item = Id> + '_ {
        let base = (0..self.base_len()).filter(|id| !self.removed.contains(id));
        let added =
            self.added.iter().enumerate().filter(|(_, a)| a.live).map(|(i, _)| self.base_len() + i as Id);
        base.chain(added)
    }

    /// Live nodes of one kind in canonical order.
    pub fn nodes_of(&self, kind: Kind) -> Vec<Id> {
        let base = self.base.of_kind(kind).iter().copied().filter(|id| !self.removed.contains(id));
        let added = self
            .added
            .iter()
            .enumerate()
            .filter(|(_, a)| a.live && a.kind == kind)
            .map(|(i, _)| self.base_len() + i as Id);
        base.chain(added).collect()
    }

    pub fn node_count(&self, kind: Option<Kind>) -> usize {
        match kind {
            Some(k) => {
                let removed = self.removed.iter().filter(|&&id| self.base.kind(id) == k).count();
                let added = self.added.iter().filter(|a| a.live && a.kind == k).count();
                self.base.of_kind(k).len() - removed + added
            }
            None => self.base.len() - self.removed.len() + self.added_names.len(),
        }
    }

    /// Live edges, optionally of one relation.
    pub fn edge_count(&self, rel: Option<Rel>) -> usize {
        let keep = |r: Rel| rel.is_none_or(|want| want == r);
        let base_total = match rel {
            Some(r) => self.base.rel_count(r),
            None => self.base.edge_count(),
        };
        let gone = self.dead_base_edges().into_iter().filter(|&(_, _, r)| keep(r)).count();
        let extra = self.extra_out.values().flatten().filter(|&&(_, r)| keep(r)).count();
        base_total - gone + extra
    }

    /// Base edges no longer live: those of removed nodes and those removed explicitly.
    fn dead_base_edges(&self) -> BTreeSet<(Id, Id, Rel)> {
        let mut dead = BTreeSet::new();
        for &id in &self.removed {
            dead.extend(self.base.out_edges(id).into_iter().map(|(v, r)| (id, v, r)));
            dead.extend(self.base.in_edges(id).into_iter().map(|(u, r)| (u, id, r)));
        }
        for &(u, v) in &self.removed_edges {
            if let Some(r) = self.base.edge(u, v) {
                dead.insert((u, v, r));
            }
        }
        dead
    }

    /// Live RK_CONTAINS children, optionally of one kind, in canonical order.
    pub fn children(&self, id: Id) -> Vec<Id> {
        self.out(id).into_iter().filter(|&(_, r)| r == Rel::Contains).map(|(v, _)| v).collect()
    }

    pub fn parents(&self, id: Id) -> Vec<Id> {
        self.inn(id).into_iter().filter(|&(_, r)| r == Rel::Contains).map(|(v, _)| v).collect()
    }

    /// Nodes reachable over ≥ 1 RK_CONTAINS edges (down), excluding `id`, in canonical order.
    pub fn descendants(&self, id: Id) -> Vec<Id> {
        self.reach(id, true)
    }

    /// Nodes reaching `id` over ≥ 1 RK_CONTAINS edges (up), excluding `id`, in canonical order.
    pub fn ancestors(&self, id: Id) -> Vec<Id> {
        self.reach(id, false)
    }

    /// A bitmap of visited ids, read out in ascending order at the end: no hashing and no
    /// sort, which were most of a walk over a whole fabric.
    fn reach(&self, id: Id, down: bool) -> Vec<Id> {
        let mut seen = FixedBitSet::with_capacity(self.base.len() + self.added.len());
        let mut stack = vec![id];
        while let Some(n) = stack.pop() {
            self.each_neighbour(n, down, |(m, rel)| {
                if rel == Rel::Contains && m != id && !seen.put(m as usize) {
                    stack.push(m);
                }
            });
        }
        seen.ones().map(|m| m as Id).collect()
    }

    /// cap(v): Σ `physical_capacity_bps` over the ports in {v} ∪ desc(v).
    pub fn capacity(&self, id: Id) -> Capacity {
        let mut total = Capacity::Int(0);
        let own = std::iter::once(id);
        for n in own.chain(self.descendants(id)) {
            if let Some(v) = self.port_capacity(n).filter(|_| self.kind(n) == Kind::Port) {
                total = total.add(&v);
            }
        }
        total
    }

    /// Adds a node. Refuses a taken or invalid name, `name`/`kind` keys and bad values.
    pub fn add_node(&mut self, name: &str, kind: Kind, attrs: Attrs) -> GraphResult<Id> {
        if !valid_name(name) {
            return Err(GraphError::Invalid(format!(
                "invalid node name {}: use 1 to 128 characters from A-Z a-z 0-9 _ . -",
                quote(name)
            )));
        }
        if self.lookup(name).is_some() {
            return Err(GraphError::Invalid(format!("node {} already exists", quote(name))));
        }
        if let Some((k, _)) = attrs.iter().find(|(k, _)| k == "name" || k == "kind") {
            return Err(GraphError::Invalid(format!("attribute {k:?} is read-only; it is set by add_node")));
        }
        let id = self.base_len() + self.added.len() as Id;
        let mut clean = Attrs::new();
        for (k, v) in attrs {
            set_in(&mut clean, &k, v);
        }
        self.ops.push(format!("add_node {name} {kind}"));
        self.added.push(Added { name: name.to_string(), kind, attrs: clean, live: true });
        self.added_names.insert(name.to_string(), id);
        Ok(id)
    }

    /// Adds `u → v`. Same relation again is a no-op; another relation is refused.
    pub fn add_edge(&mut self, u: Id, v: Id, rel: Rel) -> GraphResult<()> {
        if u == v {
            return Err(GraphError::Invalid(format!("self-loop on {} is not allowed", quote(self.name(u)))));
        }
        match self.edge(u, v) {
            Some(r) if r == rel => return Ok(()),
            Some(r) => {
                return Err(GraphError::Invalid(format!(
                    "edge {} -> {} already exists with relation {r}",
                    quote(self.name(u)),
                    quote(self.name(v))
                )));
            }
            None => {}
        }
        self.ops.push(format!("add_edge {} {} {rel}", self.name(u), self.name(v)));
        if self.removed_edges.contains(&(u, v)) && self.base.edge(u, v) == Some(rel) {
            self.removed_edges.remove(&(u, v));
        } else {
            self.extra_out.entry(u).or_default().push((v, rel));
            self.extra_in.entry(v).or_default().push((u, rel));
        }
        Ok(())
    }

    /// Removes the live edge `u → v`, or `KeyError`.
    pub fn remove_edge(&mut self, u: Id, v: Id) -> GraphResult<()> {
        if self.edge(u, v).is_none() {
            return Err(GraphError::NotFound(format!(
                "edge not found: {} -> {}",
                quote(self.name(u)),
                quote(self.name(v))
            )));
        }
        self.ops.push(format!("remove_edge {} {}", self.name(u), self.name(v)));
        if self.drop_extra(u, v) {
            return Ok(());
        }
        self.removed_edges.insert((u, v));
        Ok(())
    }

    fn drop_extra(&mut self, u: Id, v: Id) -> bool {
        let before = self.extra_out.get(&u).map_or(0, Vec::len);
        if let Some(l) = self.extra_out.get_mut(&u) {
            l.retain(|&(w, _)| w != v);
        }
        if let Some(l) = self.extra_in.get_mut(&v) {
            l.retain(|&(w, _)| w != u);
        }
        before != self.extra_out.get(&u).map_or(0, Vec::len)
    }

    /// Removes a live node with its incident edges, nothing else.
    pub fn remove_node(&mut self, id: Id) {
        self.ops.push(format!("remove_node {}", self.name(id)));
        let out: Vec<Id> = self.extra_out.remove(&id).into_iter().flatten().map(|(v, _)| v).collect();
        let inn: Vec<Id> = self.extra_in.remove(&id).into_iter().flatten().map(|(u, _)| u).collect();
        for v in out {
            if let Some(l) = self.extra_in.get_mut(&v) {
                l.retain(|&(w, _)| w != id);
            }
        }
        for u in inn {
            if let Some(l) = self.extra_out.get_mut(&u) {
                l.retain(|&(w, _)| w != id);
            }
        }
        match id.checked_sub(self.base_len()) {
            Some(i) => {
                let added = &mut self.added[i as usize];
                added.live = false;
                self.added_names.remove(&added.name);
            }
            None => {
                self.removed.insert(id);
                self.overrides.remove(&id);
                self.removed_edges.retain(|&(u, v)| u != id && v != id);
            }
        }
    }

    /// Sets one attribute; `name` and `kind` are read-only.
    pub fn set_attr(&mut self, id: Id, key: &str, value: AttrValue) -> GraphResult<()> {
        if key == "name" || key == "kind" {
            return Err(GraphError::Invalid(format!("attribute {key:?} is read-only")));
        }
        self.ops.push(format!("set_attr {} {key} {}", self.name(id), value.py_repr()));
        match id.checked_sub(self.base_len()) {
            Some(i) => set_in(&mut self.added[i as usize].attrs, key, value),
            None => set_in(self.overrides.entry(id).or_default(), key, value),
        }
        Ok(())
    }

    /// The net diff against the base, by name: node items (`-node`, `+node`, `~attr`) in
    /// canonical order of their node, then edge items by (source, destination), a removal
    /// before an addition.
    pub fn net_diff(&self) -> Vec<DiffItem> {
        let mut items: Vec<((u8, Id, Id, u8), DiffItem)> = Vec::new();
        for name in self.touched_names() {
            let pos = self.position(&name);
            for item in self.node_items(&name) {
                let rank = match item {
                    DiffItem::DelNode { .. } => 0,
                    DiffItem::AddNode { .. } => 1,
                    _ => 2,
                };
                items.push(((0, pos, 0, rank), item));
            }
        }
        for (u, v) in self.touched_pairs() {
            let key = (1, self.position(&u), self.position(&v));
            let base = self.base.lookup(&u).zip(self.base.lookup(&v)).and_then(|(a, b)| self.base.edge(a, b));
            let now = self.lookup(&u).zip(self.lookup(&v)).and_then(|(a, b)| self.edge(a, b));
            if base == now {
                continue;
            }
            if let Some(rel) = base {
                let item = DiffItem::DelEdge { src: u.clone(), dst: v.clone(), rel: rel.to_string() };
                items.push(((key.0, key.1, key.2, 0), item));
            }
            if let Some(rel) = now {
                items.push((
                    (key.0, key.1, key.2, 1),
                    DiffItem::AddEdge { src: u, dst: v, rel: rel.to_string() },
                ));
            }
        }
        items.sort_by(|a, b| a.0.cmp(&b.0).then_with(|| a.1.key().cmp(&b.1.key())));
        items.into_iter().map(|(_, item)| item).collect()
    }

    /// A name's canonical position: its base index, else its latest added position.
    fn position(&self, name: &str) -> Id {
        if let Some(id) = self.base.lookup(name) {
            return id;
        }
        let last = self.added.iter().rposition(|a| a.name == name).unwrap_or(0);
        self.base_len() + last as Id
    }

    fn touched_names(&self) -> BTreeSet<String> {
        let mut names: BTreeSet<String> =
            self.removed.iter().map(|&id| self.base.name(id).to_string()).collect();
        names.extend(self.added.iter().map(|a| a.name.clone()));
        names.extend(self.overrides.keys().map(|&id| self.base.name(id).to_string()));
        names
    }

    fn touched_pairs(&self) -> BTreeSet<(String, String)> {
        let named = |u: Id, v: Id, w: &Working| (w.name(u).to_string(), w.name(v).to_string());
        let mut pairs: BTreeSet<(String, String)> =
            self.dead_base_edges().into_iter().map(|(u, v, _)| named(u, v, self)).collect();
        for (&u, list) in &self.extra_out {
            pairs.extend(list.iter().map(|&(v, _)| named(u, v, self)));
        }
        pairs
    }

    /// `-node`, `+node` and `~attr` items of one name.
    fn node_items(&self, name: &str) -> Vec<DiffItem> {
        let before = self.base.lookup(name).map(|id| {
            let attrs: Attrs = self.base.attrs(id).into_iter().map(|(k, v)| (k.to_string(), v)).collect();
            (self.base.kind(id), attrs)
        });
        let after = self.lookup(name).map(|id| (self.kind(id), self.attrs(id)));
        match (before, after) {
            (None, None) => Vec::new(),
            (Some(_), None) => vec![DiffItem::DelNode { node: name.to_string() }],
            (None, Some((kind, attrs))) => vec![add_item(name, kind, attrs)],
            (Some((k0, _)), Some((k1, attrs))) if k0 != k1 => {
                vec![DiffItem::DelNode { node: name.to_string() }, add_item(name, k1, attrs)]
            }
            (Some((_, old)), Some((_, new))) => attr_items(name, &old, &new),
        }
    }
}

fn add_item(name: &str, kind: Kind, attrs: Attrs) -> DiffItem {
    DiffItem::AddNode { node: name.to_string(), kind: kind.to_string(), attrs: attrs.into_iter().collect() }
}

fn attr_items(name: &str, old: &Attrs, new: &Attrs) -> Vec<DiffItem> {
    let keys: BTreeSet<&String> = old.iter().chain(new).map(|(k, _)| k).collect();
    let get = |attrs: &Attrs, key: &str| attrs.iter().find(|(k, _)| k == key).map(|(_, v)| v.clone());
    keys.into_iter()
        .filter_map(|key| {
            let (o, n) = (get(old, key), get(new, key));
            (o != n).then(|| DiffItem::Attr { node: name.to_string(), key: key.clone(), old: o, new: n })
        })
        .collect()
}

/// A name as Python's repr shows it: `'ju1.a1'`.
pub fn quote(name: &str) -> String {
    AttrValue::Str(name.to_string()).py_repr()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::malt::topo::{Shape, TopoKey, topology};

    fn small() -> Working {
        Working::new(topology(TopoKey { shape: Shape::SMALL, seed: 0 }))
    }

    fn lines(w: &Working) -> Vec<String> {
        w.net_diff().iter().map(ToString::to_string).collect()
    }

    #[test]
    fn pristine_graph_has_empty_diff_and_base_counts() {
        let w = small();
        assert!(w.net_diff().is_empty());
        assert_eq!(w.node_count(None), 187);
        assert_eq!(w.edge_count(None), 248);
        assert_eq!(w.node_count(Some(Kind::Port)), 96);
        assert_eq!(w.edge_count(Some(Rel::Controls)), 24);
    }

    #[test]
    fn removing_a_port_lists_node_and_edge() {
        let mut w = small();
        let p = w.require("ju1.a1.m1.s2c1.p3").unwrap();
        w.remove_node(p);
        assert_eq!(
            lines(&w),
            ["-node ju1.a1.m1.s2c1.p3", "-edge ju1.a1.m1.s2c1 ju1.a1.m1.s2c1.p3 RK_CONTAINS"]
        );
        assert_eq!(w.node_count(None), 186);
        assert_eq!(w.edge_count(None), 247);
        let sw = w.require("ju1.a1.m1.s2c1").unwrap();
        assert_eq!(w.children(sw).len(), 3);
        assert!(w.require("ju1.a1.m1.s2c1.p3").is_err());
    }

    #[test]
    fn undone_changes_cancel() {
        let mut w = small();
        let p = w.require("ju1.a1.m1.s2c1.p3").unwrap();
        let sw = w.require("ju1.a1.m1.s2c1").unwrap();
        w.remove_node(p);
        let p2 = w.add_node(
            "ju1.a1.m1.s2c1.p3",
            Kind::Port,
            vec![("physical_capacity_bps".into(), AttrValue::Int(1_000_000_000))],
        );
        w.add_edge(sw, p2.unwrap(), Rel::Contains).unwrap();
        let cap = w.base().port_capacity(p);
        assert_eq!(cap, 1_000_000_000, "the test port is not an outlier");
        assert!(w.net_diff().is_empty(), "{:?}", lines(&w));
        w.remove_edge(sw, w.require("ju1.a1.m1.s2c1.p1").unwrap()).unwrap();
        w.add_edge(sw, w.require("ju1.a1.m1.s2c1.p1").unwrap(), Rel::Contains).unwrap();
        assert!(w.net_diff().is_empty());
        w.set_attr(sw, "stage", AttrValue::Int(3)).unwrap();
        w.set_attr(sw, "stage", AttrValue::Int(2)).unwrap();
        assert!(w.net_diff().is_empty());
    }

    #[test]
    fn additions_and_capacity() {
        let mut w = small();
        let sw = w.require("ju1.a1.m1.s2c1").unwrap();
        let before = w.capacity(sw);
        let p = w
            .add_node(
                "ju1.a1.m1.s2c1.p5",
                Kind::Port,
                vec![("physical_capacity_bps".into(), AttrValue::Float(2.5e9))],
            )
            .unwrap();
        w.add_edge(sw, p, Rel::Contains).unwrap();
        assert_eq!(w.capacity(sw), Capacity::Float(before.as_f64() + 2.5e9));
        assert_eq!(w.children(sw).last(), Some(&p));
        assert_eq!(
            lines(&w),
            [
                "+node ju1.a1.m1.s2c1.p5 EK_PORT {physical_capacity_bps: 2500000000.0}",
                "+edge ju1.a1.m1.s2c1 ju1.a1.m1.s2c1.p5 RK_CONTAINS"
            ]
        );
        assert!(w.add_node("ju1.a1.m1.s2c1.p5", Kind::Port, vec![]).is_err());
        assert!(w.add_node("bad name", Kind::Port, vec![]).is_err());
        assert!(w.add_node("x", Kind::Port, vec![("kind".into(), AttrValue::Int(1))]).is_err());
        assert!(w.add_edge(sw, p, Rel::Controls).is_err());
        assert!(w.add_edge(sw, sw, Rel::Contains).is_err());
        w.add_edge(sw, p, Rel::Contains).unwrap();
    }

    #[test]
    fn descendants_ancestors_and_capacity_of_the_fabric() {
        let w = small();
        let ju = w.require("ju1").unwrap();
        assert_eq!(w.descendants(ju).len(), 2 + 2 + 4 + 24 + 96);
        let port = w.require("ju1.s1.s1c1.p1").unwrap();
        let anc: Vec<&str> = w.ancestors(port).iter().map(|&a| w.name(a)).collect();
        assert_eq!(anc, ["ju1", "ju1.s1", "ju1.s1.s1c1", "ju1.s1rack", "ju1.s1.s1c1-chassis"]);
        let total: i128 = w.nodes_of(Kind::Port).iter().map(|&p| i128::from(w.base().port_capacity(p))).sum();
        assert_eq!(w.capacity(ju), Capacity::Int(total));
        let chassis = w.require("ju1.s1.s1c1-chassis").unwrap();
        assert_eq!(w.capacity(chassis), w.capacity(w.require("ju1.s1.s1c1").unwrap()));
        assert_eq!(w.capacity(w.require("ju1.a1.dom").unwrap()), Capacity::Int(0));
    }

    /// Walks cover added nodes (ids past the base) and skip removed ones, in id order.
    #[test]
    fn walks_see_the_overlay_in_id_order() {
        let mut w = small();
        let sw = w.require("ju1.a1.m1.s2c1").unwrap();
        let before = w.descendants(sw);
        let p = w.add_node("ju1.a1.m1.s2c1.p9", Kind::Port, vec![]).unwrap();
        w.add_edge(sw, p, Rel::Contains).unwrap();
        w.remove_node(before[0]);
        let after = w.descendants(sw);
        assert_eq!(after, [&before[1..], &[p]].concat());
        assert!(after.windows(2).all(|x| x[0] < x[1]));
        let mut up = w.ancestors(sw);
        up.push(sw);
        up.sort_unstable();
        assert_eq!(w.ancestors(p), up);
    }

    #[test]
    fn kind_change_is_remove_then_add() {
        let mut w = small();
        let id = w.require("ju1.a1rack").unwrap_or_else(|_| w.require("ju1.a1.m1rack").unwrap());
        w.remove_node(id);
        w.add_node("ju1.a1.m1rack", Kind::Chassis, vec![]).unwrap();
        let l = lines(&w);
        assert_eq!(l[0], "-node ju1.a1.m1rack");
        assert_eq!(l[1], "+node ju1.a1.m1rack EK_CHASSIS {}");
        assert!(l[2..].iter().all(|x| x.starts_with("-edge ju1.a1.m1rack ")));
    }
}
