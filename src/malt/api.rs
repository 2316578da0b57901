//! The host graph API `G` (docs/malt.md), as pure Rust over a [`Working`] graph.
//!
//! The sandbox forwards each `G.method(*args, **kwargs)` here as plain values ([`Py`]) and
//! turns the result or the error back into Python objects; keeping the semantics free of the
//! interpreter lets the library without the `sandbox` feature (the main web bundle) and the
//! tests use exactly the same rules.
//!
//! The API checks formats, not semantics: names, kinds, relations and value types are
//! validated, while off-hierarchy edges and orphaning removals are allowed (the safety rules
//! judge them afterwards).

use std::fmt;

use super::graph::{Capacity, GraphError, Id, Working, quote};
use super::kind::{AttrValue, Kind, Rel};
use super::method::{Bound, Methods, method, method_kw};

/// A Python value crossing the host boundary.
#[derive(Debug, Clone, PartialEq)]
pub enum Py {
    None,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(String),
    List(Vec<Py>),
    Tuple(Vec<Py>),
    Dict(Vec<(Py, Py)>),
    /// Anything else, by its Python type name (only ever an argument, for error messages).
    Other(String),
}

impl Py {
    /// The Python type name, for error messages.
    pub fn type_name(&self) -> &str {
        match self {
            Py::None => "NoneType",
            Py::Bool(_) => "bool",
            Py::Int(_) => "int",
            Py::Float(_) => "float",
            Py::Str(_) => "str",
            Py::List(_) => "list",
            Py::Tuple(_) => "tuple",
            Py::Dict(_) => "dict",
            Py::Other(t) => t,
        }
    }

    fn from_attr(v: AttrValue) -> Py {
        match v {
            AttrValue::Bool(b) => Py::Bool(b),
            AttrValue::Int(i) => Py::Int(i),
            AttrValue::Float(f) => Py::Float(f),
            AttrValue::Str(s) => Py::Str(s),
        }
    }

    fn from_capacity(c: Capacity) -> Py {
        Py::from_attr(c.value())
    }
}

/// The Python exception a call raises.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exc {
    KeyError,
    ValueError,
    TypeError,
    AttributeError,
    MemoryError,
}

/// An error raised inside the sandbox by a G method.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiError {
    pub exc: Exc,
    pub message: String,
}

impl ApiError {
    fn new(exc: Exc, message: impl Into<String>) -> ApiError {
        ApiError { exc, message: message.into() }
    }
    fn type_error(message: impl Into<String>) -> ApiError {
        ApiError::new(Exc::TypeError, message)
    }
    fn value_error(message: impl Into<String>) -> ApiError {
        ApiError::new(Exc::ValueError, message)
    }
}

impl From<GraphError> for ApiError {
    fn from(e: GraphError) -> Self {
        match e {
            GraphError::NotFound(m) => ApiError::new(Exc::KeyError, m),
            GraphError::Invalid(m) => ApiError::value_error(m),
        }
    }
}

impl fmt::Display for ApiError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}: {}", self.exc, self.message)
    }
}

pub type ApiResult<T> = Result<T, ApiError>;

/// The message of `AttributeError` for a non-call attribute read such as `G.nodes[...]`.
pub const ATTRIBUTE_MESSAGE: &str = "G has only methods, e.g. G.node(name)";

/// Every method of `G`, in the order the prompt lists them.
const METHODS: Methods = Methods {
    object: "G",
    prefix: "",
    list: &[
        method("has_node", &["n"], 1),
        method("node", &["n"], 1),
        method("kind", &["n"], 1),
        method("get_attr", &["n", "key", "default"], 2),
        method("nodes", &["kind", "data"], 0),
        method("number_of_nodes", &["kind"], 0),
        method("number_of_edges", &["rel"], 0),
        method("successors", &["n", "rel", "kind"], 1),
        method("predecessors", &["n", "rel", "kind"], 1),
        method("children", &["n", "kind"], 1),
        method("parents", &["n", "kind"], 1),
        method("descendants", &["n", "kind"], 1),
        method("ancestors", &["n", "kind"], 1),
        method("edges", &["n", "rel"], 0),
        method("in_edges", &["n", "rel"], 1),
        method("has_edge", &["u", "v", "rel"], 2),
        method("count", &["kind", "under"], 1),
        method("capacity", &["n"], 1),
        method_kw("add_node", &["n", "kind"], 2),
        method("add_edge", &["u", "v", "rel"], 3),
        method("remove_edge", &["u", "v"], 2),
        method("remove_node", &["n"], 1),
        method("set_attr", &["n", "key", "value"], 3),
    ],
};

/// The method names, for messages and the prompt.
pub fn method_names() -> Vec<&'static str> {
    METHODS.names()
}

/// Estimated bytes a result of `n` names (or rows) takes once in the interpreter; checked
/// against the memory budget before a large result is built.
const NAME_BYTES: usize = 160;
const ROW_BYTES: usize = 640;

fn want_str(method: &str, what: &str, v: Option<Py>) -> ApiResult<String> {
    match v {
        Some(Py::Str(s)) => Ok(s),
        Some(other) => {
            Err(ApiError::type_error(format!("{method}(): {what} must be a str, got {}", other.type_name())))
        }
        None => Err(ApiError::type_error(format!("{method}(): {what} must be a str, got None"))),
    }
}

fn opt_kind(method: &str, v: Option<Py>) -> ApiResult<Option<Kind>> {
    v.map(|v| want_str(method, "kind", Some(v)).and_then(|s| parse_kind(&s))).transpose()
}

fn parse_kind(s: &str) -> ApiResult<Kind> {
    Kind::parse(s).ok_or_else(|| {
        ApiError::value_error(format!("unknown kind {}; valid kinds: {}", quote(s), Kind::valid_list()))
    })
}

fn opt_rel(method: &str, v: Option<Py>) -> ApiResult<Option<Rel>> {
    v.map(|v| want_str(method, "rel", Some(v)).and_then(|s| parse_rel(&s))).transpose()
}

fn parse_rel(s: &str) -> ApiResult<Rel> {
    Rel::parse(s).ok_or_else(|| {
        ApiError::value_error(format!(
            "unknown relation {}; valid relations: {}",
            quote(s),
            Rel::valid_list()
        ))
    })
}

/// A Python value as an attribute value: int, float, str or bool only.
pub fn attr_value(v: Py) -> ApiResult<AttrValue> {
    match v {
        Py::Bool(b) => Ok(AttrValue::Bool(b)),
        Py::Int(i) => Ok(AttrValue::Int(i)),
        Py::Float(f) => Ok(AttrValue::Float(f)),
        Py::Str(s) => Ok(AttrValue::Str(s)),
        other => Err(ApiError::value_error(format!(
            "attribute values must be int, float, str or bool, got {}",
            other.type_name()
        ))),
    }
}

/// Checks that a result of `bytes` fits the memory budget before it is built.
pub type Budget<'a> = &'a dyn Fn(usize) -> ApiResult<()>;

/// No budget (native ground truth, tests).
pub fn unlimited(_: usize) -> ApiResult<()> {
    Ok(())
}

/// Calls `G.method(*args, **kwargs)` on a working graph.
pub fn call(
    g: &mut Working,
    method: &str,
    args: Vec<Py>,
    kwargs: Vec<(String, Py)>,
    budget: Budget<'_>,
) -> ApiResult<Py> {
    let mut b = METHODS.bind(method, args, kwargs)?;
    let name = b.method;
    // The first parameter of every reading method that names a node.
    let node = |b: &mut Bound, g: &Working| -> ApiResult<Id> {
        let n = want_str(name, "n", b.slots[0].take())?;
        Ok(g.require(&n)?)
    };
    match name {
        "has_node" => Ok(Py::Bool(g.lookup(&want_str(name, "n", b.take(0))?).is_some())),
        "node" => {
            let id = node(&mut b, g)?;
            Ok(node_dict(g, id))
        }
        "kind" => Ok(Py::Str(g.kind(node(&mut b, g)?).to_string())),
        "get_attr" => {
            let id = node(&mut b, g)?;
            let key = want_str(name, "key", b.take(1))?;
            let default = b.slots[2].take().unwrap_or(Py::None);
            Ok(get_attr(g, id, &key).unwrap_or(default))
        }
        "nodes" => {
            let kind = opt_kind(name, b.take(0))?;
            let data = truthy(b.take(1));
            let ids: Vec<Id> = match kind {
                Some(k) => g.nodes_of(k),
                None => g.nodes().collect(),
            };
            budget(ids.len() * if data { ROW_BYTES } else { NAME_BYTES })?;
            Ok(Py::List(ids.into_iter().map(|id| if data { row(g, id) } else { name_of(g, id) }).collect()))
        }
        "number_of_nodes" => Ok(Py::Int(g.node_count(opt_kind(name, b.take(0))?) as i64)),
        "number_of_edges" => Ok(Py::Int(g.edge_count(opt_rel(name, b.take(0))?) as i64)),
        "successors" | "predecessors" => {
            let id = node(&mut b, g)?;
            let rel = opt_rel(name, b.take(1))?;
            let kind = opt_kind(name, b.take(2))?;
            let list = if name == "successors" { g.out(id) } else { g.inn(id) };
            let ids = list.into_iter().filter(|&(_, r)| rel.is_none_or(|w| w == r)).map(|(v, _)| v);
            names(g, ids.collect(), kind, budget)
        }
        "children" | "parents" | "descendants" | "ancestors" => {
            let id = node(&mut b, g)?;
            let kind = opt_kind(name, b.take(1))?;
            let ids = match name {
                "children" => g.children(id),
                "parents" => g.parents(id),
                "descendants" => g.descendants(id),
                _ => g.ancestors(id),
            };
            names(g, ids, kind, budget)
        }
        "edges" | "in_edges" => {
            let n = b.take(0);
            let rel = opt_rel(name, b.take(1))?;
            let edges = match n {
                None => all_edges(g),
                Some(v) => {
                    let id = g.require(&want_str(name, "n", Some(v))?)?;
                    if name == "edges" {
                        g.out(id).into_iter().map(|(v, r)| (id, v, r)).collect()
                    } else {
                        g.inn(id).into_iter().map(|(u, r)| (u, id, r)).collect()
                    }
                }
            };
            let edges: Vec<(Id, Id, Rel)> =
                edges.into_iter().filter(|e| rel.is_none_or(|w| w == e.2)).collect();
            budget(edges.len() * ROW_BYTES)?;
            Ok(Py::List(edges.into_iter().map(|(u, v, r)| edge_tuple(g, u, v, r)).collect()))
        }
        "has_edge" => {
            let u = want_str(name, "u", b.take(0))?;
            let v = want_str(name, "v", b.take(1))?;
            let rel = opt_rel(name, b.take(2))?;
            let found = g.lookup(&u).zip(g.lookup(&v)).and_then(|(u, v)| g.edge(u, v));
            Ok(Py::Bool(found.is_some_and(|r| rel.is_none_or(|w| w == r))))
        }
        "count" => {
            let kind = parse_kind(&want_str(name, "kind", b.take(0))?)?;
            let count = match b.take(1) {
                None => g.node_count(Some(kind)),
                Some(v) => {
                    let under = g.require(&want_str(name, "under", Some(v))?)?;
                    g.descendants(under).into_iter().filter(|&d| g.kind(d) == kind).count()
                }
            };
            Ok(Py::Int(count as i64))
        }
        "capacity" => Ok(Py::from_capacity(g.capacity(node(&mut b, g)?))),
        _ => mutate(g, name, b),
    }
}

/// The methods that change the graph.
fn mutate(g: &mut Working, name: &str, mut b: Bound) -> ApiResult<Py> {
    let node = |b: &mut Bound, i: usize, param: &str, g: &Working| -> ApiResult<Id> {
        Ok(g.require(&want_str(name, param, b.slots[i].take())?)?)
    };
    match name {
        "add_node" => {
            let n = want_str(name, "n", b.take(0))?;
            let kind = parse_kind(&want_str(name, "kind", b.take(1))?)?;
            let attrs = b
                .extra
                .drain(..)
                .map(|(k, v)| attr_value(v).map(|v| (k, v)))
                .collect::<ApiResult<Vec<_>>>()?;
            g.add_node(&n, kind, attrs)?;
        }
        "add_edge" => {
            let u = node(&mut b, 0, "u", g)?;
            let v = node(&mut b, 1, "v", g)?;
            let rel = parse_rel(&want_str(name, "rel", b.take(2))?)?;
            g.add_edge(u, v, rel)?;
        }
        "remove_edge" => {
            let u = node(&mut b, 0, "u", g)?;
            let v = node(&mut b, 1, "v", g)?;
            g.remove_edge(u, v)?;
        }
        "remove_node" => {
            let id = node(&mut b, 0, "n", g)?;
            g.remove_node(id);
        }
        _ => {
            let id = node(&mut b, 0, "n", g)?;
            let key = want_str(name, "key", b.take(1))?;
            let value = attr_value(b.slots[2].take().unwrap_or(Py::None))?;
            g.set_attr(id, &key, value)?;
        }
    }
    Ok(Py::None)
}

fn truthy(v: Option<Py>) -> bool {
    match v {
        None | Some(Py::None) | Some(Py::Bool(false)) | Some(Py::Int(0)) => false,
        Some(Py::Str(s)) => !s.is_empty(),
        Some(Py::List(l)) | Some(Py::Tuple(l)) => !l.is_empty(),
        _ => true,
    }
}

fn name_of(g: &Working, id: Id) -> Py {
    Py::Str(g.name(id).to_string())
}

fn names(g: &Working, ids: Vec<Id>, kind: Option<Kind>, budget: Budget<'_>) -> ApiResult<Py> {
    let ids: Vec<Id> = ids.into_iter().filter(|&id| kind.is_none_or(|k| g.kind(id) == k)).collect();
    budget(ids.len() * NAME_BYTES)?;
    Ok(Py::List(ids.into_iter().map(|id| name_of(g, id)).collect()))
}

/// `{'name': n, 'kind': k, **attrs}`, a copy.
fn node_dict(g: &Working, id: Id) -> Py {
    let mut pairs = vec![
        (Py::Str("name".into()), name_of(g, id)),
        (Py::Str("kind".into()), Py::Str(g.kind(id).to_string())),
    ];
    pairs.extend(g.attrs(id).into_iter().map(|(k, v)| (Py::Str(k), Py::from_attr(v))));
    Py::Dict(pairs)
}

fn row(g: &Working, id: Id) -> Py {
    Py::Tuple(vec![name_of(g, id), node_dict(g, id)])
}

fn get_attr(g: &Working, id: Id, key: &str) -> Option<Py> {
    match key {
        "name" => Some(name_of(g, id)),
        "kind" => Some(Py::Str(g.kind(id).to_string())),
        _ => g.attr(id, key).map(Py::from_attr),
    }
}

fn edge_tuple(g: &Working, u: Id, v: Id, r: Rel) -> Py {
    Py::Tuple(vec![name_of(g, u), name_of(g, v), Py::Str(r.to_string())])
}

fn all_edges(g: &Working) -> Vec<(Id, Id, Rel)> {
    let mut edges: Vec<(Id, Id, Rel)> =
        g.nodes().flat_map(|u| g.out(u).into_iter().map(move |(v, r)| (u, v, r))).collect();
    edges.sort_unstable();
    edges
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::malt::topo::{Shape, TopoKey, topology};

    fn small() -> Working {
        Working::new(topology(TopoKey { shape: Shape::SMALL, seed: 0 }))
    }

    fn s(v: &str) -> Py {
        Py::Str(v.into())
    }

    fn call0(g: &mut Working, m: &str, args: Vec<Py>) -> ApiResult<Py> {
        call(g, m, args, vec![], &unlimited)
    }

    fn strs(v: Py) -> Vec<String> {
        match v {
            Py::List(l) => {
                l.into_iter().map(|x| if let Py::Str(s) = x { s } else { panic!("{x:?}") }).collect()
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn queries_in_canonical_order() {
        let mut g = small();
        assert_eq!(
            strs(call0(&mut g, "children", vec![s("ju1")]).unwrap()),
            ["ju1.a1", "ju1.a2", "ju1.s1", "ju1.s2"]
        );
        let kw = vec![("kind".to_string(), s("EK_SPINEBLOCK"))];
        assert_eq!(
            strs(call(&mut g, "children", vec![s("ju1")], kw, &unlimited).unwrap()),
            ["ju1.s1", "ju1.s2"]
        );
        assert_eq!(call0(&mut g, "count", vec![s("EK_PORT"), s("ju1.a1.m1")]).unwrap(), Py::Int(16));
        assert_eq!(call0(&mut g, "number_of_nodes", vec![]).unwrap(), Py::Int(187));
        assert_eq!(call0(&mut g, "kind", vec![s("ju1.a1.dom")]).unwrap(), s("EK_CONTROL_DOMAIN"));
        assert_eq!(
            call0(&mut g, "get_attr", vec![s("ju1.a1"), s("missing"), Py::Int(7)]).unwrap(),
            Py::Int(7)
        );
        assert_eq!(call0(&mut g, "has_edge", vec![s("ju1"), s("nope")]).unwrap(), Py::Bool(false));
        let node = call0(&mut g, "node", vec![s("ju1.a1.m1.s2c1")]).unwrap();
        assert_eq!(
            node,
            Py::Dict(vec![
                (s("name"), s("ju1.a1.m1.s2c1")),
                (s("kind"), s("EK_PACKET_SWITCH")),
                (s("stage"), Py::Int(2))
            ])
        );
        let edges = call0(&mut g, "in_edges", vec![s("ju1.a1.m1.s2c1")]).unwrap();
        assert_eq!(
            edges,
            Py::List(vec![
                Py::Tuple(vec![s("ju1.a1.m1"), s("ju1.a1.m1.s2c1"), s("RK_CONTAINS")]),
                Py::Tuple(vec![s("ju1.a1.m1.s2c1-chassis"), s("ju1.a1.m1.s2c1"), s("RK_CONTAINS")]),
                Py::Tuple(vec![s("ju1.a1.m1.s2c1-cp"), s("ju1.a1.m1.s2c1"), s("RK_CONTROLS")]),
            ])
        );
        let Py::List(all) = call0(&mut g, "edges", vec![]).unwrap() else { panic!() };
        assert_eq!(all.len(), 248);
    }

    #[test]
    fn errors_name_the_problem() {
        let mut g = small();
        let err = |g: &mut Working, m: &str, args: Vec<Py>| call0(g, m, args).unwrap_err();
        assert_eq!(err(&mut g, "node", vec![s("x")]), ApiError::new(Exc::KeyError, "node not found: 'x'"));
        assert_eq!(err(&mut g, "children", vec![Py::Int(1)]).exc, Exc::TypeError);
        let e = err(&mut g, "nodes", vec![s("EK_FOO")]);
        assert!(e.exc == Exc::ValueError && e.message.contains("EK_PORT"), "{e}");
        let e = err(&mut g, "add_edge", vec![s("ju1"), s("ju1.a1"), s("RK_X")]);
        assert!(e.message.contains("RK_CONTAINS"));
        assert_eq!(err(&mut g, "frobnicate", vec![]).exc, Exc::AttributeError);
        assert!(err(&mut g, "children", vec![]).message.contains("missing required argument 'n'"));
        assert!(err(&mut g, "capacity", vec![s("a"), s("b")]).message.contains("takes 1 positional"));
        let e = call(&mut g, "count", vec![s("EK_PORT")], vec![("kind".into(), s("EK_PORT"))], &unlimited);
        assert!(e.unwrap_err().message.contains("multiple values"));
        let e = call(
            &mut g,
            "add_node",
            vec![s("x"), s("EK_PORT")],
            vec![("c".into(), Py::List(vec![]))],
            &unlimited,
        );
        assert_eq!(e.unwrap_err().exc, Exc::ValueError);
        let e = err(&mut g, "set_attr", vec![s("ju1"), s("name"), s("x")]);
        assert!(e.message.contains("read-only"));
        let tight = |_: usize| Err(ApiError::new(Exc::MemoryError, "too big"));
        assert_eq!(call(&mut g, "nodes", vec![], vec![], &tight).unwrap_err().exc, Exc::MemoryError);
    }

    #[test]
    fn mutations_change_the_working_graph() {
        let mut g = small();
        let kw = vec![("physical_capacity_bps".to_string(), Py::Int(10))];
        call(&mut g, "add_node", vec![s("ju1.a1.m1.s2c1.p5"), s("EK_PORT")], kw, &unlimited).unwrap();
        call0(&mut g, "add_edge", vec![s("ju1.a1.m1.s2c1"), s("ju1.a1.m1.s2c1.p5"), s("RK_CONTAINS")])
            .unwrap();
        assert_eq!(call0(&mut g, "count", vec![s("EK_PORT"), s("ju1.a1.m1.s2c1")]).unwrap(), Py::Int(5));
        call0(&mut g, "remove_node", vec![s("ju1.a1.m1.s2c1.p1")]).unwrap();
        call0(&mut g, "set_attr", vec![s("ju1.a1.m1.s2c1.p2"), s("physical_capacity_bps"), Py::Float(2.5)])
            .unwrap();
        assert_eq!(g.net_diff().len(), 5);
        call0(&mut g, "remove_edge", vec![s("ju1.a1.m1.s2c1"), s("ju1.a1.m1.s2c1.p5")]).unwrap();
        assert!(call0(&mut g, "remove_edge", vec![s("ju1.a1.m1.s2c1"), s("ju1.a1.m1.s2c1.p5")]).is_err());
    }
}
