//! The NetworkPolicy API type (networking.k8s.io/v1), its JSON form and server-side defaulting.
//!
//! Fields mirror the Go type: a pointer there is an `Option` here (so `podSelector: {}` on a
//! peer stays distinct from no pod selector), a slice is a `Vec` (the API omits empty lists,
//! so empty and absent are the same, as on a real server). String-typed enums (`protocol`,
//! `policyTypes`, selector operators) stay strings so that invalid values reach validation
//! and get the API server's wording.

use serde_json::{Map, Value, json};

use super::labels::{Labels, Op, Requirement, Selector};
use super::meta::Meta;

/// `metav1.LabelSelector`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LabelSelector {
    pub match_labels: Labels,
    pub match_expressions: Vec<Expression>,
}

/// `metav1.LabelSelectorRequirement`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Expression {
    pub key: String,
    pub operator: String,
    pub values: Vec<String>,
}

impl LabelSelector {
    /// `matchLabels: {key: value}`.
    pub fn app(value: &str) -> Self {
        LabelSelector::labels(&[("app", value)])
    }

    pub fn labels(pairs: &[(&str, &str)]) -> Self {
        let match_labels = pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        LabelSelector { match_labels, match_expressions: Vec::new() }
    }

    pub fn is_empty(&self) -> bool {
        self.match_labels.is_empty() && self.match_expressions.is_empty()
    }

    /// The selector as requirements; `None` when an operator is unknown (validation rejects
    /// such selectors before they are stored, so callers treat `None` as matching nothing).
    pub fn to_selector(&self) -> Option<Selector> {
        let mut reqs: Vec<Requirement> =
            self.match_labels.iter().map(|(k, v)| Requirement::new(k, Op::Equals, &[v])).collect();
        for e in &self.match_expressions {
            let op = match e.operator.as_str() {
                "In" => Op::In,
                "NotIn" => Op::NotIn,
                "Exists" => Op::Exists,
                "DoesNotExist" => Op::DoesNotExist,
                _ => return None,
            };
            let values: Vec<&str> = e.values.iter().map(String::as_str).collect();
            reqs.push(Requirement::new(&e.key, op, &values));
        }
        Some(Selector(reqs))
    }

    pub fn matches(&self, labels: &Labels) -> bool {
        self.match_labels.iter().all(|(k, v)| labels.get(k) == Some(v))
            && self.match_expressions.iter().all(|e| expression_matches(e, labels))
    }

    /// `metav1.FormatLabelSelector`.
    pub fn format(&self) -> String {
        self.to_selector().map_or_else(|| "<error>".to_string(), |s| s.format())
    }

    pub fn to_json(&self) -> Value {
        let mut m = Map::new();
        if !self.match_labels.is_empty() {
            m.insert("matchLabels".into(), json!(self.match_labels));
        }
        if !self.match_expressions.is_empty() {
            let exprs: Vec<Value> = self
                .match_expressions
                .iter()
                .map(|e| {
                    let mut o = Map::new();
                    o.insert("key".into(), json!(e.key));
                    o.insert("operator".into(), json!(e.operator));
                    if !e.values.is_empty() {
                        o.insert("values".into(), json!(e.values));
                    }
                    Value::Object(o)
                })
                .collect();
            m.insert("matchExpressions".into(), Value::Array(exprs));
        }
        Value::Object(m)
    }
}

fn expression_matches(e: &Expression, labels: &Labels) -> bool {
    let value = labels.get(&e.key);
    match e.operator.as_str() {
        "In" => value.is_some_and(|v| e.values.contains(v)),
        "NotIn" => value.is_none_or(|v| !e.values.contains(v)),
        "Exists" => value.is_some(),
        "DoesNotExist" => value.is_none(),
        _ => false,
    }
}

/// `intstr.IntOrString`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum IntOrString {
    Int(i32),
    Str(String),
}

impl std::fmt::Display for IntOrString {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            IntOrString::Int(n) => write!(f, "{n}"),
            IntOrString::Str(s) => f.write_str(s),
        }
    }
}

impl IntOrString {
    pub fn to_json(&self) -> Value {
        match self {
            IntOrString::Int(n) => json!(n),
            IntOrString::Str(s) => json!(s),
        }
    }
}

/// `NetworkPolicyPort`.
#[derive(Debug, Clone, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct PolicyPort {
    pub protocol: Option<String>,
    pub port: Option<IntOrString>,
    pub end_port: Option<i32>,
}

impl PolicyPort {
    pub fn tcp(port: i32) -> Self {
        PolicyPort { protocol: Some("TCP".into()), port: Some(IntOrString::Int(port)), end_port: None }
    }

    fn to_json(&self) -> Value {
        let mut m = Map::new();
        if let Some(p) = &self.protocol {
            m.insert("protocol".into(), json!(p));
        }
        if let Some(p) = &self.port {
            m.insert("port".into(), p.to_json());
        }
        if let Some(e) = self.end_port {
            m.insert("endPort".into(), json!(e));
        }
        Value::Object(m)
    }
}

/// `IPBlock`.
#[derive(Debug, Clone, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct IpBlock {
    pub cidr: String,
    pub except: Vec<String>,
}

/// `NetworkPolicyPeer`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Peer {
    pub pod_selector: Option<LabelSelector>,
    pub namespace_selector: Option<LabelSelector>,
    pub ip_block: Option<IpBlock>,
}

impl Peer {
    pub fn app(value: &str) -> Self {
        Peer { pod_selector: Some(LabelSelector::app(value)), ..Peer::default() }
    }

    pub fn to_json(&self) -> Value {
        let mut m = Map::new();
        if let Some(s) = &self.pod_selector {
            m.insert("podSelector".into(), s.to_json());
        }
        if let Some(s) = &self.namespace_selector {
            m.insert("namespaceSelector".into(), s.to_json());
        }
        if let Some(b) = &self.ip_block {
            let mut o = Map::new();
            o.insert("cidr".into(), json!(b.cidr));
            if !b.except.is_empty() {
                o.insert("except".into(), json!(b.except));
            }
            m.insert("ipBlock".into(), Value::Object(o));
        }
        Value::Object(m)
    }
}

/// An ingress or egress rule: `from`/`to` peers and ports.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Rule {
    pub peers: Vec<Peer>,
    pub ports: Vec<PolicyPort>,
}

impl Rule {
    fn to_json(&self, peers_key: &str) -> Value {
        let mut m = Map::new();
        if !self.peers.is_empty() {
            m.insert(peers_key.into(), Value::Array(self.peers.iter().map(Peer::to_json).collect()));
        }
        if !self.ports.is_empty() {
            m.insert("ports".into(), Value::Array(self.ports.iter().map(PolicyPort::to_json).collect()));
        }
        Value::Object(m)
    }
}

/// The direction of a rule or an isolation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Direction {
    Ingress,
    Egress,
}

impl Direction {
    pub fn as_str(self) -> &'static str {
        match self {
            Direction::Ingress => "Ingress",
            Direction::Egress => "Egress",
        }
    }

    /// The JSON key of a rule's peers.
    pub fn peers_key(self) -> &'static str {
        match self {
            Direction::Ingress => "from",
            Direction::Egress => "to",
        }
    }
}

/// `NetworkPolicySpec`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PolicySpec {
    pub pod_selector: LabelSelector,
    pub ingress: Vec<Rule>,
    pub egress: Vec<Rule>,
    pub policy_types: Vec<String>,
}

impl PolicySpec {
    pub fn rules(&self, dir: Direction) -> &[Rule] {
        match dir {
            Direction::Ingress => &self.ingress,
            Direction::Egress => &self.egress,
        }
    }

    pub fn rules_mut(&mut self, dir: Direction) -> &mut Vec<Rule> {
        match dir {
            Direction::Ingress => &mut self.ingress,
            Direction::Egress => &mut self.egress,
        }
    }

    /// Whether the policy lists `dir` in its policy types (after defaulting, this is what
    /// isolates the selected pods).
    pub fn lists(&self, dir: Direction) -> bool {
        self.policy_types.iter().any(|t| t == dir.as_str())
    }

    /// Server-side defaults applied on every write: `protocol: TCP` on ports without one,
    /// and `policyTypes` from the rules when empty.
    pub fn apply_defaults(&mut self) {
        for rule in self.ingress.iter_mut().chain(self.egress.iter_mut()) {
            for port in &mut rule.ports {
                port.protocol.get_or_insert_with(|| "TCP".to_string());
            }
        }
        if self.policy_types.is_empty() {
            self.policy_types.push("Ingress".into());
            if !self.egress.is_empty() {
                self.policy_types.push("Egress".into());
            }
        }
    }

    pub fn to_json(&self) -> Value {
        let mut m = Map::new();
        m.insert("podSelector".into(), self.pod_selector.to_json());
        for dir in [Direction::Ingress, Direction::Egress] {
            let rules = self.rules(dir);
            if !rules.is_empty() {
                let key = dir.as_str().to_ascii_lowercase();
                m.insert(key, Value::Array(rules.iter().map(|r| r.to_json(dir.peers_key())).collect()));
            }
        }
        if !self.policy_types.is_empty() {
            m.insert("policyTypes".into(), json!(self.policy_types));
        }
        Value::Object(m)
    }
}

/// A stored NetworkPolicy.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NetworkPolicy {
    pub meta: Meta,
    pub spec: PolicySpec,
}

impl NetworkPolicy {
    pub fn namespace(&self) -> &str {
        &self.meta.namespace
    }

    /// The full API object, as `kubectl get -o json` shows it.
    pub fn to_json(&self) -> Value {
        json!({
            "apiVersion": "networking.k8s.io/v1",
            "kind": "NetworkPolicy",
            "metadata": self.meta.to_json(),
            "spec": self.spec.to_json(),
        })
    }

    /// The manifest as written by whoever created it (no server fields), for
    /// `last-applied-configuration`: `metadata.annotations` is `{}` as kubectl writes it.
    pub fn manifest(&self) -> Value {
        let mut meta = Map::new();
        meta.insert("annotations".into(), json!({}));
        if !self.meta.labels.is_empty() {
            meta.insert("labels".into(), json!(self.meta.labels));
        }
        meta.insert("name".into(), json!(self.meta.name));
        meta.insert("namespace".into(), json!(self.meta.namespace));
        json!({
            "apiVersion": "networking.k8s.io/v1",
            "kind": "NetworkPolicy",
            "metadata": meta,
            "spec": self.spec.to_json(),
        })
    }
}

/// A rule as one comparable string with peers and ports sorted.
pub fn rule_key(rule: &Rule) -> String {
    let peers = sorted(rule.peers.iter().map(|p| p.to_json().to_string()));
    let ports = sorted(rule.ports.iter().map(port_text));
    format!("peers={} ports={}", peers.join("|"), ports.join("|"))
}

/// `9555/TCP`, `80-90/TCP`, `<any>/UDP`.
pub fn port_text(p: &PolicyPort) -> String {
    let proto = p.protocol.as_deref().unwrap_or("TCP");
    match (&p.port, p.end_port) {
        (Some(port), Some(end)) => format!("{port}-{end}/{proto}"),
        (Some(port), None) => format!("{port}/{proto}"),
        (None, _) => format!("<any>/{proto}"),
    }
}

fn sorted(items: impl Iterator<Item = String>) -> Vec<String> {
    let mut v: Vec<String> = items.collect();
    v.sort();
    v.dedup();
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_fill_protocol_and_types() {
        let mut spec = PolicySpec {
            ingress: vec![Rule { peers: vec![], ports: vec![PolicyPort::default()] }],
            egress: vec![Rule::default()],
            ..PolicySpec::default()
        };
        spec.apply_defaults();
        assert_eq!(spec.ingress[0].ports[0].protocol.as_deref(), Some("TCP"));
        assert_eq!(spec.policy_types, vec!["Ingress", "Egress"]);
        let mut only_ingress = PolicySpec::default();
        only_ingress.apply_defaults();
        assert_eq!(only_ingress.policy_types, vec!["Ingress"]);
    }

    #[test]
    fn json_omits_empty_lists_and_keeps_empty_selectors() {
        let spec = PolicySpec {
            egress: vec![Rule::default()],
            ingress: vec![Rule {
                peers: vec![Peer { pod_selector: Some(LabelSelector::default()), ..Peer::default() }],
                ports: vec![],
            }],
            policy_types: vec!["Ingress".into(), "Egress".into()],
            ..PolicySpec::default()
        };
        assert_eq!(
            spec.to_json().to_string(),
            r#"{"egress":[{}],"ingress":[{"from":[{"podSelector":{}}]}],"podSelector":{},"policyTypes":["Ingress","Egress"]}"#
        );
    }

    #[test]
    fn selector_semantics_and_format() {
        let mut s = LabelSelector::app("web");
        s.match_expressions.push(Expression {
            key: "tier".into(),
            operator: "NotIn".into(),
            values: vec!["db".into()],
        });
        let l: Labels = [("app".to_string(), "web".to_string())].into();
        assert!(s.matches(&l));
        assert_eq!(s.format(), "app=web,tier notin (db)");
        assert_eq!(LabelSelector::default().format(), "<none>");
    }
}
