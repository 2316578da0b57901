//! Ids, the redraw loop and the truth on whole tasks.

use super::*;
use crate::bgp::incident::Culprit;

fn id(s: &str) -> QueryId {
    s.parse().unwrap()
}

#[test]
fn ids_and_knobs_are_checked() {
    let sp = spec(&id("bgp-v1-L2-s0-i0-n60-fEH+RL1-c3-v10-w4-t12")).unwrap();
    assert_eq!(sp.knobs, Knobs { ases: Some(60), collectors: Some(3), vps: Some(10), hours: Some(4) });
    assert_eq!(sp.families, vec![Family::Eh, Family::Rl1]);
    assert_eq!(sp.turns, 12);
    assert_eq!(spec(&id("bgp-v1-L3-s0-i0")).unwrap().turns, 30);
    assert!(spec(&id("bgp-v2-L1-s0-i0")).is_ok());
    assert!(spec(&id("bgp-v3-L1-s0-i0-v160")).is_ok() && spec(&id("bgp-v2-L1-s0-i0-c1-v200")).is_ok());
    let err = spec(&id("bgp-v3-L2-s0-i0-c2-v41")).unwrap_err().to_string();
    assert!(err.contains("-v41") && err.contains("at most 40"), "{err}");
    for bad in [
        "bgp-v4-L1-s0-i0",
        "bgp-v3-L1-s0-i0-v161",
        "bgp-v3-L1-s0-i0-c1-v21",
        "bgp-v0-L1-s0-i0",
        "bgp-v1-L5-s0-i0",
        "bgp-v1-L1-s0-i0-n9",
        "bgp-v1-L1-s0-i0-c1-n20",
        "bgp-v1-L1-s0-i0-fRO",
        "bgp-v1-L1-s0-i0-x1",
        "bgp-v1-L1-s0-i0-w049",
        "bgp-v1-L1-s0-i0-vfoo",
        "route-v1-L1-s0-i0",
    ] {
        assert!(spec(&id(bad)).is_err(), "{bad}");
    }
}

#[test]
fn tasks_are_deterministic_and_valid_at_every_level() {
    for level in 1..=3 {
        for seed in 0..6 {
            let qid = id(&format!("bgp-v1-L{level}-s{seed}-i0"));
            let t = Task::generate(&qid).unwrap();
            let again = Task::generate(&qid).unwrap();
            assert_eq!(t.label, again.label);
            assert_eq!(t.timeline.updates(), again.timeline.updates());
            assert_eq!((t.affected.clone(), t.trigger.clone()), (again.affected, again.trigger));
            let need = if level <= 2 { 2 } else { 1 };
            assert!(t.affected.len() >= need, "{qid}: {:?}", t.affected);
            assert!(t.affected.windows(2).all(|w| w[0] < w[1]));
            assert!(t.label.starts_with(&format!("L{level}:")));
        }
    }
}

#[test]
fn every_family_generates_where_offered() {
    // Forced alone, a family can be impossible in one small world (a type-2 leak needs a
    // leaker whose peer would adopt the leak); within four seeds each one generates.
    for level in [Level::L2, Level::L3] {
        for fam in family::offered(level) {
            let made = (0..4).find_map(|seed| {
                let qid = id(&format!("bgp-v1-L{}-s{seed}-i0-f{}", level.number(), fam.code()));
                Task::generate(&qid).ok()
            });
            let t = made.unwrap_or_else(|| panic!("{fam:?} at {level:?} never generates"));
            assert_eq!(t.incident.family, fam);
            assert_eq!(t.incident.culprit == Culprit::Nobody, fam.is_benign());
        }
    }
}

#[test]
fn triggers_follow_the_level() {
    let t1 = Task::generate(&id("bgp-v1-L1-s2-i0")).unwrap();
    let when = t1.trigger.time.unwrap();
    assert!(when.abs_diff(t1.incident.start) <= 600);
    assert_eq!(t1.trigger.prefix, Some(t1.incident.prefix));
    let t4 = Task::generate(&id("bgp-v1-L4-s2-i0-n600-v40")).unwrap();
    assert!(t4.trigger.prefix.is_none() && t4.trigger.name.is_some());
    let org = &t4.world.topology.orgs[t4.world.topology.ases[t4.incident.victim].org];
    assert_eq!(t4.trigger.name.as_deref(), Some(org.name.as_str()));
}

#[test]
fn an_impossible_family_exhausts_generation() {
    // Ten ASes and two vantage points: no type-2 leak in these worlds changes both VPs' routes
    // (L2 needs two), so every redraw and every restart fails.
    let e = Task::generate(&id("bgp-v1-L2-s0-i0-n10-fRL2-v2")).unwrap_err();
    assert!(matches!(e, Error::GenerationExhausted(_)));
}
