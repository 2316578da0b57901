//! The micro-segmentation application's integration tests, one binary (docs/microseg.md).
//! Filter by module: `cargo test --test microseg oracle::`.

mod cli;
mod oracle;
mod render;
mod repair;
mod replay;
#[cfg(feature = "sandbox")]
mod sandboxed;
