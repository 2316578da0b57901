//! An admin policy as the API server serves it: the spec written back in the CRD's field
//! names, with the schema's defaults filled in (`protocol: TCP` on every port), and the
//! stored object ([`AdminObject`]) that pairs it with its metadata.

use serde_json::{Map, Value, json};

use super::{AdminKind, AdminPeer, AdminPolicy, AdminPort, AdminRule, NamespacedPod, Subject};
use crate::k8s::meta::Meta;
use crate::k8s::policy::LabelSelector;

/// An ANP or the BANP stored in the cluster.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AdminObject {
    pub meta: Meta,
    pub policy: AdminPolicy,
}

impl AdminObject {
    /// The full API object.
    pub fn to_json(&self) -> Value {
        json!({
            "apiVersion": super::API_VERSION,
            "kind": self.policy.kind.as_str(),
            "metadata": self.meta.to_json(),
            "spec": self.policy.spec_json(),
        })
    }
}

fn namespaced_pod(np: &NamespacedPod) -> Value {
    json!({
        "namespaceSelector": np.namespace_selector.to_json(),
        "podSelector": np.pod_selector.to_json(),
    })
}

fn selector(s: &LabelSelector) -> Value {
    s.to_json()
}

fn peer(p: &AdminPeer) -> Value {
    match p {
        AdminPeer::Namespaces(s) => json!({"namespaces": selector(s)}),
        AdminPeer::Pods(np) => json!({"pods": namespaced_pod(np)}),
        AdminPeer::Nodes(s) => json!({"nodes": selector(s)}),
        AdminPeer::Networks(n) => json!({"networks": n}),
    }
}

fn port(p: &AdminPort) -> Value {
    match p {
        AdminPort::Number { protocol, port } => {
            json!({"portNumber": {"port": port, "protocol": protocol.as_str()}})
        }
        AdminPort::Range { protocol, start, end } => {
            json!({"portRange": {"end": end, "protocol": protocol.as_str(), "start": start}})
        }
        AdminPort::Named(n) => json!({"namedPort": n}),
    }
}

fn rule(r: &AdminRule, peers_key: &str) -> Value {
    let mut m = Map::new();
    m.insert("action".into(), json!(r.action.as_str()));
    m.insert(peers_key.into(), Value::Array(r.peers.iter().map(peer).collect()));
    if !r.name.is_empty() {
        m.insert("name".into(), json!(r.name));
    }
    if let Some(ports) = &r.ports {
        m.insert("ports".into(), Value::Array(ports.iter().map(port).collect()));
    }
    Value::Object(m)
}

impl AdminPolicy {
    /// `spec` in the CRD's field names.
    pub fn spec_json(&self) -> Value {
        let mut m = Map::new();
        if !self.egress.is_empty() {
            m.insert("egress".into(), Value::Array(self.egress.iter().map(|r| rule(r, "to")).collect()));
        }
        if !self.ingress.is_empty() {
            m.insert("ingress".into(), Value::Array(self.ingress.iter().map(|r| rule(r, "from")).collect()));
        }
        if self.kind == AdminKind::Admin {
            m.insert("priority".into(), json!(self.priority));
        }
        let subject = match &self.subject {
            Subject::Namespaces(s) => json!({"namespaces": selector(s)}),
            Subject::Pods(np) => json!({"pods": namespaced_pod(np)}),
        };
        m.insert("subject".into(), subject);
        Value::Object(m)
    }
}

#[cfg(test)]
mod tests {
    use super::super::decode_admin;
    use crate::k8s::yaml::parse_documents;

    #[test]
    fn the_spec_round_trips_with_defaults() {
        let text = "apiVersion: policy.networking.k8s.io/v1alpha1\nkind: AdminNetworkPolicy\nmetadata:\n  name: a\nspec:\n  priority: 10\n  subject:\n    namespaces: {}\n  ingress:\n  - name: r\n    action: Deny\n    from:\n    - namespaces:\n        matchLabels: {t: x}\n    ports:\n    - portNumber: {port: 80}\n    - portRange: {start: 1, end: 9, protocol: UDP}\n  egress:\n  - action: Pass\n    to:\n    - networks: [10.0.0.0/8]\n";
        let doc = parse_documents(text).unwrap().remove(0);
        let p = decode_admin(&doc).unwrap().policy;
        let spec = p.spec_json();
        assert_eq!(spec["ingress"][0]["ports"][0]["portNumber"]["protocol"], "TCP");
        let mut again = doc.clone();
        again["spec"] = spec;
        assert_eq!(decode_admin(&again).unwrap().policy, p);
    }
}
