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

/// Every (client, server, port) of every pattern row, for the roles the tenant has, shows up in
/// every window of five minutes or more (docs/flows.md, "Communication patterns", coverage):
/// the rows rare enough to miss a window (an e(30) like db → storage, tcp 389 from the bastion)
/// are the ones coverage forces. The expected combinations are read from the table here, not
/// from the model's own unit list, so a row the model dropped would fail.
#[test]
fn every_row_shows_up_in_every_window() {
    let mut windows = 0;
    for (name, knobs, sc) in crate::cases() {
        if sc.windows.is_empty() {
            continue;
        }
        let (t, tr) = crate::build(&name, &knobs, &sc);
        let expected = table_combos(&t);
        for w in sc.windows.iter().filter(|w| w.len_min >= 5) {
            let (from, to) = (u64::from(w.start_min) * 60_000, u64::from(w.start_min + w.len_min) * 60_000);
            let class = |addr: u32, vm: u32| endpoint_class(&t, &tr, addr, vm);
            let seen: BTreeSet<(String, String, u16)> = tr
                .connections
                .iter()
                .filter(|c| c.start < to && (c.end > from || c.start >= from))
                .map(|c| (class(c.src, c.src_vm), class(c.dst, c.dst_vm), c.dport))
                .collect();
            let missing: Vec<_> = expected.difference(&seen).collect();
            assert!(missing.is_empty(), "{name} {}: {missing:?}", w.name);
            windows += 1;
        }
    }
    assert_eq!(windows, 15, "the flat cases' two windows and the churn cases' one, five seeds each");
}

/// The pattern table's combinations as (client, server, port): a VM by its role's name, an
/// outside endpoint by its kind. Monitoring's scrapes of monitoring and the domain controllers'
/// own DNS and time queries are left out: whether an instance reaches another of its role
/// depends on the instance counts.
fn table_combos(t: &Tenant) -> BTreeSet<(String, String, u16)> {
    let mut out = BTreeSet::new();
    let mut add = |c: &str, s: &str, port: u16| out.insert((c.to_string(), s.to_string(), port));
    let of = |kind: RoleKind| t.roles.iter().filter(move |r| r.kind == kind);
    let hub = |kind: RoleKind| of(kind).next().map(|r| r.name.clone()).expect("the hub's roles");
    let (dc, monitoring, bastion) = (hub(RoleKind::Dc), hub(RoleKind::Monitoring), hub(RoleKind::Bastion));
    for app in t.roles.iter().filter(|r| r.vnet > 0).map(|r| r.vnet).collect::<BTreeSet<_>>() {
        let role = |kind: RoleKind| t.roles.iter().find(|r| r.vnet == app && r.kind == kind);
        let port = |kind: RoleKind| role(kind).map(|r| r.listens[0].1);
        let name = |kind: RoleKind| role(kind).map(|r| r.name.clone());
        let (web, api) = (name(RoleKind::Web).expect("web"), name(RoleKind::Api).expect("api"));
        let p_api = port(RoleKind::Api).expect("api port");
        add("internet", &web, 443);
        add("internet", &web, 80);
        add("lb", &web, 80);
        add("lb", &api, p_api);
        add(&web, &api, p_api);
        for (client, server, port_of) in [
            (RoleKind::Api, RoleKind::Db, RoleKind::Db),
            (RoleKind::Worker, RoleKind::Db, RoleKind::Db),
            (RoleKind::Api, RoleKind::Cache, RoleKind::Cache),
            (RoleKind::Api, RoleKind::Queue, RoleKind::Queue),
            (RoleKind::Worker, RoleKind::Queue, RoleKind::Queue),
        ] {
            if let (Some(c), Some(s), Some(p)) = (name(client), name(server), port(port_of)) {
                add(&c, &s, p);
            }
        }
        for kind in [RoleKind::Worker, RoleKind::Db] {
            if let Some(c) = name(kind) {
                add(&c, "storage", 443);
            }
        }
    }
    for r in &t.roles {
        if r.kind != RoleKind::Dc {
            add(&r.name, &dc, 53);
            add(&r.name, &dc, 123);
        }
        if matches!(r.kind, RoleKind::Web | RoleKind::Api | RoleKind::Bastion) {
            add(&r.name, &dc, 88);
            add(&r.name, &dc, 389);
        }
        if r.kind != RoleKind::Monitoring {
            add(&monitoring, &r.name, 9100);
        }
        if r.vnet > 0 {
            add(&bastion, &r.name, 22);
        }
    }
    add(&monitoring, "telemetry", 443);
    add("admin", &bastion, 22);
    out
}

/// A connection end's class: its VM's role name, else the kind of outside address.
fn endpoint_class(t: &Tenant, tr: &netpress::flows::Trace, addr: u32, vm: u32) -> String {
    use netpress::flows::tenant::{ADMINS, LB, STORAGE, TELEMETRY};
    if vm != NO_VM {
        return t.roles[tr.vms[vm as usize].role].name.clone();
    }
    let kind = match addr {
        a if a == LB => "lb",
        a if a == TELEMETRY => "telemetry",
        a if STORAGE.contains(&a) => "storage",
        a if ADMINS.contains(&a) => "admin",
        a if a >> 17 == (198 << 24 | 18 << 16) >> 17 => "internet",
        _ => "other",
    };
    kind.to_string()
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
