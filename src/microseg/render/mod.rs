//! The provider renderings of a micro-segmentation policy, read back and judged by their own
//! semantics: Azure NSG rules with application security groups ([`nsg`]) and AWS security
//! groups ([`sg`]). docs/microseg-render.md says which fields are the providers' and what we
//! checked against their documentation.
//!
//! Each form is JSON with serde types (`NsgDoc`, `SgDoc`), validated into an evaluator
//! (`Nsg`, `Sg`) whose `allows(src, dst, proto, dport)` answers for one connection; scoring
//! calls it over the equivalence classes of keys. Errors say which rule or group and what is
//! wrong, in one line.

pub mod k8s;
pub mod nsg;
pub mod sg;

use std::net::Ipv4Addr;

use ipnet::Ipv4Net;

pub use k8s::K8s;
pub use nsg::{Nsg, NsgDoc};
pub use sg::{Sg, SgDoc};

/// A connection's transport protocol (the flows carry TCP and UDP only).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Proto {
    Tcp,
    Udp,
}

/// One end of a connection as a rendering sees it: its address and the groups (indexes in the
/// document's order) it belongs to, which scoring sets by the replay membership rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Endpoint {
    pub ip: Ipv4Addr,
    pub groups: Vec<usize>,
}

/// Largest rendering read, in bytes.
pub const MAX_BYTES: usize = 1 << 20;
/// Most rules (NSG security rules; SG permissions over all groups).
pub const MAX_RULES: usize = 2000;
/// Most groups (ASGs; security groups).
pub const MAX_GROUPS: usize = 200;
/// Most group members over all groups.
pub const MAX_MEMBERS: usize = 100_000;

/// Why a rendering was rejected: one line naming the place and the problem.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RenderError {
    #[error("not valid {form} JSON: {message}")]
    Json { form: &'static str, message: String },
    #[error("{place}: {what}")]
    Invalid { place: String, what: String },
}

/// The tenant's address space: "tenant" endpoints are the VMs in it.
pub const TENANT: Ipv4Net = Ipv4Net::new_assert(Ipv4Addr::new(10, 0, 0, 0), 8);

/// Whether the address is a tenant VM's (an NSG or security group sits on its NIC).
pub fn is_tenant(ip: Ipv4Addr) -> bool {
    TENANT.contains(&ip)
}

/// Reads a form, checking the size limit first.
fn from_json<T: serde::de::DeserializeOwned>(form: &'static str, text: &str) -> Result<T, RenderError> {
    if text.len() > MAX_BYTES {
        return Err(RenderError::Json {
            form,
            message: format!("{} bytes (at most {MAX_BYTES})", text.len()),
        });
    }
    serde_json::from_str(text).map_err(|e| RenderError::Json { form, message: e.to_string() })
}

fn invalid(place: impl Into<String>, what: impl Into<String>) -> RenderError {
    RenderError::Invalid { place: place.into(), what: what.into() }
}

/// Fails when `count` exceeds `max` (`what` names the counted things).
fn at_most(count: usize, max: usize, what: &str) -> Result<(), RenderError> {
    if count > max { Err(invalid("document", format!("{count} {what} (at most {max})"))) } else { Ok(()) }
}
