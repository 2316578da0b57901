//! MALT: datacenter capacity planning over a procedural multi-layer topology (malt.md).

pub mod api;
pub mod diff;
pub mod graph;
pub mod kind;
pub mod topo;
