//! Golden content hashes (docs/flows.md, "Tests"): for each of 20 tenants the SHA-256 of its
//! export in every format and of its graph's node-link JSON, plus its role counts and first
//! addresses. After an intended generator change (which bumps the generator version), rewrite
//! with `NETPRESS_BLESS=1 cargo test --test flows golden::`.

use serde_json::{Value, json};

use crate::cases::tenant_entry;

const PATH: &str = "tests/data/flows/golden.json";

#[test]
fn golden_hashes_match() {
    let actual = || {
        let entries: Vec<Value> = crate::cases().iter().map(|(n, k, s)| tenant_entry(n, k, s)).collect();
        serde_json::to_string_pretty(&json!({ "tenants": entries })).unwrap() + "\n"
    };
    let text = crate::bless::golden(PATH, actual);
    let want: Value = serde_json::from_str(&text).unwrap();
    let now: Value = serde_json::from_str(&actual()).unwrap();
    let (want, now) = (want["tenants"].as_array().unwrap(), now["tenants"].as_array().unwrap());
    assert_eq!(want.len(), now.len());
    for (w, n) in want.iter().zip(now) {
        assert_eq!(w, n, "tenant {}", w["name"]);
    }
}
