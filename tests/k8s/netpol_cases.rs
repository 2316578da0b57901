//! Table-driven evaluator tests (docs/k8s.md, "Tests"): the upstream e2e network-policy
//! scenarios and the kube-network-policies unit cases, stored as data under
//! `tests/data/k8s/`, run through the evaluator by [`netpress::k8s::conformance`] (the same
//! entry points a wasm-bindgen test can call). Every policy in the data also passes the API
//! server's validation.

use netpress::k8s::conformance::{admin_cases, e2e_scenarios, knp_cases};

const E2E: &str = include_str!("../data/k8s/e2e_netpol.yaml");
const KNP: &str = include_str!("../data/k8s/knp_cases.yaml");
const ANP: &str = include_str!("../data/k8s/anp_cases.yaml");

#[test]
fn upstream_e2e_scenarios() {
    let cases = netpress::k8s::yaml::parse_documents(E2E).unwrap().remove(0);
    assert!(cases.as_array().unwrap().len() >= 40, "expected at least 40 e2e cases");
    for proto in ["UDP", "SCTP"] {
        assert!(E2E.contains(&format!("protocol: {proto}")), "cases for {proto}");
    }
    let checked = e2e_scenarios(E2E).unwrap_or_else(|e| panic!("{e}"));
    assert!(checked > 5000, "{checked} probes checked");
}

#[test]
fn kube_network_policies_cases() {
    let checked = knp_cases(KNP).unwrap_or_else(|e| panic!("{e}"));
    assert!(checked >= 40, "{checked} checks");
}

#[test]
fn a_wrong_expectation_is_reported() {
    let broken = KNP.replacen("[a, b, 80, TCP, true]", "[a, b, 80, TCP, false]", 1);
    assert!(knp_cases(&broken).unwrap_err().contains("no policy allows everything"));
}

/// The network-policy-api conformance scenarios for AdminNetworkPolicy and
/// BaselineAdminNetworkPolicy: ANPs by priority, Pass, NetworkPolicies, then the BANP.
#[test]
fn admin_network_policy_cases() {
    let checked = admin_cases(ANP).unwrap_or_else(|e| panic!("{e}"));
    assert!(checked >= 65, "{checked} checks");
}

#[test]
fn a_wrong_admin_expectation_is_reported() {
    let broken = ANP.replacen(
        "[harry-potter-0, luna-lovegood-0, 80, TCP, true]",
        "[harry-potter-0, luna-lovegood-0, 80, TCP, false]",
        1,
    );
    assert!(admin_cases(&broken).unwrap_err().contains("ANP egress TCP, rule order and actions step 0"));
    let priority = ANP.replacen("/spec/priority, 40]", "/spec/priority, 55]", 1);
    assert!(admin_cases(&priority).unwrap_err().contains("ANP priority"));
}
