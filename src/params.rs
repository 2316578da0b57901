//! A task's parameters: the JSON object of every random choice its generator resolved
//! (printed by `netpress generate`, read back by every surface), whose members tasks may share.
//!
//! Much of a task's parameters is often the same for every task of one shape: a Route
//! topology's machines and healthy configuration are most of its card. Building that as a
//! fresh `serde_json::Value` for every task copies hundreds of strings (a fifth of Route's
//! generation time) and holds one copy per task. [`Params`] keeps each member behind an
//! `Arc`, so an application builds a shared member once and each task holds a pointer, while
//! the object serializes byte for byte as the same `Value` would.

use std::collections::BTreeMap;
use std::ops::Index;
use std::sync::Arc;

use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

/// The members of a `params` object, in key order (as `serde_json::Map` keeps them).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Params(BTreeMap<String, Arc<Value>>);

impl Params {
    /// Adds a member of this task's own.
    pub fn with(self, key: &str, value: impl Into<Value>) -> Self {
        self.shared(key, Arc::new(value.into()))
    }

    /// Adds a member other tasks hold too.
    pub fn shared(mut self, key: &str, value: Arc<Value>) -> Self {
        self.0.insert(key.to_string(), value);
        self
    }

    pub fn get(&self, key: &str) -> Option<&Value> {
        self.0.get(key).map(|v| &**v)
    }

    /// The whole object as one `Value` (a copy).
    pub fn to_value(&self) -> Value {
        Value::Object(self.0.iter().map(|(k, v)| (k.clone(), Value::clone(v))).collect())
    }
}

/// An object's members; any other value has none (parameters are always an object).
impl From<Value> for Params {
    fn from(value: Value) -> Self {
        match value {
            Value::Object(map) => Params::from(map),
            _ => Params::default(),
        }
    }
}

impl From<Map<String, Value>> for Params {
    fn from(map: Map<String, Value>) -> Self {
        Params(map.into_iter().map(|(k, v)| (k, Arc::new(v))).collect())
    }
}

/// `params["key"]`, `Null` when there is no such member (as `Value` indexes).
impl Index<&str> for Params {
    type Output = Value;

    fn index(&self, key: &str) -> &Value {
        static NULL: Value = Value::Null;
        self.get(key).unwrap_or(&NULL)
    }
}

impl Serialize for Params {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            map.serialize_entry(k, &**v)?;
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for Params {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Value::deserialize(deserializer).map(Params::from)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn sample() -> (Params, Value) {
        let shared = Arc::new(json!({"machines": [{"name": "h1", "target": "10.0.1.2"}], "n": 2}));
        let params =
            Params::default().with("zeta", json!([1, "two"])).shared("topology", shared.clone()).with("a", 3);
        let value = json!({"zeta": [1, "two"], "topology": *shared, "a": 3});
        (params, value)
    }

    #[test]
    fn serializes_as_the_same_value() {
        let (params, value) = sample();
        assert_eq!(serde_json::to_string(&params).unwrap(), serde_json::to_string(&value).unwrap());
        assert_eq!(
            serde_json::to_string_pretty(&params).unwrap(),
            serde_json::to_string_pretty(&value).unwrap()
        );
        assert_eq!(params.to_value(), value);
    }

    #[test]
    fn reads_back_and_indexes() {
        let (params, value) = sample();
        let back: Params = serde_json::from_str(&serde_json::to_string(&params).unwrap()).unwrap();
        assert_eq!(back, params);
        assert_eq!(params["a"], json!(3));
        assert_eq!(params["missing"], Value::Null);
        assert_eq!(params.get("topology"), value.get("topology"));
        assert_eq!(Params::from(Value::Null), Params::default());
    }
}
