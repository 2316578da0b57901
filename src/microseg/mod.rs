//! Micro-segmentation: infer endpoint roles from flow logs and write least-privilege policies
//! (docs/microseg-render.md, docs/microseg-repair.md).

pub mod render;
pub mod repair;
