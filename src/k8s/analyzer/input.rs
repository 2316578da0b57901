//! Reading manifests into the analyzer's model: namespaces, pods (with their controlling
//! owner), template workloads and policies.
//!
//! Saved cluster dumps come in three shapes, and all three are read: single objects, `kind:
//! List` (each item carries its own kind), and typed lists such as `NamespaceList` or
//! `PodList`, whose items carry no kind because the API server leaves it out (the item kind
//! is the list kind without `List`).

use std::collections::BTreeMap;
use std::net::Ipv4Addr;

use serde_json::Value;

use crate::k8s::admin::{AdminKind, AdminPolicy, decode_admin};
use crate::k8s::cluster::{Container, ContainerPort, Protocol};
use crate::k8s::decode::decode_policy;
use crate::k8s::labels::Labels;
use crate::k8s::policy::NetworkPolicy;
use crate::k8s::validate::{invalid_message, validate_policy};
use crate::k8s::yaml::parse_documents;

/// A pod, or a template workload standing for one pod of its template.
#[derive(Debug, Clone)]
pub struct Workload {
    pub namespace: String,
    pub name: String,
    pub kind: String,
    /// The controlling owner's kind and name, for pods that have one.
    pub owner: Option<(String, String)>,
    pub labels: Labels,
    pub ip: Option<Ipv4Addr>,
    pub containers: Vec<Container>,
}

impl Workload {
    /// `namespace/name[Kind]` of the workload itself.
    pub fn key(&self) -> String {
        format!("{}/{}[{}]", self.namespace, self.name, self.kind)
    }

    /// `namespace/owner[OwnerKind]`, or [`Workload::key`] without a controlling owner.
    pub fn owner_key(&self) -> String {
        match &self.owner {
            Some((kind, name)) => format!("{}/{name}[{kind}]", self.namespace),
            None => self.key(),
        }
    }
}

/// The parsed input.
#[derive(Debug, Clone, Default)]
pub struct Input {
    pub namespaces: BTreeMap<String, Labels>,
    pub workloads: Vec<Workload>,
    pub policies: Vec<NetworkPolicy>,
    /// AdminNetworkPolicies and the BaselineAdminNetworkPolicy.
    pub admin: Vec<AdminPolicy>,
    /// Notes for standard error (ignored kinds, dropped unknown fields, invalid metadata).
    pub warnings: Vec<String>,
    /// Whether a policy the API server would reject for its metadata is an error.
    pub strict: bool,
}

const TEMPLATED: [&str; 5] = ["Deployment", "ReplicaSet", "StatefulSet", "DaemonSet", "Job"];

fn str_at<'a>(v: &'a Value, ptr: &str) -> Option<&'a str> {
    v.pointer(ptr).and_then(Value::as_str)
}

fn labels_at(v: &Value, ptr: &str) -> Labels {
    v.pointer(ptr)
        .and_then(Value::as_object)
        .map(|m| m.iter().filter_map(|(k, x)| x.as_str().map(|s| (k.clone(), s.to_string()))).collect())
        .unwrap_or_default()
}

fn container_port(p: &Value) -> Option<ContainerPort> {
    let port = p.get("containerPort")?.as_u64().and_then(|n| u16::try_from(n).ok())?;
    let protocol = Protocol::parse(str_at(p, "/protocol").unwrap_or("TCP"))?;
    Some(ContainerPort { name: str_at(p, "/name").map(str::to_string), port, protocol })
}

fn containers_at(v: &Value, ptr: &str) -> Vec<Container> {
    let list = v.pointer(ptr).and_then(Value::as_array).map_or(&[][..], Vec::as_slice);
    list.iter()
        .map(|c| Container {
            name: str_at(c, "/name").unwrap_or("").to_string(),
            image: str_at(c, "/image").unwrap_or("").to_string(),
            ports: c
                .get("ports")
                .and_then(Value::as_array)
                .map(|ps| ps.iter().filter_map(container_port).collect())
                .unwrap_or_default(),
        })
        .collect()
}

/// The owner reference with `controller: true`, as (kind, name).
fn controller_of(obj: &Value) -> Option<(String, String)> {
    let refs = obj.pointer("/metadata/ownerReferences")?.as_array()?;
    let r = refs.iter().find(|r| r.get("controller").and_then(Value::as_bool) == Some(true))?;
    Some((str_at(r, "/kind")?.to_string(), str_at(r, "/name")?.to_string()))
}

/// The objects of one document: itself, or the items of a list with their kinds filled in.
fn flatten(doc: Value, out: &mut Vec<Value>) {
    let list_kind = str_at(&doc, "/kind").and_then(|k| k.strip_suffix("List")).map(str::to_string);
    match (list_kind, doc.get("items").and_then(Value::as_array)) {
        (Some(item_kind), Some(items)) => {
            for item in items {
                let mut item = item.clone();
                if let Some(m) = item.as_object_mut()
                    && !item_kind.is_empty()
                    && !m.get("kind").is_some_and(Value::is_string)
                {
                    m.insert("kind".into(), Value::String(item_kind.clone()));
                }
                out.push(item);
            }
        }
        _ => out.push(doc),
    }
}

impl Input {
    /// Reads the objects of one source (`origin` names it in messages).
    pub fn add(&mut self, origin: &str, text: &str) -> Result<(), String> {
        let docs = parse_documents(text).map_err(|e| format!("{origin}: {e}"))?;
        let mut objects = Vec::new();
        for d in docs {
            flatten(d, &mut objects);
        }
        for obj in objects {
            self.add_object(origin, &obj)?;
        }
        Ok(())
    }

    fn add_object(&mut self, origin: &str, obj: &Value) -> Result<(), String> {
        let kind = str_at(obj, "/kind").unwrap_or("");
        let name = str_at(obj, "/metadata/name").unwrap_or("").to_string();
        let ns = str_at(obj, "/metadata/namespace").unwrap_or("default").to_string();
        match kind {
            "Namespace" => {
                let mut l = labels_at(obj, "/metadata/labels");
                l.insert("kubernetes.io/metadata.name".into(), name.clone());
                self.namespaces.insert(name, l);
            }
            "Pod" => self.workloads.push(Workload {
                namespace: ns,
                name,
                kind: "Pod".into(),
                owner: controller_of(obj),
                labels: labels_at(obj, "/metadata/labels"),
                ip: str_at(obj, "/status/podIP").and_then(|s| s.parse().ok()),
                containers: containers_at(obj, "/spec/containers"),
            }),
            k if TEMPLATED.contains(&k) => self.workloads.push(Workload {
                namespace: ns,
                name,
                kind: k.to_string(),
                owner: None,
                labels: labels_at(obj, "/spec/template/metadata/labels"),
                ip: None,
                containers: containers_at(obj, "/spec/template/spec/containers"),
            }),
            "Service" => {}
            "NetworkPolicy" => self.add_policy(origin, obj, ns)?,
            "AdminNetworkPolicy" | "BaselineAdminNetworkPolicy" => {
                let d = decode_admin(obj).map_err(|e| format!("{origin}: {e}"))?;
                for u in &d.unknown {
                    self.warnings.push(format!("{origin}: {kind} {name}: unknown field \"{u}\" ignored"));
                }
                if d.policy.kind == AdminKind::Baseline
                    && self.admin.iter().any(|p| p.kind == AdminKind::Baseline)
                {
                    self.warnings
                        .push(format!("{origin}: a second {kind} ignored: there is one per cluster"));
                } else {
                    self.admin.push(d.policy);
                }
            }
            other => self.warnings.push(format!(
                "{origin}: ignoring {} {ns}/{name}",
                if other.is_empty() { "an object without kind" } else { other }
            )),
        }
        Ok(())
    }

    /// Decodes, defaults and validates a NetworkPolicy. Errors in its metadata (a name the
    /// API server rejects) are warnings unless [`Input::strict`]: the policy's meaning does
    /// not depend on them. Errors in the spec always fail, since the spec cannot be
    /// evaluated as written.
    fn add_policy(&mut self, origin: &str, obj: &Value, ns: String) -> Result<(), String> {
        let name = str_at(obj, "/metadata/name").unwrap_or("");
        let d = decode_policy(obj).map_err(|e| format!("{origin}: NetworkPolicy {ns}/{name}: {}", e.0))?;
        for u in &d.unknown {
            self.warnings.push(format!("{origin}: NetworkPolicy {ns}/{name}: unknown field \"{u}\" ignored"));
        }
        let mut p = d.policy;
        p.meta.namespace = ns;
        p.spec.apply_defaults();
        let errors = validate_policy(&p, obj.pointer("/spec/podSelector").is_some());
        let fatal = self.strict || errors.iter().any(|e| !e.field.starts_with("metadata."));
        if !errors.is_empty() {
            let message = format!("{origin}: {}", invalid_message("NetworkPolicy", &p.meta.name, &errors));
            if fatal {
                return Err(message);
            }
            self.warnings.push(format!("{message} (evaluated as written; --strict fails)"));
        }
        self.policies.push(p);
        Ok(())
    }

    /// Every namespace the input names, with the labels it was given (or just its name label).
    pub fn all_namespaces(&self) -> BTreeMap<String, Labels> {
        let mut namespaces = self.namespaces.clone();
        for w in &self.workloads {
            namespaces.entry(w.namespace.clone()).or_insert_with(|| {
                [("kubernetes.io/metadata.name".to_string(), w.namespace.clone())].into_iter().collect()
            });
        }
        namespaces
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typed_lists_give_their_items_a_kind() {
        let text = r#"{"kind": "NamespaceList", "apiVersion": "v1", "items": [
            {"metadata": {"name": "shop", "labels": {"tier": "web"}}}]}
---
kind: PodList
items:
- metadata: {name: p1, namespace: shop, labels: {app: a}}
- kind: Pod
  metadata: {name: p2, namespace: shop}
---
kind: List
items:
- {kind: Namespace, metadata: {name: other}}
- {metadata: {name: nokind}}
"#;
        let mut input = Input::default();
        input.add("x", text).unwrap();
        assert_eq!(input.namespaces["shop"]["tier"], "web");
        assert!(input.namespaces.contains_key("other"));
        let names: Vec<_> = input.workloads.iter().map(Workload::key).collect();
        assert_eq!(names, ["shop/p1[Pod]", "shop/p2[Pod]"]);
        assert_eq!(input.warnings, ["x: ignoring an object without kind default/nokind"]);
    }

    #[test]
    fn controlling_owner_is_read() {
        let text = "kind: Pod
metadata:
  name: cart-abc
  ownerReferences:
  - {kind: Node, name: n1}
  - {kind: ReplicaSet, name: cart-69c8, controller: true}
";
        let mut input = Input::default();
        input.add("x", text).unwrap();
        assert_eq!(input.workloads[0].owner_key(), "default/cart-69c8[ReplicaSet]");
    }

    #[test]
    fn invalid_metadata_warns_unless_strict() {
        let bad = "kind: NetworkPolicy\nmetadata: {name: deny_all}\nspec: {podSelector: {}}";
        let mut input = Input::default();
        input.add("x", bad).unwrap();
        assert_eq!(input.policies.len(), 1);
        assert!(
            input.warnings[0].contains("metadata.name: Invalid value: \"deny_all\""),
            "{:?}",
            input.warnings
        );
        let mut strict = Input { strict: true, ..Input::default() };
        assert!(strict.add("x", bad).unwrap_err().contains("is invalid"));
    }
}
