//! Canonical JSON and content hashes.
//!
//! A task's content hash lets anyone check that two runs used the same query: it is the
//! lowercase hex SHA-256 of the prompt's UTF-8 bytes immediately followed by the canonical JSON
//! of the expected outcome. Canonical JSON is compact, with object keys sorted by their UTF-8
//! bytes at every depth, and numbers and strings written by `serde_json`. We sort explicitly
//! rather than trust `serde_json::Map`'s order, which a dependency's `preserve_order` feature
//! could silently change.

use serde_json::Value;
use sha2::{Digest, Sha256};

/// Compact JSON with sorted keys at every depth.
pub fn canonical_json(value: &Value) -> String {
    let mut out = String::new();
    write_canonical(value, &mut out);
    out
}

fn write_canonical(value: &Value, out: &mut String) {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            out.push('{');
            for (i, key) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String(key.clone()).to_string());
                out.push(':');
                write_canonical(&map[key], out);
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_canonical(item, out);
            }
            out.push(']');
        }
        scalar => out.push_str(&scalar.to_string()),
    }
}

/// Lowercase hex SHA-256 of some bytes.
pub fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}

/// The content hash of a task: SHA-256(prompt ‖ canonical_json(expected)).
pub fn content_hash(prompt: &str, expected: &Value) -> String {
    let mut h = Sha256::new();
    h.update(prompt.as_bytes());
    h.update(canonical_json(expected).as_bytes());
    h.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

/// The short form shown in the UI and tables: the first 12 hex digits.
pub fn short(hash: &str) -> &str {
    &hash[..hash.len().min(12)]
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn keys_are_sorted_at_every_depth() {
        let v = json!({"b": 1, "a": {"z": [true, null], "y": "é\n"}, "A": 1.5});
        assert_eq!(canonical_json(&v), r#"{"A":1.5,"a":{"y":"é\n","z":[true,null]},"b":1}"#);
    }

    #[test]
    fn content_hash_is_prompt_then_canonical_expected() {
        let expected = json!({"b": 2, "a": 1});
        let direct = sha256_hex(br#"hello{"a":1,"b":2}"#);
        assert_eq!(content_hash("hello", &expected), direct);
    }

    /// Pinned values: the browser test checks the same pairs in wasm.
    #[test]
    fn golden_hashes() {
        for (prompt, expected, hash) in GOLDEN {
            let value: Value = serde_json::from_str(expected).unwrap();
            assert_eq!(content_hash(prompt, &value), *hash, "{prompt:?}");
        }
    }

    pub(crate) const GOLDEN: &[(&str, &str, &str)] = &[
        ("", "null", "74234e98afe7498fb5daf1f36ac2d78acc339464f950703b8c019892f982b90b"),
        (
            "ping h1",
            r#"{"lost":0,"pairs":[["h1","h2"]]}"#,
            "0d1cd148ae3ef31fb742251006c4ce6db2abe853869c0d9081975bb8a2d58868",
        ),
        (
            "→ ü",
            r#"{"x":1e300,"y":-0.5,"z":"\u0000"}"#,
            "2b304bb5e6f5c4c256b5f7c15290776936fcb94675da82196dc208a62b9d5f9c",
        ),
    ];
}
