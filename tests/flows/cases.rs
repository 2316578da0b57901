//! The flows tests' tenants, shared by the native tests (`tests/flows/`) and the browser's
//! (`tests/wasm_determinism.rs`), so both compute the golden entries of the same cases the
//! same way.

use netpress::flows::format::{self, Options};
use netpress::flows::graph::Graph;
use netpress::flows::tenant::dotted;
use netpress::flows::{Format, Knobs, Layout, Scenario, Tenant, TenantKey, Trace, Vm, Window, generate};
use netpress::hash::{canonical_json, sha256_hex};
use serde_json::{Value, json};

/// The knob sets the tests cover, with the scenario each gets.
pub fn cases() -> Vec<(String, Knobs, Scenario)> {
    let w = |name: &str, start_min, len_min| Window { name: name.into(), start_min, len_min };
    let sets = [
        ("default", Knobs { d: 10, ..Knobs::default() }, Scenario::default()),
        (
            "flat",
            Knobs { a: 2, n: 2, d: 10, c: 40, k: 50, layout: Layout::Flat, ..Knobs::default() },
            Scenario { windows: vec![w("w1", 0, 5), w("w2", 5, 5)], ..Scenario::default() },
        ),
        (
            "churn",
            Knobs { a: 3, n: 1, d: 10, c: 20, u: 20, ..Knobs::default() },
            Scenario { windows: vec![w("test", 5, 5)], churn: vec![5], ..Scenario::default() },
        ),
        ("wide", Knobs { a: 1, n: 6, d: 10, c: 100, k: 100, ..Knobs::default() }, Scenario::default()),
    ];
    let mut out = Vec::new();
    for seed in 0..5 {
        for (name, knobs, sc) in &sets {
            out.push((format!("{name}-s{seed}"), knobs.clone(), sc.clone()));
        }
    }
    out
}

/// The tenant and trace of a case.
pub fn build(name: &str, knobs: &Knobs, sc: &Scenario) -> (Tenant, Trace) {
    let seed: u64 = name.rsplit("-s").next().unwrap().parse().unwrap();
    let t = Tenant::new(&TenantKey { app: "test".into(), level: 2, seed, knobs: knobs.clone() }).unwrap();
    let tr = generate(&t, sc).unwrap();
    (t, tr)
}

/// A case's golden entry: the SHA-256 of its export in every format and of its graph's
/// node-link JSON, its connection count, and per role the count and the first address.
pub fn tenant_entry(name: &str, knobs: &Knobs, sc: &Scenario) -> Value {
    let (t, tr) = build(name, knobs, sc);
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
            let vms: Vec<&Vm> = t.vms.iter().filter(|v| v.role == r).collect();
            json!([role.name, vms.len(), dotted(vms[0].ip)])
        })
        .collect();
    json!({"name": name, "material": t.key.material(), "connections": tr.connections.len(),
        "formats": formats, "graph": graph, "roles": roles})
}
