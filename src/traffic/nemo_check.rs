//! The looser checks some of NeMoEval's questions need (docs/traffic.md, "NeMoEval-compatible
//! modes"): its wording names no tie rule or return form where our family's own check fixes
//! one, so these accept every answer the wording allows and still fail a wrong one.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use super::check;
use super::family::View;
use super::task::Ties;

/// A check looser than the family's own, for a question of the `nemo` mode.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Loose {
    /// Questions 8 and 11: any node of the extreme degree may be the one changed.
    Ties(Ties),
    /// Question 12: any valid top k (ties between degrees are the answer's choice).
    TopK(TopK),
    /// Question 15: the new graph may come back as `graph` (NeMoEval's "Return the networkx
    /// graph object") or as `new`, and its self-loops are optional.
    NewGraph,
}

/// What a top-k answer is checked against: each node's labels and degree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TopK {
    pub k: usize,
    /// Node id → (its labels, sorted; its degree).
    pub nodes: BTreeMap<String, (Vec<String>, i64)>,
}

impl TopK {
    pub fn new(k: usize, v: &View) -> TopK {
        let nodes = (0..v.ips.len())
            .map(|u| (v.ips[u].clone(), (v.labels[u].clone(), v.adj[u].len() as i64)))
            .collect();
        TopK { k, nodes }
    }

    /// The degrees a valid answer lists, highest first (the multiset is fixed, the nodes are not).
    pub fn top(&self) -> Vec<i64> {
        let mut d: Vec<i64> = self.nodes.values().map(|x| x.1).collect();
        d.sort_unstable_by(|a, b| b.cmp(a));
        d.truncate(self.k);
        d
    }

    /// Whether a returned table lists k distinct nodes with their own labels and degrees, in
    /// non-increasing degree, whose degrees are the k highest; and a line saying why not.
    pub fn check(&self, ty: &str, data: &Value) -> (bool, String) {
        if ty != "table" {
            return (false, format!("expected an answer of type table, got {ty}"));
        }
        let Some(rows) = data.as_array() else {
            return (false, "a table must be a list of rows".into());
        };
        let want = self.top();
        let mut problems = Vec::new();
        if rows.len() != want.len() {
            problems.push(format!("{} rows, expected {}", rows.len(), want.len()));
        }
        let mut seen = BTreeSet::new();
        let mut got = Vec::new();
        for (i, row) in rows.iter().enumerate() {
            match self.row(row) {
                Ok((ip, d)) if seen.insert(ip.clone()) => got.push(d),
                Ok(_) => problems.push(format!("row {}: a node listed twice", i + 1)),
                Err(e) => problems.push(format!("row {}: {e}", i + 1)),
            }
        }
        if problems.is_empty() && got != want {
            problems.push(format!("the degrees listed are {got:?}; the top {} are {want:?}", self.k));
        }
        verdict(&problems, &format!("a valid top {}", self.k))
    }

    /// One row's node and degree, when it states the node's own labels and degree.
    fn row(&self, row: &Value) -> Result<(String, i64), String> {
        let cells = row
            .as_array()
            .filter(|c| c.len() == 3)
            .ok_or_else(|| format!("expected [node, labels, degree], got {row}"))?;
        let ip =
            cells[0].as_str().map(str::trim).ok_or_else(|| format!("the node {} is not a str", cells[0]))?;
        let (labels, degree) = self.nodes.get(ip).ok_or_else(|| format!("no node {ip}"))?;
        if label_set(&cells[1]).as_ref() != Some(labels) {
            return Err(format!("node {ip}'s labels are {labels:?}, got {}", cells[1]));
        }
        if number(&cells[2]) != Some(*degree as f64) {
            return Err(format!("node {ip}'s degree is {degree}, got {}", cells[2]));
        }
        Ok((ip.to_string(), *degree))
    }
}

/// A labels cell as a sorted set: a list of str, or one str for one label.
fn label_set(v: &Value) -> Option<Vec<String>> {
    let mut out: Vec<String> = match v {
        Value::String(s) => vec![s.trim().to_string()],
        Value::Array(a) => {
            a.iter().map(|l| l.as_str().map(|s| s.trim().to_string())).collect::<Option<_>>()?
        }
        _ => return None,
    };
    out.sort();
    out.dedup();
    Some(out)
}

/// A number, or a str holding one.
fn number(v: &Value) -> Option<f64> {
    match v {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

fn verdict(problems: &[String], good: &str) -> (bool, String) {
    if problems.is_empty() {
        return (true, format!("the value is right ({good})"));
    }
    let shown: Vec<&str> = problems.iter().take(5).map(String::as_str).collect();
    let more = if problems.len() > 5 { format!("; … {} more", problems.len() - 5) } else { String::new() };
    (false, format!("{}{more}", shown.join("; ")))
}

/// A node-link document without its self-loops (in `links` or `edges`).
fn without_self_loops(doc: &Value) -> Value {
    let mut out = doc.clone();
    for key in ["links", "edges"] {
        if let Some(list) = out.get_mut(key).and_then(Value::as_array_mut) {
            list.retain(|l| l.get("source") != l.get("target"));
        }
    }
    out
}

/// Question 15's comparison: the family's new-graph check with self-loops dropped on both
/// sides (NeMoEval's wording, "connect the nodes with those labels", leaves a label joined
/// to itself open).
pub fn new_graph_ok(truth: &Value, data: &Value) -> (bool, String) {
    check::new_graph_ok(&without_self_loops(truth), &without_self_loops(data))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn view() -> View {
        let nodes = ["10.0.0.1", "10.0.0.2", "10.0.0.3", "10.0.0.4"]
            .iter()
            .map(|ip| (ip.to_string(), vec!["app:prod".to_string()]))
            .collect();
        // A star on .1 plus the edge .2–.3: degrees 3, 2, 2, 1.
        let edges = vec![(0, 1, [1, 1, 1]), (0, 2, [1, 1, 1]), (0, 3, [1, 1, 1]), (1, 2, [1, 1, 1])];
        View::new(&super::super::mock::Mock { nodes, edges })
    }

    #[test]
    fn any_tie_valid_top_k_passes_and_a_wrong_one_fails() {
        let t = TopK::new(2, &view());
        let row = |ip: &str, d: i64| json!([ip, ["app:prod"], d]);
        assert!(t.check("table", &json!([row("10.0.0.1", 3), row("10.0.0.2", 2)])).0);
        assert!(t.check("table", &json!([row("10.0.0.1", 3), row("10.0.0.3", 2)])).0);
        assert!(t.check("table", &json!([["10.0.0.1", "app:prod", "3"], row("10.0.0.3", 2)])).0);
        // Out of order, a lower degree, a wrong degree, a repeat, a wrong label, one row short.
        assert!(!t.check("table", &json!([row("10.0.0.3", 2), row("10.0.0.1", 3)])).0);
        assert!(!t.check("table", &json!([row("10.0.0.1", 3), row("10.0.0.4", 1)])).0);
        assert!(!t.check("table", &json!([row("10.0.0.1", 3), row("10.0.0.4", 2)])).0);
        assert!(!t.check("table", &json!([row("10.0.0.1", 3), row("10.0.0.1", 3)])).0);
        assert!(!t.check("table", &json!([["10.0.0.1", [], 3], row("10.0.0.2", 2)])).0);
        assert!(!t.check("table", &json!([row("10.0.0.1", 3)])).0);
        assert!(!t.check("text", &json!(3)).0);
        assert!(!t.check("table", &json!("x")).0);
        assert!(!t.check("table", &json!([1, [2], null])).0);
    }

    #[test]
    fn self_loops_are_optional_on_either_side() {
        let truth = json!({"nodes": [{"id": "a"}, {"id": "b"}], "links": [
            {"source": "a", "target": "a"}, {"source": "a", "target": "b"}]});
        let no_loop = json!({"nodes": [{"id": "a"}, {"id": "b"}], "links": [{"source": "b", "target": "a"}]});
        let extra = json!({"nodes": [{"id": "a"}, {"id": "b"}], "edges": [
            {"source": "a", "target": "b"}, {"source": "b", "target": "b"}]});
        let missing = json!({"nodes": [{"id": "a"}, {"id": "b"}], "links": []});
        assert!(new_graph_ok(&truth, &no_loop).0);
        assert!(new_graph_ok(&truth, &extra).0);
        assert!(!new_graph_ok(&truth, &missing).0);
        assert!(!new_graph_ok(&truth, &json!("<Graph>")).0);
    }
}
