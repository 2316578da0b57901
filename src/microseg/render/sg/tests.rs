//! Security-group fixtures (no implicit egress, union over groups, errors) and properties.

use std::net::Ipv4Addr;

use proptest::prelude::*;
use serde_json::json;

use super::*;

const WEB: Ipv4Addr = Ipv4Addr::new(10, 1, 0, 10);
const DB: Ipv4Addr = Ipv4Addr::new(10, 1, 0, 41);
const LONER: Ipv4Addr = Ipv4Addr::new(10, 2, 0, 7);
const NET: Ipv4Addr = Ipv4Addr::new(198, 18, 0, 1);

fn perm(proto: &str, from: i64, to: i64, cidrs: &[&str], groups: &[&str]) -> serde_json::Value {
    json!({"IpProtocol": proto, "FromPort": from, "ToPort": to,
        "IpRanges": cidrs.iter().map(|c| json!({"CidrIp": c})).collect::<Vec<_>>(),
        "UserIdGroupPairs": groups.iter().map(|g| json!({"GroupName": g})).collect::<Vec<_>>()})
}

fn shop() -> serde_json::Value {
    json!({"SecurityGroups": [
        {"GroupName": "web", "Members": ["10.1.0.10"],
         "IpPermissions": [perm("tcp", 443, 443, &["0.0.0.0/0"], &[])],
         "IpPermissionsEgress": [perm("tcp", 5432, 5432, &[], &["db"])]},
        {"GroupName": "db", "Members": ["10.1.0.41"],
         "IpPermissions": [perm("tcp", 5432, 5432, &[], &["web"])],
         "IpPermissionsEgress": []},
        {"GroupName": "ops", "Members": ["10.1.0.41"],
         "IpPermissions": [perm("-1", -1, -1, &["198.51.100.10/32"], &[])]}
    ]})
}

fn sg(doc: &serde_json::Value) -> Sg {
    Sg::from_json(&doc.to_string()).unwrap()
}

#[test]
fn egress_at_the_source_and_ingress_at_the_destination() {
    let s = sg(&shop());
    assert!(s.allows(WEB, DB, Proto::Tcp, 5432));
    assert!(!s.allows(DB, WEB, Proto::Tcp, 5432), "db lists no egress: nothing implicit");
    assert!(s.allows(NET, WEB, Proto::Tcp, 443));
    assert!(!s.allows(WEB, NET, Proto::Tcp, 443), "web's egress reaches db only");
    // Union over a VM's groups: db is also in ops.
    assert!(s.allows(Ipv4Addr::new(198, 51, 100, 10), DB, Proto::Udp, 161));
    assert!(!s.allows(LONER, DB, Proto::Tcp, 5432), "a VM in no group sends nothing");
    assert!(!s.allows(NET, LONER, Proto::Tcp, 443), "and receives nothing");
}

#[test]
fn each_validation_error_names_the_place() {
    let err = |doc: serde_json::Value| Sg::from_json(&doc.to_string()).unwrap_err().to_string();
    let mut d = shop();
    d["SecurityGroups"][0]["IpPermissions"][0]["IpProtocol"] = json!("sctp");
    assert_eq!(err(d), "SecurityGroups[0] 'web' IpPermissions[0]: IpProtocol 'sctp' (tcp, udp, icmp or -1)");
    let mut d = shop();
    d["SecurityGroups"][1]["IpPermissions"][0]["ToPort"] = json!(70000);
    assert!(
        err(d).starts_with("SecurityGroups[1] 'db' IpPermissions[0]: FromPort Some(5432) ToPort Some(70000)")
    );
    let mut d = shop();
    d["SecurityGroups"][0]["IpPermissionsEgress"][0]["UserIdGroupPairs"][0]["GroupName"] = json!("dbs");
    assert_eq!(err(d), "SecurityGroups[0] 'web' IpPermissionsEgress[0]: unknown group 'dbs'");
    let mut d = shop();
    d["SecurityGroups"][0]["IpPermissions"][0]["IpRanges"][0]["CidrIp"] = json!("0.0.0.0");
    assert_eq!(
        err(d),
        "SecurityGroups[0] 'web' IpPermissions[0]: CidrIp '0.0.0.0' (a CIDR such as 10.1.0.0/16)"
    );
    let mut d = shop();
    d["SecurityGroups"][2]["GroupName"] = json!("web");
    assert_eq!(err(d), "SecurityGroups[2]: GroupName 'web' empty or repeated");
    let mut d = shop();
    d["SecurityGroups"][0]["Members"] = json!(["10.1.0.300"]);
    assert!(err(d).starts_with("not valid security groups JSON: invalid IPv4 address syntax"));
}

#[test]
fn the_form_round_trips_through_json() {
    let doc: SgDoc = serde_json::from_value(shop()).unwrap();
    let back: SgDoc = serde_json::from_str(&serde_json::to_string(&doc).unwrap()).unwrap();
    assert_eq!(back, doc);
}

const IPS: [Ipv4Addr; 4] = [WEB, DB, LONER, NET];
const CIDRS: [&str; 3] = ["10.1.0.0/24", "0.0.0.0/0", "198.18.0.1/32"];

fn group_perms() -> impl Strategy<Value = Vec<(usize, bool, usize, bool, u16)>> {
    // (group, egress?, cidr or group peer index, udp?, port)
    prop::collection::vec(
        (0usize..2, any::<bool>(), 0usize..5, any::<bool>(), prop::sample::select(vec![22u16, 80, 5432])),
        0..8,
    )
}

fn doc_of(perms: &[(usize, bool, usize, bool, u16)], reverse: bool) -> serde_json::Value {
    let mut groups: Vec<serde_json::Value> = ["a", "b"]
        .iter()
        .zip([["10.1.0.10", "10.1.0.41"], ["10.1.0.41", "10.2.0.7"]])
        .map(|(name, members)| json!({"GroupName": name, "Members": members, "IpPermissions": [], "IpPermissionsEgress": []}))
        .collect();
    for &(g, egress, peer, udp, port) in perms {
        let (cidrs, pairs): (Vec<&str>, Vec<&str>) =
            if peer < 3 { (vec![CIDRS[peer]], vec![]) } else { (vec![], vec![["a", "b"][peer - 3]]) };
        let p = perm(if udp { "udp" } else { "tcp" }, i64::from(port), i64::from(port), &cidrs, &pairs);
        let field = if egress { "IpPermissionsEgress" } else { "IpPermissions" };
        groups[g][field].as_array_mut().unwrap().push(p);
    }
    if reverse {
        groups.reverse();
        for g in &mut groups {
            for field in ["IpPermissions", "IpPermissionsEgress"] {
                g[field].as_array_mut().unwrap().reverse();
            }
        }
    }
    json!({"SecurityGroups": groups})
}

fn verdicts(s: &Sg) -> Vec<bool> {
    let mut out = Vec::new();
    for src in IPS {
        for dst in IPS {
            for proto in [Proto::Tcp, Proto::Udp] {
                for port in [22, 80, 5432] {
                    out.push(s.allows(src, dst, proto, port));
                }
            }
        }
    }
    out
}

proptest! {
    #[test]
    fn order_of_groups_and_permissions_is_irrelevant(perms in group_perms()) {
        prop_assert_eq!(verdicts(&sg(&doc_of(&perms, false))), verdicts(&sg(&doc_of(&perms, true))));
    }

    #[test]
    fn adding_a_permission_never_removes_an_allowed_key(perms in group_perms(), extra in group_perms()) {
        let before = verdicts(&sg(&doc_of(&perms, false)));
        let after = verdicts(&sg(&doc_of(&[perms.clone(), extra].concat(), false)));
        prop_assert!(before.iter().zip(&after).all(|(b, a)| !b || *a));
    }
}
