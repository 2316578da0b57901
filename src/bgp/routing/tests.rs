//! The model's rules one at a time, each on the smallest graph that shows it. ASNs are the
//! index plus 1 unless a test says otherwise, so `path` reads as indexes + 1.

use super::*;
use crate::bgp::rpki::Roa;

fn net() -> IpNet {
    "198.18.0.0/24".parse().unwrap()
}

fn graph(n: usize, p2c: &[(usize, usize)], p2p: &[(usize, usize)]) -> Graph {
    Graph::new((1..=n as u32).collect(), p2c, p2p, vec![false; n])
}

fn origin(at: AsIx) -> Seeds {
    Seeds { prefix: net(), originations: vec![Origination::plain(at, at as u32 + 1)], leaks: vec![] }
}

fn paths(g: &Graph, st: &PrefixState) -> Vec<Option<Vec<u32>>> {
    (0..g.len()).map(|a| st.path(g, a)).collect()
}

#[test]
fn customer_beats_peer_beats_provider_whatever_the_length() {
    // 0 originates. 5 hears it from a customer chain 0 -> 6 -> 1 -> 5 (length 4), from its
    // peer 0 directly (length 2) and from its provider 3, which is also 0's (length 3).
    let g = graph(7, &[(0, 6), (6, 1), (1, 5), (0, 3), (5, 3)], &[(0, 5), (0, 2)]);
    let st = stable_state(&g, &Vrps::default(), origin(0));
    assert_eq!(st.path(&g, 5), Some(vec![6, 2, 7, 1]));
    assert_eq!(st.best(5).unwrap().pref, Pref::Customer);
    assert_eq!(st.best(2).unwrap().pref, Pref::Peer);
    assert_eq!(st.best(0).unwrap().pref, Pref::Own);
}

#[test]
fn peer_beats_provider() {
    // 0 originates; 1 peers with 0 and is a customer of 2, which is 0's provider.
    let g = graph(3, &[(0, 2), (1, 2)], &[(0, 1)]);
    let st = stable_state(&g, &Vrps::default(), origin(0));
    assert_eq!(st.path(&g, 1), Some(vec![2, 1]));
    assert_eq!(st.best(1).unwrap().pref, Pref::Peer);
}

#[test]
fn shorter_path_then_lowest_neighbour_asn() {
    // 0 is a customer of 1 and 2; 3 is a customer of both: equal length, lower ASN (1 -> ASN 2) wins.
    let g = graph(4, &[(0, 1), (0, 2), (3, 1), (3, 2)], &[]);
    let st = stable_state(&g, &Vrps::default(), origin(0));
    assert_eq!(st.path(&g, 3), Some(vec![4, 2, 1]));
    // Renumber 1 above 2: the choice follows the ASN, not the index.
    let g = Graph::new(vec![1, 50, 3, 4], &[(0, 1), (0, 2), (3, 1), (3, 2)], &[], vec![false; 4]);
    let st = stable_state(&g, &Vrps::default(), origin(0));
    assert_eq!(st.path(&g, 3), Some(vec![4, 3, 1]));
    // A shorter path beats a lower neighbour: 3 buys from 1 (ASN 2) via a chain, from 2 directly.
    let g = graph(5, &[(0, 4), (4, 1), (0, 2), (3, 1), (3, 2)], &[]);
    let st = stable_state(&g, &Vrps::default(), origin(0));
    assert_eq!(st.path(&g, 3), Some(vec![4, 3, 1]));
}

#[test]
fn valley_free_export() {
    // 0 originates; 1 is 0's provider; 2 peers with 1; 3 is 2's provider; 4 is 2's customer;
    // 5 peers with 2. 2 learns from peer 1: it tells its customer 4 only.
    let g = graph(6, &[(0, 1), (2, 3), (4, 2)], &[(1, 2), (2, 5)]);
    let st = stable_state(&g, &Vrps::default(), origin(0));
    assert_eq!(st.path(&g, 2), Some(vec![3, 2, 1]));
    assert_eq!(st.path(&g, 4), Some(vec![5, 3, 2, 1]));
    assert_eq!(st.path(&g, 3), None, "peer route went up");
    assert_eq!(st.path(&g, 5), None, "peer route went to a peer");
    // A provider route goes down only: 6's provider 1... 0 -> provider 1 -> customer 6 (new).
    let g = graph(8, &[(0, 1), (6, 1), (6, 7)], &[(6, 2)]);
    let st = stable_state(&g, &Vrps::default(), origin(0));
    assert_eq!(st.best(6).unwrap().pref, Pref::Provider);
    assert_eq!(st.path(&g, 7), None, "provider route went up");
    assert_eq!(st.path(&g, 2), None, "provider route went to a peer");
}

#[test]
fn own_origination_wins_and_is_never_filtered() {
    // 0 and 1 both originate; 1 is 0's customer and deploys ROV; the ROA names 0 only.
    let mut g = graph(2, &[(1, 0)], &[]);
    g.rov = vec![true, true];
    let vrps = Vrps::new(&[Roa { prefix: net(), origin: 1, max_len: 24 }]);
    let seeds = Seeds {
        prefix: net(),
        originations: vec![Origination::plain(0, 1), Origination::plain(1, 2)],
        leaks: vec![],
    };
    let st = stable_state(&g, &vrps, seeds);
    assert_eq!(st.path(&g, 0), Some(vec![1]));
    assert_eq!(st.path(&g, 1), Some(vec![2]), "its own Invalid route stays");
}

#[test]
fn rov_drops_invalid_routes_others_carry_them() {
    // 0 hijacks 1's prefix; 2 (ROV) and 3 (no ROV) are 0's providers; 4 is 2's and 3's customer.
    let mut g = graph(5, &[(0, 2), (0, 3), (4, 2), (4, 3)], &[]);
    g.rov[2] = true;
    let vrps = Vrps::new(&[Roa { prefix: net(), origin: 2, max_len: 24 }]);
    let st = stable_state(&g, &vrps, origin(0));
    assert_eq!(st.path(&g, 2), None);
    assert_eq!(st.path(&g, 3), Some(vec![4, 1]));
    assert_eq!(st.path(&g, 4), Some(vec![5, 4, 1]));
    assert_eq!(st.origin(4), Some(1));
}

#[test]
fn prepending_toward_one_neighbour_moves_traffic() {
    // 0 is multihomed to 1 and 2; 3 buys from both. 0 prepends twice toward 1 (ASN 2).
    let g = graph(4, &[(0, 1), (0, 2), (3, 1), (3, 2)], &[]);
    let mut seeds = origin(0);
    seeds.originations[0].prepend = Prepend { all: 0, toward: vec![(1, 2)] };
    let st = stable_state(&g, &Vrps::default(), seeds);
    assert_eq!(st.path(&g, 1), Some(vec![2, 1, 1, 1]));
    assert_eq!(st.path(&g, 3), Some(vec![4, 3, 1]));
    assert_eq!(st.path(&g, 0), Some(vec![1]), "the origin's own path is unprepended");
}

#[test]
fn forged_origin_seed_claims_the_victim_as_origin() {
    // 0 is the victim, 3 the forger (`4 1`); 1 is 0's provider, 2 is 3's; 1 and 2 peer.
    let g = graph(4, &[(0, 1), (3, 2)], &[(1, 2)]);
    let seeds = Seeds {
        prefix: net(),
        originations: vec![
            Origination::plain(0, 1),
            Origination { at: 3, path: vec![4, 1], prepend: Prepend::default() },
        ],
        leaks: vec![],
    };
    let st = stable_state(&g, &Vrps::default(), seeds);
    // 2 prefers its customer 3's forged route (customer beats peer).
    assert_eq!(st.path(&g, 2), Some(vec![3, 4, 1]));
    assert_eq!(st.origin(2), Some(1));
    assert_eq!(st.path(&g, 3), Some(vec![4, 1]));
    // 0 itself is on the forged path, so it would drop it even without its own route.
    assert_eq!(st.path(&g, 0), Some(vec![1]));
}

#[test]
fn a_leak_is_a_customer_route_at_a_provider() {
    // 0 originates; 1 and 2 are providers of leaker 3; 3 learned `2 1` from 1 and leaks it to 2;
    // 4 is 2's provider and 0's provider too (a longer path via 2 is still a customer route).
    let g = graph(5, &[(0, 1), (3, 1), (3, 2), (2, 4), (0, 4)], &[]);
    let mut seeds = origin(0);
    seeds.leaks.push(Leak { at: 2, from: 3, path: vec![4, 2, 1] });
    let st = stable_state(&g, &Vrps::default(), seeds);
    assert_eq!(st.path(&g, 2), Some(vec![3, 4, 2, 1]));
    assert_eq!(st.best(2).unwrap().pref, Pref::Customer);
    // 4 has 0 as a direct customer: shorter customer route wins over the leak via 2.
    assert_eq!(st.path(&g, 4), Some(vec![5, 1]));
    // Without the leak, 2 has no route at all (3 does not export provider routes).
    let st = stable_state(&g, &Vrps::default(), origin(0));
    assert_eq!(st.path(&g, 2), Some(vec![3, 5, 1]), "only the provider route from 4");
}

#[test]
fn leaks_are_injected_only_where_accepted() {
    let mut g = graph(4, &[(0, 1), (3, 1), (3, 2)], &[]);
    let leak = Leak { at: 2, from: 3, path: vec![4, 2, 1] };
    let vrps = Vrps::new(&[Roa { prefix: net(), origin: 9, max_len: 24 }]);
    assert!(g.accepts_leak(&vrps, net(), &leak));
    g.rov[2] = true;
    assert!(!g.accepts_leak(&vrps, net(), &leak), "Invalid at an ROV receiver");
    let mut seeds = origin(0);
    seeds.leaks.push(leak.clone());
    assert_eq!(stable_state(&g, &vrps, seeds).path(&g, 2), None);
    let looped = Leak { at: 2, from: 3, path: vec![4, 3, 1] };
    assert!(!g.accepts_leak(&Vrps::default(), net(), &looped), "receiver on the path");
    let stranger = Leak { at: 0, from: 2, path: vec![3, 1] };
    assert!(!g.accepts_leak(&Vrps::default(), net(), &stranger), "not adjacent");
}

#[test]
fn bad_seeds_are_ignored_not_panicking() {
    let g = graph(2, &[(0, 1), (5, 9)], &[]);
    let seeds = Seeds {
        prefix: net(),
        originations: vec![
            Origination { at: 7, path: vec![8], prepend: Prepend::default() },
            Origination { at: 0, path: vec![], prepend: Prepend::default() },
            Origination { at: 0, path: vec![99], prepend: Prepend::default() },
        ],
        leaks: vec![Leak { at: 9, from: 0, path: vec![1] }],
    };
    let st = stable_state(&g, &Vrps::default(), seeds);
    assert!(paths(&g, &st).iter().all(Option::is_none));
}

#[test]
fn baseline_of_a_generated_topology_reaches_everyone() {
    use crate::bgp::level::Level;
    use crate::seed::{Stream, Width};
    let mut s = Stream::new("reach", Width::W32);
    let t = Topology::generate(&mut s, Level::L2, None).unwrap();
    let g = Graph::from_topology(&t);
    let vrps = Vrps::new(&t.roas);
    for st in stable_states(&g, &vrps, t.baseline_seeds()) {
        // Baseline routes are Valid or NotFound, and the Tier-1 clique joins every cone.
        for a in 0..g.len() {
            let p =
                st.path(&g, a).unwrap_or_else(|| panic!("AS{} has no route to {}", g.asn(a), st.prefix()));
            assert_eq!(p[0], g.asn(a));
            assert_eq!(p.len(), st.best(a).unwrap().len);
            assert_eq!(Some(*p.last().unwrap()), st.origin(a));
        }
    }
}

#[test]
fn shared_states_equal_separate_ones() {
    use crate::bgp::level::Level;
    use crate::seed::{Stream, Width};
    let mut s = Stream::new("share", Width::W32);
    let t = Topology::generate(&mut s, Level::L3, None).unwrap();
    let g = Graph::from_topology(&t);
    let vrps = Vrps::new(&t.roas);
    let mut seeds = t.baseline_seeds();
    // A hijack of the first prefix makes its validity differ from the owner's other prefixes.
    let x = t.len() - 1;
    seeds[0].originations.push(Origination::plain(x, t.ases[x].asn));
    let shared = stable_states(&g, &vrps, seeds.clone());
    for (st, one) in shared.iter().zip(seeds) {
        let alone = stable_state(&g, &vrps, one);
        assert_eq!(paths(&g, st), paths(&g, &alone), "{}", st.prefix());
    }
}
