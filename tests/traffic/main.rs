//! The traffic application's integration tests, one binary (docs/traffic.md). Filter by
//! module: `cargo test --test traffic golden::`.
//!
//! `nx` recomputes every family's truth with networkx when `NETPRESS_NX_PYTHON` (or the
//! repository's `.venv-nx`) has it; `scripts/setup.sh --test` makes that venv. `snapshot`
//! replays a sample of the baseline's committed per-task results.

#[cfg(feature = "sandbox")]
#[path = "../support/snapshot.rs"]
mod baseline;
#[path = "../support/bless.rs"]
mod bless;
mod brute;
#[cfg(feature = "sandbox")]
mod chain;
mod check_tool;
#[cfg(feature = "sandbox")]
mod checks;
mod golden;
#[cfg(feature = "sandbox")]
mod nemo;
mod nx;
#[cfg(feature = "sandbox")]
mod picture;
#[cfg(feature = "sandbox")]
mod snapshot;
mod straw;
