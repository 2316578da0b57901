//! The flows model's integration tests, one binary for the area (tests/route/main.rs says why
//! one per area). Filter by module: `cargo test --test flows golden::`.
//!
//! - [`cases`]: the tenants the tests cover (the browser's test shares them).
//! - [`golden`]: SHA-256 of every format's export and of the graph for 20 tenants.
//! - [`model`]: properties across the whole pipeline: prefixes, coverage, plans, round trips.
//! - [`reader`]: our AWS files read by flowlogs-reader (PyPI), field by field.

#[path = "../support/bless.rs"]
mod bless;
mod cases;
mod golden;
mod model;
mod reader;

pub use cases::{build, cases};
