//! Decoding a NetworkPolicy from JSON the way the API server does.
//!
//! serde's errors and its silent acceptance of unknown fields are not what an agent sees from
//! a real server: the server names unknown fields by path (`spec.ingress[0].fromm`), warns
//! about them on patches and rejects them on strict creates, and reports type mismatches in
//! Go's `encoding/json` wording. A small schema walk over `serde_json::Value` gives exactly
//! that, so it is hand-written rather than derived.

use serde_json::{Map, Value};

use super::meta::Meta;
use super::policy::{
    Expression, IntOrString, IpBlock, LabelSelector, NetworkPolicy, Peer, PolicyPort, PolicySpec, Rule,
};

/// A decoded policy and the unknown fields that were dropped.
#[derive(Debug, Clone, PartialEq)]
pub struct Decoded {
    pub policy: NetworkPolicy,
    /// Paths such as `spec.ingress[0].fromm`, in document order.
    pub unknown: Vec<String>,
}

/// A type mismatch, worded as Go's `encoding/json`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TypeError(pub String);

type R<T> = Result<T, TypeError>;

/// Walk state: the JSON path for unknown-field reports and the dotted Go field path.
struct Walk {
    unknown: Vec<String>,
}

fn json_kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "bool",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

fn mismatch(v: &Value, owner: &str, go_path: &str, go_type: &str) -> TypeError {
    let what = match v {
        Value::Number(n) => format!("number {n}"),
        other => json_kind(other).to_string(),
    };
    if owner.is_empty() {
        TypeError(format!("json: cannot unmarshal {what} into Go value of type {go_type}"))
    } else {
        TypeError(format!(
            "json: cannot unmarshal {what} into Go struct field {owner}.{go_path} of type {go_type}"
        ))
    }
}

fn dotted(parent: &str, key: &str) -> String {
    if parent.is_empty() { key.to_string() } else { format!("{parent}.{key}") }
}

impl Walk {
    /// The fields of an object (`None` for `null`), reporting keys outside `known`.
    fn object<'a>(
        &mut self,
        v: &'a Value,
        path: &str,
        known: &[&str],
        owner: &str,
        go_path: &str,
        go_type: &str,
    ) -> R<Option<&'a Map<String, Value>>> {
        match v {
            Value::Null => Ok(None),
            Value::Object(m) => {
                for k in m.keys() {
                    if !known.contains(&k.as_str()) {
                        self.unknown.push(dotted(path, k));
                    }
                }
                Ok(Some(m))
            }
            other => Err(mismatch(other, owner, go_path, go_type)),
        }
    }
}

fn string(v: &Value, owner: &str, go_path: &str, go_type: &str) -> R<Option<String>> {
    match v {
        Value::Null => Ok(None),
        Value::String(s) => Ok(Some(s.clone())),
        other => Err(mismatch(other, owner, go_path, go_type)),
    }
}

fn int32(v: &Value, owner: &str, go_path: &str) -> R<Option<i32>> {
    match v {
        Value::Null => Ok(None),
        Value::Number(n) => n.as_i64().and_then(|x| i32::try_from(x).ok()).map(Some).ok_or_else(|| {
            TypeError(format!(
                "json: cannot unmarshal number {n} into Go struct field {owner}.{go_path} of type int32"
            ))
        }),
        other => Err(mismatch(other, owner, go_path, "int32")),
    }
}

fn array<'a>(v: &'a Value, owner: &str, go_path: &str, go_type: &str) -> R<&'a [Value]> {
    match v {
        Value::Null => Ok(&[]),
        Value::Array(a) => Ok(a),
        other => Err(mismatch(other, owner, go_path, go_type)),
    }
}

fn string_map(v: &Value, owner: &str, go_path: &str) -> R<std::collections::BTreeMap<String, String>> {
    match v {
        Value::Null => Ok(Default::default()),
        Value::Object(m) => m
            .iter()
            .map(|(k, x)| match x {
                Value::String(s) => Ok((k.clone(), s.clone())),
                // Go decodes a null map value as the zero string.
                Value::Null => Ok((k.clone(), String::new())),
                other => Err(mismatch(other, owner, go_path, "string")),
            })
            .collect(),
        other => Err(mismatch(other, owner, go_path, "map[string]string")),
    }
}

const META_FIELDS: &[&str] = &[
    "name",
    "generateName",
    "namespace",
    "selfLink",
    "uid",
    "resourceVersion",
    "generation",
    "creationTimestamp",
    "deletionTimestamp",
    "deletionGracePeriodSeconds",
    "labels",
    "annotations",
    "ownerReferences",
    "finalizers",
    "managedFields",
];

/// Decodes a whole NetworkPolicy object. `apiVersion` and `kind` are accepted but checked
/// by the caller, which knows the request.
pub fn decode_policy(v: &Value) -> R<Decoded> {
    let mut w = Walk { unknown: Vec::new() };
    let top = w
        .object(v, "", &["apiVersion", "kind", "metadata", "spec", "status"], "", "", "v1.NetworkPolicy")?
        .cloned()
        .unwrap_or_default();
    for key in ["apiVersion", "kind"] {
        if let Some(x) = top.get(key) {
            string(x, "NetworkPolicy", key, "string")?;
        }
    }
    let meta = match top.get("metadata") {
        Some(m) => decode_meta(&mut w, m)?,
        None => Meta::default(),
    };
    let spec = match top.get("spec") {
        Some(s) => decode_spec(&mut w, s)?,
        None => PolicySpec::default(),
    };
    Ok(Decoded { policy: NetworkPolicy { meta, spec }, unknown: w.unknown })
}

/// The name, namespace, labels and annotations of any written object, as `ObjectMeta`
/// decodes them (type errors in `encoding/json`'s words).
pub fn decode_object_meta(v: &Value) -> Result<Meta, String> {
    let mut w = Walk { unknown: Vec::new() };
    match v.get("metadata") {
        Some(m) => decode_meta(&mut w, m).map_err(|e| e.0),
        None => Ok(Meta::default()),
    }
}

fn decode_meta(w: &mut Walk, v: &Value) -> R<Meta> {
    let Some(m) = w.object(v, "metadata", META_FIELDS, "NetworkPolicy", "metadata", "v1.ObjectMeta")? else {
        return Ok(Meta::default());
    };
    let mut meta = Meta::default();
    let get_str = |key: &str| -> R<Option<String>> {
        m.get(key).map_or(Ok(None), |x| string(x, "ObjectMeta", &format!("metadata.{key}"), "string"))
    };
    meta.name = get_str("name")?.unwrap_or_default();
    meta.namespace = get_str("namespace")?.unwrap_or_default();
    meta.generate_name = get_str("generateName")?;
    if let Some(l) = m.get("labels") {
        meta.labels = string_map(l, "ObjectMeta", "metadata.labels")?;
    }
    if let Some(a) = m.get("annotations") {
        meta.annotations = string_map(a, "ObjectMeta", "metadata.annotations")?;
    }
    Ok(meta)
}

fn decode_spec(w: &mut Walk, v: &Value) -> R<PolicySpec> {
    let known = ["podSelector", "ingress", "egress", "policyTypes"];
    let Some(m) = w.object(v, "spec", &known, "NetworkPolicy", "spec", "v1.NetworkPolicySpec")? else {
        return Ok(PolicySpec::default());
    };
    let mut spec = PolicySpec::default();
    if let Some(s) = m.get("podSelector") {
        spec.pod_selector =
            decode_selector(w, s, "spec.podSelector", "NetworkPolicySpec")?.unwrap_or_default();
    }
    for (key, peers_key, go_type) in [
        ("ingress", "from", "[]v1.NetworkPolicyIngressRule"),
        ("egress", "to", "[]v1.NetworkPolicyEgressRule"),
    ] {
        let Some(x) = m.get(key) else { continue };
        let rules = array(x, "NetworkPolicySpec", &format!("spec.{key}"), go_type)?;
        let mut out = Vec::with_capacity(rules.len());
        for (i, r) in rules.iter().enumerate() {
            out.push(decode_rule(w, r, &format!("spec.{key}[{i}]"), key, peers_key)?);
        }
        *(if key == "ingress" { &mut spec.ingress } else { &mut spec.egress }) = out;
    }
    if let Some(x) = m.get("policyTypes") {
        let types = array(x, "NetworkPolicySpec", "spec.policyTypes", "[]v1.PolicyType")?;
        for t in types {
            let s = string(t, "NetworkPolicySpec", "spec.policyTypes", "v1.PolicyType")?;
            spec.policy_types.push(s.unwrap_or_default());
        }
    }
    Ok(spec)
}

fn decode_rule(w: &mut Walk, v: &Value, path: &str, key: &str, peers_key: &str) -> R<Rule> {
    let owner = if key == "ingress" { "NetworkPolicyIngressRule" } else { "NetworkPolicyEgressRule" };
    let go_base = format!("spec.{key}");
    let Some(m) = w.object(v, path, &["ports", peers_key], "NetworkPolicySpec", &go_base, owner)? else {
        return Ok(Rule::default());
    };
    let mut rule = Rule::default();
    if let Some(x) = m.get(peers_key) {
        let go_path = format!("{go_base}.{peers_key}");
        for (i, p) in array(x, owner, &go_path, "[]v1.NetworkPolicyPeer")?.iter().enumerate() {
            rule.peers.push(decode_peer(w, p, &format!("{path}.{peers_key}[{i}]"), &go_path)?);
        }
    }
    if let Some(x) = m.get("ports") {
        let go_path = format!("{go_base}.ports");
        for (i, p) in array(x, owner, &go_path, "[]v1.NetworkPolicyPort")?.iter().enumerate() {
            rule.ports.push(decode_port(w, p, &format!("{path}.ports[{i}]"), &go_path)?);
        }
    }
    Ok(rule)
}

fn decode_peer(w: &mut Walk, v: &Value, path: &str, go_path: &str) -> R<Peer> {
    let known = ["podSelector", "namespaceSelector", "ipBlock"];
    let Some(m) = w.object(v, path, &known, "", go_path, "v1.NetworkPolicyPeer")? else {
        return Ok(Peer::default());
    };
    let mut peer = Peer::default();
    if let Some(s) = m.get("podSelector") {
        peer.pod_selector = decode_selector(w, s, &format!("{path}.podSelector"), "NetworkPolicyPeer")?;
    }
    if let Some(s) = m.get("namespaceSelector") {
        peer.namespace_selector =
            decode_selector(w, s, &format!("{path}.namespaceSelector"), "NetworkPolicyPeer")?;
    }
    if let Some(b) = m.get("ipBlock") {
        let bpath = format!("{path}.ipBlock");
        let go = format!("{go_path}.ipBlock");
        if let Some(bm) = w.object(b, &bpath, &["cidr", "except"], "NetworkPolicyPeer", &go, "v1.IPBlock")? {
            let mut block = IpBlock::default();
            if let Some(c) = bm.get("cidr") {
                block.cidr = string(c, "IPBlock", &format!("{go}.cidr"), "string")?.unwrap_or_default();
            }
            if let Some(e) = bm.get("except") {
                for x in array(e, "IPBlock", &format!("{go}.except"), "[]string")? {
                    block
                        .except
                        .push(string(x, "IPBlock", &format!("{go}.except"), "string")?.unwrap_or_default());
                }
            }
            peer.ip_block = Some(block);
        }
    }
    Ok(peer)
}

fn decode_port(w: &mut Walk, v: &Value, path: &str, go_path: &str) -> R<PolicyPort> {
    let known = ["protocol", "port", "endPort"];
    let Some(m) = w.object(v, path, &known, "", go_path, "v1.NetworkPolicyPort")? else {
        return Ok(PolicyPort::default());
    };
    let mut port = PolicyPort::default();
    if let Some(p) = m.get("protocol") {
        port.protocol = string(p, "NetworkPolicyPort", &format!("{go_path}.protocol"), "v1.Protocol")?;
    }
    if let Some(p) = m.get("port") {
        port.port = match p {
            Value::Null => None,
            Value::String(s) => Some(IntOrString::Str(s.clone())),
            Value::Number(_) => {
                int32(p, "NetworkPolicyPort", &format!("{go_path}.port"))?.map(IntOrString::Int)
            }
            other => return Err(mismatch(other, "", "", "int32")),
        };
    }
    if let Some(e) = m.get("endPort") {
        port.end_port = int32(e, "NetworkPolicyPort", &format!("{go_path}.endPort"))?;
    }
    Ok(port)
}

fn decode_selector(w: &mut Walk, v: &Value, path: &str, owner: &str) -> R<Option<LabelSelector>> {
    let known = ["matchLabels", "matchExpressions"];
    let go = path.replace(|c: char| c == '[' || c == ']' || c.is_ascii_digit(), "");
    let Some(m) = w.object(v, path, &known, owner, &go, "v1.LabelSelector")? else {
        return Ok(None);
    };
    let mut sel = LabelSelector::default();
    if let Some(l) = m.get("matchLabels") {
        sel.match_labels = string_map(l, "LabelSelector", &format!("{go}.matchLabels"))?;
    }
    if let Some(e) = m.get("matchExpressions") {
        let go_e = format!("{go}.matchExpressions");
        for (i, x) in array(e, "LabelSelector", &go_e, "[]v1.LabelSelectorRequirement")?.iter().enumerate() {
            let epath = format!("{path}.matchExpressions[{i}]");
            let known = ["key", "operator", "values"];
            let Some(em) =
                w.object(x, &epath, &known, "LabelSelector", &go_e, "v1.LabelSelectorRequirement")?
            else {
                sel.match_expressions.push(Expression {
                    key: String::new(),
                    operator: String::new(),
                    values: vec![],
                });
                continue;
            };
            let field = |k: &str| {
                em.get(k).map_or(Ok(None), |x| {
                    string(x, "LabelSelectorRequirement", &format!("{go_e}.{k}"), "string")
                })
            };
            let mut values = Vec::new();
            if let Some(vs) = em.get("values") {
                for v in array(vs, "LabelSelectorRequirement", &format!("{go_e}.values"), "[]string")? {
                    values.push(
                        string(v, "LabelSelectorRequirement", &format!("{go_e}.values"), "string")?
                            .unwrap_or_default(),
                    );
                }
            }
            sel.match_expressions.push(Expression {
                key: field("key")?.unwrap_or_default(),
                operator: field("operator")?.unwrap_or_default(),
                values,
            });
        }
    }
    Ok(Some(sel))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn decodes_and_reports_unknown_fields() {
        let v = json!({
            "apiVersion": "networking.k8s.io/v1", "kind": "NetworkPolicy",
            "metadata": {"name": "a", "namespace": "default", "labels": {"x": "y"}},
            "spec": {"podSelector": {"matchLabels": {"app": "a"}},
                     "ingress": [{"fromm": [], "ports": [{"port": 80}, {"port": "http", "protocol": "UDP"}]}],
                     "egress": [{}], "policyTypes": ["Ingress", "Egress"], "extra": 1}
        });
        let d = decode_policy(&v).unwrap();
        assert_eq!(d.unknown, vec!["spec.extra", "spec.ingress[0].fromm"]);
        assert_eq!(d.policy.meta.name, "a");
        assert_eq!(d.policy.spec.ingress[0].ports[1].port, Some(IntOrString::Str("http".into())));
        assert_eq!(d.policy.spec.egress.len(), 1);
    }

    #[test]
    fn type_errors_use_go_wording() {
        let v = json!({"spec": {"podSelector": "app"}});
        assert_eq!(
            decode_policy(&v).unwrap_err().0,
            "json: cannot unmarshal string into Go struct field NetworkPolicySpec.spec.podSelector of type v1.LabelSelector"
        );
        let v = json!({"spec": {"ingress": [{"ports": [{"port": 70000000000u64}]}]}});
        assert!(decode_policy(&v).unwrap_err().0.contains("number 70000000000"));
        assert!(
            decode_policy(&json!([1]))
                .unwrap_err()
                .0
                .contains("array into Go value of type v1.NetworkPolicy")
        );
    }

    #[test]
    fn nulls_are_absent() {
        let v = json!({"spec": {"podSelector": null, "ingress": null, "egress": [null]}});
        let d = decode_policy(&v).unwrap();
        assert!(d.policy.spec.ingress.is_empty());
        assert_eq!(d.policy.spec.egress, vec![Rule::default()]);
    }
}
