//! Hygiene notes (docs/k8s.md, "Scoring": shown, not scored): how the final state differs from the intended one
//! once both are canonicalised (defaults applied; rules, peers and ports as sets). The admin
//! policies of level 4 are compared in [`admin`], where order matters.

mod admin;

use std::collections::BTreeSet;

use super::cluster::Cluster;
use super::generate::pristine;
use super::intent::{intended_spec, policy_names};
use super::policy::{Direction, PolicySpec, Rule, port_text, rule_key};
use super::tenancy::AdminSet;

fn peer_text(p: &super::policy::Peer) -> String {
    super::yaml::to_json_compact(&p.to_json())
}

/// Differences of one direction's rules.
fn rule_diffs(name: &str, dir: Direction, have: &[Rule], want: &[Rule], out: &mut Vec<String>) {
    let key = dir.as_str().to_ascii_lowercase();
    let have_keys: BTreeSet<String> = have.iter().map(rule_key).collect();
    let want_keys: BTreeSet<String> = want.iter().map(rule_key).collect();
    if have_keys == want_keys {
        return;
    }
    if have.len() == 1 && want.len() == 1 {
        let (h, w) = (&have[0], &want[0]);
        let hp: BTreeSet<String> = h.ports.iter().map(port_text).collect();
        let wp: BTreeSet<String> = w.ports.iter().map(port_text).collect();
        for p in hp.difference(&wp) {
            out.push(format!("{name}: {key}[0] extra port {p}"));
        }
        for p in wp.difference(&hp) {
            out.push(format!("{name}: {key}[0] missing port {p}"));
        }
        let hs: BTreeSet<String> = h.peers.iter().map(peer_text).collect();
        let ws: BTreeSet<String> = w.peers.iter().map(peer_text).collect();
        for p in hs.difference(&ws) {
            out.push(format!("{name}: {key}[0] extra peer {p}"));
        }
        for p in ws.difference(&hs) {
            out.push(format!("{name}: {key}[0] missing peer {p}"));
        }
        return;
    }
    out.push(format!(
        "{name}: {key} has {} rule(s) that differ from the intended {}",
        have.len(),
        want.len()
    ));
}

fn spec_diffs(name: &str, have: &PolicySpec, want: &PolicySpec, out: &mut Vec<String>) {
    if have.pod_selector != want.pod_selector {
        out.push(format!(
            "{name}: podSelector {} (intended {})",
            have.pod_selector.format(),
            want.pod_selector.format()
        ));
    }
    let ht: BTreeSet<&String> = have.policy_types.iter().collect();
    let wt: BTreeSet<&String> = want.policy_types.iter().collect();
    if ht != wt {
        out.push(format!(
            "{name}: policyTypes [{}] (intended [{}])",
            have.policy_types.join(", "),
            want.policy_types.join(", ")
        ));
    }
    rule_diffs(name, Direction::Ingress, &have.ingress, &want.ingress, out);
    rule_diffs(name, Direction::Egress, &have.egress, &want.egress, out);
}

/// Every difference between `c` and the intended cluster, whose admin policies are
/// `intended_admin` (none below level 4).
pub fn notes(c: &Cluster, intended_admin: &AdminSet) -> Vec<String> {
    let mut out = Vec::new();
    for ((ns, name), p) in &c.policies {
        let intended = ns == "default" && policy_names().any(|n| n == name);
        if intended {
            spec_diffs(name, &p.spec, &intended_spec(name), &mut out);
        } else {
            out.push(format!("extra policy {ns}/{name}"));
        }
    }
    for name in policy_names() {
        if c.policy("default", name).is_none() {
            out.push(format!("missing policy default/{name}"));
        }
    }
    admin::notes(c, intended_admin, &mut out);
    let base = pristine();
    let pairs = [
        (
            "pod",
            c.pods.iter().map(|p| &p.meta).collect::<Vec<_>>(),
            base.pods.iter().map(|p| &p.meta).collect::<Vec<_>>(),
        ),
        (
            "namespace",
            c.namespaces.iter().map(|n| &n.meta).collect(),
            base.namespaces.iter().map(|n| &n.meta).collect(),
        ),
        (
            "service",
            c.services.iter().map(|s| &s.meta).collect(),
            base.services.iter().map(|s| &s.meta).collect(),
        ),
        (
            "deployment",
            c.deployments.iter().map(|d| &d.meta).collect(),
            base.deployments.iter().map(|d| &d.meta).collect(),
        ),
    ];
    for (kind, now, before) in pairs {
        for (a, b) in now.iter().zip(before.iter()) {
            if a.labels != b.labels {
                out.push(format!(
                    "{kind} {}/{}: labels changed to {}",
                    a.namespace,
                    a.name,
                    super::labels::format_labels(&a.labels)
                ));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::k8s::fault::intended_set;
    use crate::k8s::policy::PolicyPort;
    use crate::k8s::task::inject_cluster;

    #[test]
    fn intended_cluster_is_clean_and_diffs_are_named() {
        let mut set = intended_set();
        assert!(notes(&inject_cluster(&set), &AdminSet::new()).is_empty());
        let key = ("default".to_string(), "emailservice".to_string());
        std::sync::Arc::make_mut(set.get_mut(&key).unwrap()).spec.ingress[0]
            .ports
            .push(PolicyPort::tcp(5000));
        let n = notes(&inject_cluster(&set), &AdminSet::new());
        assert_eq!(n, vec!["emailservice: ingress[0] extra port 5000/TCP"]);
    }
}
