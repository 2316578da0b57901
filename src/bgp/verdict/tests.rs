use super::*;
use serde_json::json;

fn v(value: Value) -> Result<Verdict, String> {
    parse(value.as_object().unwrap())
}

#[test]
fn the_documented_example_reads() {
    let got = v(json!({"incident_type": "Route-Leak Type1", "offender_asn": "AS64533", "link": null,
        "victim_prefix": "198.18.4.0/22", "victim_asn": 64541, "start_ts": 1748790100, "end_ts": null,
        "affected": [64512, "64530"], "mitigation": {"action": "contact", "target_asn": 64533}, "confidence": 0.8}))
    .unwrap();
    assert_eq!(got.incident_type, Some("route_leak_type1"));
    assert_eq!(got.offender_asn, Some(64533));
    assert_eq!((got.start, got.end), (When::At(1_748_790_100), When::Null));
    assert_eq!(got.affected.unwrap().into_iter().collect::<Vec<_>>(), [64512, 64530]);
    assert_eq!(got.mitigation.unwrap().action, "contact");
}

#[test]
fn aliases_and_vague_types() {
    let t = |s: &str| v(json!({"incident_type": s})).unwrap().incident_type;
    assert_eq!(t("prefix_hijack"), Some("exact_prefix_hijack"));
    assert_eq!(t("TYPE6-LEAK"), Some("more_specific_leak"));
    assert_eq!(t("no incident"), Some("none"));
    assert_eq!(t("route_leak"), None);
    assert_eq!(
        v(json!({"incident_type": "start_ts", "start_ts": "2025-06-01T00:00:00"})).unwrap_err(),
        "incident_type: unknown type \"start_ts\""
    );
}

#[test]
fn errors_name_the_field() {
    let e = |x: Value| v(x).unwrap_err();
    assert_eq!(e(json!({})), "incident_type: missing");
    assert_eq!(
        e(json!({"incident_type": "outage", "offender_asn": "ASx"})),
        "offender_asn: not an AS number: \"ASx\""
    );
    assert_eq!(
        e(json!({"incident_type": "outage", "victim_prefix": "198.18.4.1/22"})),
        "victim_prefix: 198.18.4.1/22 has host bits set"
    );
    assert_eq!(
        e(json!({"incident_type": "outage", "link": [1]})),
        "link: must be a pair of AS numbers [A, B]"
    );
    assert!(
        e(json!({"incident_type": "outage", "mitigation": {"action": "nuke"}}))
            .starts_with("mitigation.action: unknown action")
    );
    assert!(rejection("x: y").starts_with("Error: verdict rejected: x: y; expected {\"incident_type\""));
}

#[test]
fn verdicts_are_found_in_replies() {
    assert!(find("submit {\"incident_type\": \"none\"}").is_some());
    assert!(find("```json\n{\"final_answer\": {\"incident_type\": \"outage\"}}\n```").is_some());
    assert!(find("ripestat whois resource=AS1").is_none());
}

#[cfg(not(target_arch = "wasm32"))]
mod props {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn no_reply_panics(text in "(\\{|\\}|\"|incident_type|offender_asn|link|affected|mitigation|action|:|,|\\[|\\]|AS|6453|-|null|é| )*") {
            if let Some(o) = find(&text) {
                let _ = parse(&o);
            }
        }
    }
}
