//! Each family's injection on generated worlds: what it seeds, who it blames.

use super::*;
use crate::bgp::routing::stable_states;
use crate::bgp::world::Knobs;
use crate::seed::Width;

fn world(level: Level, seed: u64) -> World {
    let mut s = Stream::new(&format!("netpress|bgp|v1|L{}|s{seed}|i0|inc", level.number()), Width::W32);
    World::generate(&mut s, level, Knobs::default(), 1).unwrap()
}

/// The first placement of `family` over a few seeds.
fn placed(level: Level, family: Family) -> (World, Incident) {
    for seed in 0..20 {
        let w = world(level, seed);
        let base = stable_states(&w.graph, &w.vrps, w.topology.baseline_seeds());
        let mut s = Stream::new(&format!("draw{seed}"), Width::W32);
        let ctx = Ctx { world: &w, base: &base, name: "target" };
        let found = (0..10).find_map(|_| draw(&mut s, &ctx, family));
        if let Some(inc) = found {
            return (w, inc);
        }
    }
    panic!("{family:?} never placed at {level:?}");
}

fn in_window(w: &World, inc: &Incident) {
    let c = &w.clock;
    assert!(inc.start >= c.w0 + 600 && inc.start + 1200 <= c.end(), "start {}", inc.start);
    if let Some(e) = inc.end {
        assert!(e >= inc.start + 600 && e + 600 <= c.end());
        assert!(inc.changes.iter().any(|ch| ch.t == e));
    }
    assert_eq!(inc.changes[inc.start_change].t, inc.start);
    assert!(inc.changes.windows(2).all(|p| p[0].t <= p[1].t));
}

#[test]
fn hijacks_blame_an_outsider_and_announce_its_origin() {
    for family in [Family::Eh, Family::Sh] {
        let (w, inc) = placed(Level::L2, family);
        in_window(&w, &inc);
        let Culprit::Offender(x) = inc.culprit else { panic!() };
        assert_ne!(x, inc.victim);
        assert_ne!(w.topology.ases[x].org, w.topology.ases[inc.victim].org);
        let start = &inc.changes[inc.start_change];
        let seeds = &start.seeds[0];
        assert!(seeds.originations.iter().any(|o| o.at == x));
        if family == Family::Sh {
            let q = seeds.prefix;
            assert!(inc.prefix.contains(&q) && q.prefix_len() > inc.prefix.prefix_len());
        } else {
            assert!(seeds.originations.iter().any(|o| o.at == inc.victim));
        }
    }
}

#[test]
fn a_forged_origin_claims_a_non_neighbour() {
    let (w, inc) = placed(Level::L3, Family::Fo);
    let (x, v) = inc.forged.unwrap();
    assert_eq!(w.topology.relation(x, v), None);
    let o = &inc.changes[0].seeds[0].originations.last().unwrap().path;
    assert_eq!(o, &vec![w.topology.ases[x].asn, w.topology.ases[v].asn]);
}

#[test]
fn leaks_take_from_and_give_to_the_right_relationships() {
    for family in [Family::Rl1, Family::Rl2, Family::Rl3, Family::Rl4] {
        let (w, inc) = placed(Level::L3, family);
        let l = inc.leak.as_ref().unwrap();
        let (from, to) = leak_rels(family);
        assert_eq!(w.topology.relation(l.leaker, l.from), Some(from), "{family:?}");
        assert_eq!(w.topology.relation(l.leaker, l.to), Some(to), "{family:?}");
        assert_ne!(l.from, l.to);
        assert_eq!(inc.culprit, Culprit::Offender(l.leaker));
        assert!(l.routes.iter().all(|(_, p)| p[0] == w.topology.ases[l.leaker].asn));
        assert!(inc.changes[0].seeds.iter().all(|s| s.leaks.len() == 1 && s.leaks[0].at == l.to));
    }
    // L1–L2 leak only the victim's prefixes.
    let (w, inc) = placed(Level::L1, Family::Rl1);
    assert!(
        inc.prefixes.iter().all(|p| w.topology.prefixes.iter().any(|x| x.net == *p && x.owner == inc.victim))
    );
}

#[test]
fn outages_links_and_roas_change_the_world() {
    let (w, inc) = placed(Level::L2, Family::Ow);
    assert!(inc.changes[0].seeds.iter().all(|s| s.originations.is_empty()));
    let owned = w.topology.prefixes.iter().filter(|p| p.owner == inc.victim).count();
    assert_eq!(inc.prefixes.len(), owned, "from L2 the victim withdraws everything");

    let (w, inc) = placed(Level::L2, Family::Lf);
    let Culprit::Link(a, b) = inc.culprit else { panic!() };
    let g = inc.changes[0].graph.as_ref().unwrap();
    assert!(w.graph.relation(a, b).is_some() && g.relation(a, b).is_none());
    assert_eq!(inc.changes[0].seeds.len(), w.topology.prefixes.len());

    let (w, inc) = placed(Level::L2, Family::Rm);
    assert_eq!(inc.culprit, Culprit::Victim(inc.victim));
    let after = inc.vrps_after.as_ref().unwrap();
    let v = w.topology.ases[inc.victim].asn;
    assert!(w.vrps.validate(inc.prefix, v) == crate::bgp::Validity::Valid);
    assert!(after.validate(inc.prefix, v).is_invalid());
}

#[test]
fn benign_controls_blame_nobody() {
    let (w, inc) = placed(Level::L2, Family::Bm);
    assert_eq!(inc.culprit, Culprit::Nobody);
    assert_eq!(inc.end, None);
    assert!(inc.new_roas.iter().all(|&(t, _)| t + 3600 <= inc.start));
    let wn = inc.new_origin.unwrap();
    assert!(inc.changes.last().unwrap().seeds[0].originations.iter().all(|o| o.at == wn));
    in_window(&w, &inc);

    let (w, inc) = placed(Level::L2, Family::Ba);
    let sib = inc.new_origin.unwrap();
    assert_eq!(w.topology.ases[sib].org, w.topology.ases[inc.victim].org);

    let (w, inc) = placed(Level::L2, Family::Bp);
    let o = &inc.changes[0].seeds[0].originations[0];
    assert_eq!(o.at, inc.victim);
    let (to, k) = o.prepend.toward[0];
    assert_eq!(w.topology.relation(inc.victim, to), Some(Rel::Provider));
    assert!((1..=3).contains(&k));
}

#[test]
fn more_specific_leaks_stay_inside_the_prefix() {
    let (_, inc) = placed(Level::L3, Family::Ms);
    assert!((2..=8).contains(&inc.prefixes.len()));
    assert!(inc.prefixes.iter().all(|q| inc.prefix.contains(q) && *q != inc.prefix));
    assert_eq!(inc.culprit, Culprit::Offender(inc.victim));
}
