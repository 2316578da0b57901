//! Churn on whole tasks: counts, what it never touches, link flaps, new prefixes.

use super::*;
use crate::bgp::task::Task;
use crate::id::QueryId;

fn task(id: &str) -> Task {
    Task::generate(&id.parse::<QueryId>().unwrap()).unwrap()
}

#[test]
fn churn_counts_follow_the_level_and_never_touch_the_target() {
    for (level, seed) in [(1, 0), (2, 1), (3, 2), (3, 5), (4, 3)] {
        let t = task(&format!("bgp-v1-L{level}-s{seed}-i0-n{}", [30, 60, 200, 200, 700][level as usize]));
        let (lo, hi) = count_range(t.spec.level);
        let events =
            t.churn.iter().filter(|c| !c.name.ends_with("-up") && !c.name.ends_with("-roa")).count() as u64;
        assert!(events <= hi, "{}: {events}", t.id);
        if lo > 0 {
            assert!(events > 0, "{}", t.id);
        }
        let inc = &t.incident;
        for c in &t.churn {
            for sd in &c.seeds {
                assert!(!inc.prefixes.iter().any(|q| q.contains(&sd.prefix) || sd.prefix.contains(q)));
                assert!(!inc.prefix.contains(&sd.prefix) && !sd.prefix.contains(&inc.prefix));
            }
            assert!(c.at.iter().all(|a| !inc.ases.contains(a)));
        }
    }
}

#[test]
fn a_link_flap_changes_only_its_stubs_prefixes() {
    let is_flap = |c: &&Change| c.graph.is_some() && c.name.ends_with("-down");
    let t = (0..10)
        .map(|seed| task(&format!("bgp-v1-L3-s{seed}-i0-n200")))
        .find(|t| t.churn.iter().any(|c| is_flap(&c)))
        .expect("a link flap within ten L3 seeds");
    let w = &t.world;
    let down = t.churn.iter().find(is_flap).unwrap();
    let stub = down.at[0];
    let g = down.graph.as_deref().unwrap();
    let base = crate::bgp::stable_states(&w.graph, &w.vrps, w.topology.baseline_seeds());
    let after = crate::bgp::stable_states(g, &w.vrps, w.topology.baseline_seeds());
    for (x, y) in base.iter().zip(&after) {
        let own = w.topology.prefixes.iter().any(|p| p.net == x.prefix() && p.owner == stub);
        if own {
            continue;
        }
        for vp in &w.collectors.vps {
            assert_eq!(
                crate::bgp::timeline::vp_view(&w.graph, x, vp),
                crate::bgp::timeline::vp_view(g, y, vp),
                "{}",
                x.prefix()
            );
        }
    }
}

/// Every new prefix of `t` overlaps no prefix of the world, of the incident, of the distractor
/// or of another new prefix, is announced by its owner only after its ROA (its own, the only
/// one covering it) and route object exist, and is RPKI-valid.
fn check_fresh(t: &Task) {
    use crate::bgp::rpki::Validity;
    let w = &t.world;
    let end = w.clock.end();
    let vrps = crate::bgp::tools::view::vrps_at(t, end);
    let incs = std::iter::once(&t.incident).chain(&t.distractor);
    let guarded: Vec<IpNet> = incs.flat_map(|i| i.prefixes.iter().copied().chain([i.prefix])).collect();
    let overlap = |a: &IpNet, b: &IpNet| a.contains(b) || b.contains(a);
    for (k, f) in t.fresh.iter().enumerate() {
        let id = &t.id;
        assert!(!w.topology.prefixes.iter().any(|p| overlap(&p.net, &f.prefix)), "{id}: {}", f.prefix);
        assert!(!guarded.iter().any(|g| overlap(g, &f.prefix)), "{id}: {}", f.prefix);
        assert!(t.fresh[k + 1..].iter().all(|g| !overlap(&g.prefix, &f.prefix)), "{id}: {}", f.prefix);
        assert!(!t.incident.ases.contains(&f.owner), "{id}");
        let asn = w.topology.ases[f.owner].asn;
        assert_eq!(vrps.validate(f.prefix, asn), Validity::Valid, "{id}: {}", f.prefix);
        assert_eq!(vrps.covering(f.prefix).collect::<Vec<_>>(), vec![&f.roa], "{id}");
        assert!(f.published + LEAD.0 <= f.announced && f.announced <= f.published + LEAD.1, "{id}");
        assert!(t.irr.registered(f.prefix, f.owner, f.published), "{id}: route object");
        let seen: Vec<_> = t.timeline.updates().iter().filter(|u| u.prefix == f.prefix).collect();
        assert!(seen.iter().all(|u| u.secs() >= f.announced), "{id}: {} announced early", f.prefix);
        let origins = seen.iter().filter_map(|u| u.route.as_ref()).map(|r| r.path.last().copied());
        assert!(origins.into_iter().all(|o| o == Some(asn)), "{id}: {}", f.prefix);
    }
}

#[test]
fn v2_churn_announces_new_prefixes_with_valid_roas_and_touches_nothing_else() {
    let ids = (0..4).map(|s| format!("bgp-v2-L3-s{s}-i0-n200")).chain(["bgp-v2-L4-s1-i0-n600".into()]);
    let mut fresh = 0;
    let mut seen_by_vps = 0;
    for id in ids {
        let t = task(&id);
        check_fresh(&t);
        fresh += t.fresh.len();
        let announced = |f: &Fresh| t.timeline.updates().iter().any(|u| u.prefix == f.prefix);
        seen_by_vps += t.fresh.iter().filter(|f| announced(f)).count();
    }
    assert!(fresh >= 5, "new prefixes in five v2 tasks: {fresh}");
    assert!(seen_by_vps * 2 >= fresh, "most new prefixes reach a collector: {seen_by_vps} of {fresh}");
    for seed in 0..3 {
        assert!(task(&format!("bgp-v1-L3-s{seed}-i0-n200")).fresh.is_empty(), "v1 draws no new prefixes");
    }
    let lf = task("bgp-v2-L3-s0-i0-n200-fLF");
    assert!(lf.fresh.is_empty(), "a link failure's graph change would not recompute a new prefix");
}

/// A ROA change of the incident keeps its own effect and gains the new prefixes' ROAs published
/// before it; the new prefixes' sets keep the incident's.
#[test]
fn new_prefix_roas_compose_with_the_incidents() {
    let t = (0..8)
        .map(|s| task(&format!("bgp-v2-L3-s{s}-i0-n200-fRM")))
        .find(|t| t.fresh.iter().any(|f| f.published <= t.incident.start))
        .expect("an RM task with a ROA published before its start");
    check_fresh(&t);
    let inc = &t.incident;
    let victim = t.world.topology.ases[inc.victim].asn;
    let end = crate::bgp::tools::view::vrps_at(&t, t.world.clock.end());
    assert!(end.validate(inc.prefix, victim).is_invalid(), "{}: the misconfiguration holds", t.id);
    assert!(!t.world.vrps.validate(inc.prefix, victim).is_invalid(), "{}", t.id);
    let start = inc.changes[inc.start_change].vrps.as_deref().unwrap();
    for f in t.fresh.iter().filter(|f| f.published <= inc.start) {
        assert!(start.roas().contains(&f.roa), "{}: {}", t.id, f.prefix);
    }
    for c in t.churn.iter().filter(|c| c.vrps.is_some() && c.t >= inc.start) {
        let v = c.vrps.as_deref().unwrap();
        assert!(v.validate(inc.prefix, victim).is_invalid(), "{}: {} undoes the incident", t.id, c.name);
    }
}

#[test]
fn churn_is_deterministic() {
    for id in ["bgp-v2-L3-s2-i0-n200", "bgp-v2-L2-s5-i0"] {
        let (a, b) = (task(id), task(id));
        assert_eq!(a.fresh, b.fresh, "{id}");
        let key =
            |t: &Task| t.churn.iter().map(|c| (c.t, c.name.clone(), c.seeds.clone())).collect::<Vec<_>>();
        assert_eq!(key(&a), key(&b), "{id}");
        assert_eq!(a.timeline.updates(), b.timeline.updates(), "{id}");
        assert_eq!(a.irr, b.irr, "{id}");
    }
}

#[test]
fn nested_overlap_agrees_with_checking_every_prefix() {
    // Short prefixes over a few small address blocks, so nesting in both directions, equal
    // prefixes and host bits past the length (which truncation must ignore) all occur.
    let mut s = Stream::new("netpress|test|nested", crate::seed::Width::W32);
    let draw = |s: &mut Stream| -> IpNet {
        let len = s.range(8, 24) as u8;
        if s.chance(1, 4) {
            let addr = std::net::Ipv6Addr::new(0x2001, 0xdb8, s.below(4) as u16, 0, 0, 0, 0, 0);
            IpNet::new(addr.into(), len + 24).unwrap()
        } else {
            let addr = std::net::Ipv4Addr::new(10, s.below(4) as u8, s.below(256) as u8, s.below(256) as u8);
            IpNet::new(addr.into(), len).unwrap()
        }
    };
    for _ in 0..50 {
        let guarded: Vec<IpNet> = (0..s.range(0, 12)).map(|_| draw(&mut s)).collect();
        let nested = Nested::new(&guarded);
        for _ in 0..200 {
            let p = draw(&mut s);
            let naive = guarded.iter().any(|q| q.contains(&p) || p.contains(q));
            assert_eq!(nested.overlaps(p), naive, "{p} against {guarded:?}");
        }
    }
}
