//! `kubectl patch` with arbitrary payloads of each type against a stored policy (a
//! NetworkPolicy, an AdminNetworkPolicy or the BaselineAdminNetworkPolicy), then the
//! resulting state through describe and the probe matrix: no panic, state stays valid.

use netpress::k8s::cluster::Cluster;
use netpress::k8s::fault::intended_set;
use netpress::k8s::kubectl::{Env, VerbPolicy, run};
use netpress::k8s::probe::evaluate_cluster;
use netpress::k8s::task::inject_cluster;

pub fn fuzz(data: &[u8]) {
    let Some((&kind, rest)) = data.split_first() else { return };
    let Ok(payload) = std::str::from_utf8(rest) else { return };
    thread_local! {
        static CLUSTER: Cluster = with_admin(inject_cluster(&intended_set()));
    }
    let mut env = Env::new(CLUSTER.with(Cluster::clone), VerbPolicy::parse("acd").expect("valid"));
    let ty = ["json", "merge", "strategic"][usize::from(kind % 3)];
    let (resource, name) =
        [("networkpolicy", "adservice"), ("anp", "tenants"), ("banp", "default")][usize::from(kind / 3 % 3)];
    let argv: Vec<String> =
        ["patch", resource, name, "--type", ty, "-p", payload].iter().map(|s| s.to_string()).collect();
    let _ = run(&argv, "", &mut env);
    let _ = run(&["apply".into(), "-f".into(), "-".into()], payload, &mut env);
    let _ = run(&["describe".into(), resource.into(), "-A".into()], "", &mut env);
    let _ = evaluate_cluster(&env.cluster);
}

/// The cluster with one ANP and the BANP, applied as an agent would.
fn with_admin(c: Cluster) -> Cluster {
    const ADMIN: &str = "apiVersion: policy.networking.k8s.io/v1alpha1\nkind: AdminNetworkPolicy\nmetadata: {name: tenants}\nspec:\n  priority: 10\n  subject: {namespaces: {}}\n  ingress:\n  - {name: a, action: Pass, from: [{namespaces: {}}], ports: [{portRange: {start: 1, end: 9}}]}\n---\napiVersion: policy.networking.k8s.io/v1alpha1\nkind: BaselineAdminNetworkPolicy\nmetadata: {name: default}\nspec:\n  subject: {namespaces: {}}\n  egress:\n  - {action: Deny, to: [{pods: {namespaceSelector: {}, podSelector: {}}}]}\n";
    let mut env = Env::new(c, VerbPolicy::parse("acd").expect("valid"));
    let _ = run(&["apply".into(), "-f".into(), "-".into()], ADMIN, &mut env);
    env.cluster
}
