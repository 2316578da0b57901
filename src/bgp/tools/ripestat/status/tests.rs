//! `visibility` and `routing-status` on tasks whose incident fixes what they must show: an
//! outage nobody sees, a hijacker's origin beside the registered one.

use serde_json::Value;

use crate::bgp::incident::Culprit;
use crate::bgp::task::Task;
use crate::bgp::tools::run;

fn task(id: &str) -> Task {
    Task::generate(&id.parse().unwrap()).unwrap()
}

/// The call's `data`, checking the envelope says success.
fn data(t: &Task, line: &str) -> Value {
    let o = run(t, 1, line);
    assert_eq!(o.status, 0, "{line}: {}", o.output);
    let v: Value = serde_json::from_str(&o.output).unwrap();
    assert_eq!((v["status"].as_str(), v["status_code"].as_u64()), (Some("ok"), Some(200)), "{line}");
    v["data"].clone()
}

fn full_vps(t: &Task) -> usize {
    t.world.collectors.vps.iter().filter(|v| v.feed == crate::bgp::collectors::Feed::Full).count()
}

/// Per collector: (full-table peer count, peers not seeing), IPv4.
fn v4_counts(d: &Value) -> Vec<(u64, usize)> {
    d["visibilities"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            let missing = c["ipv4_full_table_peers_not_seeing"].as_array().unwrap().len();
            (c["ipv4_full_table_peer_count"].as_u64().unwrap(), missing)
        })
        .collect()
}

#[test]
fn visibility_shows_every_full_peer_losing_an_outage() {
    let t = task("bgp-v1-L2-s1-i0-fOW");
    let (p, start) = (t.incident.prefix, t.incident.start);
    assert!(p.addr().is_ipv4(), "this id's victim prefix is IPv4");
    let before = data(&t, &format!("ripestat visibility resource={p} query_time={}", start - 60));
    let counts = v4_counts(&before);
    assert_eq!(counts.len(), t.world.collectors.count);
    assert!(counts.iter().all(|&(_, missing)| missing == 0), "before: everyone sees it: {counts:?}");
    let total: u64 = counts.iter().map(|c| c.0).sum();
    assert!(total >= full_vps(&t) as u64, "each full VP counts at every collector it feeds");
    let during = data(&t, &format!("ripestat visibility resource={p} query_time={}", start + 300));
    assert!(v4_counts(&during).iter().all(|&(n, missing)| n as usize == missing), "during: nobody");
    let first = &during["visibilities"][0];
    assert_eq!(first["probe"]["name"], "RC00");
    assert_eq!(first["ipv6_full_table_peer_count"], 0, "an IPv4 prefix has no IPv6 peers to count");
    let gone = &first["ipv4_full_table_peers_not_seeing"][0];
    assert!(gone["asn"].is_u64() && gone["ip"].as_str().unwrap().starts_with("192.0.2."), "{gone}");
    assert_eq!(during["resource"], p.to_string());
    let seeing =
        data(&t, &format!("ripestat visibility resource={p} query_time={} include=peers_seeing", start - 60));
    let listed = seeing["visibilities"][0]["ipv4_full_table_peers_seeing"].as_array().unwrap().len();
    assert_eq!(listed as u64, counts[0].0);
}

#[test]
fn routing_status_shows_the_hijackers_origin_beside_the_registered_one() {
    let t = task("bgp-v1-L2-s0-i0-fEH");
    let tp = &t.world.topology;
    let (p, start) = (t.incident.prefix, t.incident.start);
    let Culprit::Offender(x) = t.incident.culprit else { panic!("a hijacker") };
    let (v, x) = (tp.ases[t.incident.victim].asn.to_string(), tp.ases[x].asn.to_string());
    let d = data(&t, &format!("ripestat routing-status resource={p} timestamp={}", start + 300));
    let origins: Vec<(&str, usize)> = d["origins"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| (o["origin"].as_str().unwrap(), o["route_objects"].as_array().unwrap().len()))
        .collect();
    assert!(origins.contains(&(v.as_str(), 1)), "the registered origin: {origins:?}");
    assert!(origins.contains(&(x.as_str(), 0)), "the hijacker, without a route object: {origins:?}");
    assert_eq!(d["first_seen"]["origin"], v.as_str());
    assert!(
        crate::bgp::tools::time::parse(d["first_seen"]["time"].as_str().unwrap()).unwrap() < t.world.clock.w0
    );
    assert_eq!(
        d["last_seen"]["time"],
        crate::bgp::tools::time::iso(start + 300),
        "still seen: the moment itself"
    );
    let vis = &d["visibility"]["v4"];
    assert_eq!(vis["total_ris_peers"].as_u64(), Some(full_vps(&t) as u64));
    assert!(vis["ris_peers_seeing"].as_u64().unwrap() >= 1);
    assert!(d["less_specifics"].is_array() && d["more_specifics"].is_array());

    let a = data(&t, &format!("ripestat routing-status resource=AS{v}"));
    assert!(a["announced_space"]["v4"]["prefixes"].as_u64().unwrap() >= 1, "{a}");
    assert!(a["observed_neighbours"].as_u64().unwrap() >= 1);
    assert!(a.get("origins").is_none(), "an AS has announced space, not origins");
    let host = p.addr().to_string();
    let by_address = data(&t, &format!("ripestat routing-status resource={host}"));
    assert_eq!(by_address["resource"], p.to_string(), "an address resolves to its routed prefix");
}

#[test]
fn bad_parameters_answer_as_ripestat_errors() {
    let t = task("bgp-v1-L1-s0-i0");
    for (line, message) in [
        ("ripestat visibility resource=AS64512 include=everything", "Invalid include: everything"),
        (
            "ripestat routing-status resource=AS64512 starttime=0",
            "Parameter starttime not supported by routing-status",
        ),
        ("ripestat visibility", "Missing parameter: resource"),
        ("ripestat routing-status resource=nonsense", "The given resource is not valid: nonsense"),
    ] {
        let o = run(&t, 1, line);
        assert_eq!(o.status, 22, "{line}");
        let v: Value = serde_json::from_str(&o.output).unwrap();
        assert_eq!(
            (v["status_code"].as_u64(), v["messages"][0][1].as_str()),
            (Some(400), Some(message)),
            "{line}"
        );
    }
    let never = data(&t, "ripestat routing-status resource=AS65000");
    assert!(never.get("first_seen").is_none(), "an AS never seen has no first or last seen");
}

#[test]
fn an_as_without_ipv6_space_is_not_missing_from_ipv6_peers() {
    let t = task("bgp-v1-L2-s0-i0");
    let tp = &t.world.topology;
    assert!(tp.prefixes.iter().any(|p| p.net.addr().is_ipv6()), "the world has IPv6");
    let owner = |v6: bool| {
        tp.ases.iter().map(|a| a.asn).find(|&asn| {
            let has = |fam: bool| {
                tp.prefixes.iter().any(|p| tp.ases[p.owner].asn == asn && p.net.addr().is_ipv6() == fam)
            };
            has(false) && has(true) == v6
        })
    };
    let v4_only = owner(false).expect("an AS with IPv4 space only");
    let d = data(&t, &format!("ripestat visibility resource=AS{v4_only}"));
    for c in d["visibilities"].as_array().unwrap() {
        assert_eq!(c["ipv6_full_table_peer_count"], 0, "{c}");
        assert!(c["ipv6_full_table_peers_not_seeing"].as_array().unwrap().is_empty());
    }
    let dual = owner(true).expect("an AS with both");
    let d = data(&t, &format!("ripestat visibility resource=AS{dual}"));
    assert!(
        d["visibilities"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c["ipv6_full_table_peer_count"].as_u64() > Some(0))
    );
}
