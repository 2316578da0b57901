//! AdminNetworkPolicy (ANP) and BaselineAdminNetworkPolicy (BANP), the cluster-scoped
//! policies of sig-network's network-policy-api (`policy.networking.k8s.io/v1alpha1`).
//!
//! An ANP has a `priority` (0–1000, lower first), a `subject` (pods by namespace, or by
//! namespace and pod selectors) and ordered ingress and egress rules whose `action` is
//! Allow, Deny or Pass; a BANP is the singleton named `default` with Allow and Deny only.
//! docs/k8s.md ("Admin network policies") gives the layer order with a worked example;
//! [`crate::k8s::tiers`] evaluates it. Reading an object ([`decode_admin`]) checks it as the
//! CRD's OpenAPI schema and CEL rules do, with the API server's wording, and applies the
//! schema's defaults (`protocol: TCP`).

mod decode;
mod json;

pub use decode::{DecodedAdmin, Rejected, decode_admin, decode_admin_rejecting};
pub use json::AdminObject;

use super::cluster::Protocol;
use super::policy::LabelSelector;

/// The API group and version of both kinds.
pub const API_VERSION: &str = "policy.networking.k8s.io/v1alpha1";

/// Which of the two kinds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum AdminKind {
    Admin,
    Baseline,
}

impl AdminKind {
    pub fn as_str(self) -> &'static str {
        match self {
            AdminKind::Admin => "AdminNetworkPolicy",
            AdminKind::Baseline => "BaselineAdminNetworkPolicy",
        }
    }

    pub fn parse(kind: &str) -> Option<AdminKind> {
        [AdminKind::Admin, AdminKind::Baseline].into_iter().find(|k| k.as_str() == kind)
    }

    /// The actions a rule of this kind may take.
    pub fn actions(self) -> &'static [&'static str] {
        match self {
            AdminKind::Admin => &["Allow", "Deny", "Pass"],
            AdminKind::Baseline => &["Allow", "Deny"],
        }
    }
}

/// A rule's action.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    Allow,
    Deny,
    Pass,
}

impl Action {
    pub fn as_str(self) -> &'static str {
        match self {
            Action::Allow => "Allow",
            Action::Deny => "Deny",
            Action::Pass => "Pass",
        }
    }

    pub fn parse(s: &str) -> Option<Action> {
        [Action::Allow, Action::Deny, Action::Pass].into_iter().find(|a| a.as_str() == s)
    }
}

/// `NamespacedPod`: pods chosen by their namespace's labels and their own.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NamespacedPod {
    pub namespace_selector: LabelSelector,
    pub pod_selector: LabelSelector,
}

/// The pods a policy applies to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Subject {
    Namespaces(LabelSelector),
    Pods(NamespacedPod),
}

/// One peer of a rule; `Nodes` and `Networks` only in egress rules.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AdminPeer {
    Namespaces(LabelSelector),
    Pods(NamespacedPod),
    Nodes(LabelSelector),
    /// CIDRs as written.
    Networks(Vec<String>),
}

/// One port of a rule (protocols defaulted to TCP).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AdminPort {
    Number { protocol: Protocol, port: u16 },
    Range { protocol: Protocol, start: u16, end: u16 },
    Named(String),
}

/// An ingress or egress rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AdminRule {
    pub name: String,
    pub action: Action,
    pub peers: Vec<AdminPeer>,
    /// `None`: every port of every protocol.
    pub ports: Option<Vec<AdminPort>>,
}

/// An ANP or the BANP.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AdminPolicy {
    pub kind: AdminKind,
    pub name: String,
    /// The ANP's priority; 0 for the BANP, which has none.
    pub priority: i32,
    pub subject: Subject,
    pub ingress: Vec<AdminRule>,
    pub egress: Vec<AdminRule>,
}
