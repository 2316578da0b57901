//! The micro-segmentation application's integration tests, one binary (docs/microseg.md).
//! Filter by module: `cargo test --test microseg oracle::`.

#[path = "../support/bless.rs"]
mod bless;
mod cli;
mod golden;
mod oracle;
mod render;
mod repair;
mod replay;
#[cfg(feature = "sandbox")]
mod sandboxed;
