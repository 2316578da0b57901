//! Patch application: RFC 6902 JSON patch and RFC 7386 merge patch (the `json-patch`
//! crate), strategic merge patch as the API server applies it to a NetworkPolicy, and the
//! three-way patch `kubectl apply` computes.
//!
//! NetworkPolicy declares no list merge keys, so a strategic merge patch is a merge patch
//! whose lists are replaced whole, plus the `$patch: replace|delete` map directives; other
//! `$`-directives carry no meaning for this type and are dropped.

use serde_json::{Map, Value};

/// Why a patch could not be applied, in the server's words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PatchError {
    /// The payload is not a JSON patch document.
    NotAList,
    /// An operation failed (missing path, bad index, failed `test`).
    Rejected,
}

impl PatchError {
    pub fn message(&self) -> &'static str {
        match self {
            PatchError::NotAList => {
                "Error from server (BadRequest): json: cannot unmarshal object into Go value of type jsonpatch.Patch"
            }
            PatchError::Rejected => {
                "The request is invalid: the server rejected our request due to an error in our request"
            }
        }
    }
}

/// The patch types of `kubectl patch --type`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PatchType {
    Json,
    Merge,
    Strategic,
}

impl PatchType {
    pub fn parse(s: &str) -> Option<PatchType> {
        match s {
            "json" => Some(PatchType::Json),
            "merge" => Some(PatchType::Merge),
            "strategic" => Some(PatchType::Strategic),
            _ => None,
        }
    }
}

/// Applies `patch` to a copy of `doc`.
pub fn apply(doc: &Value, patch: &Value, ty: PatchType) -> Result<Value, PatchError> {
    let mut out = doc.clone();
    match ty {
        PatchType::Json => {
            if !patch.is_array() {
                return Err(PatchError::NotAList);
            }
            let p: json_patch::Patch =
                serde_json::from_value(patch.clone()).map_err(|_| PatchError::Rejected)?;
            json_patch::patch(&mut out, &p).map_err(|_| PatchError::Rejected)?;
        }
        PatchType::Merge => json_patch::merge(&mut out, patch),
        PatchType::Strategic => strategic(&mut out, patch),
    }
    Ok(out)
}

/// Strategic merge for a type whose lists are all atomic.
fn strategic(target: &mut Value, patch: &Value) {
    let Value::Object(p) = patch else {
        *target = patch.clone();
        return;
    };
    match p.get("$patch").and_then(Value::as_str) {
        Some("delete") => {
            *target = Value::Object(Map::new());
            return;
        }
        Some("replace") => {
            *target = Value::Object(Map::new());
        }
        _ => {}
    }
    if !target.is_object() {
        *target = Value::Object(Map::new());
    }
    let Value::Object(t) = target else { return };
    for (k, v) in p {
        if k.starts_with('$') {
            continue;
        }
        match v {
            Value::Null => {
                t.remove(k);
            }
            Value::Object(inner) if inner.get("$patch").and_then(Value::as_str) == Some("delete") => {
                t.remove(k);
            }
            Value::Object(_) => strategic(t.entry(k.clone()).or_insert(Value::Null), v),
            other => {
                t.insert(k.clone(), strip_directives(other));
            }
        }
    }
}

/// Removes `$` keys from values copied in whole (inside replaced lists).
fn strip_directives(v: &Value) -> Value {
    match v {
        Value::Object(m) => Value::Object(
            m.iter()
                .filter(|(k, _)| !k.starts_with('$'))
                .map(|(k, x)| (k.clone(), strip_directives(x)))
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.iter().map(strip_directives).collect()),
        other => other.clone(),
    }
}

/// The three-way patch of `kubectl apply`: set what `modified` changes relative to
/// `current`, and delete what `original` (the last applied configuration) had that
/// `modified` no longer has. Lists are atomic.
pub fn three_way(original: &Value, modified: &Value, current: &Value) -> Map<String, Value> {
    let (Value::Object(o), Value::Object(m), Value::Object(c)) = (original, modified, current) else {
        return Map::new();
    };
    let mut patch = Map::new();
    for (k, mv) in m {
        match (c.get(k), mv) {
            (Some(cv @ Value::Object(_)), Value::Object(_)) => {
                let sub = three_way(o.get(k).unwrap_or(&Value::Null), mv, cv);
                if !sub.is_empty() {
                    patch.insert(k.clone(), Value::Object(sub));
                }
            }
            (Some(cv), _) if cv == mv => {}
            _ => {
                patch.insert(k.clone(), mv.clone());
            }
        }
    }
    for k in o.keys() {
        if !m.contains_key(k) && c.contains_key(k) {
            patch.insert(k.clone(), Value::Null);
        }
    }
    patch
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn json_patch_ops_and_errors() {
        let doc = json!({"spec": {"ingress": [{"ports": [{"port": 1}]}]}});
        let p = json!([{"op": "replace", "path": "/spec/ingress/0/ports/0/port", "value": 80}]);
        assert_eq!(apply(&doc, &p, PatchType::Json).unwrap()["spec"]["ingress"][0]["ports"][0]["port"], 80);
        assert_eq!(apply(&doc, &json!({"op": "add"}), PatchType::Json), Err(PatchError::NotAList));
        let bad = json!([{"op": "remove", "path": "/spec/egress"}]);
        assert_eq!(apply(&doc, &bad, PatchType::Json), Err(PatchError::Rejected));
        let test = json!([{"op": "test", "path": "/spec/ingress/0/ports/0/port", "value": 2}]);
        assert_eq!(apply(&doc, &test, PatchType::Json), Err(PatchError::Rejected));
        let unknown = json!([{"op": "frobnicate", "path": "/a"}]);
        assert_eq!(apply(&doc, &unknown, PatchType::Json), Err(PatchError::Rejected));
    }

    #[test]
    fn merge_and_strategic() {
        let doc = json!({"metadata": {"labels": {"a": "1"}}, "spec": {"egress": [{"to": []}], "podSelector": {"matchLabels": {"app": "x"}}}});
        let p = json!({"metadata": {"labels": {"b": "2"}}, "spec": {"egress": [{}], "podSelector": {"matchLabels": {"app": null}}}});
        let merged = apply(&doc, &p, PatchType::Merge).unwrap();
        assert_eq!(merged["metadata"]["labels"], json!({"a": "1", "b": "2"}));
        assert_eq!(merged["spec"]["egress"], json!([{}]));
        assert_eq!(merged["spec"]["podSelector"], json!({"matchLabels": {}}));
        assert_eq!(apply(&doc, &p, PatchType::Strategic).unwrap(), merged);
        let replace = json!({"spec": {"podSelector": {"$patch": "replace", "matchLabels": {"k": "v"}}}});
        let r = apply(&doc, &replace, PatchType::Strategic).unwrap();
        assert_eq!(r["spec"]["podSelector"], json!({"matchLabels": {"k": "v"}}));
        let delete = json!({"metadata": {"labels": {"$patch": "delete"}}});
        assert!(apply(&doc, &delete, PatchType::Strategic).unwrap()["metadata"].get("labels").is_none());
    }

    #[test]
    fn three_way_sets_and_deletes() {
        let original = json!({"spec": {"a": 1, "b": 2}});
        let modified = json!({"spec": {"a": 1, "c": 3}});
        let current = json!({"spec": {"a": 5, "b": 2, "x": 9}});
        let p = three_way(&original, &modified, &current);
        assert_eq!(Value::Object(p), json!({"spec": {"a": 1, "b": null, "c": 3}}));
        assert!(three_way(&modified, &modified, &json!({"spec": {"a": 1, "c": 3, "x": 0}})).is_empty());
    }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod proptests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn patches_never_panic(text in "\\PC{0,120}", ty in 0usize..3) {
            let doc = serde_json::json!({"spec": {"ingress": [{"ports": [{"port": 1}]}], "podSelector": {}}});
            if let Ok(docs) = crate::k8s::yaml::parse_documents(&text) {
                for p in docs {
                    let _ = apply(&doc, &p, [PatchType::Json, PatchType::Merge, PatchType::Strategic][ty]);
                    let _ = three_way(&doc, &p, &doc);
                }
            }
        }
    }
}
