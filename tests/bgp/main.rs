//! BGP's integration tests, one binary for the area (tests/route/main.rs says why one per
//! area). Filter by module: `cargo test --test bgp bgpy::`.
//!
//! - [`case`]: a self-contained routing case (ASes, links, ROV, ROAs, seeds) and our answer.
//! - [`oracle`]: finding BGPy's Python and asking it the same question.
//! - [`bgpy`]: the differential test, with its case generator and shrinker.
//! - [`families`]: the same test on every incident family's post-state, from generated tasks.
//! - [`systest`]: BGPy's own engine-test configurations (its system-test graphs) through our
//!   model, against BGPy's runs of them.
//! - [`app`]: golden ids with their labels, and the baseline playing episodes through the runner.
//! - [`golden`]: 300 golden ids' content hashes, shared with the browser test.
//! - [`bview`]: generator v3's cap on sessions per collector (20, fewer in large worlds) and the
//!   RIB dumps' size.
//! - [`mrt`]: our MRT files read back by bgpkit-parser.
//! - [`bgpdump`]: the same files through the real `bgpdump -m`, byte for byte.
//! - [`mrtparse`]: the same files read by Python's mrtparse.
//! - [`tools`]: byte goldens of the tools' answers (every RIPEstat call, the registries).
//! - [`snapshot`]: the baseline's committed per-task results, a sample replayed.

mod app;
#[path = "../support/snapshot.rs"]
mod baseline;
mod bgpdump;
mod bgpy;
#[path = "../support/bless.rs"]
mod bless;
mod bview;
mod case;
mod families;
mod golden;
mod mrt;
mod mrtparse;
mod oracle;
mod snapshot;
mod systest;
mod tools;
