//! A seeded cloud tenant and its flow logs: the data the traffic-analysis and
//! micro-segmentation applications ask agents about (docs/flows.md).
//!
//! Why a module of its own: both applications need the same tenant (VNets, roles, instances,
//! Internet clients, scanners, churn), the same connection-level flow model and the same five
//! log formats, and an agent must see one world whichever application asks. Nothing here is an
//! application: it has no ids, tasks or scores, only data and the host objects agents query.
//!
//! The pipeline, one concept per module:
//! - [`knobs`]: the tenant's knobs and its seed material.
//! - [`tenant`]: the address plan, roles, instances, platform and Internet endpoints.
//! - `model`: the communication patterns, scanners and churn that turn a tenant into
//!   [`Connection`]s over time (pure integer arithmetic, minute by minute).
//! - [`format`](mod@format): connections as AWS, Azure and GCP flow-log records, rendered exactly as the
//!   providers document them, and parsed back.
//! - [`table`]: the flows table `F`, columnar, with the agent-facing query methods.
//! - [`graph`]: the communication graph `G` in NeMoEval's node-link schema, with its methods.

pub mod format;
pub mod graph;
pub mod knobs;
mod model;
pub(crate) mod patterns;
pub mod table;
pub mod tenant;

pub use format::Format;
pub use knobs::{Knobs, Layout, TenantKey};
pub(crate) use model::churn;
pub use model::{Connection, NO_VM, Rule, Scenario, Trace, Window, generate, share};
pub use tenant::{Role, RoleKind, Tenant, Vm};

/// T0 of every trace: 2025-01-06T00:00:00Z, in Unix seconds.
pub const T0: u64 = 1_736_121_600;
