//! kubectl goldens for the admin policies (`anp`, `banp`): creating, listing in every format,
//! describing, explaining, patching (valid and rejected), deleting, on the golden cluster of
//! [`super::goldens`]. Same file format and `NETPRESS_BLESS=1` as there; kept in a file of
//! its own so that the NetworkPolicy goldens stay as they were captured.

use super::goldens::{check_goldens, golden_env};
use netpress::k8s::probe::{Verdict, evaluate_cluster};
use netpress::k8s::shell;

const GOLDENS: &str = "tests/data/k8s/goldens/kubectl-admin.txt";

#[test]
fn kubectl_admin_goldens() {
    check_goldens(GOLDENS, 30);
}

/// The checker's matrix reads the admin policies: a baseline deny changes nothing where a
/// NetworkPolicy already isolates a pod, and an ANP Deny overrides every NetworkPolicy.
#[test]
fn the_probe_matrix_uses_the_admin_layers() {
    let mut env = golden_env();
    let before = evaluate_cluster(&env.cluster);
    let banp = "kubectl apply -f - <<'EOF'\napiVersion: policy.networking.k8s.io/v1alpha1\nkind: BaselineAdminNetworkPolicy\nmetadata:\n  name: default\nspec:\n  subject:\n    namespaces: {}\n  ingress:\n  - action: Deny\n    from:\n    - namespaces: {}\nEOF";
    assert!(shell::run(banp, &mut env).output.contains("created"));
    let with_banp = evaluate_cluster(&env.cluster);
    // Every default pod is isolated by a NetworkPolicy except those whose policy the
    // golden faults broke (paymentservice's selector typo, redis-cart's policyTypes).
    assert_ne!(before, with_banp);
    let anp = "kubectl apply -f - <<'EOF'\napiVersion: policy.networking.k8s.io/v1alpha1\nkind: AdminNetworkPolicy\nmetadata:\n  name: deny-all\nspec:\n  priority: 1\n  subject:\n    namespaces: {}\n  egress:\n  - action: Deny\n    to:\n    - namespaces: {}\nEOF";
    assert!(shell::run(anp, &mut env).output.contains("created"));
    assert!(evaluate_cluster(&env.cluster).iter().all(|v| *v == Verdict::False));
    assert!(shell::run("kubectl delete anp deny-all", &mut env).output.contains("deleted"));
    assert!(shell::run("kubectl delete banp default", &mut env).output.contains("deleted"));
    assert_eq!(evaluate_cluster(&env.cluster), before);
}

/// `kubectl label` reaches the admin policies (a label is a patch, which the agent's role may
/// send there): it changes metadata only, so the resourceVersion moves, the generation and
/// the probe matrix do not; kinds the role may not patch stay forbidden.
#[test]
fn labels_on_admin_policies_are_metadata_only() {
    let mut env = golden_env();
    let banp = "kubectl apply -f - <<'EOF'\napiVersion: policy.networking.k8s.io/v1alpha1\nkind: BaselineAdminNetworkPolicy\nmetadata:\n  name: default\nspec:\n  subject:\n    namespaces: {}\n  ingress:\n  - action: Deny\n    from:\n    - namespaces: {}\nEOF";
    assert!(shell::run(banp, &mut env).output.contains("created"));
    let before = evaluate_cluster(&env.cluster);
    let versions =
        "kubectl get banp default -o jsonpath='{.metadata.resourceVersion} {.metadata.generation}'";
    let v0 = shell::run(versions, &mut env).output;
    assert_eq!(
        shell::run("kubectl label banp default owner=platform", &mut env).output,
        "baselineadminnetworkpolicy.policy.networking.k8s.io/default labeled\n"
    );
    let v1 = shell::run(versions, &mut env).output;
    let split = |v: &str| v.split_once(' ').map(|(a, b)| (a.to_string(), b.to_string())).unwrap();
    let ((rv0, g0), (rv1, g1)) = (split(&v0), split(&v1));
    assert_ne!(rv0, rv1);
    assert_eq!((g0.as_str(), g1.as_str()), ("1", "1"));
    assert_eq!(evaluate_cluster(&env.cluster), before);
    assert!(
        shell::run("kubectl get banp --show-labels", &mut env).output.contains("owner=platform"),
        "the label is stored"
    );
    assert_eq!(
        shell::run("kubectl label node kind-control-plane owner=platform", &mut env).output,
        "Error from server (Forbidden): nodes \"kind-control-plane\" is forbidden: User \"netpress-agent\" cannot patch resource \"nodes\" in API group \"\" at the cluster scope\n"
    );
}
