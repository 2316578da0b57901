//! Checking an answer (docs/traffic.md, "Checking"): the returned `{type, data}` against the
//! truth for questions, and the working graph against the expected one, by a diff keyed by
//! node id and edge endpoints, for changes. Colours are compared as `#rrggbb`, labels as sets,
//! numbers with a relative tolerance of 10⁻⁹.

use std::collections::BTreeMap;

use serde_json::Value;

use super::family::Truth;
use crate::malt::api::Py;

/// A Python value as JSON (tuples and sets as arrays; other objects as their type name).
pub fn py_json(v: &Py) -> Value {
    match v {
        Py::None => Value::Null,
        Py::Bool(b) => Value::Bool(*b),
        Py::Int(i) => Value::from(*i),
        Py::Float(f) => serde_json::Number::from_f64(*f).map_or(Value::Null, Value::Number),
        Py::Str(s) => Value::String(s.clone()),
        Py::List(l) | Py::Tuple(l) => Value::Array(l.iter().map(py_json).collect()),
        Py::Dict(d) => Value::Object(
            d.iter()
                .map(|(k, v)| {
                    let key = match k {
                        Py::Str(s) => s.clone(),
                        other => py_json(other).to_string(),
                    };
                    (key, py_json(v))
                })
                .collect(),
        ),
        Py::Other(t) => Value::String(format!("<{t}>")),
    }
}

/// The answer's `type` and `data`, or why the return value of the function `entry` is not one.
pub fn parse(v: &Py, entry: &str) -> Result<(String, Value), String> {
    match v {
        Py::Str(s) => parse_str(s, entry),
        other => parse_value(py_json(other), entry, v.type_name()),
    }
}

/// [`parse`] for a return value given as JSON (as `netpress traffic check` reads it): a dict,
/// or a str holding one, as the sandbox reads a returned str.
pub fn parse_returned(value: Value, entry: &str) -> Result<(String, Value), String> {
    let name = match &value {
        Value::Null => "NoneType",
        Value::Bool(_) => "bool",
        Value::Number(n) if n.is_f64() => "float",
        Value::Number(_) => "int",
        Value::String(_) => "str",
        Value::Array(_) => "list",
        Value::Object(_) => "dict",
    };
    match value {
        Value::String(s) => parse_str(&s, entry),
        other => parse_value(other, entry, name),
    }
}

fn parse_str(text: &str, entry: &str) -> Result<(String, Value), String> {
    let value = serde_json::from_str::<Value>(text)
        .map_err(|_| format!("{entry} returned a str that is not a JSON dict"))?;
    parse_value(value, entry, "str")
}

fn parse_value(value: Value, entry: &str, type_name: &str) -> Result<(String, Value), String> {
    let Value::Object(map) = value else {
        return Err(format!("{entry} must return a dict {{'type': ..., 'data': ...}}, got {type_name}"));
    };
    let ty = match map.get("type") {
        Some(Value::String(t)) if ["text", "list", "table", "graph", "new"].contains(&t.as_str()) => {
            t.clone()
        }
        Some(other) => {
            return Err(format!("type must be 'text', 'list', 'table', 'graph' or 'new', got {other}"));
        }
        None => return Err("the dict has no 'type'".into()),
    };
    let data = map.get("data").cloned();
    match data {
        Some(d) => Ok((ty, d)),
        None if ty == "graph" => Ok((ty, Value::Null)),
        None => Err("the dict has no 'data'".into()),
    }
}

/// Numbers and numeric strings, with integral floats made ints, and string lists sorted (so
/// labels compare as sets), for comparison.
fn normal(v: &Value, top: bool) -> Value {
    match v {
        Value::Number(n) => match n.as_f64() {
            Some(f) if f.fract() == 0.0 && f.abs() < 9e15 => Value::from(f as i64),
            _ => v.clone(),
        },
        Value::String(s) if top => match crate::malt::check::parse_number(s) {
            Some(f) => normal(&serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number), false),
            None => v.clone(),
        },
        Value::Array(a) if !a.is_empty() && a.iter().all(Value::is_string) && !top => {
            let mut items: Vec<String> =
                a.iter().filter_map(|x| x.as_str().map(str::trim).map(String::from)).collect();
            items.sort();
            items.dedup();
            Value::Array(items.into_iter().map(Value::String).collect())
        }
        Value::Array(a) => Value::Array(a.iter().map(|x| normal(x, false)).collect()),
        Value::String(s) => Value::String(s.trim().to_string()),
        _ => v.clone(),
    }
}

fn close(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            let (x, y) = (x.as_f64().unwrap_or(f64::NAN), y.as_f64().unwrap_or(f64::NAN));
            x == y || (x - y).abs() <= 1e-9 * x.abs().max(y.abs())
        }
        (Value::Array(x), Value::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(a, b)| close(a, b)),
        _ => a == b,
    }
}

/// Whether the returned value is the truth, and a line saying why not.
pub fn value_ok(truth: &Truth, ty: &str, data: &Value) -> (bool, String) {
    if ty != truth.ty {
        return (false, format!("expected an answer of type {}, got {ty}", truth.ty));
    }
    if ty == "new" {
        return new_graph_ok(&truth.data, data);
    }
    let want = normal(&truth.data, ty == "text");
    let got = normal(data, ty == "text");
    let ok = match (&want, &got) {
        (Value::Array(w), Value::Array(g)) if ty == "table" && !truth.ordered => {
            let h = truth.header;
            let key = |rows: &[Value]| {
                let mut r: Vec<String> = rows.iter().map(Value::to_string).collect();
                r.sort();
                r
            };
            g.len() == w.len()
                && close(&Value::Array(w[..h].to_vec()), &Value::Array(g[..h.min(g.len())].to_vec()))
                && key(&w[h..]) == key(&g[h..])
        }
        (Value::Array(w), Value::Array(g)) if ty == "list" && !truth.ordered => {
            let key = |items: &[Value]| {
                let mut r: Vec<String> = items.iter().map(Value::to_string).collect();
                r.sort();
                r
            };
            key(w) == key(g)
        }
        _ => close(&want, &got),
    };
    if ok {
        (true, "the value is right".into())
    } else {
        let shown = |v: &Value| {
            let s = v.to_string();
            if s.len() > 200 {
                format!("{}…", &s[..s.char_indices().nth(200).map_or(s.len(), |c| c.0)])
            } else {
                s
            }
        };
        (false, format!("expected {}, got {}", shown(&truth.data), shown(data)))
    }
}

/// A new graph's nodes and edges: node ids; each edge by its unordered end pair (a self-loop
/// kept) with the attributes the truth states. An edge listed twice counts once when its
/// copies agree; otherwise the second copy is a problem of its own.
type NewGraph = (std::collections::BTreeSet<String>, BTreeMap<(String, String), Value>);

fn id_text(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.trim().to_string()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

fn read_new(doc: &Value, attrs: &[String], problems: &mut Vec<String>) -> NewGraph {
    let mut nodes = std::collections::BTreeSet::new();
    for n in doc["nodes"].as_array().into_iter().flatten() {
        match id_text(n.get("id").unwrap_or(n)) {
            Some(id) => {
                nodes.insert(id);
            }
            None => problems.push(format!("a node without an id: {n}")),
        }
    }
    let mut edges = BTreeMap::new();
    let list = doc.get("links").or_else(|| doc.get("edges"));
    for l in list.and_then(Value::as_array).into_iter().flatten() {
        let (Some(a), Some(b)) = (id_text(&l["source"]), id_text(&l["target"])) else {
            problems.push(format!("an edge without a source and a target: {l}"));
            continue;
        };
        let key = if a <= b { (a, b) } else { (b, a) };
        let stated: Value = attrs.iter().map(|k| (k.clone(), normal(&l[k.as_str()], false))).collect();
        if let Some(old) = edges.insert(key.clone(), stated.clone()).filter(|old| !close_obj(old, &stated)) {
            problems.push(format!("edge {}–{} is listed twice, as {old} and {stated}", key.0, key.1));
        }
    }
    (nodes, edges)
}

fn close_obj(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| close(v, w)))
        }
        _ => close(a, b),
    }
}

/// Whether a returned new graph is the expected one: the same node ids, the same edges, and
/// the stated edge attributes equal; the reason lists the first differences.
pub fn new_graph_ok(truth: &Value, data: &Value) -> (bool, String) {
    if !data.is_object() {
        return (false, "a new graph must be a dict with 'nodes' and 'links'".into());
    }
    let attrs: Vec<String> = truth["links"]
        .as_array()
        .and_then(|l| l.first())
        .and_then(Value::as_object)
        .map(|o| o.keys().filter(|k| *k != "source" && *k != "target").cloned().collect())
        .unwrap_or_default();
    let mut problems = Vec::new();
    let (wn, we) = read_new(truth, &attrs, &mut Vec::new());
    let (gn, ge) = read_new(data, &attrs, &mut problems);
    problems.extend(wn.difference(&gn).map(|n| format!("node {n}: missing")));
    problems.extend(gn.difference(&wn).map(|n| format!("node {n}: unexpected")));
    for (k, w) in &we {
        match ge.get(k) {
            None => problems.push(format!("edge {}–{}: missing", k.0, k.1)),
            Some(g) if !close_obj(w, g) => {
                problems.push(format!("edge {}–{}: expected {w}, got {g}", k.0, k.1))
            }
            Some(_) => {}
        }
    }
    problems.extend(
        ge.keys().filter(|k| !we.contains_key(*k)).map(|k| format!("edge {}–{}: unexpected", k.0, k.1)),
    );
    if problems.is_empty() {
        return (true, "the new graph is right".into());
    }
    let shown: Vec<&str> = problems.iter().take(5).map(String::as_str).collect();
    let more = if problems.len() > 5 { format!("; … {} more", problems.len() - 5) } else { String::new() };
    (false, format!("{} differences from the expected graph: {}{more}", problems.len(), shown.join("; ")))
}

/// A colour as `#rrggbb` where it is one: a CSS named colour, `#rgb` or `#rrggbb`, in any
/// case; anything else as lower-case text.
pub fn colour(c: &str) -> String {
    let c = c.trim().to_ascii_lowercase();
    match rgb(&c) {
        Some((r, g, b)) => format!("#{r:02x}{g:02x}{b:02x}"),
        None => c,
    }
}

/// Whether `c` parses as a colour (see [`colour`]).
fn is_colour(c: &str) -> bool {
    rgb(&c.trim().to_ascii_lowercase()).is_some()
}

/// The red, green and blue of a lower-case colour: the CSS colour module's named colours (the
/// 148 of level 4, from Servo's `cssparser`), `#rgb` and `#rrggbb`.
fn rgb(c: &str) -> Option<(u8, u8, u8)> {
    use cssparser::color::{parse_hash_color, parse_named_color};
    match c.strip_prefix('#') {
        Some(h) if h.len() == 3 || h.len() == 6 => {
            parse_hash_color(h.as_bytes()).ok().map(|(r, g, b, _)| (r, g, b))
        }
        Some(_) => None,
        None => parse_named_color(c).ok(),
    }
}

/// One difference between two graphs: what changed (a node attribute, `+node`, `-node`,
/// `+edge`, `-edge` or an edge weight), where, and the line that says it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    pub key: String,
    pub at: At,
    pub line: String,
}

/// The node or edge a [`Change`] concerns, so a picture can mark it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum At {
    Node(String),
    /// An edge by its two ends as the graph lists them.
    Edge(String, String),
}

fn nodes(g: &Value) -> BTreeMap<String, &Value> {
    g["nodes"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|n| Some((n["id"].as_str()?.to_string(), n)))
        .collect()
}

fn links(g: &Value) -> BTreeMap<(String, String), &Value> {
    g["links"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|l| Some(((l["source"].as_str()?.to_string(), l["target"].as_str()?.to_string()), l)))
        .collect()
}

fn node_attr(n: &Value, key: &str) -> Value {
    match key {
        "color" => Value::String(colour(n["color"].as_str().unwrap_or(""))),
        "labels" => normal(&n["labels"], false),
        _ => normal(&n[key], false),
    }
}

/// The final graph a `graph` answer given as node-link data describes (networkx's
/// `node_link_data`; `links` may be called `edges`), with each link's ends in the order `base`
/// (the task's graph, canonical) has them, so [`diff`] compares edges as unordered pairs.
pub fn graph_of_answer(base: &Value, data: &Value) -> Result<Value, String> {
    let nodes = data
        .get("nodes")
        .and_then(Value::as_array)
        .ok_or("a graph answer's data must be node-link data with a list of nodes")?;
    if let Some(n) = nodes.iter().find(|n| !n["id"].is_string()) {
        return Err(format!("every node needs a str id, got {n}"));
    }
    let given = data.get("links").or_else(|| data.get("edges")).unwrap_or(&Value::Null);
    let given = match given {
        Value::Null => &Vec::new(),
        Value::Array(l) => l,
        other => return Err(format!("links must be a list, got {other}")),
    };
    let known = links(base);
    let mut out = Vec::with_capacity(given.len());
    for l in given {
        let (Some(s), Some(t)) = (l["source"].as_str(), l["target"].as_str()) else {
            return Err(format!("every link needs str source and target, got {l}"));
        };
        let mut l = l.clone();
        if !known.contains_key(&(s.to_string(), t.to_string()))
            && known.contains_key(&(t.to_string(), s.to_string()))
        {
            l["source"] = Value::from(t);
            l["target"] = Value::from(s);
        }
        out.push(l);
    }
    Ok(serde_json::json!({"nodes": nodes, "links": out}))
}

/// The changes that turn graph `a` into graph `b` (node-link documents in canonical order).
pub fn diff(a: &Value, b: &Value) -> Vec<Change> {
    let (na, nb) = (nodes(a), nodes(b));
    let mut out = Vec::new();
    let node = |key: &str, id: &str, what: String| Change {
        key: key.into(),
        at: At::Node(id.to_string()),
        line: format!("node {id}: {what}"),
    };
    for (id, n) in &na {
        match nb.get(id) {
            None => out.push(node("-node", id, "missing".into())),
            Some(m) => {
                for key in ["ip_address", "color", "size", "labels"] {
                    let (x, y) = (node_attr(n, key), node_attr(m, key));
                    if !close(&x, &y) {
                        out.push(node(key, id, format!("{key} expected {x}, got {y}")));
                    }
                }
            }
        }
    }
    out.extend(nb.keys().filter(|id| !na.contains_key(*id)).map(|id| node("+node", id, "unexpected".into())));
    let edge = |key: &str, (s, t): &(String, String), what: String| Change {
        key: key.into(),
        at: At::Edge(s.clone(), t.clone()),
        line: format!("edge {s}–{t}: {what}"),
    };
    let (la, lb) = (links(a), links(b));
    for (k, l) in &la {
        match lb.get(k) {
            None => out.push(edge("-edge", k, "missing".into())),
            Some(m) => {
                for w in crate::flows::graph::WEIGHTS {
                    if !close(&normal(&l[w], false), &normal(&m[w], false)) {
                        out.push(edge(w, k, format!("{w} expected {}, got {}", l[w], m[w])));
                    }
                }
            }
        }
    }
    out.extend(lb.keys().filter(|k| !la.contains_key(*k)).map(|k| edge("+edge", k, "unexpected".into())));
    out
}

/// The `changes` that left a node attribute with a value no node may hold: a colour that does
/// not parse, a size that is not a positive number, labels that are not a list of str. A
/// picture or a later question cannot use such a graph even where the question allowed the
/// attribute to change, so these make an answer unsafe. (`G.set` already refuses labels that
/// are not str; a `graph` answer given as node-link data can still hold anything.)
pub fn invalid_values(graph: &Value, changes: &[Change]) -> Vec<Change> {
    // Every score calls this, mostly with no attribute changed: the node map (thousands of
    // entries at n = 10,000) is built only when there is an attribute to look at.
    let mut changed =
        changes.iter().filter(|c| ["color", "size", "labels"].contains(&c.key.as_str())).peekable();
    if changed.peek().is_none() {
        return Vec::new();
    }
    let nodes = nodes(graph);
    let mut out = Vec::new();
    for c in changed {
        let At::Node(id) = &c.at else { continue };
        let Some(n) = nodes.get(id) else { continue };
        let v = &n[c.key.as_str()];
        let what = match c.key.as_str() {
            "color" if !v.as_str().is_some_and(is_colour) => "a colour (a CSS name, #rgb or #rrggbb)",
            "size" if !v.as_f64().is_some_and(|x| x > 0.0) => "a positive number",
            "labels" if !v.as_array().is_some_and(|l| l.iter().all(Value::is_string)) => "a list of str",
            _ => continue,
        };
        out.push(Change {
            key: c.key.clone(),
            at: c.at.clone(),
            line: format!("node {id}: {} {v} is not {what}", c.key),
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn changed_values_no_node_may_hold_are_named() {
        let node = |color: Value, size: Value, labels: Value| json!({"id": "1.1.1.1", "ip_address": "1.1.1.1", "color": color, "size": size, "labels": labels});
        let graph = |n: Value| json!({"nodes": [n], "links": []});
        let base = graph(node(json!("steelblue"), json!(4), json!(["a"])));
        let invalid = |n: Value| {
            let g = graph(n);
            invalid_values(&g, &diff(&base, &g)).into_iter().map(|c| c.line).collect::<Vec<_>>()
        };
        // Valid changes: any CSS name, #rgb, a float size, other labels.
        assert!(invalid(node(json!("Teal"), json!(2.5), json!(["b", "c"]))).is_empty());
        assert!(invalid(node(json!("#0F0"), json!(8), json!([]))).is_empty());
        assert_eq!(
            invalid(node(json!("notacolour"), json!(0), json!("a"))),
            [
                "node 1.1.1.1: color \"notacolour\" is not a colour (a CSS name, #rgb or #rrggbb)",
                "node 1.1.1.1: size 0 is not a positive number",
                "node 1.1.1.1: labels \"a\" is not a list of str",
            ]
        );
        assert_eq!(invalid(node(json!("#12345"), json!(-1.5), json!([1]))).len(), 3);
        assert_eq!(invalid(node(json!(7), json!("4"), json!(["a", null]))).len(), 3);
    }

    #[test]
    fn colours_normalise() {
        assert_eq!(colour("purple"), "#800080");
        assert_eq!(colour("PURPLE"), colour("#800080"));
        assert_eq!(colour("#f00"), colour("red"));
        assert_eq!(colour("chartreuse-ish"), "chartreuse-ish");
    }

    #[test]
    fn values_compare_as_specified() {
        let t = Truth { ty: "text", data: json!(7), ordered: true, header: 0 };
        assert!(value_ok(&t, "text", &json!("7")).0);
        assert!(value_ok(&t, "text", &json!(7.0)).0);
        assert!(!value_ok(&t, "text", &json!(8)).0);
        assert!(!value_ok(&t, "list", &json!([7])).0);
        let t =
            Truth { ty: "table", data: json!([["L", "N"], ["a", 1], ["b", 2]]), ordered: false, header: 1 };
        assert!(value_ok(&t, "table", &json!([["L", "N"], ["b", 2], ["a", 1]])).0);
        assert!(!value_ok(&t, "table", &json!([["b", 2], ["L", "N"], ["a", 1]])).0);
        let t = Truth { ty: "table", data: json!([["1.1.1.1", ["x", "y"], 3]]), ordered: true, header: 0 };
        assert!(value_ok(&t, "table", &json!([["1.1.1.1", ["y", "x", "x"], 3]])).0);
    }

    #[test]
    fn returns_parse_or_say_why() {
        let d = |t: &str| {
            Py::Dict(vec![(Py::Str("type".into()), Py::Str(t.into())), (Py::Str("data".into()), Py::Int(1))])
        };
        assert_eq!(parse(&d("text"), "process_graph").unwrap(), ("text".to_string(), json!(1)));
        assert!(parse(&d("pie"), "process_graph").unwrap_err().contains("type must be"));
        assert!(
            parse(&Py::Int(3), "process_flows").unwrap_err().starts_with("process_flows must return a dict")
        );
        assert_eq!(
            parse(&Py::Str("{\"type\": \"list\", \"data\": [1]}".into()), "process_graph").unwrap().1,
            json!([1])
        );
    }

    #[test]
    fn diffs_are_keyed_by_id() {
        let a = json!({"nodes": [{"id": "1.1.1.1", "color": "steelblue", "size": 4, "labels": ["a"], "ip_address": "1.1.1.1"}], "links": []});
        let mut b = a.clone();
        b["nodes"][0]["color"] = json!("#4682B4");
        assert!(diff(&a, &b).is_empty());
        b["nodes"][0]["labels"] = json!(["b"]);
        assert_eq!(diff(&a, &b)[0].key, "labels");
    }

    proptest::proptest! {
        /// Whatever an answer returns as text, checking it yields a verdict, never a panic.
        #[test]
        fn arbitrary_returns_get_a_verdict(text in ".{0,80}", json_like in "[\\[\\]{}\",:0-9a-z. ]{0,60}") {
            let _ = colour(&text);
            for s in [&text, &json_like] {
                if let Ok((ty, data)) = parse(&Py::Str(s.clone()), "process_flows") {
                    let t = Truth { ty: "table", data: json!([["h"], [1]]), ordered: false, header: 1 };
                    let _ = value_ok(&t, &ty, &data);
                }
                if let Ok(doc) = serde_json::from_str::<Value>(s) {
                    let _ = diff(&doc, &json!({"nodes": [], "links": []}));
                }
            }
        }
    }
}
