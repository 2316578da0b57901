//! Reading an ANP or BANP object as the API server admits a custom resource: the CRD's
//! OpenAPI schema (types, required fields, enums, bounds, list sizes, one-of objects), its
//! CEL rules and its defaults, every failure a [`FieldError`] in kube-openapi's wording.
//! Unknown fields are pruned and reported, as the server does for a custom resource.
//!
//! Hand-written rather than a JSON-schema crate: the wording of each message is what the
//! agent sees, and the schema is small.

use serde_json::{Map, Value};

use super::{Action, AdminKind, AdminPeer, AdminPolicy, AdminPort, AdminRule, NamespacedPod, Subject};
use crate::k8s::cluster::Protocol;
use crate::k8s::policy::{Expression, LabelSelector};
use crate::k8s::validate::{FieldError, invalid_message, parse_cidr};

/// A decoded, defaulted, valid policy and the unknown fields that were pruned.
#[derive(Debug, Clone, PartialEq)]
pub struct DecodedAdmin {
    pub policy: AdminPolicy,
    /// Paths such as `spec.ingress[0].fromm`, in document order.
    pub unknown: Vec<String>,
}

/// Schema walk state.
#[derive(Default)]
struct Check {
    errs: Vec<FieldError>,
    unknown: Vec<String>,
}

fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

fn err(field: &str, body: String) -> FieldError {
    FieldError { field: field.to_string(), body }
}

impl Check {
    fn wrong_type(&mut self, path: &str, v: &Value, want: &str) {
        let got = type_name(v);
        self.errs.push(err(
            path,
            format!("Invalid value: {got:?}: {path} in body must be of type {want}: {got:?}"),
        ));
    }

    fn required(&mut self, path: &str) {
        self.errs.push(err(path, "Required value".into()));
    }

    /// The object at `path`, reporting keys outside `known` as pruned.
    fn object<'a>(&mut self, v: &'a Value, path: &str, known: &[&str]) -> Option<&'a Map<String, Value>> {
        let Value::Object(m) = v else {
            self.wrong_type(path, v, "object");
            return None;
        };
        for k in m.keys().filter(|k| !known.contains(&k.as_str())) {
            self.unknown.push(format!("{path}.{k}"));
        }
        Some(m)
    }

    /// A one-of object: exactly one of its known properties.
    fn one_of<'a>(&mut self, v: &'a Value, path: &str, known: &[&str]) -> Option<(&'a str, &'a Value)> {
        let m = self.object(v, path, known)?;
        let set: Vec<(&str, &Value)> =
            m.iter().filter(|(k, _)| known.contains(&k.as_str())).map(|(k, v)| (k.as_str(), v)).collect();
        match set.as_slice() {
            [one] => Some(*one),
            [] => {
                self.errs.push(err(
                    path,
                    format!("Invalid value: 0: {path} in body should have at least 1 properties"),
                ));
                None
            }
            many => {
                self.errs.push(err(path, format!("Too many: {}: must have at most 1 items", many.len())));
                None
            }
        }
    }

    fn array<'a>(&mut self, v: &'a Value, path: &str, min: usize, max: usize) -> &'a [Value] {
        let Value::Array(a) = v else {
            self.wrong_type(path, v, "array");
            return &[];
        };
        if a.len() > max {
            self.errs.push(err(path, format!("Too many: {}: must have at most {max} items", a.len())));
        } else if a.len() < min {
            self.errs.push(err(
                path,
                format!("Invalid value: {}: {path} in body should have at least {min} items", a.len()),
            ));
        }
        a
    }

    fn string<'a>(&mut self, v: &'a Value, path: &str) -> Option<&'a str> {
        match v {
            Value::String(s) => Some(s),
            other => {
                self.wrong_type(path, other, "string");
                None
            }
        }
    }

    fn int(&mut self, v: &Value, path: &str, min: i64, max: i64) -> Option<i64> {
        let Some(n) = v.as_i64().filter(|_| type_name(v) == "integer") else {
            self.wrong_type(path, v, "integer");
            return None;
        };
        if n < min {
            self.errs.push(err(
                path,
                format!("Invalid value: {n}: {path} in body should be greater than or equal to {min}"),
            ));
        } else if n > max {
            self.errs.push(err(
                path,
                format!("Invalid value: {n}: {path} in body should be less than or equal to {max}"),
            ));
        } else {
            return Some(n);
        }
        None
    }

    fn enum_value<'a>(&mut self, v: &'a Value, path: &str, allowed: &[&str]) -> Option<&'a str> {
        let s = self.string(v, path)?;
        if allowed.contains(&s) {
            return Some(s);
        }
        let list: Vec<String> = allowed.iter().map(|a| format!("{a:?}")).collect();
        self.errs.push(err(path, format!("Unsupported value: {s:?}: supported values: {}", list.join(", "))));
        None
    }

    fn field<'a>(&mut self, m: &'a Map<String, Value>, key: &str, path: &str) -> Option<&'a Value> {
        let v = m.get(key);
        if v.is_none() {
            self.required(&format!("{path}.{key}"));
        }
        v
    }

    fn selector(&mut self, v: &Value, path: &str) -> LabelSelector {
        let mut sel = LabelSelector::default();
        let Some(m) = self.object(v, path, &["matchLabels", "matchExpressions"]) else { return sel };
        if let Some(l) = m.get("matchLabels") {
            let lpath = format!("{path}.matchLabels");
            for (k, x) in self.object(l, &lpath, &[]).into_iter().flatten() {
                self.unknown.retain(|u| u != &format!("{lpath}.{k}"));
                if let Some(s) = self.string(x, &format!("{lpath}.{k}")) {
                    sel.match_labels.insert(k.clone(), s.to_string());
                }
            }
        }
        if let Some(e) = m.get("matchExpressions") {
            let epath = format!("{path}.matchExpressions");
            for (i, x) in self.array(e, &epath, 0, usize::MAX).iter().enumerate() {
                let xpath = format!("{epath}[{i}]");
                let Some(em) = self.object(x, &xpath, &["key", "operator", "values"]) else { continue };
                let mut text = |k: &str| {
                    self.field(em, k, &xpath)
                        .and_then(|v| self.string(v, &format!("{xpath}.{k}")).map(str::to_string))
                };
                let (key, operator) = (text("key").unwrap_or_default(), text("operator").unwrap_or_default());
                let values = em
                    .get("values")
                    .map_or(&[][..], |vs| self.array(vs, &format!("{xpath}.values"), 0, usize::MAX));
                let values = values
                    .iter()
                    .enumerate()
                    .filter_map(|(j, v)| self.string(v, &format!("{xpath}.values[{j}]")).map(str::to_string))
                    .collect();
                sel.match_expressions.push(Expression { key, operator, values });
            }
        }
        sel
    }

    fn namespaced_pod(&mut self, v: &Value, path: &str) -> NamespacedPod {
        let mut np = NamespacedPod::default();
        if let Some(m) = self.object(v, path, &["namespaceSelector", "podSelector"]) {
            if let Some(s) = self.field(m, "namespaceSelector", path) {
                np.namespace_selector = self.selector(s, &format!("{path}.namespaceSelector"));
            }
            if let Some(s) = self.field(m, "podSelector", path) {
                np.pod_selector = self.selector(s, &format!("{path}.podSelector"));
            }
        }
        np
    }

    fn subject(&mut self, v: &Value, path: &str) -> Option<Subject> {
        match self.one_of(v, path, &["namespaces", "pods"])? {
            ("namespaces", s) => Some(Subject::Namespaces(self.selector(s, &format!("{path}.namespaces")))),
            (_, p) => Some(Subject::Pods(self.namespaced_pod(p, &format!("{path}.pods")))),
        }
    }

    fn peer(&mut self, v: &Value, path: &str, egress: bool) -> Option<AdminPeer> {
        let known: &[&str] =
            if egress { &["namespaces", "pods", "nodes", "networks"] } else { &["namespaces", "pods"] };
        let (key, x) = self.one_of(v, path, known)?;
        let xpath = format!("{path}.{key}");
        Some(match key {
            "namespaces" => AdminPeer::Namespaces(self.selector(x, &xpath)),
            "pods" => AdminPeer::Pods(self.namespaced_pod(x, &xpath)),
            "nodes" => AdminPeer::Nodes(self.selector(x, &xpath)),
            _ => {
                let mut nets = Vec::new();
                for (i, n) in self.array(x, &xpath, 1, 25).iter().enumerate() {
                    let npath = format!("{xpath}[{i}]");
                    let Some(s) = self.string(n, &npath) else { continue };
                    if s.len() > 43 {
                        self.errs.push(err(&npath, "Too long: may not be more than 43 bytes".into()));
                    } else if parse_cidr(s).is_none() {
                        self.errs
                            .push(err(&npath, format!("Invalid value: {s:?}: Invalid CIDR format provided")));
                    }
                    nets.push(s.to_string());
                }
                AdminPeer::Networks(nets)
            }
        })
    }

    fn protocol(&mut self, m: &Map<String, Value>, path: &str) -> Protocol {
        // The schema defaults `protocol` to TCP.
        m.get("protocol")
            .and_then(|p| self.enum_value(p, &format!("{path}.protocol"), &["TCP", "UDP", "SCTP"]))
            .and_then(Protocol::parse)
            .unwrap_or(Protocol::Tcp)
    }

    fn port(&mut self, v: &Value, path: &str) -> Option<AdminPort> {
        let (key, x) = self.one_of(v, path, &["portNumber", "portRange", "namedPort"])?;
        let xpath = format!("{path}.{key}");
        match key {
            "namedPort" => self.string(x, &xpath).map(|s| AdminPort::Named(s.to_string())),
            "portNumber" => {
                let m = self.object(x, &xpath, &["port", "protocol"])?;
                let protocol = self.protocol(m, &xpath);
                let port = self
                    .field(m, "port", &xpath)
                    .and_then(|p| self.int(p, &format!("{xpath}.port"), 1, 65535))?;
                Some(AdminPort::Number { protocol, port: port as u16 })
            }
            _ => {
                let m = self.object(x, &xpath, &["start", "end", "protocol"])?;
                let protocol = self.protocol(m, &xpath);
                let mut bound = |k: &str| {
                    self.field(m, k, &xpath).and_then(|p| self.int(p, &format!("{xpath}.{k}"), 1, 65535))
                };
                let (start, end) = (bound("start"), bound("end"));
                let (start, end) = (start?, end?);
                if start >= end {
                    self.errs.push(err(
                        &xpath,
                        "Invalid value: \"object\": Start port must be less than End port".into(),
                    ));
                    return None;
                }
                Some(AdminPort::Range { protocol, start: start as u16, end: end as u16 })
            }
        }
    }

    fn rule(&mut self, v: &Value, path: &str, kind: AdminKind, egress: bool) -> Option<AdminRule> {
        let peers_key = if egress { "to" } else { "from" };
        let m = self.object(v, path, &["name", "action", peers_key, "ports"])?;
        let name =
            m.get("name").and_then(|n| self.string(n, &format!("{path}.name"))).unwrap_or("").to_string();
        if name.len() > 100 {
            self.errs.push(err(&format!("{path}.name"), "Too long: may not be more than 100 bytes".into()));
        }
        let action = self
            .field(m, "action", path)
            .and_then(|a| self.enum_value(a, &format!("{path}.action"), kind.actions()))
            .and_then(Action::parse);
        let peers_path = format!("{path}.{peers_key}");
        let peers: Vec<AdminPeer> = match self.field(m, peers_key, path) {
            Some(list) => {
                let items = self.array(list, &peers_path, 1, 100);
                items
                    .iter()
                    .enumerate()
                    .filter_map(|(i, p)| self.peer(p, &format!("{peers_path}[{i}]"), egress))
                    .collect()
            }
            None => Vec::new(),
        };
        let ports = m.get("ports").map(|ps| {
            let ppath = format!("{path}.ports");
            let items = self.array(ps, &ppath, 0, 100);
            items
                .iter()
                .enumerate()
                .filter_map(|(i, p)| self.port(p, &format!("{ppath}[{i}]")))
                .collect::<Vec<_>>()
        });
        let outside = peers.iter().any(|p| matches!(p, AdminPeer::Nodes(_) | AdminPeer::Networks(_)));
        if outside && ports.iter().flatten().any(|p| matches!(p, AdminPort::Named(_))) {
            self.errs.push(err(
                path,
                "Invalid value: \"object\": networks/nodes peer cannot be set with namedPorts since there are no namedPorts for networks/nodes".into(),
            ));
        }
        Some(AdminRule { name, action: action?, peers, ports })
    }

    fn rules(&mut self, spec: &Map<String, Value>, key: &str, kind: AdminKind) -> Vec<AdminRule> {
        let Some(list) = spec.get(key) else { return Vec::new() };
        let path = format!("spec.{key}");
        let items = self.array(list, &path, 0, 100);
        items
            .iter()
            .enumerate()
            .filter_map(|(i, r)| self.rule(r, &format!("{path}[{i}]"), kind, key == "egress"))
            .collect()
    }
}

/// The checks on the name of a custom resource (a path segment).
fn name_errors(name: &str, errs: &mut Vec<FieldError>) {
    if name.is_empty() {
        errs.push(err("metadata.name", "Required value: name or generateName is required".into()));
    } else if name == "." || name == ".." {
        errs.push(err("metadata.name", format!("Invalid value: {name:?}: may not be '{name}'")));
    } else {
        for bad in ["/", "%"] {
            if name.contains(bad) {
                errs.push(err("metadata.name", format!("Invalid value: {name:?}: may not contain '{bad}'")));
            }
        }
    }
}

/// Decodes an `AdminNetworkPolicy` or `BaselineAdminNetworkPolicy` (by its `kind`); an
/// invalid object is the message `kubectl` prints for the server's `Invalid` status.
pub fn decode_admin(v: &Value) -> Result<DecodedAdmin, String> {
    decode_admin_rejecting(v).map_err(|r| r.message)
}

/// Why an object was not admitted, with the unknown fields met on the way (a strict
/// request reports those before any schema error).
#[derive(Debug, Clone, PartialEq)]
pub struct Rejected {
    pub message: String,
    pub unknown: Vec<String>,
}

/// [`decode_admin`], keeping the unknown fields of a rejected object.
pub fn decode_admin_rejecting(v: &Value) -> Result<DecodedAdmin, Rejected> {
    let kind_text = v.get("kind").and_then(Value::as_str).unwrap_or("");
    let kind = AdminKind::parse(kind_text).ok_or_else(|| Rejected {
        message: format!("not an admin network policy kind: {kind_text:?}"),
        unknown: Vec::new(),
    })?;
    let name = v.pointer("/metadata/name").and_then(Value::as_str).unwrap_or("").to_string();
    let mut c = Check::default();
    name_errors(&name, &mut c.errs);
    if kind == AdminKind::Baseline && !name.is_empty() && name != "default" {
        c.errs.push(err(
            "<nil>",
            "Invalid value: \"object\": Only one baseline admin network policy with metadata.name=\"default\" can be created in the cluster".into(),
        ));
    }
    let spec_known: &[&str] = match kind {
        AdminKind::Admin => &["priority", "subject", "ingress", "egress"],
        AdminKind::Baseline => &["subject", "ingress", "egress"],
    };
    let mut policy = None;
    match v.get("spec") {
        None => c.required("spec"),
        Some(spec) => {
            if let Some(m) = c.object(spec, "spec", spec_known) {
                let priority = match kind {
                    AdminKind::Admin => {
                        c.field(m, "priority", "spec").and_then(|p| c.int(p, "spec.priority", 0, 1000))
                    }
                    AdminKind::Baseline => Some(0),
                };
                let subject = c.field(m, "subject", "spec").and_then(|s| c.subject(s, "spec.subject"));
                let ingress = c.rules(m, "ingress", kind);
                let egress = c.rules(m, "egress", kind);
                if let (Some(priority), Some(subject)) = (priority, subject) {
                    policy = Some(AdminPolicy {
                        kind,
                        name: name.clone(),
                        priority: priority as i32,
                        subject,
                        ingress,
                        egress,
                    });
                }
            }
        }
    }
    match policy {
        Some(policy) if c.errs.is_empty() => Ok(DecodedAdmin { policy, unknown: c.unknown }),
        _ => Err(Rejected { message: invalid_message(kind.as_str(), &name, &c.errs), unknown: c.unknown }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::k8s::yaml::parse_documents;

    fn decode(text: &str) -> Result<DecodedAdmin, String> {
        decode_admin(&parse_documents(text).unwrap()[0])
    }

    #[test]
    fn reads_and_defaults() {
        let d = decode(
            "kind: AdminNetworkPolicy
metadata: {name: tenants}
spec:
  priority: 10
  subject: {namespaces: {matchLabels: {tenant: a}}}
  egress:
  - name: web
    action: Pass
    to: [{networks: [10.0.0.0/8]}, {pods: {namespaceSelector: {}, podSelector: {matchLabels: {app: x}}}}]
    ports: [{portNumber: {port: 80}}, {portRange: {protocol: UDP, start: 1, end: 9}}]
    extra: 1
",
        )
        .unwrap();
        let rule = &d.policy.egress[0];
        assert_eq!(rule.action, Action::Pass);
        assert_eq!(
            rule.ports.as_deref().unwrap(),
            [
                AdminPort::Number { protocol: Protocol::Tcp, port: 80 },
                AdminPort::Range { protocol: Protocol::Udp, start: 1, end: 9 }
            ]
        );
        assert_eq!(d.unknown, ["spec.egress[0].extra"]);
    }

    #[test]
    fn schema_errors_in_the_servers_words() {
        let cases = [
            (
                "kind: AdminNetworkPolicy\nmetadata: {name: a}\nspec: {priority: 1001, subject: {namespaces: {}}}",
                "The AdminNetworkPolicy \"a\" is invalid: spec.priority: Invalid value: 1001: spec.priority in body should be less than or equal to 1000",
            ),
            (
                "kind: AdminNetworkPolicy\nmetadata: {name: a}\nspec: {priority: 1}",
                "The AdminNetworkPolicy \"a\" is invalid: spec.subject: Required value",
            ),
            (
                "kind: AdminNetworkPolicy\nmetadata: {name: a}\nspec: {priority: 1, subject: {namespaces: {}, pods: {namespaceSelector: {}, podSelector: {}}}}",
                "The AdminNetworkPolicy \"a\" is invalid: spec.subject: Too many: 2: must have at most 1 items",
            ),
            (
                "kind: AdminNetworkPolicy\nmetadata: {name: a}\nspec: {priority: 1, subject: {namespaces: {}}, ingress: [{action: Drop, from: [{namespaces: {}}]}]}",
                "The AdminNetworkPolicy \"a\" is invalid: spec.ingress[0].action: Unsupported value: \"Drop\": supported values: \"Allow\", \"Deny\", \"Pass\"",
            ),
            (
                "kind: AdminNetworkPolicy\nmetadata: {name: a}\nspec: {priority: 1, subject: {namespaces: {}}, egress: [{action: Allow, to: [{namespaces: {}}], ports: [{portRange: {start: 9, end: 9}}]}]}",
                "The AdminNetworkPolicy \"a\" is invalid: spec.egress[0].ports[0].portRange: Invalid value: \"object\": Start port must be less than End port",
            ),
            (
                "kind: AdminNetworkPolicy\nmetadata: {name: a}\nspec: {priority: 1, subject: {namespaces: {}}, egress: [{action: Allow, to: []}]}",
                "The AdminNetworkPolicy \"a\" is invalid: spec.egress[0].to: Invalid value: 0: spec.egress[0].to in body should have at least 1 items",
            ),
            (
                "kind: BaselineAdminNetworkPolicy\nmetadata: {name: a}\nspec: {subject: {namespaces: {}}, ingress: [{action: Pass, from: [{namespaces: {}}]}]}",
                "The BaselineAdminNetworkPolicy \"a\" is invalid: \n* <nil>: Invalid value: \"object\": Only one baseline admin network policy with metadata.name=\"default\" can be created in the cluster\n* spec.ingress[0].action: Unsupported value: \"Pass\": supported values: \"Allow\", \"Deny\"",
            ),
            (
                "kind: AdminNetworkPolicy\nmetadata: {name: a}\nspec: {priority: x, subject: {namespaces: {}}, egress: [{action: Allow, to: [{networks: [10.0.0.0/33]}]}]}",
                "The AdminNetworkPolicy \"a\" is invalid: \n* spec.priority: Invalid value: \"string\": spec.priority in body must be of type integer: \"string\"\n* spec.egress[0].to[0].networks[0]: Invalid value: \"10.0.0.0/33\": Invalid CIDR format provided",
            ),
        ];
        for (text, want) in cases {
            assert_eq!(decode(text).unwrap_err(), want);
        }
    }
}
