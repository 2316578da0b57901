//! Route's integration tests, one binary: each module used to be a test binary of its own,
//! and every binary links the whole library, so one per area keeps `cargo test` from linking
//! it thirty times. Filter by module: `cargo test --test route golden::`.

#[path = "../support/bless.rs"]
mod bless;
mod cli;
mod commands;
mod fidelity;
mod generation;
mod golden;
mod linux_output;
