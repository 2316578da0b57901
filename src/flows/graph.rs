//! The communication graph `G` (docs/flows.md, "The communication graph"): endpoints and the
//! connections between them in NeMoEval's node-link schema, and the methods-only host object an
//! agent's code calls on its own working copy.
//!
//! Nodes are endpoints (one per address), one undirected edge per pair with at least one
//! connection, weighted by bytes, packets and connections. Everything is in canonical order:
//! nodes by address number (ids that are not addresses after them, by text), edges by
//! (source, target), neighbours in node order.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};

use rustc_hash::{FxHashMap, FxHashSet};
use serde_json::{Value, json};

use super::model::Trace;
use super::patterns::{platform, private};
use super::tenant::{Tenant, dotted};
use crate::malt::api::{ApiError, ApiResult, Budget, Exc, Py};
use crate::malt::method::{Methods, method, method_kw, required};

/// The weights every edge has.
pub const WEIGHTS: [&str; 3] = ["byte_weight", "connection_weight", "packet_weight"];
const ROW_BYTES: usize = 320;

/// A node's sort key: addresses first, by number, then the ids that are not addresses, by
/// text. An enum rather than a (number, text) pair so that comparing two addresses compares
/// two integers and never the text: building a large graph compares keys millions of times.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
enum Key {
    Addr(u32),
    Id(String),
}

/// The key of node `id`. An id reads as an address only in its usual writing, so two ids that
/// name one address the same way are one node and `"010.0.0.1"` is no address at all; std's
/// parser gives exactly that, as it takes four decimal octets without leading zeros and
/// nothing else (`key_reads_only_the_usual_writing_of_an_address` holds it to that).
fn key(id: &str) -> Key {
    match id.parse::<std::net::Ipv4Addr>() {
        Ok(a) => Key::Addr(u32::from(a)),
        Err(_) => Key::Id(id.to_string()),
    }
}

/// A node's attributes. The colour and the address are borrowed or absent while they are the
/// defaults: a 10,000-node graph is built, copied and dropped for every seed, and two strings
/// per node were a large share of that.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    pub id: String,
    /// `None`: the id.
    ip_address: Option<String>,
    pub color: Cow<'static, str>,
    /// An int or a float.
    pub size: Py,
    /// A set: sorted, no duplicates.
    pub labels: Vec<String>,
}

impl Node {
    fn new(id: &str) -> Node {
        Node {
            id: id.into(),
            ip_address: None,
            color: Cow::Borrowed("steelblue"),
            size: Py::Int(4),
            labels: Vec::new(),
        }
    }

    fn ip_address(&self) -> &str {
        self.ip_address.as_deref().unwrap_or(&self.id)
    }

    fn to_py(&self) -> Py {
        let s = |x: &str| Py::Str(x.into());
        Py::Dict(vec![
            (s("id"), s(&self.id)),
            (s("ip_address"), s(self.ip_address())),
            (s("color"), s(&self.color)),
            (s("size"), self.size.clone()),
            (s("labels"), Py::List(self.labels.iter().map(|l| s(l)).collect())),
        ])
    }
}

/// A node's labels as the graph keeps them, a set: sorted, without repeats.
pub fn label_set(mut labels: Vec<String>) -> Vec<String> {
    labels.sort_unstable();
    labels.dedup();
    labels
}

/// The graph.
///
/// Nodes live in slots that never move (a removed node leaves its slot empty until an added
/// node takes it), so a
/// neighbour or an edge end is a slot number rather than a key: building, copying and
/// dropping a 10,000-node graph is a few flat vectors and one hash table instead of a tree
/// of trees keyed by enums, which was most of a large task's generation. The canonical
/// orders come from `index` (the live nodes in key order) and from each neighbour list,
/// which is kept in its keys' order, so no listing sorts.
#[derive(Debug, Clone, Default)]
pub struct Graph {
    /// Slot → node; `None` once removed.
    nodes: Vec<Option<Node>>,
    /// Slot → key (left in place when the node is removed, until the slot is taken again: no
    /// list names an empty slot).
    keys: Vec<Key>,
    /// Key → slot of every live node, in key order.
    index: BTreeMap<Key, usize>,
    /// Slot → neighbour slots, in their keys' order.
    adj: Vec<Vec<usize>>,
    /// (smaller slot, larger slot) → weights in [`WEIGHTS`] order. Looked up only, never
    /// iterated into an answer: listings walk `index` and `adj`.
    weights: FxHashMap<(usize, usize), [Py; 3]>,
    /// Empty slots, which the next added nodes take, so that code adding and removing nodes in
    /// a loop keeps the graph at its largest live size rather than growing with every add.
    free: Vec<usize>,
}

/// The weights' key of the edge between two slots.
fn pair(a: usize, b: usize) -> (usize, usize) {
    (a.min(b), a.max(b))
}

impl Graph {
    /// The graph of a trace's connections: allowed ones only unless `denied`, and only those
    /// starting in `window` (ms after T0) when given.
    pub fn from_trace(t: &Tenant, tr: &Trace, denied: bool, window: Option<(u64, u64)>) -> Graph {
        // The per-pair sums in a hash table (a million connections, mostly repeated pairs),
        // sorted once afterwards: the table's order reaches nothing.
        let mut sums: FxHashMap<(u32, u32), [u64; 3]> = FxHashMap::default();
        for c in &tr.connections {
            if (!c.allow && !denied) || window.is_some_and(|(a, b)| c.start < a || c.start >= b) {
                continue;
            }
            let w = sums.entry((c.src.min(c.dst), c.src.max(c.dst))).or_default();
            w[0] += c.bytes_f + c.bytes_r;
            w[1] += 1;
            w[2] += u64::from(c.pkts_f) + u64::from(c.pkts_r);
        }
        let mut pairs: Vec<((u32, u32), [u64; 3])> = sums.into_iter().collect();
        pairs.sort_unstable_by_key(|p| p.0);
        let mut ips: Vec<u32> = pairs.iter().flat_map(|&((a, b), _)| [a, b]).collect();
        ips.sort_unstable();
        ips.dedup();
        let roles = vm_roles(t, tr);
        let nodes = ips.iter().map(|&ip| (Key::Addr(ip), trace_node(ip, roles.get(&ip)))).collect();
        let at = |ip: u32| ips.binary_search(&ip).expect("an end is a node");
        let edges =
            pairs.into_iter().map(|((a, b), w)| (at(a), at(b), w.map(|x| Py::Int(x as i64)))).collect();
        Graph::assemble(nodes, edges)
    }

    /// A graph of the given nodes (id = address, with their labels) and weighted edges
    /// between node positions (`[byte, connection, packet]`), default colour and size; a
    /// mock graph that comes from no trace. Self-loops and edges naming a position past the
    /// nodes are skipped; a repeated node takes its last labels, a repeated edge (either way
    /// round) its last weights.
    pub fn from_parts(nodes: &[(String, Vec<String>)], edges: &[(usize, usize, [i64; 3])]) -> Graph {
        Graph::from_weighted_parts(nodes, edges, |w| w.map(Py::Int))
    }

    /// As [`Graph::from_parts`] with float weights (NeMoEval's own mock draws exponential
    /// weights, docs/traffic.md "NeMoEval-compatible modes").
    pub fn from_float_parts(nodes: &[(String, Vec<String>)], edges: &[(usize, usize, [f64; 3])]) -> Graph {
        Graph::from_weighted_parts(nodes, edges, |w| w.map(Py::Float))
    }

    fn from_weighted_parts<W: Copy>(
        nodes: &[(String, Vec<String>)],
        edges: &[(usize, usize, W)],
        weights: impl Fn(W) -> [Py; 3],
    ) -> Graph {
        // The nodes in key order, the last of equal keys kept (sorting by (key, position) keeps
        // a repeated node's copies in input order); `rank` takes each input position to its
        // node's.
        let mut order: Vec<(Key, usize)> =
            nodes.iter().enumerate().map(|(u, (id, _))| (key(id), u)).collect();
        order.sort_unstable();
        let mut rank = vec![0; nodes.len()];
        let mut kept: Vec<(Key, Node)> = Vec::with_capacity(nodes.len());
        for (k, u) in order {
            let (id, labels) = &nodes[u];
            let mut n = Node::new(id);
            n.labels = label_set(labels.clone());
            match kept.last_mut() {
                Some(last) if last.0 == k => last.1 = n,
                _ => kept.push((k, n)),
            }
            rank[u] = kept.len() - 1;
        }
        // The edges between node ranks in (smaller, larger) order, the last of repeats kept.
        let mut between: Vec<(usize, usize, W)> = edges
            .iter()
            .filter(|&&(u, v, _)| u < nodes.len() && v < nodes.len() && rank[u] != rank[v])
            .map(|&(u, v, w)| (rank[u].min(rank[v]), rank[u].max(rank[v]), w))
            .collect();
        between.sort_by_key(|e| (e.0, e.1));
        let mut last: Vec<(usize, usize, [Py; 3])> = Vec::with_capacity(between.len());
        for (u, v, w) in between {
            match last.last_mut() {
                Some(e) if (e.0, e.1) == (u, v) => e.2 = weights(w),
                _ => last.push((u, v, weights(w))),
            }
        }
        Graph::assemble(kept, last)
    }

    /// The graph of nodes in strictly increasing key order and edges between their positions,
    /// each `(smaller, larger)`, strictly increasing and without self-loops. Positions become
    /// slots, so slot order is key order here and the neighbour lists need no sorting.
    fn assemble(nodes: Vec<(Key, Node)>, edges: Vec<(usize, usize, [Py; 3])>) -> Graph {
        // A node's neighbours come out in order: the edges to smaller nodes (those ending at
        // it, by their start) all sort before the edges to larger ones (those starting at it).
        let mut degree = vec![0; nodes.len()];
        for &(u, v, _) in &edges {
            degree[u] += 1;
            degree[v] += 1;
        }
        let mut adj: Vec<Vec<usize>> = degree.into_iter().map(Vec::with_capacity).collect();
        let mut weights = FxHashMap::default();
        weights.reserve(edges.len());
        for (u, v, w) in edges {
            adj[u].push(v);
            adj[v].push(u);
            weights.insert((u, v), w);
        }
        let (keys, nodes): (Vec<Key>, Vec<Option<Node>>) =
            nodes.into_iter().map(|(k, n)| (k, Some(n))).unzip();
        let index = keys.iter().cloned().zip(0..).collect();
        Graph { nodes, keys, index, adj, weights, free: Vec::new() }
    }

    pub fn number_of_nodes(&self) -> usize {
        self.index.len()
    }

    pub fn number_of_edges(&self) -> usize {
        self.weights.len()
    }

    /// The live node in slot `s`.
    fn node(&self, s: usize) -> &Node {
        self.nodes[s].as_ref().expect("a live slot")
    }

    fn node_mut(&mut self, s: usize) -> &mut Node {
        self.nodes[s].as_mut().expect("a live slot")
    }

    /// The live nodes' slots in key order.
    fn slots(&self) -> impl Iterator<Item = usize> + '_ {
        self.index.values().copied()
    }

    /// Every edge once, as (smaller, larger) by key, in key order: each node's neighbours
    /// past it, node by node.
    fn edge_list(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        self.slots().flat_map(move |u| {
            let list = &self.adj[u];
            let past = list.partition_point(|&v| self.keys[v] < self.keys[u]);
            list[past..].iter().map(move |&v| (u, v))
        })
    }

    /// The edge between `a` and `b` as (smaller, larger) by key.
    fn by_key(&self, a: usize, b: usize) -> (usize, usize) {
        if self.keys[a] <= self.keys[b] { (a, b) } else { (b, a) }
    }

    fn weights_of(&self, a: usize, b: usize) -> &[Py; 3] {
        &self.weights[&pair(a, b)]
    }

    /// NeMoEval's node-link document (networkx `node_link_data` layout).
    pub fn to_json(&self) -> Value {
        // The objects are built entry by entry, strings moved in, rather than with `json!`,
        // which serialises every field (a `Value` field by copying it through the serialiser);
        // a 10,000-node graph has 50,000 links, and this is most of a large task's generation.
        let s = |x: &str| Value::String(x.to_string());
        let object = |entries: Vec<(&str, Value)>| -> Value {
            Value::Object(entries.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
        };
        let nodes: Vec<Value> = self
            .slots()
            .map(|u| {
                let n = self.node(u);
                object(vec![
                    ("id", s(&n.id)),
                    ("ip_address", s(n.ip_address())),
                    ("color", s(&n.color)),
                    ("size", py_json(&n.size)),
                    ("labels", Value::Array(n.labels.iter().map(|l| s(l)).collect())),
                ])
            })
            .collect();
        let links: Vec<Value> = self
            .edge_list()
            .map(|(a, b)| {
                let (na, nb, w) = (self.node(a), self.node(b), self.weights_of(a, b));
                object(vec![
                    ("source", s(&na.id)),
                    ("target", s(&nb.id)),
                    ("source_ip_address", s(na.ip_address())),
                    ("target_ip_address", s(nb.ip_address())),
                    ("byte_weight", py_json(&w[0])),
                    ("connection_weight", py_json(&w[1])),
                    ("packet_weight", py_json(&w[2])),
                ])
            })
            .collect();
        object(vec![
            ("directed", Value::Bool(false)),
            ("multigraph", Value::Bool(false)),
            ("graph", json!({})),
            ("nodes", Value::Array(nodes)),
            ("links", Value::Array(links)),
        ])
    }

    fn slot(&self, id: &str) -> Option<usize> {
        self.index.get(&key(id)).copied()
    }

    fn require(&self, v: Option<&Py>, what: &str) -> ApiResult<usize> {
        self.require_id(want_ref(v, what)?)
    }

    fn require_id(&self, id: &str) -> ApiResult<usize> {
        self.slot(id).ok_or_else(|| err(Exc::KeyError, format!("no node {id:?}")))
    }

    /// `G.set(id, attr, value)` natively. A witness sets every node of a 10,000-node graph,
    /// and binding a call's arguments (three strings made for each) cost more than the change.
    pub fn set(&mut self, id: &str, attr: &str, value: Py) -> ApiResult<()> {
        let u = self.require_id(id)?;
        self.set_attr(u, attr, value)
    }

    /// `G.add_label(id, l)` natively, for the same reason as [`Graph::set`].
    pub fn add_label(&mut self, id: &str, l: String) -> ApiResult<()> {
        let u = self.require_id(id)?;
        self.relabel(u, l, true)
    }

    /// Adds label `l` to node `u` (a no-op when it has it) or removes it (an error when not).
    fn relabel(&mut self, u: usize, l: String, add: bool) -> ApiResult<()> {
        let labels = &mut self.node_mut(u).labels;
        match labels.binary_search(&l) {
            Err(i) if add => labels.insert(i, l),
            Ok(i) if !add => {
                labels.remove(i);
            }
            Err(_) => return Err(err(Exc::KeyError, format!("node has no label {l:?}"))),
            Ok(_) => {}
        }
        Ok(())
    }

    /// The edge named by a call's `u` and `v`, as (smaller, larger) by key.
    fn edge_key(&self, a: &[Option<Py>]) -> ApiResult<(usize, usize)> {
        let (u, v) = (self.require(a[0].as_ref(), "u")?, self.require(a[1].as_ref(), "v")?);
        if self.weights.contains_key(&pair(u, v)) {
            Ok(self.by_key(u, v))
        } else {
            let (u, v) = self.by_key(u, v);
            Err(err(
                Exc::KeyError,
                format!("no edge between {:?} and {:?}", self.node(u).id, self.node(v).id),
            ))
        }
    }

    /// Removes the edges between the given pairs of node ids, as `remove_edge` on each pair
    /// would (a pair without an edge is skipped), with one pass over the edges instead of a
    /// call per edge: an edge filter's truth removes most of a 10,000-node graph's edges.
    pub fn remove_edges<'a>(&mut self, pairs: impl IntoIterator<Item = (&'a str, &'a str)>) {
        // Each node's slot once: a node ends several edges, and parsing an address for every
        // end was most of the removal.
        let mut slots: FxHashMap<&str, Option<usize>> = FxHashMap::default();
        let mut doomed: FxHashSet<(usize, usize)> = FxHashSet::default();
        for (u, v) in pairs {
            let mut slot_of = |id: &'a str| *slots.entry(id).or_insert_with(|| self.slot(id));
            if let (Some(a), Some(b)) = (slot_of(u), slot_of(v)) {
                doomed.insert(pair(a, b));
            }
        }
        let before = self.weights.len();
        self.weights.retain(|k, _| !doomed.contains(k));
        if self.weights.len() == before {
            return;
        }
        // Each end's list filtered once, rather than one search and shift per removed edge.
        let mut ends: Vec<usize> = doomed.iter().flat_map(|&(a, b)| [a, b]).collect();
        ends.sort_unstable();
        ends.dedup();
        for u in ends {
            let mut list = std::mem::take(&mut self.adj[u]);
            list.retain(|&v| self.weights.contains_key(&pair(u, v)));
            self.adj[u] = list;
        }
    }

    /// Where `v` is, or would go, in `u`'s neighbours.
    fn position(&self, u: usize, v: usize) -> Result<usize, usize> {
        self.adj[u].binary_search_by(|&x| self.keys[x].cmp(&self.keys[v]))
    }

    /// Adds the edge between `a` and `b` with zero weights when it is not there yet.
    fn link(&mut self, a: usize, b: usize) {
        if self.weights.contains_key(&pair(a, b)) {
            return;
        }
        self.weights.insert(pair(a, b), [Py::Int(0), Py::Int(0), Py::Int(0)]);
        for (u, v) in [(a, b), (b, a)] {
            let i = self.position(u, v).unwrap_or_else(|i| i);
            self.adj[u].insert(i, v);
        }
    }

    /// Removes the edge between `a` and `b` (it exists).
    fn unlink(&mut self, a: usize, b: usize) {
        self.weights.remove(&pair(a, b));
        for (u, v) in [(a, b), (b, a)] {
            if let Ok(i) = self.position(u, v) {
                self.adj[u].remove(i);
            }
        }
    }

    /// The slot of node `id`, added with default attributes when it is not there.
    fn ensure(&mut self, id: &str) -> usize {
        let k = key(id);
        if let Some(&u) = self.index.get(&k) {
            return u;
        }
        let node = Some(Node::new(id));
        let u = match self.free.pop() {
            // A removed node's neighbour list was emptied when it went.
            Some(u) => {
                self.nodes[u] = node;
                self.keys[u] = k.clone();
                u
            }
            None => {
                self.nodes.push(node);
                self.keys.push(k.clone());
                self.adj.push(Vec::new());
                self.nodes.len() - 1
            }
        };
        self.index.insert(k, u);
        u
    }

    /// Removes node `u` and its edges.
    fn remove_node(&mut self, u: usize) {
        // `u`'s own list is taken first, so each unlink only edits the other end's.
        for v in std::mem::take(&mut self.adj[u]) {
            self.unlink(u, v);
        }
        self.index.remove(&self.keys[u]);
        self.nodes[u] = None;
        self.free.push(u);
    }

    fn set_attr(&mut self, u: usize, name: &str, value: Py) -> ApiResult<()> {
        let n = self.node_mut(u);
        match (name, value) {
            ("color", Py::Str(s)) => n.color = Cow::Owned(s),
            ("size", v @ (Py::Int(_) | Py::Float(_))) => n.size = v,
            ("labels", Py::List(l) | Py::Tuple(l)) => {
                let labels = l
                    .into_iter()
                    .map(|x| match x {
                        Py::Str(s) => Ok(s),
                        o => Err(err(Exc::TypeError, format!("labels are str, got {}", o.type_name()))),
                    })
                    .collect::<ApiResult<Vec<String>>>()?;
                n.labels = label_set(labels);
            }
            ("id" | "ip_address", _) => return Err(err(Exc::ValueError, format!("{name} is read-only"))),
            ("color" | "size" | "labels", v) => {
                return Err(err(Exc::TypeError, format!("{name} cannot be set to a {}", v.type_name())));
            }
            _ => {
                return Err(err(
                    Exc::ValueError,
                    format!("unknown attribute {name:?}; attributes: color, size, labels"),
                ));
            }
        }
        Ok(())
    }

    fn set_weight(&mut self, (a, b): (usize, usize), name: &str, value: Py) -> ApiResult<()> {
        let i = WEIGHTS.iter().position(|w| *w == name).ok_or_else(|| {
            err(
                Exc::ValueError,
                format!("unknown edge attribute {name:?}; attributes: {}", WEIGHTS.join(", ")),
            )
        })?;
        match value {
            v @ (Py::Int(_) | Py::Float(_)) => {
                self.weights.get_mut(&pair(a, b)).expect("checked")[i] = v;
                Ok(())
            }
            o => Err(err(Exc::TypeError, format!("{name} must be an int or float, got {}", o.type_name()))),
        }
    }

    fn ids(&self, slots: impl Iterator<Item = usize>, budget: Budget<'_>, n: usize) -> ApiResult<Py> {
        budget(n * ROW_BYTES / 4)?;
        Ok(Py::List(slots.map(|u| Py::Str(self.node(u).id.clone())).collect()))
    }

    fn edge_py(&self, (a, b): (usize, usize), data: bool) -> Py {
        let mut t = vec![Py::Str(self.node(a).id.clone()), Py::Str(self.node(b).id.clone())];
        if data {
            t.push(self.weights_py(a, b));
        }
        Py::Tuple(t)
    }

    fn weights_py(&self, a: usize, b: usize) -> Py {
        let w = self.weights_of(a, b);
        Py::Dict(WEIGHTS.iter().zip(w).map(|(w, v)| (Py::Str((*w).into()), v.clone())).collect())
    }

    fn degree_of(&self, u: usize, weight: Option<usize>) -> Py {
        let nbrs = &self.adj[u];
        match weight {
            None => Py::Int(nbrs.len() as i64),
            Some(w) => {
                let (mut int, mut float, mut is_float) = (0i64, 0f64, false);
                for &v in nbrs {
                    match &self.weights_of(u, v)[w] {
                        Py::Int(x) => {
                            int = int.saturating_add(*x);
                            float += *x as f64;
                        }
                        Py::Float(x) => {
                            is_float = true;
                            float += x;
                        }
                        _ => {}
                    }
                }
                if is_float { Py::Float(float) } else { Py::Int(int) }
            }
        }
    }
}

/// Each VM's role labels by address (none for a VM whose role is not known).
fn vm_roles(t: &Tenant, tr: &Trace) -> BTreeMap<u32, BTreeSet<String>> {
    let mut roles: BTreeMap<u32, BTreeSet<String>> = BTreeMap::new();
    for vm in &tr.vms {
        let set = roles.entry(vm.ip).or_default();
        if vm.known {
            set.insert(format!("role={}", t.roles[vm.role].name));
        }
    }
    roles
}

/// A trace's endpoint: a VM with its role labels, else typed by its address.
fn trace_node(ip: u32, roles: Option<&BTreeSet<String>>) -> Node {
    let mut n = Node::new(&dotted(ip));
    let kind = match roles {
        Some(roles) => {
            n.labels.extend(roles.iter().cloned());
            "type=VM"
        }
        None if platform(ip) => "type=Platform",
        None if private(ip) => "type=VM",
        None => "type=Internet",
    };
    n.labels.push(kind.into());
    n.labels.sort();
    n
}

fn py_json(v: &Py) -> Value {
    match v {
        Py::Int(i) => json!(i),
        Py::Float(f) => json!(f),
        Py::Str(s) => json!(s),
        _ => Value::Null,
    }
}

fn err(exc: Exc, message: impl Into<String>) -> ApiError {
    ApiError { exc, message: message.into() }
}

fn want_str(v: Option<&Py>, what: &str) -> ApiResult<String> {
    want_ref(v, what).map(str::to_string)
}

/// As [`want_str`], borrowed (a key is built from it and the text is not kept).
fn want_ref<'a>(v: Option<&'a Py>, what: &str) -> ApiResult<&'a str> {
    match v {
        Some(Py::Str(s)) => Ok(s),
        Some(o) => Err(err(Exc::TypeError, format!("{what} must be a str, got {}", o.type_name()))),
        None => Err(err(Exc::TypeError, format!("{what} must be a str, got None"))),
    }
}

fn truthy(v: Option<&Py>) -> bool {
    !matches!(v, None | Some(Py::Bool(false)) | Some(Py::Int(0)))
}

/// The attribute message of a non-call read such as `G.nodes[...]`.
pub const ATTRIBUTE_MESSAGE: &str = "G has only methods, e.g. G.node(n)";

/// The methods of `G`; `add_edge` and `add_node` take their attributes as keyword arguments.
const METHODS: Methods = Methods {
    object: "G",
    prefix: "G.",
    list: &[
        method("has_node", &["n"], 1),
        method("node", &["n"], 1),
        method("nodes", &["data"], 0),
        method("number_of_nodes", &[], 0),
        method("number_of_edges", &[], 0),
        method("get", &["n", "key", "default"], 2),
        method("set", &["n", "key", "value"], 3),
        method("labels", &["n"], 1),
        method("add_label", &["n", "l"], 2),
        method("remove_label", &["n", "l"], 2),
        method("neighbors", &["n"], 1),
        method("degree", &["n", "weight"], 0),
        method("edges", &["n", "data"], 0),
        method("has_edge", &["u", "v"], 2),
        method("edge", &["u", "v"], 2),
        method("set_edge", &["u", "v", "key", "value"], 4),
        method_kw("add_edge", &["u", "v"], 2),
        method("remove_edge", &["u", "v"], 2),
        method_kw("add_node", &["n"], 1),
        method("remove_node", &["n"], 1),
        method("nodes_with_label", &["l"], 1),
    ],
};

/// The method names of `G`.
pub fn method_names() -> Vec<&'static str> {
    METHODS.names()
}

/// Calls `G.method(*args, **kwargs)` on a working graph.
pub fn call(
    g: &mut Graph,
    method: &str,
    args: Vec<Py>,
    kwargs: Vec<(String, Py)>,
    budget: Budget<'_>,
) -> ApiResult<Py> {
    let mut b = METHODS.bind(method, args, kwargs)?;
    let (name, extra) = (b.method, std::mem::take(&mut b.extra));
    let a = b.given();
    let nodes = g.number_of_nodes();
    match name {
        "has_node" => Ok(Py::Bool(g.slot(want_ref(a[0].as_ref(), "n")?).is_some())),
        "node" => Ok(g.node(g.require(a[0].as_ref(), "n")?).to_py()),
        "nodes" => {
            let data = truthy(a[0].as_ref());
            budget(nodes * if data { ROW_BYTES } else { ROW_BYTES / 4 })?;
            Ok(Py::List(
                g.slots()
                    .map(|u| {
                        let n = g.node(u);
                        if data {
                            Py::Tuple(vec![Py::Str(n.id.clone()), n.to_py()])
                        } else {
                            Py::Str(n.id.clone())
                        }
                    })
                    .collect(),
            ))
        }
        "number_of_nodes" => Ok(Py::Int(nodes as i64)),
        "number_of_edges" => Ok(Py::Int(g.number_of_edges() as i64)),
        "get" => {
            let u = g.require(a[0].as_ref(), "n")?;
            let attr = want_str(a[1].as_ref(), "key")?;
            let Py::Dict(items) = g.node(u).to_py() else { unreachable!("a dict") };
            Ok(items
                .into_iter()
                .find(|(k, _)| *k == Py::Str(attr.clone()))
                .map_or(a[2].clone().unwrap_or(Py::None), |(_, v)| v))
        }
        "set" => {
            let u = g.require(a[0].as_ref(), "n")?;
            let attr = want_str(a[1].as_ref(), "key")?;
            g.set_attr(u, &attr, required(&a[2], "value")?.clone())?;
            Ok(Py::None)
        }
        "labels" => {
            let u = g.require(a[0].as_ref(), "n")?;
            Ok(Py::List(g.node(u).labels.iter().map(|l| Py::Str(l.clone())).collect()))
        }
        "add_label" | "remove_label" => {
            let u = g.require(a[0].as_ref(), "n")?;
            let l = want_str(a[1].as_ref(), "l")?;
            g.relabel(u, l, name == "add_label")?;
            Ok(Py::None)
        }
        "neighbors" => {
            let u = g.require(a[0].as_ref(), "n")?;
            g.ids(g.adj[u].iter().copied(), budget, g.adj[u].len())
        }
        "degree" => {
            let weight = match a[1].as_ref() {
                None => None,
                Some(w) => {
                    let w = want_str(Some(w), "weight")?;
                    Some(WEIGHTS.iter().position(|x| *x == w).ok_or_else(|| {
                        err(Exc::ValueError, format!("unknown weight {w:?}; weights: {}", WEIGHTS.join(", ")))
                    })?)
                }
            };
            match a[0].as_ref() {
                Some(n) => Ok(g.degree_of(g.require(Some(n), "n")?, weight)),
                None => {
                    budget(nodes * ROW_BYTES / 2)?;
                    Ok(Py::List(
                        g.slots()
                            .map(|u| Py::Tuple(vec![Py::Str(g.node(u).id.clone()), g.degree_of(u, weight)]))
                            .collect(),
                    ))
                }
            }
        }
        "edges" => {
            let data = truthy(a[1].as_ref());
            let edges: Vec<(usize, usize)> = match a[0].as_ref() {
                Some(n) => {
                    let u = g.require(Some(n), "n")?;
                    g.adj[u].iter().map(|&v| g.by_key(u, v)).collect()
                }
                None => {
                    budget(g.number_of_edges() * if data { ROW_BYTES } else { ROW_BYTES / 2 })?;
                    g.edge_list().collect()
                }
            };
            Ok(Py::List(edges.into_iter().map(|e| g.edge_py(e, data)).collect()))
        }
        "has_edge" => {
            let (u, v) = (want_ref(a[0].as_ref(), "u")?, want_ref(a[1].as_ref(), "v")?);
            let edge = g.slot(u).zip(g.slot(v)).map(|(u, v)| pair(u, v));
            Ok(Py::Bool(edge.is_some_and(|e| g.weights.contains_key(&e))))
        }
        "edge" => {
            let (u, v) = g.edge_key(&a)?;
            Ok(g.weights_py(u, v))
        }
        "set_edge" => {
            let e = g.edge_key(&a)?;
            let attr = want_str(a[2].as_ref(), "key")?;
            g.set_weight(e, &attr, required(&a[3], "value")?.clone())?;
            Ok(Py::None)
        }
        "add_edge" => {
            let (u, v) = (want_str(a[0].as_ref(), "u")?, want_str(a[1].as_ref(), "v")?);
            if u == v {
                return Err(err(Exc::ValueError, "no self-loops: u and v are the same node"));
            }
            for (k, _) in &extra {
                if !WEIGHTS.contains(&k.as_str()) {
                    return Err(err(
                        Exc::ValueError,
                        format!("unknown edge attribute {k:?}; attributes: {}", WEIGHTS.join(", ")),
                    ));
                }
            }
            let (su, sv) = (g.ensure(&u), g.ensure(&v));
            g.link(su, sv);
            for (w, value) in extra {
                g.set_weight((su, sv), &w, value)?;
            }
            Ok(Py::None)
        }
        "remove_edge" => {
            let (u, v) = g.edge_key(&a)?;
            g.unlink(u, v);
            Ok(Py::None)
        }
        "add_node" => {
            let id = want_str(a[0].as_ref(), "n")?;
            let u = g.ensure(&id);
            for (attr, value) in extra {
                if attr == "ip_address" {
                    match value {
                        Py::Str(s) => g.node_mut(u).ip_address = Some(s),
                        o => {
                            return Err(err(
                                Exc::TypeError,
                                format!("ip_address must be a str, got {}", o.type_name()),
                            ));
                        }
                    }
                } else {
                    g.set_attr(u, &attr, value)?;
                }
            }
            Ok(Py::None)
        }
        "remove_node" => {
            let u = g.require(a[0].as_ref(), "n")?;
            g.remove_node(u);
            Ok(Py::None)
        }
        _ => {
            let l = want_str(a[0].as_ref(), "l")?;
            let hits: Vec<usize> =
                g.slots().filter(|&u| g.node(u).labels.binary_search(&l).is_ok()).collect();
            g.ids(hits.iter().copied(), budget, hits.len())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::flows::knobs::{Knobs, TenantKey};
    use crate::flows::model::{Scenario, generate};
    use crate::malt::api::unlimited;

    fn graph() -> (Trace, Graph) {
        let knobs = Knobs { d: 10, k: 50, ..Knobs::default() };
        let t = Tenant::new(&TenantKey { app: "test".into(), level: 1, seed: 2, knobs }).unwrap();
        let tr = generate(&t, &Scenario::default()).unwrap();
        let g = Graph::from_trace(&t, &tr, false, None);
        (tr, g)
    }

    fn g_call(g: &mut Graph, m: &str, args: Vec<Py>) -> ApiResult<Py> {
        call(g, m, args, vec![], &unlimited)
    }

    fn s(x: &str) -> Py {
        Py::Str(x.into())
    }

    proptest::proptest! {
        #[test]
        fn key_reads_only_the_usual_writing_of_an_address(x: u32, id in "[0-9.]{1,17}") {
            let usual = std::net::Ipv4Addr::from(x).to_string();
            proptest::prop_assert_eq!(key(&usual), Key::Addr(x));
            let padded = format!("0{usual}");
            proptest::prop_assert!(matches!(key(&padded), Key::Id(_)));
            if let Key::Addr(a) = key(&id) {
                proptest::prop_assert_eq!(std::net::Ipv4Addr::from(a).to_string(), id);
            }
        }
    }

    #[test]
    fn removed_nodes_leave_slots_that_added_nodes_take() {
        let (_, mut g) = graph();
        let Py::List(nodes) = g_call(&mut g, "nodes", vec![]).unwrap() else { panic!() };
        let (Py::Str(a), Py::Str(b)) = (nodes[0].clone(), nodes[1].clone()) else { panic!() };
        let (slots, before) = (g.nodes.len(), g.to_json());
        for round in 0..50 {
            g_call(&mut g, "remove_node", vec![s(&a)]).unwrap();
            g_call(&mut g, "remove_node", vec![s(&b)]).unwrap();
            let x = format!("x{round}");
            call(&mut g, "add_edge", vec![s(&x), s(&a)], vec![], &unlimited).unwrap();
            g_call(&mut g, "remove_node", vec![s(&x)]).unwrap();
            g_call(&mut g, "add_node", vec![s(&b)]).unwrap();
        }
        assert_eq!(g.nodes.len(), slots);
        assert_eq!(g_call(&mut g, "has_node", vec![s(&a)]).unwrap(), Py::Bool(true));
        assert_eq!(g.number_of_nodes(), before["nodes"].as_array().unwrap().len());
        // The listings stay in key order whichever slots the nodes took.
        let doc = g.to_json();
        let ids: Vec<Key> =
            doc["nodes"].as_array().unwrap().iter().map(|n| key(n["id"].as_str().unwrap())).collect();
        assert!(ids.windows(2).all(|w| w[0] < w[1]));
        let links: Vec<(Key, Key)> = doc["links"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| (key(l["source"].as_str().unwrap()), key(l["target"].as_str().unwrap())))
            .collect();
        assert!(links.windows(2).all(|w| w[0] < w[1]) && links.iter().all(|(u, v)| u < v));
    }

    #[test]
    fn weights_sum_the_allowed_connections() {
        let (tr, g) = graph();
        let total: u64 = tr.connections.iter().filter(|c| c.allow).map(|c| c.bytes_f + c.bytes_r).sum();
        let conns = tr.connections.iter().filter(|c| c.allow).count() as i64;
        let sum =
            |i: usize| -> i64 { g.weights.values().map(|w| if let Py::Int(x) = w[i] { x } else { 0 }).sum() };
        assert_eq!(sum(0), total as i64);
        assert_eq!(sum(1), conns);
        let doc = g.to_json();
        let links = doc["links"].as_array().unwrap();
        assert!(
            links.iter().all(|l| key(l["source"].as_str().unwrap()) < key(l["target"].as_str().unwrap()))
        );
        assert!(doc["nodes"].as_array().unwrap().iter().any(|n| {
            n["labels"].as_array().unwrap().iter().any(|l| l.as_str().unwrap().starts_with("role="))
        }));
    }

    #[test]
    fn methods_read_and_mutate_the_working_copy() {
        let (_, mut g) = graph();
        let Py::List(nodes) = g_call(&mut g, "nodes", vec![]).unwrap() else { panic!() };
        let Py::Str(first) = nodes[0].clone() else { panic!() };
        let Py::List(nbrs) = g_call(&mut g, "neighbors", vec![s(&first)]).unwrap() else { panic!() };
        assert_eq!(g_call(&mut g, "degree", vec![s(&first)]).unwrap(), Py::Int(nbrs.len() as i64));
        g_call(&mut g, "add_label", vec![s(&first), s("x=1")]).unwrap();
        g_call(&mut g, "add_label", vec![s(&first), s("x=1")]).unwrap();
        assert_eq!(g_call(&mut g, "nodes_with_label", vec![s("x=1")]).unwrap(), Py::List(vec![s(&first)]));
        g_call(&mut g, "set", vec![s(&first), s("color"), s("red")]).unwrap();
        assert_eq!(g_call(&mut g, "get", vec![s(&first), s("color")]).unwrap(), s("red"));
        assert_eq!(g_call(&mut g, "set", vec![s(&first), s("id"), s("y")]).unwrap_err().exc, Exc::ValueError);
        let edges = g.number_of_edges();
        g_call(&mut g, "remove_node", vec![s(&first)]).unwrap();
        assert_eq!(g.number_of_edges(), edges - nbrs.len());
        assert_eq!(g_call(&mut g, "node", vec![s(&first)]).unwrap_err().exc, Exc::KeyError);
        call(&mut g, "add_edge", vec![s("a"), s("b")], vec![("byte_weight".into(), Py::Int(5))], &unlimited)
            .unwrap();
        assert_eq!(g_call(&mut g, "degree", vec![s("a"), s("byte_weight")]).unwrap(), Py::Int(5));
        assert_eq!(g_call(&mut g, "nope", vec![]).unwrap_err().exc, Exc::AttributeError);
        assert_eq!(g_call(&mut g, "node", vec![Py::Int(1)]).unwrap_err().exc, Exc::TypeError);
    }
}
