//! The registry's objects: one per prefix, a benign newcomer's, the stale share from L3, and
//! what `whois` and `routing-status` show of them.

use super::*;
use crate::bgp::incident::Culprit;
use crate::bgp::task::Task;
use crate::bgp::tools;
use crate::id::QueryId;

fn task(id: &str) -> Task {
    Task::generate(&id.parse::<QueryId>().unwrap()).unwrap()
}

fn stale(t: &Task) -> Vec<&RouteObject> {
    t.irr.objects.iter().filter(|o| o.stale).collect()
}

fn call(t: &Task, call: &str, params: &[(&str, String)]) -> serde_json::Value {
    let args: Vec<String> = params.iter().map(|(k, v)| format!("{k}={v}")).collect();
    let out = tools::run(t, 1, &format!("ripestat {call} {}", args.join(" ")));
    assert_eq!(out.status, 0, "{}", out.output);
    serde_json::from_str::<serde_json::Value>(&out.output).unwrap()["data"].clone()
}

#[test]
fn every_prefix_has_its_owners_object_from_first_seen() {
    for id in ["bgp-v1-L1-s0-i0", "bgp-v1-L3-s1-i0-n200"] {
        let t = task(id);
        let w = &t.world;
        for (p, &seen) in w.topology.prefixes.iter().zip(&w.first_seen) {
            let own: Vec<_> = t.irr.at(p.net, u64::MAX).filter(|o| o.origin == p.owner).collect();
            assert_eq!(own.len(), 1, "{id} {}", p.net);
            assert!(own[0].created <= seen && !t.irr.registered(p.net, p.owner, own[0].created - 1));
        }
        assert!(t.irr.objects.windows(2).all(|o| (o[0].prefix, o[0].origin) < (o[1].prefix, o[1].origin)));
    }
}

#[test]
fn stale_objects_are_five_percent_from_l3_and_name_no_culprit() {
    for id in ["bgp-v1-L1-s1-i0", "bgp-v1-L2-s2-i0"] {
        assert!(stale(&task(id)).is_empty(), "{id}");
    }
    for id in ["bgp-v1-L3-s0-i0-n200", "bgp-v1-L3-s3-i0-n300-fEH", "bgp-v1-L4-s1-i0-n600"] {
        let t = task(id);
        let topo = &t.world.topology;
        let old = stale(&t);
        assert_eq!(old.len(), (topo.prefixes.len() * 5 + 50) / 100, "{id}");
        let mut involved: Vec<AsIx> = t.incident.ases.clone();
        involved.extend(t.incident.new_origin);
        if let Some(d) = &t.distractor {
            involved.extend(d.ases.iter().copied().chain(d.new_origin));
        }
        for o in old {
            let k = topo.prefixes.iter().position(|p| p.net == o.prefix).unwrap();
            let owner = topo.prefixes[k].owner;
            assert_eq!(topo.relation(owner, o.origin), Some(Rel::Provider), "{id}: a former upstream");
            assert!(!involved.contains(&o.origin), "{id}: stale object for an incident AS");
            assert!(o.created + 30 * DAY <= t.world.first_seen[k]);
        }
        assert_eq!(task(id).irr, t.irr, "{id}: same id, same registry");
    }
}

#[test]
fn a_migrations_new_origin_registers_before_it_announces() {
    let t = task("bgp-v1-L2-s0-i0-fBM");
    let (p, w) = (t.incident.prefix, t.incident.new_origin.unwrap());
    let obj = t.irr.at(p, u64::MAX).find(|o| o.origin == w).copied().unwrap();
    assert!(obj.created + 3600 <= t.incident.start && !obj.stale);
    let wasn = t.world.topology.ases[w].asn;
    let wname = wasn.to_string();
    let data = call(&t, "whois", &[("resource", p.to_string())]);
    let origins: Vec<&str> = data["irr_records"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            r.as_array().unwrap().iter().find(|e| e["key"] == "origin").unwrap()["value"].as_str().unwrap()
        })
        .collect();
    assert!(origins.contains(&format!("AS{wasn}").as_str()), "{origins:?}");
    assert_eq!(origins.len(), 2, "the old origin's object stays: {origins:?}");
    let first = &data["irr_records"][0];
    let keys: Vec<&str> = first.as_array().unwrap().iter().map(|e| e["key"].as_str().unwrap()).collect();
    assert_eq!(keys, ["route", "descr", "origin", "mnt-by", "created", "last-modified", "source"]);
    let status = call(&t, "routing-status", &[("resource", p.to_string())]);
    let theirs = status["origins"]
        .as_array()
        .unwrap()
        .iter()
        .find(|o| o["origin"].as_str() == Some(wname.as_str()))
        .unwrap();
    assert_eq!(theirs["route_objects"], serde_json::json!(["NETPRESS"]));
    let before = (obj.created - 60).to_string();
    assert!(!call(&t, "whois", &[("resource", p.to_string())])["irr_records"].as_array().unwrap().is_empty());
    let early = call(&t, "routing-status", &[("resource", p.to_string()), ("timestamp", before)]);
    assert!(
        early["origins"].as_array().unwrap().iter().all(|o| o["origin"].as_str() != Some(wname.as_str()))
    );
}

#[test]
fn harmful_families_register_nothing() {
    for id in ["bgp-v1-L2-s1-i0-fEH", "bgp-v1-L2-s2-i0-fSH", "bgp-v1-L2-s3-i0-fFO"] {
        let t = task(id);
        let Culprit::Offender(x) = t.incident.culprit else { panic!("{id}") };
        let hit = |o: &&RouteObject| {
            t.incident.prefixes.iter().any(|&p| o.prefix.contains(&p) || p.contains(&o.prefix))
        };
        assert!(t.irr.objects.iter().filter(hit).all(|o| o.origin != x), "{id}");
    }
    let t = task("bgp-v1-L2-s4-i0-fBA");
    let w = t.incident.new_origin.unwrap();
    assert!(t.irr.registered(t.incident.prefix, w, t.incident.start));
    assert!(!t.irr.registered(t.incident.prefix, w, t.incident.start - 1));
}

#[test]
fn the_stale_count_is_five_percent_capped_and_v1_keeps_its_count_where_it_generated() {
    // v2: 5%, rounded, never more than the eligible prefixes.
    assert_eq!(stale_count(300, 250, 2), 15);
    assert_eq!(stale_count(300, 10, 2), 10);
    assert_eq!(stale_count(300, 0, 2), 0);
    // v1 from 100 eligible prefixes on: the same 5%.
    assert_eq!(stale_count(300, 250, 1), 15);
    // v1 below 100 eligible: its own count where it generated (550 / 60 = 9) ...
    assert_eq!(stale_count(100, 60, 1), 9);
    // ... and a capped one where it failed (550 / 10 = 55 > 10; no eligible prefix at all).
    assert_eq!(stale_count(100, 10, 1), 10);
    assert_eq!(stale_count(100, 0, 1), 0);
}
