//! The result records' integration tests, one binary (one link of the library for the whole
//! area; see `tests/route/main.rs`): `stats`, `plan`, `report` and `export`, and the native
//! half of the cross-application determinism check. `common` builds the records they share.

#[path = "../support/bless.rs"]
mod bless;
mod cli;
mod common;
mod core_determinism;
mod export;
mod report;
mod stats;
