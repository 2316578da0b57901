//! NSG fixtures (defaults, first match, errors) and the rule-order property.

use std::net::Ipv4Addr;

use proptest::prelude::*;
use serde_json::json;

use super::*;

const WEB: Ipv4Addr = Ipv4Addr::new(10, 1, 0, 10);
const DB: Ipv4Addr = Ipv4Addr::new(10, 1, 0, 41);
const OTHER: Ipv4Addr = Ipv4Addr::new(10, 2, 0, 7);
const NET: Ipv4Addr = Ipv4Addr::new(198, 18, 0, 1);

fn rule(
    name: &str,
    priority: i64,
    direction: &str,
    access: &str,
    src: &str,
    dst: &str,
    port: &str,
) -> serde_json::Value {
    json!({"name": name, "properties": {
        "priority": priority, "direction": direction, "access": access, "protocol": "Tcp",
        "sourcePortRange": "*", "destinationPortRange": port,
        "sourceAddressPrefix": src, "destinationAddressPrefix": dst}})
}

fn nsg(rules: Vec<serde_json::Value>) -> Nsg {
    let doc = json!({"applicationSecurityGroups": [
        {"name": "web", "members": [WEB.to_string()]}, {"name": "db", "members": [DB.to_string()]}],
        "securityRules": rules});
    Nsg::from_json(&doc.to_string()).unwrap()
}

#[test]
fn without_deny_rules_the_defaults_admit_all_internal_traffic() {
    let n = nsg(vec![rule("web-db", 100, "Inbound", "Allow", "10.1.0.10", "10.1.0.41", "5432")]);
    // Over-permissive: AllowVnetInBound/OutBound admit any tenant-to-tenant connection.
    assert!(n.allows(OTHER, DB, Proto::Tcp, 22));
    assert!(n.allows(DB, WEB, Proto::Udp, 9999));
    // The Internet cannot come in (DenyAllInBound) but tenants reach it (AllowInternetOutBound).
    assert!(!n.allows(NET, WEB, Proto::Tcp, 443));
    assert!(n.allows(DB, NET, Proto::Tcp, 443));
    // Load-balancer probes come in (AllowAzureLoadBalancerInBound).
    assert!(n.allows(AZURE_LOAD_BALANCER, WEB, Proto::Tcp, 80));
}

#[test]
fn explicit_denies_make_it_default_deny() {
    let asg_rule = json!({"name": "web-db", "properties": {
        "priority": 100, "direction": "Inbound", "access": "Allow", "protocol": "Tcp",
        "sourcePortRange": "*", "destinationPortRange": "5432",
        "sourceApplicationSecurityGroups": [{"id": "web"}], "destinationApplicationSecurityGroups": [{"id": "db"}]}});
    let mut out = rule("web-out", 100, "Outbound", "Allow", "*", "*", "5432");
    out["properties"]["destinationPortRanges"] = json!(["5432", "6000-6001"]);
    out["properties"].as_object_mut().unwrap().remove("destinationPortRange");
    let deny_all = |name: &str, direction: &str| {
        let mut r = rule(name, 4096, direction, "Deny", "*", "*", "*");
        r["properties"]["protocol"] = json!("*");
        r
    };
    let n = nsg(vec![asg_rule, out, deny_all("deny-in", "Inbound"), deny_all("deny-out", "Outbound")]);
    assert!(n.allows(WEB, DB, Proto::Tcp, 5432));
    assert!(!n.allows(WEB, DB, Proto::Udp, 5432));
    assert!(!n.allows(OTHER, DB, Proto::Tcp, 5432));
    assert!(!n.allows(WEB, DB, Proto::Tcp, 6000), "outbound passes but inbound has no rule");
    assert!(!n.allows(DB, NET, Proto::Tcp, 443));
}

#[test]
fn first_match_by_priority_not_by_position() {
    let deny = rule("deny", 200, "Inbound", "Deny", "*", "10.1.0.41", "*");
    let allow = rule("allow", 150, "Inbound", "Allow", "10.1.0.10", "10.1.0.41", "5432");
    assert!(nsg(vec![deny.clone(), allow.clone()]).allows(WEB, DB, Proto::Tcp, 5432));
    let mut late = allow;
    late["properties"]["priority"] = json!(300);
    assert!(!nsg(vec![deny, late]).allows(WEB, DB, Proto::Tcp, 5432));
}

#[test]
fn each_validation_error_names_the_rule() {
    let err = |rules: Vec<serde_json::Value>| {
        let doc = json!({"securityRules": rules});
        Nsg::from_json(&doc.to_string()).unwrap_err().to_string()
    };
    let r = rule("r", 100, "Inbound", "Allow", "*", "*", "*");
    let with = |key: &str, value: serde_json::Value| {
        let mut x = r.clone();
        x["properties"][key] = value;
        x
    };
    assert_eq!(err(vec![with("priority", json!(50))]), "securityRules[0] 'r': priority 50 (100..4096)");
    assert_eq!(
        err(vec![with("direction", json!("In"))]),
        "securityRules[0] 'r': direction 'In' (Inbound or Outbound)"
    );
    assert_eq!(
        err(vec![with("access", json!("Permit"))]),
        "securityRules[0] 'r': access 'Permit' (Allow or Deny)"
    );
    assert_eq!(
        err(vec![with("protocol", json!("TCP"))]),
        "securityRules[0] 'r': protocol 'TCP' (Tcp, Udp, Icmp, Esp, Ah or *)"
    );
    assert_eq!(
        err(vec![with("destinationPortRange", json!("80-70"))]),
        "securityRules[0] 'r': destination port range '80-70' (N, A-B or *, 0..65535)"
    );
    assert!(
        err(vec![with("sourceAddressPrefix", json!("10.0.0.0/33"))]).contains("address prefix '10.0.0.0/33'")
    );
    assert!(
        err(vec![with("sourceApplicationSecurityGroups", json!([{"id": "x"}]))])
            .contains("exactly one of source")
    );
    assert_eq!(
        err(vec![r.clone(), with("priority", json!(100))]),
        "securityRules[1] 'r': repeated rule name"
    );
    let mut twin = r.clone();
    twin["name"] = json!("twin");
    assert_eq!(err(vec![r.clone(), twin]), "securityRules[1] 'twin': priority 100 repeated in its direction");
    assert!(err(vec![with("sourcePortRange", json!("1024"))]).contains("source ports must be '*'"));
    let unknown = Nsg::from_json(r#"{"securityRules": [], "extra": 1}"#).unwrap_err().to_string();
    assert!(unknown.starts_with("not valid NSG JSON: unknown field `extra`"), "{unknown}");
    let doc =
        json!({"securityRules": [with("destinationApplicationSecurityGroups", json!([{"id": "nope"}]))]});
    let mut doc = doc;
    doc["securityRules"][0]["properties"].as_object_mut().unwrap().remove("destinationAddressPrefix");
    assert_eq!(
        Nsg::from_json(&doc.to_string()).unwrap_err().to_string(),
        "securityRules[0] 'r': unknown application security group 'nope'"
    );
}

#[test]
fn the_form_round_trips_through_json() {
    let doc: NsgDoc = serde_json::from_value(
        json!({"applicationSecurityGroups": [{"name": "web", "members": ["10.1.0.10"]}],
        "securityRules": [rule("a", 100, "Inbound", "Allow", "Internet", "*", "443")]}),
    )
    .unwrap();
    let back: NsgDoc = serde_json::from_str(&serde_json::to_string(&doc).unwrap()).unwrap();
    assert_eq!(back, doc);
}

/// Small rule sets over a small address space, one direction (Inbound at tenant VMs).
const ADDRS: [&str; 5] = ["*", "10.1.0.10", "10.1.0.41", "10.1.0.0/24", "VirtualNetwork"];
const PORTS: [&str; 4] = ["*", "22", "80", "22-80"];
const IPS: [Ipv4Addr; 4] = [WEB, DB, OTHER, NET];

fn rules() -> impl Strategy<Value = Vec<(bool, usize, usize, usize, bool)>> {
    prop::collection::vec(
        (any::<bool>(), 0..ADDRS.len(), 0..ADDRS.len(), 0..PORTS.len(), any::<bool>()),
        1..6,
    )
}

fn build(spec: &[(bool, usize, usize, usize, bool)], priorities: &[i64]) -> Nsg {
    let rules = spec
        .iter()
        .zip(priorities)
        .enumerate()
        .map(|(i, (&(allow, s, d, p, udp), &prio))| {
            let mut r = rule(
                &format!("r{i}"),
                prio,
                "Inbound",
                if allow { "Allow" } else { "Deny" },
                ADDRS[s],
                ADDRS[d],
                PORTS[p],
            );
            r["properties"]["protocol"] = json!(if udp { "Udp" } else { "Tcp" });
            r
        })
        .collect();
    nsg(rules)
}

fn keys() -> impl Iterator<Item = (Ipv4Addr, Ipv4Addr, Proto, u16)> {
    IPS.into_iter().flat_map(|s| {
        IPS.into_iter().flat_map(move |d| {
            [Proto::Tcp, Proto::Udp]
                .into_iter()
                .flat_map(move |p| [22u16, 80, 443].map(move |port| (s, d, p, port)))
        })
    })
}

proptest! {
    /// Reordering priorities changes a verdict only where an Allow and a Deny rule both match.
    #[test]
    fn order_matters_only_across_overlapping_allow_and_deny(spec in rules(), seed in any::<u64>()) {
        let n = spec.len() as i64;
        let forward: Vec<i64> = (0..n).map(|i| 100 + i).collect();
        let mut shuffled = forward.clone();
        shuffled.rotate_left((seed % n as u64) as usize);
        shuffled.reverse();
        let (a, b) = (build(&spec, &forward), build(&spec, &shuffled));
        for (s, d, p, port) in keys() {
            if a.allows(s, d, p, port) == b.allows(s, d, p, port) {
                continue;
            }
            // A differing verdict needs an Allow and a Deny user rule matching this key.
            let matching: Vec<bool> = a.inbound[..spec.len()]
                .iter()
                .filter(|r| a.matches(r, &a.listed(s), &a.listed(d), p, port))
                .map(|r| r.allow)
                .collect();
            prop_assert!(matching.contains(&true) && matching.contains(&false), "{s} {d} {p:?} {port}: {spec:?}");
        }
    }
}
