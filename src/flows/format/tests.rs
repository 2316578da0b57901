//! Round trips: every format's text parses back to exactly the rows emitted, field by field,
//! on generated tenants and on random connections (proptest).

use proptest::prelude::*;

use super::*;
use crate::flows::T0;
use crate::flows::knobs::{Knobs, TenantKey};
use crate::flows::model::{Connection, Scenario, generate};

fn tenant(knobs: Knobs) -> Tenant {
    Tenant::new(&TenantKey { app: "test".into(), level: 1, seed: 9, knobs }).unwrap()
}

fn round_trip(format: Format, t: &Tenant, tr: &Trace, options: Options) {
    let emitted = emit(format, t, tr, options);
    let text = render(format, t, tr, &emitted);
    let parsed = parse(format, &text, &Inventory::new(&tr.vms)).unwrap_or_else(|e| panic!("{format:?}: {e}"));
    assert_eq!(parsed.records.len(), emitted.len(), "{format:?}");
    for (i, (p, e)) in parsed.records.iter().zip(&emitted).enumerate() {
        assert_eq!(p, &e.record, "{format:?} row {i}: {}", parsed.raw(i).unwrap());
    }
    // What `F.raw` shows, written row by row without the file, is the file's own text.
    let (raw, ends) = raw_rows(format, t, tr, &emitted);
    assert_eq!(ends.len(), emitted.len(), "{format:?}");
    for (i, w) in std::iter::once(0).chain(ends.iter().copied()).collect::<Vec<_>>().windows(2).enumerate() {
        assert_eq!(&raw[w[0]..w[1]], parsed.raw(i).unwrap(), "{format:?} row {i}");
    }
}

#[test]
fn every_format_round_trips_a_tenant_with_churn() {
    let t = tenant(Knobs { a: 2, d: 12, c: 20, u: 20, ..Knobs::default() });
    let tr = generate(&t, &Scenario { churn: vec![6], ..Scenario::default() }).unwrap();
    for f in Format::ALL {
        round_trip(f, &t, &tr, Options::default());
    }
    round_trip(Format::Aws5, &t, &tr, Options { aws_interval_s: 600 });
}

/// Written a block at a time, every format gives exactly the rendered text (files of several
/// blocks, so that drains fall inside lines, tuples and Azure records).
#[test]
fn written_files_are_the_rendered_text() {
    let t = tenant(Knobs { d: 10, ..Knobs::default() });
    let tr = generate(&t, &Scenario::default()).unwrap();
    for f in Format::ALL {
        let emitted = emit(f, &t, &tr, Options::default());
        let text = render(f, &t, &tr, &emitted);
        assert!(text.len() > 4 << 16, "{f:?}: {} bytes, under four blocks", text.len());
        let mut written = Vec::new();
        write(f, &t, &tr, &emitted, &mut written).unwrap();
        assert!(written == text.as_bytes(), "{f:?}: the written file differs from the rendered text");
    }
}

fn trace_of(t: &Tenant, minutes: u32, connections: Vec<Connection>) -> Trace {
    let mut connections = connections;
    connections.sort_by_key(|c| (c.start, c.src, c.sport, c.dst, c.dport, c.proto));
    Trace { minutes, vms: t.vms.clone(), connections }
}

fn conn(
    (src_vm, dst_vm): (u32, u32),
    t: &Tenant,
    (start, end): (u64, u64),
    counts: [u64; 4],
    (allow, udp): (bool, bool),
) -> Connection {
    Connection {
        start,
        end,
        src: t.vms[src_vm as usize].ip,
        sport: 40_000,
        dst: t.vms[dst_vm as usize].ip,
        dport: 5432,
        proto: if udp { 17 } else { 6 },
        allow,
        pkts_f: counts[0] as u32,
        bytes_f: counts[1],
        pkts_r: if allow { counts[2] as u32 } else { 0 },
        bytes_r: if allow { counts[3] } else { 0 },
        src_vm,
        dst_vm,
        rtt: 3,
    }
}

#[test]
fn a_twelve_minute_pool_connection_in_azure_tuples() {
    let t = tenant(Knobs::default());
    let c = conn((0, 1), &t, (30_000, 30_000 + 12 * 60_000), [1200, 120_000, 2400, 480_000], (true, false));
    let tr = trace_of(&t, 20, vec![c]);
    let nsg: Vec<(State, u64)> = emit(Format::Nsg2, &t, &tr, Options::default())
        .iter()
        .filter(|e| e.vm == 0)
        .map(|e| (e.record.state, e.record.pkts))
        .collect();
    assert_eq!(nsg, vec![(State::B, 0), (State::C, 500), (State::C, 500), (State::E, 200)]);
    let vnet: Vec<State> = emit(Format::Vnet4, &t, &tr, Options::default())
        .iter()
        .filter(|e| e.vm == 1)
        .map(|e| e.record.state)
        .collect();
    assert_eq!(vnet.len(), 1 + 11 + 1);
    assert_eq!((vnet[0], vnet[12]), (State::B, State::E));
    let text = render(Format::Nsg2, &t, &tr, &emit(Format::Nsg2, &t, &tr, Options::default()));
    assert!(
        text.contains(&format!(
            "{},{},{},40000,5432,T,O,A,B,,,,",
            T0 + 30,
            crate::flows::tenant::dotted(c.src),
            crate::flows::tenant::dotted(c.dst)
        )),
        "{text}"
    );
}

#[test]
fn aws_reply_reject_and_nodata_records() {
    let t = tenant(Knobs::default());
    let ok = conn((0, 1), &t, (1000, 2000), [5, 500, 3, 300], (true, false));
    let mut denied = conn((2, 3), &t, (70_000, 70_000), [2, 120, 0, 0], (false, false));
    denied.src = crate::flows::tenant::SCANNER_NET + 7;
    denied.src_vm = NO_VM;
    let tr = trace_of(&t, 2, vec![ok, denied]);
    let text = render(Format::Aws2, &t, &tr, &emit(Format::Aws2, &t, &tr, Options::default()));
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[0],
        "version account-id interface-id srcaddr dstaddr srcport dstport protocol packets bytes start end action log-status"
    );
    let eni0 = &t.vms[0].eni;
    let (a, b) = (crate::flows::tenant::dotted(ok.src), crate::flows::tenant::dotted(ok.dst));
    assert!(
        lines.contains(
            &format!("2 {} {eni0} {a} {b} 40000 5432 6 5 500 {} {} ACCEPT OK", t.account, T0 + 1, T0 + 2)
                .as_str()
        )
    );
    assert!(
        lines.contains(
            &format!("2 {} {eni0} {b} {a} 5432 40000 6 3 300 {} {} ACCEPT OK", t.account, T0 + 1, T0 + 2)
                .as_str()
        )
    );
    let rejects: Vec<&&str> = lines.iter().filter(|l| l.ends_with("REJECT OK")).collect();
    assert_eq!(rejects.len(), 1);
    assert!(rejects[0].contains(&t.vms[3].eni));
    // Every VM but 0, 1 (minute 0) and 3 (minute 1) is idle in each minute.
    let nodata = lines.iter().filter(|l| l.ends_with("- NODATA")).count();
    assert_eq!(nodata, 2 * t.vms.len() - 3);
}

#[test]
fn scanner_denials_are_one_record_at_the_target() {
    let t = tenant(Knobs::default());
    let tr = generate(&t, &Scenario::default()).unwrap();
    let denied: Vec<&Connection> = tr.connections.iter().filter(|c| !c.allow).collect();
    assert!(!denied.is_empty());
    for f in [Format::Nsg2, Format::Vnet4, Format::Aws2] {
        let rows: Vec<Emitted> =
            emit(f, &t, &tr, Options::default()).into_iter().filter(|e| !e.record.allow).collect();
        assert_eq!(rows.len(), denied.len(), "{f:?}");
        assert!(rows.iter().all(|e| e.record.inbound && e.record.pkts_rev == 0));
    }
    assert!(emit(Format::Gcp, &t, &tr, Options::default()).iter().all(|e| e.record.allow));
}

#[test]
fn bad_text_is_an_error_not_a_panic() {
    let inv = Inventory::default();
    for f in Format::ALL {
        for text in [
            "garbage",
            "{\"records\":[{\"properties\":{\"flows\":[1]}}]}",
            "2 1 eni-x - - - - - - - 1 2 - NODATA",
            "{}",
        ] {
            let _ = parse(f, text, &inv);
        }
    }
    assert!(
        parse(Format::Aws2, "2 1 eni-x - - - - - - - 1 2 - NODATA", &inv)
            .unwrap_err()
            .message
            .contains("unknown interface")
    );
}

fn arb_conn(vms: u32) -> impl Strategy<Value = (u32, u32, u64, u64, [u64; 4], bool, bool)> {
    (
        0..vms,
        0..vms,
        0u64..600_000,
        0u64..900_000,
        prop::array::uniform4(0u64..1_000_000),
        any::<bool>(),
        any::<bool>(),
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]
    #[test]
    fn random_connections_round_trip(cs in prop::collection::vec(arb_conn(6), 1..12), minutes in 2u32..12) {
        let t = tenant(Knobs::default());
        let mut list = Vec::new();
        for (i, (a, b, start, len, counts, allow, udp)) in cs.into_iter().enumerate() {
            if a == b { continue; }
            let mut c = conn((a, b), &t, (start, start + len), counts, (allow, udp));
            c.sport = 32_768 + i as u16;
            list.push(c);
        }
        let tr = trace_of(&t, minutes, list);
        for f in Format::ALL {
            round_trip(f, &t, &tr, Options::default());
        }
    }
}
