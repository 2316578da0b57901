//! MALT's integration tests, one binary (one link of the library for the whole area; see
//! `tests/route/main.rs`). Filter by module: `cargo test --test malt golden::`.
//!
//! The modules that run agent code need the Python sandbox (feature `sandbox`, on by
//! default); without it the rest still run. The memory-limit test stays a binary of its own
//! (`tests/malt_memory.rs`): it installs the sandbox's allocator as the global allocator and
//! must be alone in its process while the budget is armed.

#[path = "../support/bless.rs"]
mod bless;
mod check;
mod e2e_cases;
mod golden;
#[cfg(feature = "sandbox")]
mod oracle;
mod prompt;
#[cfg(feature = "sandbox")]
mod python_subset;
#[cfg(feature = "sandbox")]
mod sandbox;
mod spaces;
#[cfg(feature = "sandbox")]
mod starters;
mod topology;
