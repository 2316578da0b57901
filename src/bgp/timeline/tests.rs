//! The timeline on graphs small enough to read: ASNs are the index plus 1.

use std::net::{Ipv4Addr, Ipv6Addr};

use super::*;
use crate::bgp::collectors::Feed;
use crate::bgp::routing::Origination;

fn net() -> IpNet {
    "198.18.0.0/24".parse().unwrap()
}

/// 0 originates; 1 and 2 are its providers; 3 is the provider of both; 4 is a customer of 3.
fn graph() -> Arc<Graph> {
    Arc::new(Graph::new((1..=5).collect(), &[(0, 1), (0, 2), (1, 3), (2, 3), (4, 3)], &[], vec![false; 5]))
}

fn vps(list: &[(AsIx, Feed)]) -> Collectors {
    let vps = list
        .iter()
        .enumerate()
        .map(|(k, &(asx, feed))| Vp {
            asx,
            feed,
            collectors: vec![0],
            ip4: Ipv4Addr::new(192, 0, 2, 1 + k as u8),
            ip6: Ipv6Addr::LOCALHOST,
        })
        .collect();
    Collectors { count: 1, vps }
}

fn seeds(origins: &[AsIx]) -> Seeds {
    let originations = origins.iter().map(|&a| Origination::plain(a, a as u32 + 1)).collect();
    Seeds { prefix: net(), originations, leaks: vec![] }
}

fn build(c: &Collectors, explore: bool, changes: &[Change]) -> Timeline {
    let (g, vrps) = (graph(), Arc::new(Vrps::default()));
    let inp = Inputs {
        id: "bgp-v1-L1-s0-i0",
        graph: &g,
        vrps: &vrps,
        collectors: c,
        baseline: &[seeds(&[0])],
        first_seen: &[1_000],
        explore,
    };
    Timeline::build(inp, changes)
}

fn change(t: u64, name: &str, at: AsIx, s: Seeds, failure: Option<Failure>) -> Change {
    Change { t, name: name.into(), at: vec![at], seeds: vec![s], graph: None, vrps: None, failure }
}

fn paths(tl: &Timeline) -> Vec<(usize, Option<Vec<u32>>)> {
    tl.updates().iter().map(|u| (u.vp, u.route.as_ref().map(|r| r.path.clone()))).collect()
}

#[test]
fn a_hijack_reaches_the_vps_it_captures_with_hop_delays() {
    // 4 (ASN 5) starts originating: 3 prefers its customer 4 (shorter), 4 itself originates.
    let c = vps(&[(3, Feed::Full), (4, Feed::Full), (1, Feed::Full)]);
    let tl = build(&c, false, &[change(10_000, "target", 4, seeds(&[0, 4]), None)]);
    assert_eq!(paths(&tl), vec![(1, Some(vec![5])), (0, Some(vec![4, 5]))]);
    let u = tl.updates();
    // h = 0 at the hijacker, 1 at its provider: 5 s + 4 s·h + under 3.001 s of jitter.
    assert!((10_005_000..10_008_001).contains(&u[0].ms), "{}", u[0].ms);
    assert!((10_009_000..10_012_001).contains(&u[1].ms), "{}", u[1].ms);
    assert_eq!(u[1].ms - 10_009_000, jitter("bgp-v1-L1-s0-i0", "target", 4, net()));
    // 2 keeps its customer route to 1 and says nothing.
    assert!(u.iter().all(|u| u.vp != 2));
}

#[test]
fn partial_feeds_withdraw_what_they_no_longer_learn_from_customers() {
    // 4 is a stub under 3: it learns the prefix from its provider, so a partial feed hides it.
    let c = vps(&[(3, Feed::Partial), (4, Feed::Partial)]);
    let tl = build(&c, false, &[]);
    assert!(tl.baseline_route(0, net()).is_some());
    assert!(tl.baseline_route(1, net()).is_none());
    assert_eq!(tl.baseline_route(0, net()).unwrap().1, 1_000);
}

#[test]
fn an_outage_explores_the_other_candidates_first_from_l3() {
    let c = vps(&[(3, Feed::Full)]);
    let out = change(20_000, "target", 0, seeds(&[]), Some(Failure::Origin(1)));
    let tl = build(&c, false, std::slice::from_ref(&out));
    assert_eq!(paths(&tl), vec![(0, None)]);
    let tl = build(&c, true, &[out]);
    // 3 held [4 2 1]; its other candidate [4 3 1] also ends at the failed origin.
    assert_eq!(paths(&tl), vec![(0, Some(vec![4, 3, 1])), (0, None)]);
    let u = tl.updates();
    assert_eq!(u[1].ms - u[0].ms, 30_000);
}

#[test]
fn updates_to_one_prefix_never_overtake_each_other() {
    // The hijack ends one second after it starts: the withdrawal of the hijacked path at the
    // VP next to the hijacker would be due before the announcement; it is moved after it.
    let c = vps(&[(3, Feed::Full)]);
    let on = change(30_000, "on", 4, seeds(&[0, 4]), None);
    let off = change(30_001, "off", 4, seeds(&[0]), None);
    let tl = build(&c, false, &[off, on]);
    assert_eq!(paths(&tl), vec![(0, Some(vec![4, 5])), (0, Some(vec![4, 2, 1]))]);
    let u = tl.updates();
    assert!(u[0].secs() < u[1].secs());
    assert_eq!(u[0].change, 1, "changes apply in time order whatever order they are listed in");
}

#[test]
fn ribs_hold_what_was_last_announced() {
    let c = vps(&[(3, Feed::Full), (4, Feed::Full)]);
    let tl = build(&c, false, &[change(40_000, "target", 4, seeds(&[0, 4]), None)]);
    let before = tl.rib_at(39_999);
    assert_eq!(before.len(), 2);
    assert!(before.iter().all(|e| e.originated == 1_000 && e.route.path.last() == Some(&1)));
    let after = tl.rib_at(50_000);
    assert!(after.iter().all(|e| e.route.path.last() == Some(&5) && e.originated >= 40_005));
    assert_eq!(tl.updates_between(40_000, 50_000).len(), 2);
    assert!(tl.updates_between(0, 40_000).is_empty());
    assert!(tl.updates_between(50_000, 0).is_empty());
}

#[test]
fn failures_match_links_either_way() {
    assert!(Failure::Link(2, 3).used_by(&[9, 3, 2, 1]));
    assert!(Failure::Link(2, 3).used_by(&[2, 3]));
    assert!(!Failure::Link(2, 3).used_by(&[2, 1, 3]));
    assert!(Failure::Origin(1).used_by(&[4, 1]) && !Failure::Origin(1).used_by(&[1, 4]));
}
