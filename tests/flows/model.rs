//! Whole-pipeline properties on the test tenants: every format round-trips, a 30-minute trace is
//! the first half of a 60-minute one, every pattern row shows up in every window, and the flows
//! table and graph agree with the connections they come from.

use std::collections::BTreeSet;

use netpress::flows::format::{self, Inventory, Options};
use netpress::flows::graph::Graph;
use netpress::flows::table::{self, Table};
use netpress::flows::tenant::RoleKind;
use netpress::flows::{Format, Knobs, NO_VM, Scenario, Tenant, TenantKey, generate, share};
use netpress::malt::api::{Py, unlimited};

#[test]
fn every_format_round_trips_on_every_case() {
    for (name, knobs, sc) in crate::cases().into_iter().take(8) {
        let (t, tr) = crate::build(&name, &knobs, &sc);
        let inv = Inventory::new(&tr.vms);
        for f in Format::ALL {
            let e = format::emit(f, &t, &tr, Options::default());
            let parsed = format::parse(f, &format::render(f, &t, &tr, &e), &inv).unwrap();
            assert_eq!(parsed.records.len(), e.len(), "{name} {f:?}");
            assert!(parsed.records.iter().zip(&e).all(|(p, e)| *p == e.record), "{name} {f:?}");
        }
    }
}

#[test]
fn thirty_minutes_are_the_start_of_sixty() {
    let key =
        |d| TenantKey { app: "test".into(), level: 1, seed: 4, knobs: Knobs { d, a: 2, ..Knobs::default() } };
    let long = generate(&Tenant::new(&key(60)).unwrap(), &Scenario::default()).unwrap();
    let short = generate(&Tenant::new(&key(30)).unwrap(), &Scenario::default()).unwrap();
    let prefix: Vec<_> = long.connections.iter().filter(|c| c.start < 30 * 60_000).copied().collect();
    assert_eq!(prefix, short.connections);
}

#[test]
fn every_row_shows_up_in_every_window() {
    for (name, knobs, sc) in crate::cases().into_iter().take(8) {
        if sc.windows.is_empty() {
            continue;
        }
        let (t, tr) = crate::build(&name, &knobs, &sc);
        for w in &sc.windows {
            let (from, to) = (u64::from(w.start_min) * 60_000, u64::from(w.start_min + w.len_min) * 60_000);
            let seen: BTreeSet<(RoleKind, u16)> = tr
                .connections
                .iter()
                .filter(|c| c.start < to && (c.end > from || c.start >= from) && c.dst_vm != NO_VM)
                .map(|c| (t.roles[tr.vms[c.dst_vm as usize].role].kind, c.dport))
                .collect();
            for (kind, port) in [
                (RoleKind::Web, 443),
                (RoleKind::Web, 80),
                (RoleKind::Dc, 53),
                (RoleKind::Dc, 123),
                (RoleKind::Dc, 389),
                (RoleKind::Bastion, 22),
            ] {
                assert!(seen.contains(&(kind, port)), "{name} {} {kind:?}/{port}", w.name);
            }
            let storage =
                tr.connections.iter().any(|c| c.dst >> 22 == (100 << 2 | 1) && c.start < to && c.end > from);
            assert!(storage, "{name} {}", w.name);
        }
    }
}

#[test]
fn the_table_and_graph_agree_with_the_connections() {
    let (name, knobs, sc) = crate::cases().remove(0);
    let (t, tr) = crate::build(&name, &knobs, &sc);
    let inv = Inventory::new(&tr.vms);
    let e = format::emit(Format::Gcp, &t, &tr, Options::default());
    let parsed = format::parse(Format::Gcp, &format::render(Format::Gcp, &t, &tr, &e), &inv).unwrap();
    let f = Table::new(Format::Gcp, parsed, &inv, vec![]).unwrap();
    // GCP: the SRC reporter's bytes over all intervals are each connection's bytes_f within the trace.
    let where_src =
        Py::List(vec![Py::List(vec![Py::Str("dir".into()), Py::Str("==".into()), Py::Str("out".into())])]);
    let aggs = Py::List(vec![Py::Tuple(vec![Py::Str("sum".into()), Py::Str("bytes".into())])]);
    let got =
        table::call(&f, "group", vec![Py::Str("proto".into()), aggs, where_src], vec![], &unlimited).unwrap();
    let want: u64 = tr
        .connections
        .iter()
        .filter(|c| c.allow && c.src_vm != NO_VM && c.proto == 6)
        .map(|c| share(c.bytes_f, c.start, c.end, 0, tr.end_ms()))
        .sum();
    let Py::List(rows) = got else { panic!() };
    assert_eq!(rows[0], Py::List(vec![Py::Int(6), Py::Int(want as i64)]));
    let g = Graph::from_trace(&t, &tr, false, None);
    let pairs: BTreeSet<(u32, u32)> =
        tr.connections.iter().filter(|c| c.allow).map(|c| (c.src.min(c.dst), c.src.max(c.dst))).collect();
    assert_eq!(g.number_of_edges(), pairs.len());
}
