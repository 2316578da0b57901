//! The renderings: a neutral policy written as an NSG, security groups or NetworkPolicies
//! scores exactly as the neutral form over every key set (the round trip through each
//! provider's evaluator), an NSG without Deny rules is over-permissive, and invalid renderings
//! are explained.

use netpress::microseg::baseline::answer;
use netpress::microseg::forms::{Form, score};
use netpress::microseg::generate;
use netpress::microseg::judge::judge;
use netpress::microseg::score::Metrics;
use netpress::microseg::task::Generated;
use serde_json::{Value, json};

fn task(id: &str) -> Generated {
    generate(&id.parse().unwrap()).unwrap()
}

fn rates(m: &Metrics) -> [(u64, u64); 5] {
    [m.fdr, m.gdr, m.far, m.op, m.cdr].map(|r| (r.hit, r.of))
}

/// The neutral policy of an agent on a task of the policy family, and the same agent's answer
/// written in `form`.
fn data(id: &str, agent: &str) -> Value {
    answer(agent, &task(id)).unwrap()["data"].clone()
}

#[test]
fn every_form_scores_like_the_neutral_policy() {
    // L3 s1 reuses an address at its churn point; portsig's groups mix roles across apps.
    for (seed, level) in [(0, 2), (1, 3)] {
        for agent in ["oracle", "portsig"] {
            let np = task(&format!("microseg-v1-L{level}-s{seed}-i2"));
            let want = rates(&score(&np.world, Form::Np, &data(&np.id.to_string(), agent)).unwrap());
            for form in Form::RENDERED {
                let id = format!("microseg-v1-L{level}-s{seed}-i3-r{}", form.name());
                let g = task(&id);
                assert_eq!(g.form, form);
                let got = score(&g.world, form, &data(&id, agent)).unwrap_or_else(|e| panic!("{id}: {e}"));
                assert_eq!(rates(&got), want, "{id} {agent}: {:?}", got.lines);
            }
            if agent == "oracle" {
                assert!(want.iter().all(|&(hit, _)| hit == 0));
            }
        }
    }
}

#[test]
fn an_nsg_without_deny_rules_admits_internal_traffic() {
    let id = "microseg-v1-L2-s0-i3-rnsg";
    let g = task(id);
    let mut nsg = data(id, "oracle");
    let rules = nsg["securityRules"].as_array_mut().unwrap();
    rules.retain(|r| r["properties"]["access"] == "Allow");
    let m = score(&g.world, Form::Nsg, &nsg).unwrap();
    assert!(m.op.hit > 0 && m.far.hit > 0 && !m.safe(), "{:?}", m.lines);
    assert!(m.correct());
}

#[test]
fn render_requests_name_the_form_and_invalid_renderings_are_explained() {
    for (form, bad, msg) in [
        (
            Form::Nsg,
            json!({"securityRules": [{"name": "x", "properties": {"priority": 50, "direction": "Inbound", "access": "Deny",
                "protocol": "*", "sourcePortRange": "*", "destinationPortRange": "*", "sourceAddressPrefix": "*",
                "destinationAddressPrefix": "*"}}]}),
            "securityRules[0] 'x': priority 50 (100..4096)",
        ),
        (
            Form::Sg,
            json!({"SecurityGroups": [{"GroupName": "a", "Members": [], "IpPermissions": [{"IpProtocol": "icmpv9"}], "IpPermissionsEgress": []}]}),
            "IpProtocol 'icmpv9'",
        ),
        (Form::K8s, json!({"kind": "NetworkPolicy"}), "a JSON list of NetworkPolicy objects"),
        (
            Form::K8s,
            json!([{"kind": "NetworkPolicy", "metadata": {"name": "x", "namespace": "prod"}, "spec": {"podSelector": {}}}]),
            "namespace 'prod'",
        ),
        (
            Form::K8s,
            json!([{"kind": "NetworkPolicy", "metadata": {"name": "Bad_Name"}, "spec": {"podSelector": {}}}]),
            "metadata.name",
        ),
    ] {
        let id = format!("microseg-v1-L2-s0-i3-r{}", form.name());
        let g = task(&id);
        assert!(
            g.question.contains(form.phrase()) && g.question.contains(&format!("'type': '{}'", form.name()))
        );
        let v = judge(&g.world, g.family, g.form, Ok(json!({"type": form.name(), "data": bad})));
        assert!(!v.correct && !v.safe && v.why.contains(msg), "{id}: {}", v.why);
        let wrong = judge(&g.world, g.family, g.form, Ok(json!({"type": "policy", "data": {}})));
        assert!(wrong.why.contains(&format!("type must be '{}'", form.name())), "{}", wrong.why);
    }
}
