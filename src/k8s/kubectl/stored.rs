//! The objects the agent may write (NetworkPolicies and the admin policies), behind one
//! trait so that `patch`, `apply`, `create` and `delete` take one path through the API
//! server's admission (see `write`): each kind says how it decodes, validates, compares and
//! stores itself.

use serde_json::Value;

use crate::k8s::admin::{AdminKind, AdminObject, Rejected, decode_admin_rejecting};
use crate::k8s::cluster::Cluster;
use crate::k8s::decode::{decode_object_meta, decode_policy};
use crate::k8s::meta::Meta;
use crate::k8s::objects::{Kind, Obj};
use crate::k8s::policy::NetworkPolicy;
use crate::k8s::validate::{invalid_message, validate_policy};

/// A writable object kind.
pub trait Stored: Clone + Sized {
    fn meta(&self) -> &Meta;
    fn meta_mut(&mut self) -> &mut Meta;
    fn kind(&self) -> Kind;
    fn obj(&self) -> Obj<'_>;
    fn to_json(&self) -> Value;
    /// Reads a written object of `kind`: the object and the unknown fields the server
    /// prunes, or why it cannot be admitted.
    fn decode(doc: &Value, kind: Kind) -> Result<(Self, Vec<String>), Rejected>;
    /// Defaults and validates a decoded object; the API server's error text.
    fn validate(&mut self, doc: &Value) -> Result<(), String>;
    fn same_spec(&self, other: &Self) -> bool;
    /// The stored object of `kind` called `name` (in `ns` when namespaced).
    fn stored(c: &Cluster, kind: Kind, ns: &str, name: &str) -> Option<Self>;
    fn store(self, c: &mut Cluster);
    /// Removes the stored object; whether there was one.
    fn remove(c: &mut Cluster, kind: Kind, ns: &str, name: &str) -> bool;
}

/// `NetworkPolicy in version "v1" cannot be handled as a NetworkPolicy: ` and the like.
pub fn cannot_handle(kind: Kind) -> String {
    let version = kind.api_version().rsplit('/').next().unwrap_or("v1");
    format!(
        "Error from server (BadRequest): {} in version \"{version}\" cannot be handled as a {}: ",
        kind.name(),
        kind.name()
    )
}

fn fatal(message: String) -> Rejected {
    Rejected { message, unknown: Vec::new() }
}

impl Stored for NetworkPolicy {
    fn meta(&self) -> &Meta {
        &self.meta
    }

    fn meta_mut(&mut self) -> &mut Meta {
        &mut self.meta
    }

    fn kind(&self) -> Kind {
        Kind::NetworkPolicy
    }

    fn obj(&self) -> Obj<'_> {
        Obj::NetworkPolicy(self)
    }

    fn to_json(&self) -> Value {
        NetworkPolicy::to_json(self)
    }

    fn decode(doc: &Value, kind: Kind) -> Result<(Self, Vec<String>), Rejected> {
        let d = decode_policy(doc).map_err(|e| fatal(format!("{}{}", cannot_handle(kind), e.0)))?;
        Ok((d.policy, d.unknown))
    }

    fn validate(&mut self, doc: &Value) -> Result<(), String> {
        self.spec.apply_defaults();
        let has_selector = doc.pointer("/spec/podSelector").is_some_and(|v| !v.is_null());
        let errors = validate_policy(self, has_selector);
        if errors.is_empty() {
            Ok(())
        } else {
            Err(invalid_message("NetworkPolicy", &self.meta.name, &errors))
        }
    }

    fn same_spec(&self, other: &Self) -> bool {
        self.spec == other.spec
    }

    fn stored(c: &Cluster, _: Kind, ns: &str, name: &str) -> Option<Self> {
        c.policy(ns, name).cloned()
    }

    fn store(self, c: &mut Cluster) {
        c.put_policy(self);
    }

    fn remove(c: &mut Cluster, _: Kind, ns: &str, name: &str) -> bool {
        c.policies.remove(&(ns.to_string(), name.to_string())).is_some()
    }
}

fn admin_kind(kind: Kind) -> AdminKind {
    kind.admin().unwrap_or(AdminKind::Admin)
}

impl Stored for AdminObject {
    fn meta(&self) -> &Meta {
        &self.meta
    }

    fn meta_mut(&mut self) -> &mut Meta {
        &mut self.meta
    }

    fn kind(&self) -> Kind {
        match self.policy.kind {
            AdminKind::Admin => Kind::AdminNetworkPolicy,
            AdminKind::Baseline => Kind::BaselineAdminNetworkPolicy,
        }
    }

    fn obj(&self) -> Obj<'_> {
        Obj::Admin(self)
    }

    fn to_json(&self) -> Value {
        AdminObject::to_json(self)
    }

    /// The schema and CEL checks run while decoding (a custom resource is validated
    /// against its schema as it is read), so [`Stored::validate`] has nothing left to do.
    fn decode(doc: &Value, kind: Kind) -> Result<(Self, Vec<String>), Rejected> {
        let mut meta = decode_object_meta(doc).map_err(|e| fatal(format!("{}{e}", cannot_handle(kind))))?;
        // Cluster-scoped: the server drops a namespace written on the object.
        meta.namespace.clear();
        let mut doc = doc.clone();
        if let Value::Object(o) = &mut doc {
            o.insert("kind".into(), Value::String(kind.name().into()));
        }
        let decoded = decode_admin_rejecting(&doc)?;
        debug_assert_eq!(decoded.policy.kind, admin_kind(kind));
        Ok((AdminObject { meta, policy: decoded.policy }, decoded.unknown))
    }

    fn validate(&mut self, _: &Value) -> Result<(), String> {
        Ok(())
    }

    fn same_spec(&self, other: &Self) -> bool {
        self.policy == other.policy
    }

    fn stored(c: &Cluster, kind: Kind, _: &str, name: &str) -> Option<Self> {
        c.admin_object(admin_kind(kind), name).cloned()
    }

    fn store(self, c: &mut Cluster) {
        c.put_admin(self);
    }

    fn remove(c: &mut Cluster, kind: Kind, _: &str, name: &str) -> bool {
        c.admin.remove(&(admin_kind(kind), name.to_string())).is_some()
    }
}
