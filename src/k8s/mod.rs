//! K8s: NetworkPolicy repair on an emulated Online Boutique cluster (`k8s.md`).
//!
//! Faults are injected into the NetworkPolicies of a healthy, emulated Kubernetes 1.34
//! cluster; the agent repairs them with an emulated `kubectl` in a small shell; a probe matrix
//! computed by our NetworkPolicy evaluator is the oracle. Everything is pure (no I/O, no
//! clock), so the same code runs natively and in the browser.

pub mod cluster;
pub mod decode;
pub mod eval;
pub mod fault;
pub mod generate;
pub mod intent;
pub mod labels;
pub mod meta;
pub mod policy;
pub mod probe;
pub mod validate;
pub mod yaml;
pub mod objects;
pub mod kubectl;
pub mod output;
pub mod shell;
