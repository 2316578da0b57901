//! The procedural base topology (docs/malt.md, "The topology"): knobs, naming, the build in canonical
//! order, seeded capacity outliers, and a small shared cache.
//!
//! The base graph is immutable and shared (`Arc`) by every task and run on the same knobs;
//! changes live in a [`crate::malt::graph::Working`] overlay. Nodes are created in canonical
//! order, so a node's petgraph index *is* its canonical position: sorting neighbours by index
//! gives the documented order without any extra key.

use std::collections::VecDeque;
use std::fmt;
use std::hash::{BuildHasher, BuildHasherDefault, DefaultHasher};
use std::sync::{Arc, Mutex};

use hashbrown::HashTable;
use petgraph::Direction;
use petgraph::stable_graph::{NodeIndex, StableDiGraph};
use petgraph::visit::{EdgeRef, IntoEdgeReferences};

use super::kind::{AttrValue, Kind, Rel};
use crate::seed::{Stream, Width};

/// The size knobs `S×A×W×P` (docs/malt.md, "The topology").
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Shape {
    /// Superblocks (= spineblocks).
    pub s: u32,
    /// Aggregation blocks per superblock.
    pub a: u32,
    /// Switches per block.
    pub w: u32,
    /// Ports per switch.
    pub p: u32,
}

/// Largest topology accepted.
pub const MAX_NODES: u64 = 5_000_000;

impl Shape {
    pub const SMALL: Shape = Shape { s: 2, a: 2, w: 4, p: 4 };
    pub const DEFAULT: Shape = Shape { s: 4, a: 4, w: 16, p: 16 };
    pub const LARGE: Shape = Shape { s: 8, a: 8, w: 32, p: 32 };
    pub const XL: Shape = Shape { s: 16, a: 16, w: 64, p: 64 };
    pub const PRESETS: [(&'static str, Shape); 4] =
        [("small", Shape::SMALL), ("default", Shape::DEFAULT), ("large", Shape::LARGE), ("xl", Shape::XL)];

    /// Parses `SxAxWxP` or a preset name and checks the ranges.
    pub fn parse(text: &str) -> Result<Shape, String> {
        if let Some((_, shape)) = Shape::PRESETS.iter().find(|(n, _)| *n == text) {
            return Ok(*shape);
        }
        let parts: Vec<&str> = text.split('x').collect();
        let nums: Vec<u32> = parts.iter().filter_map(|p| p.parse().ok()).collect();
        if parts.len() != 4 || nums.len() != 4 || parts.iter().any(|p| p.starts_with('0')) {
            return Err(format!(
                "shape {text:?} is not SxAxWxP (e.g. 4x4x16x16) or one of small, default, large, xl"
            ));
        }
        let shape = Shape { s: nums[0], a: nums[1], w: nums[2], p: nums[3] };
        shape.check()?;
        Ok(shape)
    }

    /// The knob ranges (docs/malt.md, "The topology").
    pub fn check(&self) -> Result<(), String> {
        let ranges =
            [("S", self.s, 1, 64), ("A", self.a, 2, 64), ("W", self.w, 2, 256), ("P", self.p, 2, 1024)];
        for (name, v, lo, hi) in ranges {
            if !(lo..=hi).contains(&v) {
                return Err(format!("{name} = {v} is outside {lo}..={hi}"));
            }
        }
        if self.nodes() > MAX_NODES {
            return Err(format!("{} nodes is more than the limit of {MAX_NODES}", self.nodes()));
        }
        Ok(())
    }

    /// Nsw = S·W·(A+1).
    pub fn switches(&self) -> u64 {
        u64::from(self.s) * u64::from(self.w) * (u64::from(self.a) + 1)
    }

    pub fn ports(&self) -> u64 {
        self.switches() * u64::from(self.p)
    }

    /// Nsw·(P+3) + 1 + S·(2A+5).
    pub fn nodes(&self) -> u64 {
        self.switches() * (u64::from(self.p) + 3) + 1 + u64::from(self.s) * (2 * u64::from(self.a) + 5)
    }

    /// Nsw·(P+6) + S·A + 2S.
    pub fn edges(&self) -> u64 {
        self.switches() * (u64::from(self.p) + 6)
            + u64::from(self.s) * u64::from(self.a)
            + 2 * u64::from(self.s)
    }

    /// Lower-stage switches per block: ⌈W/2⌉.
    pub fn lower(&self) -> u32 {
        self.w.div_ceil(2)
    }

    /// Upper-stage switches per block: ⌊W/2⌋.
    pub fn upper(&self) -> u32 {
        self.w / 2
    }

    /// Capacity outliers: ⌈ports/1024⌉.
    pub fn outliers(&self) -> u64 {
        self.ports().div_ceil(1024)
    }
}

impl fmt::Display for Shape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}x{}x{}x{}", self.s, self.a, self.w, self.p)
    }
}

/// The knobs that determine a base topology: its shape and its topology seed `t`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TopoKey {
    pub shape: Shape,
    pub seed: u64,
}

impl TopoKey {
    /// The RNG material: `malt-topo|v1|{S}x{A}x{W}x{P}|t{t}`.
    pub fn material(&self) -> String {
        format!("malt-topo|v1|{}|t{}", self.shape, self.seed)
    }
}

impl Default for TopoKey {
    fn default() -> Self {
        TopoKey { shape: Shape::DEFAULT, seed: 0 }
    }
}

/// A base node. The one attribute a base node can have is determined by its kind, so it is
/// stored as one integer (`num`): a superblock's index, a switch's stage, a port's capacity.
#[derive(Debug, Clone)]
pub struct Node {
    pub kind: Kind,
    pub name: Box<str>,
    num: i64,
}

/// The base attribute key of a kind, if it has one.
fn attr_key(kind: Kind) -> Option<&'static str> {
    match kind {
        Kind::Jupiter => Some("jupiter_type"),
        Kind::Superblock => Some("index_within_jupiter"),
        Kind::PacketSwitch => Some("stage"),
        Kind::Port => Some("physical_capacity_bps"),
        _ => None,
    }
}

/// Port capacity of ordinary ports, in bps.
pub const BASE_CAPACITY: i64 = 1_000_000_000;

/// Outlier capacities, in Gbps.
const OUTLIER_GBPS: [i64; 4] = [2, 4, 5, 10];

type NameHasher = BuildHasherDefault<DefaultHasher>;

/// An immutable base topology.
pub struct Topology {
    pub key: TopoKey,
    graph: StableDiGraph<Node, Rel, u32>,
    /// Node indexes hashed by name: a lookup table, never iterated.
    index: HashTable<u32>,
    by_kind: [Vec<u32>; 10],
    /// Edges per relation, in [`Rel::ALL`] order.
    rel_counts: [usize; 2],
}

impl fmt::Debug for Topology {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Topology({} t{}, {} nodes)", self.key.shape, self.key.seed, self.len())
    }
}

fn name_hash(name: &str) -> u64 {
    NameHasher::default().hash_one(name)
}

impl Topology {
    /// Builds the topology of `key` (the shape must be valid).
    pub fn build(key: TopoKey) -> Topology {
        let mut b = Builder::new(key);
        b.fabric();
        let mut topo = b.finish();
        topo.outliers();
        topo
    }

    pub fn shape(&self) -> Shape {
        self.key.shape
    }

    /// Number of nodes (all base nodes are live).
    pub fn len(&self) -> usize {
        self.graph.node_count()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn edge_count(&self) -> usize {
        self.graph.edge_count()
    }

    /// Edges of one relation.
    pub fn rel_count(&self, rel: Rel) -> usize {
        self.rel_counts[rel as usize]
    }

    pub fn node(&self, id: u32) -> &Node {
        &self.graph[NodeIndex::new(id as usize)]
    }

    pub fn name(&self, id: u32) -> &str {
        &self.node(id).name
    }

    pub fn kind(&self, id: u32) -> Kind {
        self.node(id).kind
    }

    /// The node called `name`.
    pub fn lookup(&self, name: &str) -> Option<u32> {
        self.index.find(name_hash(name), |&id| self.name(id) == name).copied()
    }

    /// The base attributes of a node (without `name` and `kind`).
    pub fn attrs(&self, id: u32) -> Vec<(&'static str, AttrValue)> {
        let node = self.node(id);
        match (attr_key(node.kind), node.kind) {
            (Some(key), Kind::Jupiter) => vec![(key, AttrValue::Str("JDT_COLO".into()))],
            (Some(key), _) => vec![(key, AttrValue::Int(node.num))],
            (None, _) => Vec::new(),
        }
    }

    /// One base attribute.
    pub fn attr(&self, id: u32, key: &str) -> Option<AttrValue> {
        self.attrs(id).into_iter().find(|(k, _)| *k == key).map(|(_, v)| v)
    }

    /// A port's base capacity (0 for other kinds).
    pub fn port_capacity(&self, id: u32) -> i64 {
        let node = self.node(id);
        if node.kind == Kind::Port { node.num } else { 0 }
    }

    /// Out-neighbours with their relation, in canonical order.
    pub fn out_edges(&self, id: u32) -> Vec<(u32, Rel)> {
        self.edges(id, Direction::Outgoing)
    }

    /// In-neighbours with their relation, in canonical order.
    pub fn in_edges(&self, id: u32) -> Vec<(u32, Rel)> {
        self.edges(id, Direction::Incoming)
    }

    fn edges(&self, id: u32, dir: Direction) -> Vec<(u32, Rel)> {
        let mut out: Vec<(u32, Rel)> = self.edges_unordered(id, dir == Direction::Outgoing).collect();
        out.sort_unstable();
        out
    }

    /// Out- (`out`) or in-neighbours with their relation, in storage order: for walks that
    /// sort their result once (a sort and a vector per visited node dominated them).
    pub fn edges_unordered(&self, id: u32, out: bool) -> impl Iterator<Item = (u32, Rel)> + '_ {
        let dir = if out { Direction::Outgoing } else { Direction::Incoming };
        self.graph.edges_directed(NodeIndex::new(id as usize), dir).map(move |e| {
            let other = if out { e.target() } else { e.source() };
            (other.index() as u32, *e.weight())
        })
    }

    /// The relation of the edge `u → v`, if there is one.
    pub fn edge(&self, u: u32, v: u32) -> Option<Rel> {
        self.graph.find_edge(NodeIndex::new(u as usize), NodeIndex::new(v as usize)).map(|e| self.graph[e])
    }

    /// The nodes of one kind, in canonical order.
    pub fn of_kind(&self, kind: Kind) -> &[u32] {
        &self.by_kind[kind.index()]
    }

    /// All edges `(src, dst, rel)` sorted by (src, dst).
    pub fn all_edges(&self) -> Vec<(u32, u32, Rel)> {
        let mut edges: Vec<(u32, u32, Rel)> = (&self.graph)
            .edge_references()
            .map(|e| (e.source().index() as u32, e.target().index() as u32, *e.weight()))
            .collect();
        edges.sort_unstable();
        edges
    }

    /// Node-link JSON in canonical order (`{"directed":true,"links":[…],"multigraph":false,
    /// "nodes":[…]}`), compact with sorted keys (canonical JSON), so its SHA-256 identifies the
    /// topology. Written piece by piece to `out`: the xl export is about 200 MB, and hashing it
    /// never needs it whole.
    pub fn write_node_link(&self, out: &mut dyn FnMut(&str)) {
        out("{\"directed\":true,\"links\":[");
        for (i, (u, v, rel)) in self.all_edges().into_iter().enumerate() {
            let sep = if i > 0 { "," } else { "" };
            // Base names are generated from [A-Za-z0-9_.-] and need no JSON escaping.
            out(&format!(
                "{sep}{{\"rel\":\"{rel}\",\"source\":\"{}\",\"target\":\"{}\"}}",
                self.name(u),
                self.name(v)
            ));
        }
        out("],\"multigraph\":false,\"nodes\":[");
        for id in 0..self.len() as u32 {
            let sep = if id > 0 { "," } else { "" };
            // Keys in byte order: id, index_within_jupiter, jupiter_type, kind, physical_capacity_bps, stage.
            let mut keys: Vec<(&str, String)> =
                vec![("id", format!("\"{}\"", self.name(id))), ("kind", format!("\"{}\"", self.kind(id)))];
            keys.extend(
                self.attrs(id).into_iter().map(|(k, v)| (k, serde_json::to_string(&v).unwrap_or_default())),
            );
            keys.sort_unstable_by_key(|(k, _)| *k);
            let body: Vec<String> = keys.into_iter().map(|(k, v)| format!("\"{k}\":{v}")).collect();
            out(&format!("{sep}{{{}}}", body.join(",")));
        }
        out("]}");
    }

    /// The whole node-link export as one string.
    pub fn node_link_json(&self) -> String {
        let mut s = String::with_capacity(self.len() * 96);
        self.write_node_link(&mut |piece| s.push_str(piece));
        s
    }

    /// The SHA-256 of the node-link export, without holding it.
    pub fn node_link_sha256(&self) -> String {
        use sha2::{Digest, Sha256};
        let mut h = Sha256::new();
        self.write_node_link(&mut |piece| h.update(piece.as_bytes()));
        crate::hash::hex(&h.finalize())
    }

    /// Sets the seeded capacity outliers: a partial Fisher–Yates draw of ⌈ports/1024⌉ ports
    /// over all ports in canonical order, then, for each drawn port in draw order, a capacity
    /// uniform over {2, 4, 5, 10} Gbps.
    fn outliers(&mut self) {
        let mut rng = Stream::new(&self.key.material(), Width::W64);
        let ports = self.by_kind[Kind::Port.index()].clone();
        let picks = rng.subset(ports.len(), self.key.shape.outliers() as usize);
        for pick in picks {
            let gbps = *rng.choose(&OUTLIER_GBPS);
            self.graph[NodeIndex::new(ports[pick] as usize)].num = gbps * BASE_CAPACITY;
        }
    }
}

/// Creates nodes and edges in canonical order.
struct Builder {
    key: TopoKey,
    graph: StableDiGraph<Node, Rel, u32>,
    index: HashTable<u32>,
    by_kind: [Vec<u32>; 10],
}

/// A block being built: its node and name, and the stages of its lower and upper switches.
struct Block {
    id: u32,
    name: String,
    stages: (i64, i64),
}

impl Builder {
    fn new(key: TopoKey) -> Builder {
        let n = key.shape.nodes() as usize;
        let e = key.shape.edges() as usize;
        Builder {
            key,
            graph: StableDiGraph::with_capacity(n, e),
            index: HashTable::with_capacity(n),
            by_kind: Default::default(),
        }
    }

    fn node(&mut self, kind: Kind, name: String, num: i64) -> u32 {
        let hash = name_hash(&name);
        let id = self.graph.add_node(Node { kind, name: name.into_boxed_str(), num }).index() as u32;
        let graph = &self.graph;
        self.index.insert_unique(hash, id, |&i| name_hash(&graph[NodeIndex::new(i as usize)].name));
        self.by_kind[kind.index()].push(id);
        id
    }

    fn edge(&mut self, u: u32, v: u32, rel: Rel) {
        self.graph.add_edge(NodeIndex::new(u as usize), NodeIndex::new(v as usize), rel);
    }

    fn fabric(&mut self) {
        let Shape { s, a, .. } = self.key.shape;
        let ju = self.node(Kind::Jupiter, "ju1".into(), 0);
        let supers: Vec<u32> = (1..=s)
            .map(|i| {
                let id = self.node(Kind::Superblock, format!("ju1.a{i}"), i64::from(i));
                self.edge(ju, id, Rel::Contains);
                id
            })
            .collect();
        let mut spines = Vec::new();
        for i in 1..=s {
            let id = self.node(Kind::Spineblock, format!("ju1.s{i}"), 0);
            self.edge(ju, id, Rel::Contains);
            spines.push(Block { id, name: format!("ju1.s{i}"), stages: (1, 2) });
        }
        let mut blocks = Vec::new();
        for (i, &sb) in supers.iter().enumerate() {
            for j in 1..=a {
                let name = format!("ju1.a{}.m{j}", i + 1);
                let id = self.node(Kind::AggBlock, name.clone(), 0);
                self.edge(sb, id, Rel::Contains);
                blocks.push(Block { id, name, stages: (2, 3) });
            }
        }
        blocks.extend(spines);
        let switches = self.switches(&blocks);
        self.physical(&blocks, &switches);
        self.control(&switches);
    }

    /// Each block's switches, each followed by its ports; returns (switch, name) per block.
    fn switches(&mut self, blocks: &[Block]) -> Vec<Vec<(u32, String)>> {
        let shape = self.key.shape;
        let mut all = Vec::with_capacity(blocks.len());
        for block in blocks {
            let mut list = Vec::new();
            let stages = [(block.stages.0, shape.lower()), (block.stages.1, shape.upper())];
            for (stage, count) in stages {
                for c in 1..=count {
                    let name = format!("{}.s{stage}c{c}", block.name);
                    let sw = self.node(Kind::PacketSwitch, name.clone(), stage);
                    self.edge(block.id, sw, Rel::Contains);
                    for n in 1..=shape.p {
                        let port = self.node(Kind::Port, format!("{name}.p{n}"), BASE_CAPACITY);
                        self.edge(sw, port, Rel::Contains);
                    }
                    list.push((sw, name));
                }
            }
            all.push(list);
        }
        all
    }

    /// Racks (one per block) and chassis (one per switch).
    fn physical(&mut self, blocks: &[Block], switches: &[Vec<(u32, String)>]) {
        let racks: Vec<u32> =
            blocks.iter().map(|b| self.node(Kind::Rack, format!("{}rack", b.name), 0)).collect();
        for (rack, list) in racks.iter().zip(switches) {
            for (sw, name) in list {
                let chassis = self.node(Kind::Chassis, format!("{name}-chassis"), 0);
                self.edge(*rack, chassis, Rel::Contains);
                self.edge(chassis, *sw, Rel::Contains);
            }
        }
    }

    /// Control domains (per superblock, then per spineblock) and control points (per switch,
    /// agg before spine). Chassis ids follow the switch order, so a switch's chassis is found
    /// by position.
    fn control(&mut self, switches: &[Vec<(u32, String)>]) {
        let Shape { s, a, .. } = self.key.shape;
        let mut domains: Vec<u32> =
            (1..=s).map(|i| self.node(Kind::ControlDomain, format!("ju1.a{i}.dom"), 0)).collect();
        domains.extend((1..=s).map(|i| self.node(Kind::ControlDomain, format!("ju1.s{i}.dom"), 0)));
        let chassis = self.by_kind[Kind::Chassis.index()].clone();
        let mut position = 0;
        for (b, list) in switches.iter().enumerate() {
            let agg_blocks = (s * a) as usize;
            let domain =
                if b < agg_blocks { domains[b / a as usize] } else { domains[s as usize + b - agg_blocks] };
            for (sw, name) in list {
                let cp = self.node(Kind::ControlPoint, format!("{name}-cp"), 0);
                self.edge(domain, cp, Rel::Contains);
                self.edge(chassis[position], cp, Rel::Contains);
                self.edge(cp, *sw, Rel::Controls);
                position += 1;
            }
        }
    }

    fn finish(self) -> Topology {
        let mut rel_counts = [0; 2];
        for rel in self.graph.edge_weights() {
            rel_counts[*rel as usize] += 1;
        }
        Topology { key: self.key, graph: self.graph, index: self.index, by_kind: self.by_kind, rel_counts }
    }
}

/// Topologies kept by [`topology`]; the oldest is dropped beyond this.
const CACHE_SIZE: usize = 4;

static CACHE: Mutex<VecDeque<Arc<Topology>>> = Mutex::new(VecDeque::new());

/// The shared base topology of `key`, built on first use and kept in a small cache.
pub fn topology(key: TopoKey) -> Arc<Topology> {
    if let Some(hit) = CACHE.lock().ok().and_then(|c| c.iter().find(|t| t.key == key).cloned()) {
        return hit;
    }
    let built = Arc::new(Topology::build(key));
    if let Ok(mut cache) = CACHE.lock()
        && !cache.iter().any(|t| t.key == key)
    {
        cache.push_back(built.clone());
        if cache.len() > CACHE_SIZE {
            cache.pop_front();
        }
    }
    built
}

#[cfg(test)]
mod tests {
    use super::*;

    fn small() -> Arc<Topology> {
        topology(TopoKey { shape: Shape::SMALL, seed: 0 })
    }

    #[test]
    fn preset_counts_match_the_formulas() {
        let expected =
            [(Shape::SMALL, 187, 248), (Shape::DEFAULT, 6_133, 7_064), (Shape::LARGE, 80_809, 87_632)];
        for (shape, nodes, edges) in expected {
            assert_eq!((shape.nodes(), shape.edges()), (nodes, edges));
        }
        assert_eq!((Shape::XL.nodes(), Shape::XL.edges()), (1_166_929, 1_218_848));
        let t = small();
        assert_eq!((t.len(), t.edge_count()), (187, 248));
    }

    #[test]
    fn canonical_order_starts_as_documented() {
        let t = small();
        let first: Vec<&str> = (0..8).map(|i| t.name(i)).collect();
        assert_eq!(
            first,
            ["ju1", "ju1.a1", "ju1.a2", "ju1.s1", "ju1.s2", "ju1.a1.m1", "ju1.a1.m2", "ju1.a2.m1"]
        );
        assert_eq!(t.name(9), "ju1.a1.m1.s2c1");
        assert_eq!(t.name(10), "ju1.a1.m1.s2c1.p1");
        assert_eq!(t.name(14), "ju1.a1.m1.s2c2");
        let last = t.len() as u32 - 1;
        assert_eq!(t.name(last), "ju1.s2.s2c2-cp");
    }

    #[test]
    fn lookups_attrs_and_edges() {
        let t = small();
        let sw = t.lookup("ju1.s2.s1c1").unwrap();
        assert_eq!(t.kind(sw), Kind::PacketSwitch);
        assert_eq!(t.attr(sw, "stage"), Some(AttrValue::Int(1)));
        assert_eq!(t.attr(t.lookup("ju1.a2").unwrap(), "index_within_jupiter"), Some(AttrValue::Int(2)));
        assert_eq!(t.attrs(0), vec![("jupiter_type", AttrValue::Str("JDT_COLO".into()))]);
        let ports: Vec<&str> = t.out_edges(sw).iter().map(|&(v, _)| t.name(v)).collect();
        assert_eq!(ports, ["ju1.s2.s1c1.p1", "ju1.s2.s1c1.p2", "ju1.s2.s1c1.p3", "ju1.s2.s1c1.p4"]);
        let parents: Vec<(&str, Rel)> = t.in_edges(sw).iter().map(|&(v, r)| (t.name(v), r)).collect();
        assert_eq!(
            parents,
            [
                ("ju1.s2", Rel::Contains),
                ("ju1.s2.s1c1-chassis", Rel::Contains),
                ("ju1.s2.s1c1-cp", Rel::Controls)
            ]
        );
        assert_eq!(t.lookup("nope"), None);
        assert_eq!(t.edge(0, 1), Some(Rel::Contains));
        assert_eq!(t.edge(1, 0), None);
    }

    #[test]
    fn outliers_are_seeded() {
        let count = |t: &Topology| {
            t.of_kind(Kind::Port).iter().filter(|&&p| t.port_capacity(p) != BASE_CAPACITY).count()
        };
        let a = topology(TopoKey { shape: Shape::DEFAULT, seed: 0 });
        let b = Topology::build(TopoKey { shape: Shape::DEFAULT, seed: 1 });
        assert_eq!(count(&a), 5, "outlier capacities never equal the base capacity");
        let caps =
            |t: &Topology| t.of_kind(Kind::Port).iter().map(|&p| t.port_capacity(p)).collect::<Vec<_>>();
        assert_ne!(caps(&a), caps(&b));
        assert_eq!(caps(&a), caps(&Topology::build(TopoKey::default())));
    }

    /// The fast writer produces exactly the canonical JSON of the node-link document.
    #[test]
    fn node_link_export_is_canonical_json() {
        let t = small();
        let nodes: Vec<serde_json::Value> = (0..t.len() as u32)
            .map(|id| {
                let mut obj = serde_json::Map::new();
                obj.insert("id".into(), t.name(id).into());
                obj.insert("kind".into(), t.kind(id).as_str().into());
                for (k, v) in t.attrs(id) {
                    obj.insert(k.into(), serde_json::to_value(v).unwrap());
                }
                serde_json::Value::Object(obj)
            })
            .collect();
        let links: Vec<serde_json::Value> = t
            .all_edges()
            .into_iter()
            .map(|(u, v, r)| serde_json::json!({"rel": r.as_str(), "source": t.name(u), "target": t.name(v)}))
            .collect();
        let doc = serde_json::json!({"directed": true, "multigraph": false, "nodes": nodes, "links": links});
        assert_eq!(t.node_link_json(), crate::hash::canonical_json(&doc));
        assert_eq!(t.node_link_sha256(), crate::hash::sha256_hex(t.node_link_json().as_bytes()));
    }

    #[test]
    fn shapes_parse_and_reject() {
        assert_eq!(Shape::parse("xl").unwrap(), Shape::XL);
        assert_eq!(Shape::parse("2x2x4x4").unwrap(), Shape::SMALL);
        for bad in
            ["", "4x4x16", "0x4x16x16", "4x1x16x16", "4x4x1x16", "4x4x16x2000", "64x64x256x1024", "04x4x4x4"]
        {
            assert!(Shape::parse(bad).is_err(), "{bad}");
        }
    }
}
