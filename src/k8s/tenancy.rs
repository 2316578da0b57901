//! Level 4: Online Boutique under cluster administrators' policies (docs/k8s.md, "Level 4").
//!
//! The intended admin set sits around the intended NetworkPolicies without changing a single
//! probe verdict: `allow-dns` (priority 5) admits DNS from `default` into the kube-dns pods,
//! `redis-allow-cart` (7) and `redis-deny-others` (8) guard redis-cart, `tenant-isolation`
//! (10) passes traffic within `default` on to the NetworkPolicies, allows DNS out and denies
//! every other namespace, and the BANP denies whatever no NetworkPolicy decides. A level-4
//! task draws one fault of the reference NetworkPolicy types and one of the five admin-layer
//! types below, so every task is split across the layers.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use serde::Serialize;
use serde_json::{Value, json};

use super::admin::{Action, AdminKind, AdminPolicy, AdminPort, Subject, decode_admin};
use super::cluster::WORKLOADS;
use super::fault::{FaultType, PolicySet, Precondition};
use super::intent::intended_spec;
use super::policy::NetworkPolicy;
use super::yaml::{parse_documents, to_json_compact, to_yaml};
use crate::seed::Stream;

/// The admin policies of a cluster, by kind and name.
pub type AdminSet = BTreeMap<(AdminKind, String), AdminPolicy>;

/// The intended admin policies as an administrator would write them.
const INTENDED_YAML: &str = "\
apiVersion: policy.networking.k8s.io/v1alpha1
kind: AdminNetworkPolicy
metadata:
  name: allow-dns
spec:
  priority: 5
  subject:
    pods:
      namespaceSelector:
        matchLabels:
          kubernetes.io/metadata.name: kube-system
      podSelector:
        matchLabels:
          k8s-app: kube-dns
  ingress:
  - name: dns-from-tenants
    action: Allow
    from:
    - namespaces:
        matchLabels:
          kubernetes.io/metadata.name: default
    ports:
    - portNumber: {port: 53, protocol: UDP}
    - portNumber: {port: 53, protocol: TCP}
---
apiVersion: policy.networking.k8s.io/v1alpha1
kind: AdminNetworkPolicy
metadata:
  name: redis-allow-cart
spec:
  priority: 7
  subject:
    pods:
      namespaceSelector:
        matchLabels:
          kubernetes.io/metadata.name: default
      podSelector:
        matchLabels:
          app: redis-cart
  ingress:
  - name: cart-to-redis
    action: Allow
    from:
    - pods:
        namespaceSelector:
          matchLabels:
            kubernetes.io/metadata.name: default
        podSelector:
          matchLabels:
            app: cartservice
    ports:
    - portRange: {start: 6000, end: 6379}
---
apiVersion: policy.networking.k8s.io/v1alpha1
kind: AdminNetworkPolicy
metadata:
  name: redis-deny-others
spec:
  priority: 8
  subject:
    pods:
      namespaceSelector:
        matchLabels:
          kubernetes.io/metadata.name: default
      podSelector:
        matchLabels:
          app: redis-cart
  ingress:
  - name: deny-other-clients
    action: Deny
    from:
    - namespaces: {}
---
apiVersion: policy.networking.k8s.io/v1alpha1
kind: AdminNetworkPolicy
metadata:
  name: tenant-isolation
spec:
  priority: 10
  subject:
    namespaces:
      matchLabels:
        kubernetes.io/metadata.name: default
  ingress:
  - name: same-tenant
    action: Pass
    from:
    - namespaces:
        matchLabels:
          kubernetes.io/metadata.name: default
  - name: other-tenants
    action: Deny
    from:
    - namespaces: {}
  egress:
  - name: same-tenant
    action: Pass
    to:
    - namespaces:
        matchLabels:
          kubernetes.io/metadata.name: default
  - name: cluster-dns
    action: Allow
    to:
    - pods:
        namespaceSelector:
          matchLabels:
            kubernetes.io/metadata.name: kube-system
        podSelector:
          matchLabels:
            k8s-app: kube-dns
    ports:
    - portNumber: {port: 53, protocol: UDP}
    - portNumber: {port: 53, protocol: TCP}
  - name: other-tenants
    action: Deny
    to:
    - namespaces: {}
---
apiVersion: policy.networking.k8s.io/v1alpha1
kind: BaselineAdminNetworkPolicy
metadata:
  name: default
spec:
  subject:
    namespaces: {}
  ingress:
  - name: default-deny
    action: Deny
    from:
    - namespaces: {}
  egress:
  - name: default-deny
    action: Deny
    to:
    - namespaces: {}
";

/// The intended admin set.
pub fn intended_admin() -> &'static AdminSet {
    static SET: OnceLock<AdminSet> = OnceLock::new();
    SET.get_or_init(|| {
        let docs = parse_documents(INTENDED_YAML).expect("the intended admin policies parse");
        docs.iter()
            .map(|d| decode_admin(d).expect("the intended admin policies are valid").policy)
            .map(|p| ((p.kind, p.name.clone()), p))
            .collect()
    })
}

/// The manifest of an admin policy as the prompt shows it (defaults filled in).
pub fn manifest(p: &AdminPolicy) -> Value {
    json!({
        "apiVersion": super::admin::API_VERSION,
        "kind": p.kind.as_str(),
        "metadata": {"name": p.name},
        "spec": p.spec_json(),
    })
}

/// The intended admin policies as YAML documents.
pub fn intended_yaml() -> &'static str {
    static TEXT: OnceLock<String> = OnceLock::new();
    TEXT.get_or_init(|| {
        let docs: Vec<String> = intended_admin().values().map(|p| to_yaml(&manifest(p))).collect();
        docs.join("---\n")
    })
}

/// The admin-layer fault types, in catalogue order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub enum AdminFaultType {
    SHD,
    PSA,
    BOV,
    SSM,
    PRO,
}

impl AdminFaultType {
    pub const ALL: [AdminFaultType; 5] = [
        AdminFaultType::SHD,
        AdminFaultType::PSA,
        AdminFaultType::BOV,
        AdminFaultType::SSM,
        AdminFaultType::PRO,
    ];

    pub fn id(self) -> &'static str {
        match self {
            AdminFaultType::SHD => "SHD",
            AdminFaultType::PSA => "PSA",
            AdminFaultType::BOV => "BOV",
            AdminFaultType::SSM => "SSM",
            AdminFaultType::PRO => "PRO",
        }
    }
}

/// One admin-layer fault with its drawn parameters.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "type")]
pub enum AdminFault {
    /// `redis-deny-others` gets a priority before `redis-allow-cart`'s.
    DenyShadowsAllow { priority: i32 },
    /// The Allow rule `policy`'s `direction[0|1]` becomes Pass.
    PassInsteadOfAllow { policy: String, egress: bool, rule: usize },
    /// The NetworkPolicy `policy` loses its egress section (`policyTypes: [Ingress]`).
    BaselineOverNamespace { policy: String },
    /// `policy`'s subject namespace selector names `namespace` instead.
    SubjectSelectorMiss { policy: String, namespace: String },
    /// `redis-allow-cart`'s port range ends at `end`.
    PortRangeOffByOne { end: u16 },
}

const SHD_POLICY: &str = "redis-deny-others";
const RANGE_POLICY: &str = "redis-allow-cart";
const NS_KEY: &str = "kubernetes.io/metadata.name";

fn anp_mut<'a>(set: &'a mut AdminSet, name: &str) -> Result<&'a mut AdminPolicy, Precondition> {
    set.get_mut(&(AdminKind::Admin, name.to_string()))
        .ok_or_else(|| Precondition(format!("no AdminNetworkPolicy {name}")))
}

impl AdminFault {
    pub fn kind(&self) -> AdminFaultType {
        match self {
            AdminFault::DenyShadowsAllow { .. } => AdminFaultType::SHD,
            AdminFault::PassInsteadOfAllow { .. } => AdminFaultType::PSA,
            AdminFault::BaselineOverNamespace { .. } => AdminFaultType::BOV,
            AdminFault::SubjectSelectorMiss { .. } => AdminFaultType::SSM,
            AdminFault::PortRangeOffByOne { .. } => AdminFaultType::PRO,
        }
    }

    /// The parameters as the task card lists them (with the type id).
    pub fn to_json(&self) -> Value {
        let mut v = serde_json::to_value(self).unwrap_or(Value::Null);
        if let Value::Object(m) = &mut v {
            m.insert("id".into(), json!(self.kind().id()));
        }
        v
    }

    /// Applies the fault to the NetworkPolicies and the admin set.
    pub fn apply(&self, np: &mut PolicySet, admin: &mut AdminSet) -> Result<(), Precondition> {
        match self {
            AdminFault::DenyShadowsAllow { priority } => anp_mut(admin, SHD_POLICY)?.priority = *priority,
            AdminFault::PassInsteadOfAllow { policy, egress, rule } => {
                let p = anp_mut(admin, policy)?;
                let rules = if *egress { &mut p.egress } else { &mut p.ingress };
                let r = rules.get_mut(*rule).filter(|r| r.action == Action::Allow);
                r.ok_or_else(|| Precondition(format!("{policy} has no Allow rule {rule}")))?.action =
                    Action::Pass;
            }
            AdminFault::BaselineOverNamespace { policy } => {
                let key = ("default".to_string(), policy.clone());
                let p = np.get_mut(&key).ok_or_else(|| Precondition(format!("no NetworkPolicy {policy}")))?;
                let spec = &mut std::sync::Arc::make_mut(p).spec;
                spec.policy_types = vec!["Ingress".into()];
                spec.egress.clear();
            }
            AdminFault::SubjectSelectorMiss { policy, namespace } => {
                let Subject::Pods(np) = &mut anp_mut(admin, policy)?.subject else {
                    return Err(Precondition(format!("{policy} has no pods subject")));
                };
                np.namespace_selector.match_labels.insert(NS_KEY.into(), namespace.clone());
            }
            AdminFault::PortRangeOffByOne { end } => {
                let p = anp_mut(admin, RANGE_POLICY)?;
                match p.ingress.first_mut().and_then(|r| r.ports.as_mut()).and_then(|ps| ps.first_mut()) {
                    Some(AdminPort::Range { end: e, .. }) => *e = *end,
                    _ => return Err(Precondition(format!("{RANGE_POLICY} has no port range"))),
                }
            }
        }
        Ok(())
    }

    /// The known-good repair as a kubectl command.
    pub fn fix(&self) -> String {
        match self {
            AdminFault::DenyShadowsAllow { .. } => {
                anp_patch(SHD_POLICY, "merge", json!({"spec": {"priority": 8}}))
            }
            AdminFault::PassInsteadOfAllow { policy, egress, rule } => {
                let dir = if *egress { "egress" } else { "ingress" };
                let op = json!([{"op": "replace", "path": format!("/spec/{dir}/{rule}/action"), "value": "Allow"}]);
                anp_patch(policy, "json", op)
            }
            AdminFault::BaselineOverNamespace { policy } => format!(
                "kubectl patch networkpolicy {policy} -n default --type=merge -p '{}'",
                to_json_compact(&json!({"spec": intended_spec(policy).to_json()}))
            ),
            AdminFault::SubjectSelectorMiss { policy, .. } => {
                let intended = &intended_admin()[&(AdminKind::Admin, policy.clone())];
                anp_patch(policy, "merge", json!({"spec": {"subject": intended.spec_json()["subject"]}}))
            }
            AdminFault::PortRangeOffByOne { .. } => anp_patch(
                RANGE_POLICY,
                "json",
                json!([{"op": "replace", "path": "/spec/ingress/0/ports/0/portRange/end", "value": 6379}]),
            ),
        }
    }
}

fn anp_patch(name: &str, ty: &str, body: Value) -> String {
    format!("kubectl patch adminnetworkpolicy {name} --type={ty} -p '{}'", to_json_compact(&body))
}

/// Draws the parameters of one admin-layer fault.
pub fn draw(s: &mut Stream, t: AdminFaultType, typo: impl Fn(&mut Stream, &str) -> String) -> AdminFault {
    match t {
        AdminFaultType::SHD => AdminFault::DenyShadowsAllow { priority: s.below(7) as i32 },
        AdminFaultType::PSA => {
            const SITES: [(&str, bool, usize); 2] = [("allow-dns", false, 0), ("tenant-isolation", true, 1)];
            let (policy, egress, rule) = SITES[s.index(SITES.len())];
            AdminFault::PassInsteadOfAllow { policy: policy.into(), egress, rule }
        }
        AdminFaultType::BOV => {
            let names: Vec<&str> = WORKLOADS.iter().map(|w| w.name).collect();
            AdminFault::BaselineOverNamespace { policy: s.choose(&names).to_string() }
        }
        AdminFaultType::SSM => {
            const SITES: [(&str, &str); 2] = [("allow-dns", "kube-system"), (RANGE_POLICY, "default")];
            let (policy, ns) = SITES[s.index(SITES.len())];
            AdminFault::SubjectSelectorMiss { policy: policy.into(), namespace: typo(s, ns) }
        }
        AdminFaultType::PRO => {
            AdminFault::PortRangeOffByOne { end: if s.chance(1, 2) { 6378 } else { 6380 } }
        }
    }
}

/// Level 4's type sets: one reference NetworkPolicy type and one admin-layer type.
pub fn type_sets() -> Vec<(FaultType, AdminFaultType)> {
    FaultType::REFERENCE.iter().flat_map(|np| AdminFaultType::ALL.iter().map(move |a| (*np, *a))).collect()
}

/// The label of a level-4 set: `L4:CP+SHD`.
pub fn label(np: FaultType, admin: AdminFaultType) -> String {
    format!("L4:{}+{}", np.id(), admin.id())
}

/// A policy set's NetworkPolicies as references (the evaluator's input).
pub fn policy_refs(set: &PolicySet) -> Vec<&NetworkPolicy> {
    set.values().map(|p| &**p).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::k8s::fault::intended;
    use crate::k8s::generate::{expected, pristine};
    use crate::k8s::probe::Prepared;

    #[test]
    fn the_intended_admin_set_keeps_every_verdict() {
        assert_eq!(intended_admin().len(), 5);
        let admin: Vec<&AdminPolicy> = intended_admin().values().collect();
        let m = Prepared::new(pristine()).matrix_with(&policy_refs(intended()), &admin);
        assert_eq!(&m, expected());
    }

    #[test]
    fn every_fault_applies_to_the_intended_state() {
        let mut s = Stream::new("tenancy-test", crate::seed::Width::W32);
        for t in AdminFaultType::ALL {
            let f = draw(&mut s, t, |_, w| format!("{w}x"));
            let (mut np, mut admin) = (crate::k8s::fault::intended_set(), intended_admin().clone());
            f.apply(&mut np, &mut admin).unwrap_or_else(|e| panic!("{f:?}: {e:?}"));
            assert!(f.to_json()["id"] == t.id());
            assert!(f.fix().starts_with("kubectl patch "));
        }
    }
}
