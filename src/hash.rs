//! Canonical JSON and content hashes.
//!
//! A task's content hash lets anyone check that two runs used the same query: it is the
//! lowercase hex SHA-256 of the prompt's UTF-8 bytes immediately followed by the canonical JSON
//! of the expected outcome. Canonical JSON is compact, with object keys sorted by their UTF-8
//! bytes at every depth, and numbers and strings written by `serde_json`. We sort explicitly
//! rather than trust `serde_json::Map`'s order, which a dependency's `preserve_order` feature
//! could silently change.

use std::io::{self, Write};

use serde_json::Value;
use sha2::{Digest, Sha256};

/// Compact JSON with sorted keys at every depth.
pub fn canonical_json(value: &Value) -> String {
    let mut out = Vec::new();
    write_canonical(value, &mut out).expect("writing to a Vec cannot fail");
    String::from_utf8(out).expect("serde_json writes UTF-8")
}

/// Streams the canonical JSON of `value` into `out` (a hasher, when hashing): every task's
/// content hash goes through here, and building the text first was a seventh of generating a
/// task with a large expected diff.
fn write_canonical(value: &Value, out: &mut impl Write) -> io::Result<()> {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            if !keys.is_sorted() {
                keys.sort_unstable();
            }
            out.write_all(b"{")?;
            for (i, key) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.write_all(b",")?;
                }
                serde_json::to_writer(&mut *out, key)?;
                out.write_all(b":")?;
                write_canonical(&map[key], out)?;
            }
            out.write_all(b"}")
        }
        Value::Array(items) => {
            out.write_all(b"[")?;
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.write_all(b",")?;
                }
                write_canonical(item, out)?;
            }
            out.write_all(b"]")
        }
        scalar => Ok(serde_json::to_writer(&mut *out, scalar)?),
    }
}

/// Lowercase hex of some bytes. Eight lines do not warrant a crate; a `format!` per byte
/// was a tenth of building a K8s task's cluster, which hashes a uid per object.
pub fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        out.push(char::from(DIGITS[usize::from(b >> 4)]));
        out.push(char::from(DIGITS[usize::from(b & 15)]));
    }
    out
}

/// Lowercase hex SHA-256 of some bytes.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

/// The content hash of a task: SHA-256(prompt ‖ canonical_json(expected)).
pub fn content_hash(prompt: &str, expected: &Value) -> String {
    let mut h = Sha256::new();
    h.update(prompt.as_bytes());
    // JSON is written in pieces of a few bytes; the hasher wants them gathered.
    let mut buffered = io::BufWriter::new(&mut h);
    write_canonical(expected, &mut buffered).and_then(|()| buffered.flush()).expect("hashing cannot fail");
    drop(buffered);
    hex(&h.finalize())
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

    /// Pinned values (tests/data/core_golden.json, also checked in wasm).
    #[test]
    fn golden_hashes() {
        let golden: Value = serde_json::from_str(include_str!("../tests/data/core_golden.json")).unwrap();
        for case in golden["hashes"].as_array().unwrap() {
            let prompt = case["prompt"].as_str().unwrap();
            assert_eq!(content_hash(prompt, &case["expected"]), case["hash"].as_str().unwrap(), "{prompt:?}");
        }
    }
}
