//! The intended policies (docs/k8s.md, "Tasks"): upstream Online Boutique's
//! `kustomize/components/network-policies`, one policy per workload.
//!
//! Callees accept their callers (one ingress rule, callers as separate pod-selector peers)
//! on their container port over TCP; frontend accepts anything; loadgenerator only sends.
//! Every policy allows all egress.

use super::cluster::{WORKLOADS, workload};
use super::policy::{LabelSelector, Peer, PolicyPort, PolicySpec, Rule};

/// The call graph: each callee with its callers.
pub const CALLERS: [(&str, &[&str]); 10] = [
    ("adservice", &["frontend"]),
    ("cartservice", &["frontend", "checkoutservice"]),
    ("checkoutservice", &["frontend"]),
    ("currencyservice", &["frontend", "checkoutservice"]),
    ("emailservice", &["checkoutservice"]),
    ("paymentservice", &["checkoutservice"]),
    ("productcatalogservice", &["frontend", "checkoutservice", "recommendationservice"]),
    ("recommendationservice", &["frontend"]),
    ("redis-cart", &["cartservice"]),
    ("shippingservice", &["frontend", "checkoutservice"]),
];

/// The 10 callee policies, in table order.
pub fn callees() -> impl Iterator<Item = &'static str> {
    CALLERS.iter().map(|(c, _)| *c)
}

/// The callers of a callee (empty for frontend and loadgenerator).
pub fn callers(callee: &str) -> &'static [&'static str] {
    CALLERS.iter().find(|(c, _)| *c == callee).map_or(&[], |(_, callers)| callers)
}

/// The container port (= the Service's targetPort) of a workload; 0 for loadgenerator.
pub fn target_port(name: &str) -> u16 {
    workload(name).and_then(|w| w.port).unwrap_or(0)
}

/// The intended spec of the policy named after workload `name`.
pub fn intended_spec(name: &str) -> PolicySpec {
    let types = |t: &[&str]| t.iter().map(|s| s.to_string()).collect();
    let egress = vec![Rule::default()];
    match name {
        "loadgenerator" => PolicySpec {
            pod_selector: LabelSelector::app(name),
            ingress: vec![],
            egress,
            policy_types: types(&["Egress"]),
        },
        "frontend" => PolicySpec {
            pod_selector: LabelSelector::app(name),
            ingress: vec![Rule::default()],
            egress,
            policy_types: types(&["Ingress", "Egress"]),
        },
        callee => PolicySpec {
            pod_selector: LabelSelector::app(callee),
            ingress: vec![Rule {
                peers: callers(callee).iter().map(|c| Peer::app(c)).collect(),
                ports: vec![PolicyPort::tcp(i32::from(target_port(callee)))],
            }],
            egress,
            policy_types: types(&["Ingress", "Egress"]),
        },
    }
}

/// The names of the 12 intended policies, in table order.
pub fn policy_names() -> impl Iterator<Item = &'static str> {
    WORKLOADS.iter().map(|w| w.name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn call_graph_has_fifteen_edges() {
        assert_eq!(CALLERS.iter().map(|(_, c)| c.len()).sum::<usize>(), 15);
        assert_eq!(callers("frontend").len(), 0);
        assert_eq!(target_port("emailservice"), 8080);
    }

    #[test]
    fn intended_specs_are_defaulted_already() {
        for name in policy_names() {
            let spec = intended_spec(name);
            let mut defaulted = spec.clone();
            defaulted.apply_defaults();
            assert_eq!(spec, defaulted, "{name}");
        }
    }
}
