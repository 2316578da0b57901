//! The flows model's integration tests, one binary for the area (tests/route/main.rs says why
//! one per area). Filter by module: `cargo test --test flows golden::`.
//!
//! - [`golden`]: SHA-256 of every format's export and of the graph for 20 tenants.
//! - [`model`]: properties across the whole pipeline: prefixes, coverage, plans, round trips.
//! - [`reader`]: our AWS files read by flowlogs-reader (PyPI), field by field.

#[path = "../support/bless.rs"]
mod bless;
mod golden;
mod model;
mod reader;

use netpress::flows::{Knobs, Layout, Scenario, Tenant, TenantKey, Trace, Window, generate};

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
