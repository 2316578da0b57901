//! Golden content hashes (docs/flows.md, "Tests"): for each of 20 tenants the SHA-256 of its
//! export in every format and of its graph's node-link JSON, plus its role counts and first
//! addresses. After an intended generator change (which bumps the generator version), rewrite
//! with `NETPRESS_BLESS=1 cargo test --test flows golden::`.

use netpress::flows::Format;
use netpress::flows::format::{self, Options};
use netpress::flows::graph::Graph;
use netpress::flows::tenant::dotted;
use netpress::hash::{canonical_json, sha256_hex};
use serde_json::{Value, json};

const PATH: &str = "tests/data/flows/golden.json";

fn tenant_entry(name: &str, knobs: &netpress::flows::Knobs, sc: &netpress::flows::Scenario) -> Value {
    let (t, tr) = crate::build(name, knobs, sc);
    let mut formats = serde_json::Map::new();
    for f in Format::ALL {
        let e = format::emit(f, &t, &tr, Options::default());
        formats.insert(f.name().into(), json!(sha256_hex(format::render(f, &t, &tr, &e).as_bytes())));
    }
    let graph = sha256_hex(canonical_json(&Graph::from_trace(&t, &tr, false, None).to_json()).as_bytes());
    let roles: Vec<Value> = t
        .roles
        .iter()
        .enumerate()
        .map(|(r, role)| {
            let vms: Vec<&netpress::flows::Vm> = t.vms.iter().filter(|v| v.role == r).collect();
            json!([role.name, vms.len(), dotted(vms[0].ip)])
        })
        .collect();
    json!({"name": name, "material": t.key.material(), "connections": tr.connections.len(),
        "formats": formats, "graph": graph, "roles": roles})
}

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
