//! Topology invariants at every knob setting (docs/malt.md, "The topology"): counts per kind and
//! per (relation, source kind, destination kind), names, attributes, seeded outliers, and
//! the full safety check, on the presets, the knob extremes and random shapes (proptest).

use std::collections::BTreeMap;

use netpress::malt::graph::Working;
use netpress::malt::kind::{AttrValue, Kind, Rel, valid_name};
use netpress::malt::safety::check_all;
use netpress::malt::topo::{BASE_CAPACITY, Shape, TopoKey, Topology};
use proptest::prelude::*;

/// Expected node count per kind.
fn kind_counts(s: Shape) -> BTreeMap<Kind, u64> {
    let (sb, a, nsw, p) = (u64::from(s.s), u64::from(s.a), s.switches(), u64::from(s.p));
    BTreeMap::from([
        (Kind::Jupiter, 1),
        (Kind::Superblock, sb),
        (Kind::Spineblock, sb),
        (Kind::AggBlock, sb * a),
        (Kind::PacketSwitch, nsw),
        (Kind::Port, nsw * p),
        (Kind::Rack, sb * (a + 1)),
        (Kind::Chassis, nsw),
        (Kind::ControlDomain, 2 * sb),
        (Kind::ControlPoint, nsw),
    ])
}

/// Expected edge count per (rel, src kind, dst kind).
fn edge_counts(s: Shape) -> BTreeMap<(Rel, Kind, Kind), u64> {
    let (sb, a, nsw, p) = (u64::from(s.s), u64::from(s.a), s.switches(), u64::from(s.p));
    let agg_sw = sb * a * u64::from(s.w);
    use Kind::*;
    use Rel::*;
    BTreeMap::from([
        ((Contains, Jupiter, Superblock), sb),
        ((Contains, Jupiter, Spineblock), sb),
        ((Contains, Superblock, AggBlock), sb * a),
        ((Contains, AggBlock, PacketSwitch), agg_sw),
        ((Contains, Spineblock, PacketSwitch), nsw - agg_sw),
        ((Contains, PacketSwitch, Port), nsw * p),
        ((Contains, Rack, Chassis), nsw),
        ((Contains, Chassis, PacketSwitch), nsw),
        ((Contains, Chassis, ControlPoint), nsw),
        ((Contains, ControlDomain, ControlPoint), nsw),
        ((Controls, ControlPoint, PacketSwitch), nsw),
    ])
}

/// Checks every invariant of one topology.
fn check(key: TopoKey, full_safety: bool) {
    let t = Topology::build(key);
    let s = key.shape;
    assert_eq!((t.len() as u64, t.edge_count() as u64), (s.nodes(), s.edges()), "{s}");
    let mut kinds = BTreeMap::new();
    for id in 0..t.len() as u32 {
        *kinds.entry(t.kind(id)).or_insert(0u64) += 1;
        assert!(valid_name(t.name(id)));
        assert_eq!(t.lookup(t.name(id)), Some(id), "names are unique");
    }
    assert_eq!(kinds, kind_counts(s));
    let mut edges = BTreeMap::new();
    for (u, v, r) in t.all_edges() {
        *edges.entry((r, t.kind(u), t.kind(v))).or_insert(0u64) += 1;
        check_names(&t, u, v, r);
    }
    assert_eq!(edges, edge_counts(s));
    let outliers = t.of_kind(Kind::Port).iter().filter(|&&p| t.port_capacity(p) != BASE_CAPACITY).count();
    assert_eq!(outliers as u64, s.outliers());
    for &p in t.of_kind(Kind::Port) {
        assert!([1, 2, 4, 5, 10].contains(&(t.port_capacity(p) / BASE_CAPACITY)));
    }
    if full_safety {
        assert_eq!(check_all(&Working::new(std::sync::Arc::new(t))), vec![]);
    }
}

/// Names follow the naming scheme (docs/malt.md, "The topology") along every edge.
fn check_names(t: &Topology, u: u32, v: u32, r: Rel) {
    let (un, vn) = (t.name(u), t.name(v));
    let ok = match (r, t.kind(u), t.kind(v)) {
        (Rel::Contains, Kind::PacketSwitch, Kind::Port) => vn.starts_with(&format!("{un}.p")),
        (Rel::Contains, Kind::AggBlock | Kind::Spineblock, Kind::PacketSwitch) => {
            let stage = t.attr(v, "stage");
            matches!(stage, Some(AttrValue::Int(st)) if vn.starts_with(&format!("{un}.s{st}c")))
        }
        (Rel::Contains, Kind::Chassis, _) => un.strip_suffix("-chassis").is_some_and(|sw| vn.starts_with(sw)),
        (Rel::Controls, _, _) => un == format!("{vn}-cp"),
        (Rel::Contains, Kind::Rack, _) => vn.starts_with(un.trim_end_matches("rack")),
        (Rel::Contains, Kind::ControlDomain, _) => vn.starts_with(un.trim_end_matches(".dom")),
        _ => vn.starts_with(&format!("{un}.")),
    };
    assert!(ok, "{un} -{r}-> {vn}");
}

#[test]
fn presets_satisfy_every_invariant() {
    for shape in [Shape::SMALL, Shape::DEFAULT, Shape::LARGE, Shape::XL] {
        check(TopoKey { shape, seed: 0 }, shape != Shape::XL || cfg!(not(debug_assertions)));
    }
}

#[test]
fn knob_extremes_satisfy_every_invariant() {
    let extremes =
        [(1, 2, 2, 2), (64, 2, 2, 2), (1, 64, 2, 2), (1, 2, 256, 2), (1, 2, 2, 1024), (3, 5, 7, 9)];
    for (s, a, w, p) in extremes {
        check(TopoKey { shape: Shape { s, a, w, p }, seed: 11 }, true);
    }
}

#[test]
fn same_knobs_same_export() {
    let key = TopoKey { shape: Shape::SMALL, seed: 9 };
    assert_eq!(Topology::build(key).node_link_json(), Topology::build(key).node_link_json());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]
    #[test]
    fn random_shapes_satisfy_every_invariant(s in 1u32..4, a in 2u32..6, w in 2u32..12, p in 2u32..12, t: u64) {
        check(TopoKey { shape: Shape { s, a, w, p }, seed: t }, true);
    }
}
