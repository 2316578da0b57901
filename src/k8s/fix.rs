//! The known-good fix of a task, as kubectl commands an agent could type.
//!
//! A policy hit by one fault gets that fault's textbook repair (the fault catalogue's inverse); a policy
//! hit by several gets one merge patch restoring its whole intended spec, because the
//! single-fault repairs address list positions that another fault may have shifted. The
//! generator's tests run every stored fix through the emulator and require a clean report.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use super::fault::{Fault, PolicySet, RiScope, WnsVariant, WpsSite};
use super::intent::{intended_spec, target_port};
use super::kubectl::VerbPolicy;
use super::policy::{LabelSelector, Peer};
use super::yaml::to_json_compact;

fn json_patch(ns: &str, name: &str, ops: Value) -> String {
    format!("kubectl patch networkpolicy {name} -n {ns} --type=json -p '{}'", to_json_compact(&ops))
}

fn merge_patch(ns: &str, name: &str, patch: Value) -> String {
    format!("kubectl patch networkpolicy {name} -n {ns} --type=merge -p '{}'", to_json_compact(&patch))
}

fn peer_json(app: &str) -> Value {
    json!({"podSelector": {"matchLabels": {"app": app}}})
}

/// The index of the pod-selector peer `app=<value>` in `ingress[0].from` of the injected policy.
fn peer_at(set: &PolicySet, key: &(String, String), app: &str) -> usize {
    let wanted = Peer::app(app);
    set.get(key)
        .and_then(|p| p.spec.ingress.first())
        .and_then(|r| {
            r.peers.iter().position(|p| *p == wanted || p.pod_selector == Some(LabelSelector::app(app)))
        })
        .unwrap_or(0)
}

fn single(f: &Fault, set: &PolicySet, verbs: VerbPolicy) -> String {
    let key = f.target();
    let (ns, name) = (key.0.as_str(), key.1.as_str());
    let tp = i64::from(target_port(name));
    match f {
        Fault::RemoveIngress { scope: RiScope::Peer { caller }, .. } => json_patch(
            ns,
            name,
            json!([{"op": "add", "path": "/spec/ingress/0/from/-", "value": peer_json(caller)}]),
        ),
        Fault::RemoveIngress { scope: RiScope::Rule, .. } => {
            let rule = intended_spec(name).to_json()["ingress"][0].clone();
            json_patch(ns, name, json!([{"op": "add", "path": "/spec/ingress", "value": [rule]}]))
        }
        Fault::AddIngress { .. } => json_patch(
            ns,
            name,
            json!([{"op": "remove", "path": "/spec/ingress/2"}, {"op": "remove", "path": "/spec/ingress/1"}]),
        ),
        Fault::ChangePort { .. } | Fault::NamedPort { .. } => json_patch(
            ns,
            name,
            json!([{"op": "replace", "path": "/spec/ingress/0/ports/0/port", "value": tp}]),
        ),
        Fault::ChangeProtocol { .. } => json_patch(
            ns,
            name,
            json!([{"op": "replace", "path": "/spec/ingress/0/ports/0/protocol", "value": "TCP"}]),
        ),
        Fault::AddEgress { .. } | Fault::EgressNoDns { .. } => {
            merge_patch(ns, name, json!({"spec": {"egress": [{}]}}))
        }
        Fault::WrongPodSelector { site: WpsSite::Spec, .. } => json_patch(
            ns,
            name,
            json!([{"op": "replace", "path": "/spec/podSelector/matchLabels/app", "value": name}]),
        ),
        Fault::WrongPodSelector { site: WpsSite::Peer { caller }, typo, .. } => {
            let i = peer_at(set, &key, typo);
            let path = format!("/spec/ingress/0/from/{i}/podSelector/matchLabels/app");
            json_patch(ns, name, json!([{"op": "replace", "path": path, "value": caller}]))
        }
        Fault::WrongNamespaceSelector { caller, variant, .. } => {
            let i = peer_at(set, &key, caller);
            match variant {
                WnsVariant::SplitOr => json_patch(
                    ns,
                    name,
                    json!([{"op": "remove", "path": format!("/spec/ingress/0/from/{}", i.saturating_sub(1))}]),
                ),
                _ => json_patch(
                    ns,
                    name,
                    json!([{"op": "remove", "path": format!("/spec/ingress/0/from/{i}/namespaceSelector")}]),
                ),
            }
        }
        Fault::DenyAllKubeSystem { .. } if verbs.delete => {
            format!("kubectl delete networkpolicy {name} -n {ns}")
        }
        Fault::DenyAllKubeSystem { .. } => merge_patch(ns, name, json!({"spec": {"ingress": [{}]}})),
        Fault::PolicyTypes { .. } => {
            merge_patch(ns, name, json!({"spec": {"policyTypes": ["Ingress", "Egress"]}}))
        }
    }
}

/// The fix commands, one per affected policy, in policy order.
pub fn fix_commands(faults: &[Fault], set: &PolicySet, verbs: VerbPolicy) -> Vec<String> {
    let mut by_policy: BTreeMap<(String, String), Vec<&Fault>> = BTreeMap::new();
    for f in faults {
        by_policy.entry(f.target()).or_default().push(f);
    }
    by_policy
        .into_iter()
        .map(|((ns, name), fs)| match fs.as_slice() {
            [one] => single(one, set, verbs),
            _ => merge_patch(&ns, &name, json!({"spec": intended_spec(&name).to_json()})),
        })
        .collect()
}
