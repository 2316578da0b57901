//! The fault catalogue (docs/k8s.md, "Tasks"): each fault's drawn parameters and its mutation.
//!
//! A [`Fault`] holds every parameter already drawn, so applying it is pure and a task can
//! be rebuilt from its record. Mutations check their preconditions on the current state
//! (another fault may have removed what they edit) and say so instead of doing nothing,
//! which lets the generator resample.

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::intent::{callers, intended_spec, target_port};
use super::meta::Meta;
use super::policy::{
    Direction, IntOrString, LabelSelector, NetworkPolicy, Peer, PolicyPort, PolicySpec, Rule,
};

/// Fault types in catalogue (= application) order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum FaultType {
    RI,
    AI,
    CP,
    CPR,
    AE,
    WPS,
    ADA,
    WNS,
    NP,
    EDNS,
    PTC,
}

impl FaultType {
    pub const ALL: [FaultType; 11] = [
        FaultType::RI,
        FaultType::AI,
        FaultType::CP,
        FaultType::CPR,
        FaultType::AE,
        FaultType::WPS,
        FaultType::ADA,
        FaultType::WNS,
        FaultType::NP,
        FaultType::EDNS,
        FaultType::PTC,
    ];
    /// The reference benchmark's five types (levels 1 and 2).
    pub const REFERENCE: [FaultType; 5] =
        [FaultType::RI, FaultType::AI, FaultType::CP, FaultType::CPR, FaultType::AE];

    pub fn id(self) -> &'static str {
        match self {
            FaultType::RI => "RI",
            FaultType::AI => "AI",
            FaultType::CP => "CP",
            FaultType::CPR => "CPR",
            FaultType::AE => "AE",
            FaultType::WPS => "WPS",
            FaultType::ADA => "ADA",
            FaultType::WNS => "WNS",
            FaultType::NP => "NP",
            FaultType::EDNS => "EDNS",
            FaultType::PTC => "PTC",
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            FaultType::RI => "remove_ingress",
            FaultType::AI => "add_ingress",
            FaultType::CP => "change_port",
            FaultType::CPR => "change_protocol",
            FaultType::AE => "add_egress",
            FaultType::WPS => "wrong_pod_selector",
            FaultType::ADA => "deny_all_kube_system",
            FaultType::WNS => "wrong_namespace_selector",
            FaultType::NP => "named_port",
            FaultType::EDNS => "egress_no_dns",
            FaultType::PTC => "policy_types",
        }
    }
}

/// Where a remove_ingress fault cuts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "scope")]
pub enum RiScope {
    Peer { caller: String },
    Rule,
}

/// Where a wrong_pod_selector fault puts its typo.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "site")]
pub enum WpsSite {
    Spec,
    Peer { caller: String },
}

/// The wrong_namespace_selector variants.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "variant")]
pub enum WnsVariant {
    WrongKey,
    WrongValue { value: String },
    SplitOr,
}

/// The named_port variants.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NpVariant {
    SvcPortName,
    NameTypo,
    SvcPortNumber,
}

/// One fault with every parameter drawn.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "type")]
pub enum Fault {
    RemoveIngress {
        policy: String,
        #[serde(flatten)]
        scope: RiScope,
    },
    AddIngress {
        policy: String,
        sources: [String; 2],
    },
    ChangePort {
        policy: String,
        port: u16,
    },
    ChangeProtocol {
        policy: String,
        protocol: String,
    },
    AddEgress {
        policy: String,
        destinations: [String; 2],
    },
    WrongPodSelector {
        policy: String,
        #[serde(flatten)]
        site: WpsSite,
        typo: String,
    },
    DenyAllKubeSystem {
        name: String,
        egress: bool,
    },
    WrongNamespaceSelector {
        policy: String,
        caller: String,
        #[serde(flatten)]
        variant: WnsVariant,
    },
    NamedPort {
        policy: String,
        variant: NpVariant,
        port: String,
    },
    EgressNoDns {
        policy: String,
    },
    PolicyTypes {
        policy: String,
    },
}

/// Why a fault could not be applied to the current state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Precondition(pub String);

/// The policies a fault set acts on: `(namespace, name)` → policy, in API order. Policies
/// are shared between copies and copied on write, so trying a fault set copies only the
/// policies it touches.
pub type PolicySet = std::collections::BTreeMap<(String, String), std::sync::Arc<NetworkPolicy>>;

/// The intended policies with bare metadata (generation needs no uids or clocks), as a set
/// to change.
pub fn intended_set() -> PolicySet {
    intended().clone()
}

/// The intended policies, shared: readers compare against them without cloning the map.
pub fn intended() -> &'static PolicySet {
    static SET: std::sync::OnceLock<PolicySet> = std::sync::OnceLock::new();
    SET.get_or_init(|| {
        super::intent::policy_names()
            .map(|name| {
                let policy = bare("default", name, intended_spec(name));
                (("default".to_string(), name.to_string()), std::sync::Arc::new(policy))
            })
            .collect()
    })
}

fn bare(ns: &str, name: &str, spec: PolicySpec) -> NetworkPolicy {
    NetworkPolicy { meta: Meta { name: name.into(), namespace: ns.into(), ..Meta::default() }, spec }
}

/// The position of the plain `app=<caller>` pod-selector peer in `ingress[0].from`.
pub fn peer_index(spec: &PolicySpec, caller: &str) -> Option<usize> {
    let wanted = Peer::app(caller);
    spec.ingress.first()?.peers.iter().position(|p| *p == wanted)
}

impl Fault {
    pub fn kind(&self) -> FaultType {
        match self {
            Fault::RemoveIngress { .. } => FaultType::RI,
            Fault::AddIngress { .. } => FaultType::AI,
            Fault::ChangePort { .. } => FaultType::CP,
            Fault::ChangeProtocol { .. } => FaultType::CPR,
            Fault::AddEgress { .. } => FaultType::AE,
            Fault::WrongPodSelector { .. } => FaultType::WPS,
            Fault::DenyAllKubeSystem { .. } => FaultType::ADA,
            Fault::WrongNamespaceSelector { .. } => FaultType::WNS,
            Fault::NamedPort { .. } => FaultType::NP,
            Fault::EgressNoDns { .. } => FaultType::EDNS,
            Fault::PolicyTypes { .. } => FaultType::PTC,
        }
    }

    /// The policy the fault edits or creates, as `(namespace, name)`.
    pub fn target(&self) -> (String, String) {
        match self {
            Fault::DenyAllKubeSystem { name, .. } => ("kube-system".into(), name.clone()),
            Fault::RemoveIngress { policy, .. }
            | Fault::AddIngress { policy, .. }
            | Fault::ChangePort { policy, .. }
            | Fault::ChangeProtocol { policy, .. }
            | Fault::AddEgress { policy, .. }
            | Fault::WrongPodSelector { policy, .. }
            | Fault::WrongNamespaceSelector { policy, .. }
            | Fault::NamedPort { policy, .. }
            | Fault::EgressNoDns { policy }
            | Fault::PolicyTypes { policy } => ("default".into(), policy.clone()),
        }
    }

    /// The parameters as JSON (the task's `params`).
    pub fn to_json(&self) -> Value {
        let mut v = serde_json::to_value(self).unwrap_or(Value::Null);
        if let Value::Object(m) = &mut v {
            m.insert("id".into(), json!(self.kind().id()));
        }
        v
    }

    /// Applies the mutation to `set`.
    pub fn apply(&self, set: &mut PolicySet) -> Result<(), Precondition> {
        if let Fault::DenyAllKubeSystem { name, egress } = self {
            let key = self.target();
            if set.contains_key(&key) {
                return Err(Precondition(format!("kube-system/{name} exists")));
            }
            let mut types = vec!["Ingress".to_string()];
            if *egress {
                types.push("Egress".into());
            }
            let spec = PolicySpec { policy_types: types, ..PolicySpec::default() };
            set.insert(key, std::sync::Arc::new(bare("kube-system", name, spec)));
            return Ok(());
        }
        let key = self.target();
        let policy = set.get_mut(&key).ok_or_else(|| Precondition(format!("no policy {}", key.1)))?;
        let spec = &mut std::sync::Arc::make_mut(policy).spec;
        self.mutate(spec)
    }

    fn mutate(&self, spec: &mut PolicySpec) -> Result<(), Precondition> {
        let fail = |why: &str| Err(Precondition(why.to_string()));
        match self {
            Fault::RemoveIngress { scope: RiScope::Rule, .. } => {
                if spec.ingress.is_empty() {
                    return fail("no ingress rule");
                }
                spec.ingress.remove(0);
            }
            Fault::RemoveIngress { scope: RiScope::Peer { caller }, .. } => {
                let Some(i) = peer_index(spec, caller) else { return fail("peer gone") };
                spec.ingress[0].peers.remove(i);
            }
            Fault::AddIngress { sources, .. } => {
                for s in sources {
                    spec.ingress.push(Rule { peers: vec![Peer::app(s)], ports: vec![] });
                }
            }
            Fault::ChangePort { port, .. } => {
                for_each_ingress_port(spec, |p| p.port = Some(IntOrString::Int(i32::from(*port))))?
            }
            Fault::ChangeProtocol { protocol, .. } => {
                for_each_ingress_port(spec, |p| p.protocol = Some(protocol.clone()))?
            }
            Fault::AddEgress { destinations, .. } => {
                spec.egress.retain(|r| *r != Rule::default());
                for d in destinations {
                    spec.egress.push(Rule { peers: vec![Peer::app(d)], ports: vec![] });
                }
            }
            Fault::WrongPodSelector { policy, site: WpsSite::Spec, typo } => {
                if spec.pod_selector != LabelSelector::app(policy) {
                    return fail("pod selector changed");
                }
                spec.pod_selector = LabelSelector::app(typo);
            }
            Fault::WrongPodSelector { site: WpsSite::Peer { caller }, typo, .. } => {
                let Some(i) = peer_index(spec, caller) else { return fail("peer gone") };
                spec.ingress[0].peers[i] = Peer::app(typo);
            }
            Fault::WrongNamespaceSelector { caller, variant, .. } => {
                let Some(i) = peer_index(spec, caller) else { return fail("peer gone") };
                let ns_sel = |k: &str, v: &str| Some(LabelSelector::labels(&[(k, v)]));
                let peers = &mut spec.ingress[0].peers;
                match variant {
                    WnsVariant::WrongKey => peers[i].namespace_selector = ns_sel("name", "default"),
                    WnsVariant::WrongValue { value } => {
                        peers[i].namespace_selector = ns_sel("kubernetes.io/metadata.name", value)
                    }
                    WnsVariant::SplitOr => {
                        let ns_only = Peer {
                            namespace_selector: ns_sel("kubernetes.io/metadata.name", "default"),
                            ..Peer::default()
                        };
                        peers.insert(i, ns_only);
                    }
                }
            }
            Fault::NamedPort { port, .. } => {
                let first = spec.ingress.first_mut().and_then(|r| r.ports.first_mut());
                match first {
                    Some(p) if matches!(p.port, Some(IntOrString::Int(_))) => {
                        p.port = Some(match port.parse::<i32>() {
                            Ok(n) => IntOrString::Int(n),
                            Err(_) => IntOrString::Str(port.clone()),
                        })
                    }
                    _ => return fail("no numeric ingress[0].ports[0]"),
                }
            }
            Fault::EgressNoDns { policy } => {
                if spec.egress != vec![Rule::default()] {
                    return fail("egress is not [{}]");
                }
                spec.egress = callees_of(policy)
                    .map(|x| Rule {
                        peers: vec![Peer::app(x)],
                        ports: vec![PolicyPort::tcp(i32::from(target_port(x)))],
                    })
                    .collect();
            }
            Fault::PolicyTypes { .. } => {
                let egress_only = vec!["Egress".to_string()];
                if spec.policy_types == egress_only {
                    return fail("already egress-only");
                }
                spec.policy_types = egress_only;
            }
            Fault::DenyAllKubeSystem { .. } => unreachable!("handled by apply"),
        }
        Ok(())
    }
}

fn for_each_ingress_port(
    spec: &mut PolicySpec,
    mut f: impl FnMut(&mut PolicyPort),
) -> Result<(), Precondition> {
    let mut any = false;
    for p in spec.rules_mut(Direction::Ingress).iter_mut().flat_map(|r| r.ports.iter_mut()) {
        f(p);
        any = true;
    }
    if any { Ok(()) } else { Err(Precondition("no ingress ports".into())) }
}

/// The workloads a caller calls, in table order.
pub fn callees_of(caller: &str) -> impl Iterator<Item = &'static str> + '_ {
    super::intent::CALLERS.iter().filter(move |(_, cs)| cs.contains(&caller)).map(|(c, _)| *c)
}

/// The callers of `policy` plus the policy itself (what add_ingress must avoid).
pub fn non_sources(policy: &str) -> Vec<&'static str> {
    let mut v: Vec<&'static str> = callers(policy).to_vec();
    if let Some(w) = super::cluster::workload(policy) {
        v.push(w.name);
    }
    v
}

/// The fault types as task labels and level summaries spell them (`L2:AI+CPR`).
pub const GLOSSARY: &[crate::app::Term] = &[
    crate::app::Term { abbr: "RI", meaning: "remove_ingress: an allow rule a service needs is gone" },
    crate::app::Term { abbr: "AI", meaning: "add_ingress: a rule admits callers that must be denied" },
    crate::app::Term { abbr: "CP", meaning: "change_port: an allowed port number is wrong" },
    crate::app::Term { abbr: "CPR", meaning: "change_protocol: an allowed port has the wrong protocol" },
    crate::app::Term {
        abbr: "AE",
        meaning: "add_egress: egress narrowed to two destinations, cutting the pod's other calls",
    },
    crate::app::Term { abbr: "WPS", meaning: "wrong_pod_selector: a policy or peer selects the wrong pods" },
    crate::app::Term {
        abbr: "ADA",
        meaning: "deny_all_kube_system: a deny-all policy in kube-system, so DNS stops answering",
    },
    crate::app::Term { abbr: "WNS", meaning: "wrong_namespace_selector: a peer selects the wrong namespace" },
    crate::app::Term {
        abbr: "NP",
        meaning: "named_port: a rule's port is a name or number no container port matches",
    },
    crate::app::Term { abbr: "EDNS", meaning: "egress_no_dns: egress no longer allows DNS to kube-dns" },
    crate::app::Term {
        abbr: "PTC",
        meaning: "policy_types: policyTypes set to Egress only, so the ingress rules no longer apply",
    },
    // Level 4's admin-layer types (src/k8s/tenancy.rs).
    crate::app::Term {
        abbr: "SHD",
        meaning: "deny_shadows_allow: an admin Deny now has a higher priority than the Allow it shadows",
    },
    crate::app::Term {
        abbr: "PSA",
        meaning: "pass_instead_of_allow: an admin rule passes traffic it should allow, and no NetworkPolicy admits it",
    },
    crate::app::Term {
        abbr: "BOV",
        meaning: "baseline_over_namespace: a NetworkPolicy stops deciding egress, so the baseline's deny applies",
    },
    crate::app::Term {
        abbr: "SSM",
        meaning: "subject_selector_miss: an admin policy's subject selects the wrong namespace",
    },
    crate::app::Term { abbr: "PRO", meaning: "port_range_off_by_one: an admin port range ends one port off" },
];

#[cfg(test)]
mod tests {
    use super::*;

    fn spec_of(set: &PolicySet, name: &str) -> PolicySpec {
        set[&("default".to_string(), name.to_string())].spec.clone()
    }

    #[test]
    fn remove_ingress_peer_and_rule() {
        let mut set = intended_set();
        let f = Fault::RemoveIngress {
            policy: "cartservice".into(),
            scope: RiScope::Peer { caller: "frontend".into() },
        };
        f.apply(&mut set).unwrap();
        assert_eq!(spec_of(&set, "cartservice").ingress[0].peers, vec![Peer::app("checkoutservice")]);
        assert!(f.apply(&mut set).is_err(), "peer already gone");
        let f = Fault::RemoveIngress { policy: "frontend".into(), scope: RiScope::Rule };
        f.apply(&mut set).unwrap();
        assert!(spec_of(&set, "frontend").ingress.is_empty());
    }

    #[test]
    fn egress_no_dns_lists_callees() {
        let mut set = intended_set();
        Fault::EgressNoDns { policy: "recommendationservice".into() }.apply(&mut set).unwrap();
        let egress = spec_of(&set, "recommendationservice").egress;
        assert_eq!(
            egress,
            vec![Rule {
                peers: vec![Peer::app("productcatalogservice")],
                ports: vec![PolicyPort::tcp(3550)]
            }]
        );
        assert_eq!(callees_of("checkoutservice").count(), 6);
    }

    #[test]
    fn split_or_inserts_before_the_peer() {
        let mut set = intended_set();
        let f = Fault::WrongNamespaceSelector {
            policy: "shippingservice".into(),
            caller: "checkoutservice".into(),
            variant: WnsVariant::SplitOr,
        };
        f.apply(&mut set).unwrap();
        let peers = &spec_of(&set, "shippingservice").ingress[0].peers;
        assert_eq!(peers.len(), 3);
        assert!(peers[1].namespace_selector.is_some() && peers[1].pod_selector.is_none());
        assert_eq!(peers[2], Peer::app("checkoutservice"));
    }

    #[test]
    fn params_serialise_with_id() {
        let f = Fault::WrongPodSelector {
            policy: "adservice".into(),
            site: WpsSite::Spec,
            typo: "adservic".into(),
        };
        assert_eq!(
            f.to_json().to_string(),
            r#"{"id":"WPS","policy":"adservice","site":"spec","type":"wrong_pod_selector","typo":"adservic"}"#
        );
    }
}
