//! The communication graph `G` (docs/flows.md, "The communication graph"): endpoints and the
//! connections between them in NeMoEval's node-link schema, and the methods-only host object an
//! agent's code calls on its own working copy.
//!
//! Nodes are endpoints (one per address), one undirected edge per pair with at least one
//! connection, weighted by bytes, packets and connections. Everything is in canonical order:
//! nodes by address number (ids that are not addresses after them, by text), edges by
//! (source, target), neighbours in node order.

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

fn key(id: &str) -> Key {
    match id.parse::<std::net::Ipv4Addr>() {
        Ok(a) if written_as(a, id) => Key::Addr(u32::from(a)),
        _ => Key::Id(id.to_string()),
    }
}

/// Whether `id` is the usual writing of `a`, compared in a stack buffer: every call on the
/// graph builds a key, and a `String` per key was a large part of a 10,000-node change.
fn written_as(a: std::net::Ipv4Addr, id: &str) -> bool {
    use std::io::Write;
    let mut buf = [0u8; 15];
    let mut rest = &mut buf[..];
    // The longest address, 255.255.255.255, fills the buffer exactly.
    write!(rest, "{a}").expect("an address fits");
    let len = 15 - rest.len();
    &buf[..len] == id.as_bytes()
}

/// A node's attributes.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    pub id: String,
    pub ip_address: String,
    pub color: String,
    /// An int or a float.
    pub size: Py,
    /// A set: sorted, no duplicates.
    pub labels: Vec<String>,
}

impl Node {
    fn new(id: &str) -> Node {
        Node {
            id: id.into(),
            ip_address: id.into(),
            color: "steelblue".into(),
            size: Py::Int(4),
            labels: Vec::new(),
        }
    }

    fn to_py(&self) -> Py {
        let s = |x: &str| Py::Str(x.into());
        Py::Dict(vec![
            (s("id"), s(&self.id)),
            (s("ip_address"), s(&self.ip_address)),
            (s("color"), s(&self.color)),
            (s("size"), self.size.clone()),
            (s("labels"), Py::List(self.labels.iter().map(|l| s(l)).collect())),
        ])
    }
}

/// The graph.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Graph {
    nodes: BTreeMap<Key, Node>,
    adj: BTreeMap<Key, BTreeSet<Key>>,
    /// (smaller key, larger key) → weights in [`WEIGHTS`] order.
    edges: BTreeMap<(Key, Key), [Py; 3]>,
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
        // The nodes in key order, the last of equal keys kept (a stable sort keeps a repeated
        // node's copies in input order); `rank` takes each input position to its node's.
        let mut order: Vec<(Key, usize)> =
            nodes.iter().enumerate().map(|(u, (id, _))| (key(id), u)).collect();
        order.sort_by(|a, b| a.0.cmp(&b.0));
        let mut rank = vec![0; nodes.len()];
        let mut kept: Vec<(Key, Node)> = Vec::with_capacity(nodes.len());
        for (k, u) in order {
            let (id, labels) = &nodes[u];
            let mut n = Node::new(id);
            n.labels = labels.clone();
            n.labels.sort();
            n.labels.dedup();
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
    /// each `(smaller, larger)`, strictly increasing and without self-loops. The maps are
    /// built from sorted lists in one pass each (`from_iter` on sorted input) rather than by
    /// inserts, which search the maps for every edge end.
    fn assemble(nodes: Vec<(Key, Node)>, edges: Vec<(usize, usize, [Py; 3])>) -> Graph {
        // A node's neighbours come out in order: the edges to smaller nodes (those ending at
        // it, by their start) all sort before the edges to larger ones (those starting at it).
        let mut nbrs: Vec<Vec<usize>> = vec![Vec::new(); nodes.len()];
        for &(u, v, _) in &edges {
            nbrs[u].push(v);
            nbrs[v].push(u);
        }
        let keys: Vec<&Key> = nodes.iter().map(|(k, _)| k).collect();
        let adj = keys
            .iter()
            .zip(&nbrs)
            .map(|(&k, list)| (k.clone(), list.iter().map(|&v| keys[v].clone()).collect()))
            .collect();
        let edges = edges.into_iter().map(|(u, v, w)| ((keys[u].clone(), keys[v].clone()), w)).collect();
        Graph { nodes: nodes.into_iter().collect(), adj, edges }
    }

    pub fn number_of_nodes(&self) -> usize {
        self.nodes.len()
    }

    pub fn number_of_edges(&self) -> usize {
        self.edges.len()
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
            .nodes
            .values()
            .map(|n| {
                object(vec![
                    ("id", s(&n.id)),
                    ("ip_address", s(&n.ip_address)),
                    ("color", s(&n.color)),
                    ("size", py_json(&n.size)),
                    ("labels", Value::Array(n.labels.iter().map(|l| s(l)).collect())),
                ])
            })
            .collect();
        let links: Vec<Value> = self
            .edges
            .iter()
            .map(|((a, b), w)| {
                let (na, nb) = (&self.nodes[a], &self.nodes[b]);
                object(vec![
                    ("source", s(&na.id)),
                    ("target", s(&nb.id)),
                    ("source_ip_address", s(&na.ip_address)),
                    ("target_ip_address", s(&nb.ip_address)),
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

    fn require(&self, v: Option<&Py>, what: &str) -> ApiResult<Key> {
        self.require_id(want_ref(v, what)?)
    }

    fn require_id(&self, id: &str) -> ApiResult<Key> {
        let k = key(id);
        if self.nodes.contains_key(&k) { Ok(k) } else { Err(err(Exc::KeyError, format!("no node {id:?}"))) }
    }

    /// `G.set(id, attr, value)` natively. A witness sets every node of a 10,000-node graph,
    /// and binding a call's arguments (three strings made for each) cost more than the change.
    pub fn set(&mut self, id: &str, attr: &str, value: Py) -> ApiResult<()> {
        let k = self.require_id(id)?;
        self.set_attr(&k, attr, value)
    }

    /// `G.add_label(id, l)` natively, for the same reason as [`Graph::set`].
    pub fn add_label(&mut self, id: &str, l: String) -> ApiResult<()> {
        let k = self.require_id(id)?;
        self.relabel(&k, l, true)
    }

    /// Adds label `l` to node `k` (a no-op when it has it) or removes it (an error when not).
    fn relabel(&mut self, k: &Key, l: String, add: bool) -> ApiResult<()> {
        let labels = &mut self.nodes.get_mut(k).expect("checked").labels;
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

    fn edge_key(&self, a: &[Option<Py>]) -> ApiResult<(Key, Key)> {
        let (u, v) = (self.require(a[0].as_ref(), "u")?, self.require(a[1].as_ref(), "v")?);
        let k = if u <= v { (u, v) } else { (v, u) };
        if self.edges.contains_key(&k) {
            Ok(k)
        } else {
            Err(err(
                Exc::KeyError,
                format!("no edge between {:?} and {:?}", self.nodes[&k.0].id, self.nodes[&k.1].id),
            ))
        }
    }

    /// Removes the edges between the given pairs of node ids, as `remove_edge` on each pair
    /// would (a pair without an edge is skipped), with one pass over the edges instead of a
    /// call and five map searches per edge: an edge filter's truth removes most of a
    /// 10,000-node graph's edges.
    pub fn remove_edges<'a>(&mut self, pairs: impl IntoIterator<Item = (&'a str, &'a str)>) {
        // Each node's key once: a node ends several edges, and parsing and re-writing an
        // address for every end was most of the removal.
        let mut keys: FxHashMap<&str, Key> = FxHashMap::default();
        let mut key_of = |id: &'a str| keys.entry(id).or_insert_with(|| key(id)).clone();
        let doomed: FxHashSet<(Key, Key)> = pairs
            .into_iter()
            .map(|(u, v)| {
                let (a, b) = (key_of(u), key_of(v));
                if a <= b { (a, b) } else { (b, a) }
            })
            .collect();
        // Split and rebuilt from the sorted survivors (`from_iter` builds in one pass):
        // `retain` shifts a leaf's entries at each removal, and most edges go.
        let (kept, removed): (Vec<_>, Vec<_>) =
            std::mem::take(&mut self.edges).into_iter().partition(|(k, _)| !doomed.contains(k));
        self.edges = kept.into_iter().collect();
        for ((a, b), _) in removed {
            self.unlink(&a, &b);
        }
    }

    /// Drops `a` and `b` from each other's neighbours (their edge is already gone).
    fn unlink(&mut self, a: &Key, b: &Key) {
        self.adj.get_mut(a).expect("node").remove(b);
        self.adj.get_mut(b).expect("node").remove(a);
    }

    fn ensure(&mut self, id: &str) -> Key {
        let k = key(id);
        if !self.nodes.contains_key(&k) {
            self.nodes.insert(k.clone(), Node::new(id));
            self.adj.insert(k.clone(), BTreeSet::new());
        }
        k
    }

    fn set_attr(&mut self, k: &Key, name: &str, value: Py) -> ApiResult<()> {
        let n = self.nodes.get_mut(k).expect("checked");
        match (name, value) {
            ("color", Py::Str(s)) => n.color = s,
            ("size", v @ (Py::Int(_) | Py::Float(_))) => n.size = v,
            ("labels", Py::List(l) | Py::Tuple(l)) => {
                let mut labels = l
                    .into_iter()
                    .map(|x| match x {
                        Py::Str(s) => Ok(s),
                        o => Err(err(Exc::TypeError, format!("labels are str, got {}", o.type_name()))),
                    })
                    .collect::<ApiResult<Vec<String>>>()?;
                labels.sort();
                labels.dedup();
                n.labels = labels;
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

    fn set_weight(&mut self, k: &(Key, Key), name: &str, value: Py) -> ApiResult<()> {
        let i = WEIGHTS.iter().position(|w| *w == name).ok_or_else(|| {
            err(
                Exc::ValueError,
                format!("unknown edge attribute {name:?}; attributes: {}", WEIGHTS.join(", ")),
            )
        })?;
        match value {
            v @ (Py::Int(_) | Py::Float(_)) => {
                self.edges.get_mut(k).expect("checked")[i] = v;
                Ok(())
            }
            o => Err(err(Exc::TypeError, format!("{name} must be an int or float, got {}", o.type_name()))),
        }
    }

    fn ids(&self, keys: impl Iterator<Item = Key>, budget: Budget<'_>, n: usize) -> ApiResult<Py> {
        budget(n * ROW_BYTES / 4)?;
        Ok(Py::List(keys.map(|k| Py::Str(self.nodes[&k].id.clone())).collect()))
    }

    fn edge_py(&self, k: &(Key, Key), data: bool) -> Py {
        let mut t = vec![Py::Str(self.nodes[&k.0].id.clone()), Py::Str(self.nodes[&k.1].id.clone())];
        if data {
            t.push(self.weights_py(k));
        }
        Py::Tuple(t)
    }

    fn weights_py(&self, k: &(Key, Key)) -> Py {
        Py::Dict(WEIGHTS.iter().zip(&self.edges[k]).map(|(w, v)| (Py::Str((*w).into()), v.clone())).collect())
    }

    fn degree_of(&self, k: &Key, weight: Option<usize>) -> Py {
        let nbrs = &self.adj[k];
        match weight {
            None => Py::Int(nbrs.len() as i64),
            Some(w) => {
                let (mut int, mut float, mut is_float) = (0i64, 0f64, false);
                for v in nbrs {
                    let e = if k <= v { (k.clone(), v.clone()) } else { (v.clone(), k.clone()) };
                    match &self.edges[&e][w] {
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
    let nodes = g.nodes.len();
    match name {
        "has_node" => Ok(Py::Bool(g.nodes.contains_key(&key(&want_str(a[0].as_ref(), "n")?)))),
        "node" => Ok(g.nodes[&g.require(a[0].as_ref(), "n")?].to_py()),
        "nodes" => {
            let data = truthy(a[0].as_ref());
            budget(nodes * if data { ROW_BYTES } else { ROW_BYTES / 4 })?;
            Ok(Py::List(
                g.nodes
                    .values()
                    .map(|n| {
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
        "number_of_edges" => Ok(Py::Int(g.edges.len() as i64)),
        "get" => {
            let k = g.require(a[0].as_ref(), "n")?;
            let attr = want_str(a[1].as_ref(), "key")?;
            let Py::Dict(items) = g.nodes[&k].to_py() else { unreachable!("a dict") };
            Ok(items
                .into_iter()
                .find(|(k, _)| *k == Py::Str(attr.clone()))
                .map_or(a[2].clone().unwrap_or(Py::None), |(_, v)| v))
        }
        "set" => {
            let k = g.require(a[0].as_ref(), "n")?;
            let attr = want_str(a[1].as_ref(), "key")?;
            g.set_attr(&k, &attr, required(&a[2], "value")?.clone())?;
            Ok(Py::None)
        }
        "labels" => {
            let k = g.require(a[0].as_ref(), "n")?;
            Ok(Py::List(g.nodes[&k].labels.iter().map(|l| Py::Str(l.clone())).collect()))
        }
        "add_label" | "remove_label" => {
            let k = g.require(a[0].as_ref(), "n")?;
            let l = want_str(a[1].as_ref(), "l")?;
            g.relabel(&k, l, name == "add_label")?;
            Ok(Py::None)
        }
        "neighbors" => {
            let k = g.require(a[0].as_ref(), "n")?;
            let n = g.adj[&k].len();
            g.ids(g.adj[&k].iter().cloned(), budget, n)
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
                Some(n) => Ok(g.degree_of(&g.require(Some(n), "n")?, weight)),
                None => {
                    budget(nodes * ROW_BYTES / 2)?;
                    Ok(Py::List(
                        g.nodes
                            .iter()
                            .map(|(k, n)| Py::Tuple(vec![Py::Str(n.id.clone()), g.degree_of(k, weight)]))
                            .collect(),
                    ))
                }
            }
        }
        "edges" => {
            let data = truthy(a[1].as_ref());
            let keys: Vec<(Key, Key)> = match a[0].as_ref() {
                Some(n) => {
                    let k = g.require(Some(n), "n")?;
                    g.adj[&k]
                        .iter()
                        .map(|v| if k <= *v { (k.clone(), v.clone()) } else { (v.clone(), k.clone()) })
                        .collect()
                }
                None => {
                    budget(g.edges.len() * if data { ROW_BYTES } else { ROW_BYTES / 2 })?;
                    g.edges.keys().cloned().collect()
                }
            };
            Ok(Py::List(keys.iter().map(|k| g.edge_py(k, data)).collect()))
        }
        "has_edge" => {
            let (u, v) = (want_str(a[0].as_ref(), "u")?, want_str(a[1].as_ref(), "v")?);
            let (u, v) = (key(&u), key(&v));
            Ok(Py::Bool(g.edges.contains_key(&if u <= v { (u, v) } else { (v, u) })))
        }
        "edge" => Ok(g.weights_py(&g.edge_key(&a)?)),
        "set_edge" => {
            let k = g.edge_key(&a)?;
            let attr = want_str(a[2].as_ref(), "key")?;
            g.set_weight(&k, &attr, required(&a[3], "value")?.clone())?;
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
            let (ku, kv) = (g.ensure(&u), g.ensure(&v));
            let k = if ku <= kv { (ku.clone(), kv.clone()) } else { (kv.clone(), ku.clone()) };
            g.edges.entry(k.clone()).or_insert_with(|| [Py::Int(0), Py::Int(0), Py::Int(0)]);
            g.adj.get_mut(&ku).expect("node").insert(kv.clone());
            g.adj.get_mut(&kv).expect("node").insert(ku);
            for (w, value) in extra {
                g.set_weight(&k, &w, value)?;
            }
            Ok(Py::None)
        }
        "remove_edge" => {
            let k = g.edge_key(&a)?;
            g.edges.remove(&k);
            g.unlink(&k.0, &k.1);
            Ok(Py::None)
        }
        "add_node" => {
            let id = want_str(a[0].as_ref(), "n")?;
            let k = g.ensure(&id);
            for (attr, value) in extra {
                if attr == "ip_address" {
                    match value {
                        Py::Str(s) => g.nodes.get_mut(&k).expect("node").ip_address = s,
                        o => {
                            return Err(err(
                                Exc::TypeError,
                                format!("ip_address must be a str, got {}", o.type_name()),
                            ));
                        }
                    }
                } else {
                    g.set_attr(&k, &attr, value)?;
                }
            }
            Ok(Py::None)
        }
        "remove_node" => {
            let k = g.require(a[0].as_ref(), "n")?;
            for v in g.adj.remove(&k).unwrap_or_default() {
                g.adj.get_mut(&v).expect("node").remove(&k);
                g.edges.remove(&if k <= v { (k.clone(), v) } else { (v, k.clone()) });
            }
            g.nodes.remove(&k);
            Ok(Py::None)
        }
        _ => {
            let l = want_str(a[0].as_ref(), "l")?;
            let keys: Vec<Key> = g
                .nodes
                .iter()
                .filter(|(_, n)| n.labels.binary_search(&l).is_ok())
                .map(|(k, _)| k.clone())
                .collect();
            let n = keys.len();
            g.ids(keys.into_iter(), budget, n)
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

    #[test]
    fn weights_sum_the_allowed_connections() {
        let (tr, g) = graph();
        let total: u64 = tr.connections.iter().filter(|c| c.allow).map(|c| c.bytes_f + c.bytes_r).sum();
        let conns = tr.connections.iter().filter(|c| c.allow).count() as i64;
        let sum =
            |i: usize| -> i64 { g.edges.values().map(|w| if let Py::Int(x) = w[i] { x } else { 0 }).sum() };
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
