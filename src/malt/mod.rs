//! MALT: datacenter capacity planning over a procedural multi-layer topology (malt.md).

pub mod answer;
pub mod api;
pub mod check;
pub mod diff;
pub mod graph;
pub mod kind;
pub mod plan;
pub mod safety;
pub mod topo;
