//! The picture: the same id draws the same picture, it stays small at any size, and it marks
//! nothing until the episode is scored.

use super::*;
use crate::app::Task as _;
use crate::bgp::Generated;
use crate::view::Picture;

fn task(id: &str) -> Task {
    Task::generate(&id.parse().unwrap()).unwrap()
}

fn ids(p: &Picture) -> BTreeSet<&str> {
    p.nodes.iter().map(|n| n.id.as_str()).collect()
}

fn tone_of<'a>(p: &'a Picture, id: &str) -> Option<&'a PicNode> {
    p.nodes.iter().find(|n| n.id == id)
}

fn all_neutral(p: &Picture) -> bool {
    p.nodes.iter().all(|n| n.tone == Tone::Neutral) && p.edges.iter().all(|e| e.tone == Tone::Neutral)
}

/// The node id of the incident's culprit (an offender or the victim).
fn culprit_id(t: &Task) -> String {
    match t.incident.culprit {
        Culprit::Offender(x) | Culprit::Victim(x) => node_id(&t.world.topology, x),
        other => panic!("not an AS culprit: {other:?}"),
    }
}

#[test]
fn the_same_id_draws_the_same_picture_inside_the_box() {
    for id in ["bgp-v1-L1-s3-i0", "bgp-v1-L2-s5-i1", "bgp-v1-L3-s2-i0"] {
        let p = task_picture(&task(id));
        assert_eq!(p, task_picture(&task(id)), "{id}");
        assert!(!p.nodes.is_empty() && !p.edges.is_empty(), "{id}");
        assert!(p.nodes.iter().all(|n| (0.0..=1000.0).contains(&n.x) && (0.0..=1000.0).contains(&n.y)));
        let shown = ids(&p);
        assert_eq!(shown.len(), p.nodes.len(), "{id}: node ids are unique");
        assert!(p.edges.iter().all(|e| shown.contains(e.from.as_str()) && shown.contains(e.to.as_str())));
    }
}

#[test]
fn an_l4_world_of_a_thousand_shows_tens_of_ases_with_the_incident_and_whole_paths() {
    let t = task("bgp-v1-L4-s1-i0-n1000-v80");
    assert!(t.world.topology.len() == 1000 && t.world.collectors.vps.len() > MAX_ASES);
    let n = Neighbourhood::of(&t, &[]);
    assert!(n.ases.len() <= MAX_ASES && n.ases.len() >= 10, "{} ASes", n.ases.len());
    assert!(focus(&t).iter().all(|a| n.ases.contains(a)), "the incident's ASes are shown");
    assert!(!n.paths.is_empty(), "at least one affected path fits");
    assert!(n.paths.iter().flatten().all(|a| n.ases.contains(a)), "paths are shown whole");
    let p = task_picture(&t);
    assert_eq!(p.nodes.iter().filter(|n| n.role == "as").count(), n.ases.len(), "the cap counts ASes");
    let squares = p.nodes.iter().filter(|n| n.role == "ixp").count();
    assert!(squares <= t.world.topology.ixps.len(), "at most one square per exchange point");
    assert!(p.caption.contains(&format!("of {}", t.world.topology.len())));
}

#[test]
fn nothing_is_marked_until_the_episode_is_scored() {
    let g = Generated::new(task("bgp-v1-L2-s0-i0-fEH"));
    let culprit = culprit_id(g.task());
    assert!(all_neutral(&g.picture()), "the task's picture gives nothing away");
    assert!(ids(&g.picture()).contains(culprit.as_str()));
    let mut ep = g.start(None);
    ep.step("```\nhelp\n```");
    assert_eq!(ep.picture(), None, "mid-investigation the task's picture stands");
    let asn = culprit.trim_start_matches("AS");
    ep.step(&format!("submit {{\"incident_type\": \"exact_prefix_hijack\", \"offender_asn\": {asn}}}"));
    let p = ep.picture().expect("a scored picture");
    assert_eq!(tone_of(&p, &culprit).unwrap().tone, Tone::Bad);
    assert!(p.edges.iter().any(|e| e.tone == Tone::Bad), "the affected paths are marked");
    assert!(p.nodes.iter().all(|n| n.tone != Tone::Broken), "no one was wrongly accused");
}

#[test]
fn a_wrong_accusation_is_marked_and_a_harmless_change_is_not_an_incident() {
    let g = Generated::new(task("bgp-v1-L2-s4-i0-fBP"));
    let t = g.task();
    assert_eq!(t.incident.culprit, Culprit::Nobody);
    let innocent = t.world.topology.ases[t.incident.victim].asn;
    let mut ep = g.start(None);
    ep.step(&format!("submit {{\"incident_type\": \"exact_prefix_hijack\", \"offender_asn\": {innocent}}}"));
    let p = ep.picture().expect("a scored picture");
    assert_eq!(tone_of(&p, &format!("AS{innocent}")).unwrap().tone, Tone::Broken);
    assert!(p.nodes.iter().all(|n| n.tone != Tone::Bad), "no culprit when nothing happened");
    assert!(p.edges.iter().all(|e| e.tone != Tone::Bad));
    assert!(p.edges.iter().any(|e| e.tone == Tone::Good), "the harmless change's paths");
}

#[test]
fn a_failed_link_and_a_forged_adjacency_are_drawn_once_scored() {
    let lf = Generated::new(task("bgp-v1-L2-s2-i0-fLF"));
    let Culprit::Link(a, b) = lf.task().incident.culprit else { panic!("a link failure") };
    let t = &lf.task().world.topology;
    let (a, b) = (node_id(t, a), node_id(t, b));
    let mut ep = lf.start(Some(1));
    ep.step("```\nhelp\n```");
    let p = ep.picture().expect("scored at the turn limit");
    let failed = |e: &&PicEdge| (e.from == a && e.to == b) || (e.from == b && e.to == a);
    let edge = p.edges.iter().find(failed).expect("the failed link is drawn");
    assert_eq!((edge.tone, edge.label.as_str()), (Tone::Bad, "failed"));

    let fo = Generated::new(task("bgp-v1-L2-s3-i0-fFO"));
    let (x, v) = fo.task().incident.forged.expect("a forged adjacency");
    let t = &fo.task().world.topology;
    assert_eq!(t.relation(x, v), None);
    let mut ep = fo.start(Some(1));
    ep.step("```\nhelp\n```");
    let p = ep.picture().expect("scored at the turn limit");
    let (x, v) = (node_id(t, x), node_id(t, v));
    assert!(p.edges.iter().any(|e| e.from == x && e.to == v && e.label == "forged" && e.tone == Tone::Bad));
}

/// At L4 the scored picture shows the distractor's culprit labelled as such, `!` if the verdict
/// accused it; the task's picture does not single it out.
#[test]
fn the_distractor_is_labelled_only_once_scored() {
    let t = task("bgp-v2-L4-s0-i0-n600");
    let Some(Culprit::Offender(x)) = t.distractor.as_ref().map(|d| d.culprit) else {
        panic!("no distractor")
    };
    let d = node_id(&t.world.topology, x);
    assert!(task_picture(&t).nodes.iter().all(|n| !n.label.contains("distractor")));
    let parse = |v: serde_json::Value| crate::bgp::verdict::parse(v.as_object().unwrap()).unwrap();
    let truth = parse(crate::bgp::score::truth(&t));
    let p = scored(&t, Some(&truth));
    let node = tone_of(&p, &d).expect("the distractor's culprit is shown");
    assert!(node.label.ends_with(" distractor") && node.tone == Tone::Neutral, "{node:?}");
    assert!(p.caption.contains("distractor"), "{}", p.caption);
    let asn = t.world.topology.ases[x].asn;
    let wrong = parse(serde_json::json!({"incident_type": "exact_prefix_hijack", "offender_asn": asn}));
    assert_eq!(tone_of(&scored(&t, Some(&wrong)), &d).map(|n| n.tone), Some(Tone::Broken));
}

/// The shown peerings of `t` that run over a route server, as `(a, b, exchange point)`.
fn sessions(t: &Task) -> Vec<(AsIx, AsIx, usize)> {
    let topo = &t.world.topology;
    let links = Neighbourhood::of(t, &[]).links(topo);
    let ex = Exchanges::of(topo, &links);
    links.iter().filter_map(|&(a, b, _)| Some((a, b, ex.via(a, b)?))).collect()
}

/// The edge between node ids `a` and `b`, either way round.
fn edge<'a>(p: &'a Picture, a: &str, b: &str) -> Option<&'a PicEdge> {
    p.edges.iter().find(|e| (e.from == a && e.to == b) || (e.from == b && e.to == a))
}

#[test]
fn a_route_server_peering_is_drawn_through_its_exchange_point() {
    let t = task("bgp-v2-L2-s0-i0");
    let topo = &t.world.topology;
    let shown = sessions(&t);
    assert!(!shown.is_empty(), "the neighbourhood has a route-server peering");
    let p = task_picture(&t);
    assert_eq!(p, task_picture(&task("bgp-v2-L2-s0-i0")));
    let squares: BTreeSet<usize> = shown.iter().map(|s| s.2).collect();
    let ixp_nodes: Vec<&PicNode> = p.nodes.iter().filter(|n| n.role == "ixp").collect();
    assert_eq!(ixp_nodes.len(), squares.len(), "one square per exchange point");
    for &(a, b, i) in &shown {
        let (a, b, x) = (node_id(topo, a), node_id(topo, b), exchanges::node_id(topo, i));
        assert!(edge(&p, &a, &b).is_none(), "{a}–{b} is not a direct line");
        for half in [edge(&p, &a, &x), edge(&p, &x, &b)] {
            let half = half.unwrap_or_else(|| panic!("{a}–{x}–{b} is drawn"));
            assert!(!half.directed && half.tone == Tone::Neutral);
        }
        let node = tone_of(&p, &x).unwrap();
        assert!(node.label.contains(&format!("AS{}", topo.ixps[i].rs_asn)), "{}", node.label);
    }
    assert_eq!(p.nodes.iter().filter(|n| n.role == "as").count(), Neighbourhood::of(&t, &[]).ases.len());
    assert!(p.caption.contains("squares are exchange points"), "{}", p.caption);
    assert!(p.nodes.iter().all(|n| (0.0..=1000.0).contains(&n.y)));
}

#[test]
fn no_exchange_point_is_drawn_without_a_route_server_session() {
    let t = task("bgp-v2-L2-s1-i0");
    assert!(sessions(&t).is_empty() && !t.world.topology.ixps.is_empty());
    let p = task_picture(&t);
    assert!(p.nodes.iter().all(|n| n.role == "as"));
    assert!(!p.caption.contains("exchange"), "{}", p.caption);
}

/// A path over a route-server session marks both halves alike: ✓ for a harmless change, ✗ for
/// an incident.
#[test]
fn the_marks_tone_both_halves_of_a_route_server_session() {
    for (id, tone) in [("bgp-v2-L2-s0-i0", Tone::Good), ("bgp-v2-L2-s9-i0", Tone::Bad)] {
        let t = task(id);
        let topo = &t.world.topology;
        let n = Neighbourhood::of(&t, &[]);
        let ex = Exchanges::of(topo, &n.links(topo));
        let crossed: Vec<(AsIx, AsIx, usize)> = n
            .paths
            .iter()
            .flat_map(|p| p.windows(2))
            .filter_map(|w| Some((w[0], w[1], ex.via(w[0], w[1])?)))
            .collect();
        assert!(!crossed.is_empty(), "{id}: a path crosses a route-server session");
        let p = scored(&t, None);
        for (a, b, i) in crossed {
            let (a, b, x) = (node_id(topo, a), node_id(topo, b), exchanges::node_id(topo, i));
            assert_eq!(edge(&p, &a, &x).map(|e| e.tone), Some(tone), "{id}: {a}–{x}");
            assert_eq!(edge(&p, &x, &b).map(|e| e.tone), Some(tone), "{id}: {x}–{b}");
            assert!(edge(&p, &a, &b).is_none(), "{id}: no line of its own for {a}–{b}");
        }
    }
}

/// A failed route-server session marks and labels both its halves.
#[test]
fn a_failed_route_server_session_marks_both_halves() {
    let t = task("bgp-v2-L3-s8-i0-fLF");
    let topo = &t.world.topology;
    let Culprit::Link(a, b) = t.incident.culprit else { panic!("a link failure") };
    let i =
        sessions(&t).into_iter().find(|s| (s.0, s.1) == (a.min(b), a.max(b))).expect("over a route server").2;
    let p = scored(&t, None);
    let (a, b, x) = (node_id(topo, a), node_id(topo, b), exchanges::node_id(topo, i));
    for (from, to) in [(&a, &x), (&x, &b)] {
        let half = edge(&p, from, to).expect("both halves are drawn");
        assert_eq!((half.tone, half.label.as_str()), (Tone::Bad, "failed"), "{from}–{to}");
    }
    assert!(edge(&p, &a, &b).is_none());
}
