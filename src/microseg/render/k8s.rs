//! Kubernetes: a list of NetworkPolicy objects in namespace `tenant`, read, defaulted and
//! validated as the K8s application's API server does, and judged by its evaluator
//! (`crate::k8s::eval`), so the code has one NetworkPolicy semantics.
//!
//! The cluster (docs/microseg-render.md): one pod per VM, labelled `vm=a-b-c-d` (its address
//! with dashes) if it ran in a visible window, and `role=<name>` if its role is tagged or it
//! was created after the visible windows; external endpoints are bare addresses.

use std::net::Ipv4Addr;

use serde_json::Value;

use crate::k8s::cluster::Protocol;
use crate::k8s::decode::decode_policy;
use crate::k8s::eval::{Compiled, End, PodRef};
use crate::k8s::labels::Labels;
use crate::k8s::policy::NetworkPolicy;
use crate::k8s::validate::{invalid_message, validate_policy};

use super::{MAX_RULES, Proto, RenderError, at_most, invalid};

/// The namespace every pod and policy lives in.
pub const NAMESPACE: &str = "tenant";

/// Validated NetworkPolicies.
#[derive(Debug, Clone)]
pub struct K8s {
    pub policies: Vec<NetworkPolicy>,
}

impl K8s {
    /// Reads a JSON list of NetworkPolicy objects (an absent namespace is `tenant`).
    pub fn from_value(v: &Value) -> Result<K8s, RenderError> {
        let Value::Array(items) = v else {
            return Err(invalid("document", "a JSON list of NetworkPolicy objects is expected"));
        };
        at_most(items.len(), MAX_RULES, "policies")?;
        let policies =
            items.iter().enumerate().map(|(i, o)| policy(o).map_err(|e| invalid(format!("[{i}]"), e)));
        Ok(K8s { policies: policies.collect::<Result<_, _>>()? })
    }

    /// The policies compiled against a cluster's pods.
    pub fn compile<'a>(&self, pods: &'a [PodRef<'a>]) -> Compiled<'a> {
        let refs: Vec<&NetworkPolicy> = self.policies.iter().collect();
        Compiled::new(pods, &[], &refs)
    }
}

fn policy(o: &Value) -> Result<NetworkPolicy, String> {
    let text = |k: &str| o.get(k).and_then(Value::as_str);
    if text("kind").is_some_and(|k| k != "NetworkPolicy") {
        return Err(format!("kind '{}' (NetworkPolicy)", text("kind").unwrap_or_default()));
    }
    if text("apiVersion").is_some_and(|k| k != "networking.k8s.io/v1") {
        return Err(format!(
            "apiVersion '{}' (networking.k8s.io/v1)",
            text("apiVersion").unwrap_or_default()
        ));
    }
    let d = decode_policy(o).map_err(|e| e.0)?;
    if let Some(u) = d.unknown.first() {
        return Err(format!("unknown field \"{u}\""));
    }
    let mut p = d.policy;
    match p.meta.namespace.as_str() {
        "" => p.meta.namespace = NAMESPACE.into(),
        NAMESPACE => {}
        other => return Err(format!("namespace '{other}' (the tenant's pods are in '{NAMESPACE}')")),
    }
    p.spec.apply_defaults();
    let errors = validate_policy(&p, o.pointer("/spec/podSelector").is_some());
    if !errors.is_empty() {
        return Err(invalid_message("NetworkPolicy", &p.meta.name, &errors));
    }
    Ok(p)
}

/// A pod's labels: `vm` when it ran in a visible window, `role` when tagged or new.
pub fn labels(ip: Ipv4Addr, visible: bool, role: Option<&str>) -> Labels {
    let mut l = Labels::new();
    if visible {
        l.insert("vm".into(), ip.to_string().replace('.', "-"));
    }
    if let Some(r) = role {
        l.insert("role".into(), r.into());
    }
    l
}

/// A pod of the tenant's namespace.
pub fn pod(labels: &Labels, ip: Ipv4Addr) -> PodRef<'_> {
    PodRef { namespace: NAMESPACE, labels, ip: Some(ip), containers: &[] }
}

/// Whether the compiled policies admit `src → dst` (pods by index, else addresses).
pub fn allowed(c: &Compiled<'_>, src: End, dst: End, proto: Proto, dport: u16) -> bool {
    let proto = if proto == Proto::Udp { Protocol::Udp } else { Protocol::Tcp };
    c.allowed(src, dst, dport, proto)
}
