//! K8s's integration tests, one binary (one link of the library for the whole area; see
//! `tests/route/main.rs`). Filter by module: `cargo test --test k8s goldens::`.

mod admin_goldens;
#[path = "../support/bless.rs"]
mod bless;
mod determinism;
mod generation;
mod goldens;
mod level4;
mod netpol_cases;
mod properties;
