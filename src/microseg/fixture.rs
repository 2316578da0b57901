//! Every metric on a hand-made six-VM tenant (docs/microseg.md, "Acceptance checklist"): the
//! world, its key sets and a policy are written out here, and each rate, count and partition
//! score the scorer reports is checked against a value worked out by hand in the comments.
//!
//! The tenant: VNet `shop` with two `web` and two `db` VMs, the hub with two `dc` VMs, and
//! P\* = internet → web tcp/80, lb → web tcp/80, web → db tcp/5432, web → dc udp/53,
//! db → dc udp/53 (5 rules). Windows: `train` [0, 15) min visible, `test` [15, 30) hidden; no
//! churn, so all six VMs are seen on both sides.

use std::collections::BTreeSet;

use serde_json::json;

use crate::flows::tenant::{TCP, UDP, ip};
use crate::flows::{
    Connection, Format, Knobs, Layout, NO_VM, Role, RoleKind, Tenant, TenantKey, Trace, Vm, Window,
};

use super::allow::End;
use super::family::Family;
use super::forms::Form;
use super::judge::judge;
use super::policy::{self, Reserved};
use super::score::{ATTACKER, Key, P_ATT, REPRESENTATIVES, Sets, evaluate};
use super::world::{Party, Shape, StarKey, World};

const MIN: u64 = 60_000;
/// Roles by index.
const DC: usize = 0;
const WEB: usize = 1;
const DB: usize = 2;
/// VMs by index into the trace: (address, role, role tag known).
const VMS: [(u32, usize, bool); 6] = [
    (ip(10, 0, 0, 10), DC, true),   // c1
    (ip(10, 0, 0, 11), DC, false),  // c2
    (ip(10, 1, 0, 10), WEB, true),  // w1
    (ip(10, 1, 0, 11), WEB, false), // w2
    (ip(10, 1, 0, 20), DB, false),  // d1
    (ip(10, 1, 0, 21), DB, false),  // d2
];
const C1: u32 = 0;
const C2: u32 = 1;
const W1: u32 = 2;
const W2: u32 = 3;
const D1: u32 = 4;
const D2: u32 = 5;
const LB: u32 = REPRESENTATIVES[2];
const NET: u32 = REPRESENTATIVES[0];

fn role(vnet: u32, kind: RoleKind, listens: (u8, u16)) -> Role {
    let name = format!("{}.{}", if vnet == 0 { "hub" } else { "shop" }, kind.name());
    Role { vnet, kind, name, listens: vec![listens], min: 1 }
}

/// `n` connections of one key starting at minute `at` (a tenant end is `Some(vm)`).
fn conns(
    at: u64,
    n: u64,
    s: (u32, Option<u32>),
    d: (u32, Option<u32>),
    proto: u8,
    port: u16,
) -> Vec<Connection> {
    (0..n)
        .map(|i| Connection {
            start: (at + i) * MIN,
            end: (at + i) * MIN + 1_000,
            src: s.0,
            sport: 40_000,
            dst: d.0,
            dport: port,
            proto,
            allow: true,
            pkts_f: 1,
            bytes_f: 100,
            pkts_r: 1,
            bytes_r: 100,
            src_vm: s.1.unwrap_or(NO_VM),
            dst_vm: d.1.unwrap_or(NO_VM),
            rtt: 1,
        })
        .collect()
}

fn vm(v: u32) -> (u32, Option<u32>) {
    (VMS[v as usize].0, Some(v))
}

fn ext(a: u32) -> (u32, Option<u32>) {
    (a, None)
}

fn world() -> World {
    let knobs = Knobs { a: 1, n: 1, d: 30, c: 0, k: 0, u: 0, layout: Layout::Tier, format: Format::Vnet4 };
    let key = TenantKey { app: "microseg".into(), level: 1, seed: 0, knobs };
    let mut tenant = Tenant::new(&key).expect("a valid key");
    tenant.roles = vec![
        role(0, RoleKind::Dc, (UDP, 53)),
        role(1, RoleKind::Web, (TCP, 80)),
        role(1, RoleKind::Db, (TCP, 5432)),
    ];
    tenant.vms = VMS
        .iter()
        .enumerate()
        .map(|(i, &(ip, role, known))| Vm {
            id: i as u32,
            role,
            ip,
            start_ms: 0,
            stop_ms: u64::MAX,
            known,
            eni: String::new(),
            instance: String::new(),
            mac: String::new(),
        })
        .collect();
    let client = |d: u8| ext(ip(198, 18, d, d));
    let connections = [
        // train: seen by the agent, never scored.
        conns(1, 5, client(5), vm(W1), TCP, 80),
        conns(2, 3, vm(W1), vm(D1), TCP, 5432),
        conns(3, 1, vm(W2), vm(D2), TCP, 5432),
        conns(4, 2, vm(W1), vm(C1), UDP, 53),
        // test: the held-out keys B (with their connection counts).
        conns(16, 3, client(5), vm(W1), TCP, 80),
        conns(16, 1, client(7), vm(W2), TCP, 80),
        conns(17, 2, ext(LB), vm(W1), TCP, 80),
        conns(18, 4, vm(W1), vm(D1), TCP, 5432),
        conns(19, 2, vm(W2), vm(C2), UDP, 53),
        conns(20, 1, vm(D2), vm(C1), UDP, 53),
        // test, left out of B: a scanner's probe and a denied connection.
        conns(21, 1, ext(ip(203, 0, 113, 9)), vm(W1), TCP, 22),
        conns(22, 1, vm(W1), vm(D2), TCP, 22).into_iter().map(|c| Connection { allow: false, ..c }).collect(),
    ]
    .concat();
    let trace = Trace { minutes: 30, vms: tenant.vms.clone(), connections };
    let window = |name: &str, a: u32, b: u32| Window { name: name.into(), start_min: a, len_min: b - a };
    let (internet, lb) = (Party::Res(Reserved::Internet), Party::Res(Reserved::Lb));
    let (dc, web, db) = (Party::Role(DC), Party::Role(WEB), Party::Role(DB));
    let star: BTreeSet<StarKey> = [
        (internet, web, TCP, 80),
        (lb, web, TCP, 80),
        (web, db, TCP, 5432),
        (web, dc, UDP, 53),
        (db, dc, UDP, 53),
    ]
    .into();
    let windows = vec![window("train", 0, 15), window("test", 15, 30)];
    World::assemble(tenant, trace, Shape::Split, windows, "churn".into(), star)
}

fn end(e: (u32, Option<u32>)) -> End {
    End { ip: e.0, vm: e.1 }
}

fn key(s: (u32, Option<u32>), d: (u32, Option<u32>), proto: u8, port: u16) -> Key {
    Key { s: end(s), d: end(d), proto, port }
}

/// The held-out keys and connection counts of the test window, sorted.
fn benign() -> Vec<(Key, u64)> {
    let mut b = vec![
        (key(ext(ip(198, 18, 5, 5)), vm(W1), TCP, 80), 3),
        (key(ext(ip(198, 18, 7, 7)), vm(W2), TCP, 80), 1),
        (key(ext(LB), vm(W1), TCP, 80), 2),
        (key(vm(W1), vm(D1), TCP, 5432), 4),
        (key(vm(W2), vm(C2), UDP, 53), 2),
        (key(vm(D2), vm(C1), UDP, 53), 1),
    ];
    b.sort();
    b
}

/// The key sets, by hand. B and K are what `Sets::new` derives from the trace (checked below);
/// A is seven hand-picked probes rather than the generated lateral-movement set (which draws
/// its sources), and U's ports are the served ones, the five attack ports and tcp/8080 standing
/// for the drawn high port.
fn sets() -> Sets {
    let b = benign();
    // K ⊂ B: the load balancer's probe and the two DNS lookups to a DC.
    let mut k =
        vec![key(ext(LB), vm(W1), TCP, 80), key(vm(W2), vm(C2), UDP, 53), key(vm(D2), vm(C1), UDP, 53)];
    k.sort();
    let mut a = vec![
        key(vm(W1), vm(D2), TCP, 22),          // lateral, web → db: admitted by rule 2
        key(vm(W1), vm(C1), TCP, 3389),        // lateral, web → dc: denied
        key(vm(C2), vm(W2), TCP, 80),          // lateral, dc → web: denied
        key(ext(ATTACKER), vm(W1), TCP, 22),   // attacker: denied (rule 1 is tcp/80 only)
        key(ext(ATTACKER), vm(D1), TCP, 5432), // attacker: denied
        key(vm(D1), ext(NET), TCP, 80),        // exfiltration: admitted by rule 5
        key(vm(D2), ext(NET), TCP, 443),       // exfiltration: admitted by rule 5
    ];
    a.sort();
    let mut ends: Vec<End> = (0..6).map(|v| end(vm(v))).collect();
    ends.extend(REPRESENTATIVES.map(|r| end(ext(r))));
    let mut ports = vec![(TCP, 80), (TCP, 5432), (UDP, 53), (TCP, 8080)];
    ports.extend(P_ATT.map(|p| (TCP, p)));
    ports.sort();
    Sets { b, a, k, ends, ports }
}

/// The policy scored: a `dc` group that forgot c2, a web → db rule open on every tcp port, a
/// CIDR rule letting the databases reach the Internet, a redundant copy of the web → db rule,
/// and no rule for the load balancer's probes.
fn policy() -> policy::Policy {
    policy::parse(&json!({
        "groups": {"web": ["10.1.0.10", "10.1.0.11"], "db": ["10.1.0.20", "10.1.0.21"], "dc": ["10.0.0.10"]},
        "rules": [
            {"src": "internet", "dst": "web", "proto": "tcp", "ports": "80"},
            {"src": "web", "dst": "db", "proto": "tcp", "ports": "any"},
            {"src": "web", "dst": "dc", "proto": "udp", "ports": "53"},
            {"src": "db", "dst": "dc", "proto": "udp", "ports": "53"},
            {"src": "db", "dst": "198.18.0.0/15", "proto": "tcp", "ports": "any"},
            {"src": "web", "dst": "db", "proto": "tcp", "ports": "5432"}
        ],
        "default": "deny"
    }))
    .expect("a valid policy")
}

#[test]
fn b_k_and_u_s_endpoints_come_from_the_trace_as_written_by_hand() {
    let w = world();
    assert_eq!(w.visible, vec![C1, C2, W1, W2, D1, D2], "sorted by address");
    assert_eq!(w.test_vms, w.visible);
    let derived = Sets::new(&w);
    let hand = sets();
    // Train keys (minutes 1..5), the scanner's probe and the denied connection are not in B.
    assert_eq!(derived.b, hand.b);
    assert_eq!(derived.k, hand.k);
    assert_eq!(derived.ends, hand.ends);
}

#[test]
fn each_rate_and_count_equals_the_hand_computed_value() {
    let w = world();
    let m = evaluate(&w, &sets(), &policy());
    // FDR: of the 6 held-out keys, lb → w1 tcp/80 (no lb rule) and w2 → c2 udp/53 (c2 is in
    // no group) are denied; the two Internet clients (rule 1), w1 → d1 (rule 2) and d2 → c1
    // (rule 4) pass. 2 / 6.
    assert_eq!((m.fdr.hit, m.fdr.of), (2, 6));
    // U: 11 endpoints (6 VMs, 5 representatives), ordered pairs with s ≠ d and a tenant end:
    // 11·10 − 5·4 = 90; 9 ports, so |U| = 810. I: internet → web 1·2, lb → web 1·2,
    // web → db 2·2, web → dc 2·2, db → dc 2·2 = 16 keys. GDR: lb → web (2), web → c2 (2) and
    // db → c2 (2) are denied: 6 / 16.
    assert_eq!((m.gdr.hit, m.gdr.of), (6, 16));
    // FAR: of the 7 attack keys, w1 → d2 tcp/22 (rule 2, tcp any) and the two exfiltrations
    // (rule 5) are admitted: 3 / 7.
    assert_eq!((m.far.hit, m.far.of), (3, 7));
    // OP over U ∖ I (810 − 16 = 794): rule 2 admits web → db on the 8 tcp ports of U, 4 pairs ·
    // 8 = 32 keys of which the 4 on 5432 are intended, so 28; rule 5 admits d1, d2 → the
    // Internet representative on the 8 tcp ports, 16. Rules 1, 3, 4 and 6 admit only intended
    // keys. 44 / 794.
    assert_eq!((m.op.hit, m.op.of), (44, 794));
    // CDR: of K's 3 keys, the probe and w2 → c2's lookup are denied: 2 / 3.
    assert_eq!((m.cdr.hit, m.cdr.of), (2, 3));
    // Size: 6 rules, 3 groups, 2 + 2 + 1 = 5 members, 1 rule with a CIDR; P* has 5 rules.
    assert_eq!((m.rules, m.groups, m.members, m.cidr_rules, m.star_rules), (6, 3, 5, 1, 5));
    assert!(!m.correct() && !m.safe());
    let want = [
        "FDR 33.33% (2 of 6 held-out keys denied)",
        "GDR 37.50% (6 of 16 intended keys denied)",
        "FAR 42.86% (3 of 7 attack keys admitted)",
        "OP 5.54% (44 of 794 unintended keys admitted)",
        "CDR 66.67% (2 of 3 critical keys denied)",
        "size: 6 rules (1.20 × P*'s 5), 3 groups, 5 members, 1 CIDR rules",
        // Denied B keys, most connections first, ties in key order (10.1.0.11 < 100.64.0.1).
        "denied: shop.web 10.1.0.11 → hub.dc 10.0.0.11 udp/53: 2 connections",
        "denied: lb 100.64.0.1 → shop.web 10.1.0.10 tcp/80: 2 connections",
        // Admitted attack keys in key order, with the first admitting rule.
        "rule 2 admits attack key shop.web 10.1.0.10 → shop.db 10.1.0.21 tcp/22",
        "rule 5 admits attack key shop.db 10.1.0.20 → internet 198.18.0.1 tcp/80",
        "rule 5 admits attack key shop.db 10.1.0.21 → internet 198.18.0.1 tcp/443",
        // The unintended keys of U each rule admits first (rule 6 is shadowed by rule 2).
        "rule 2 (web → db tcp/any) admits 28 keys the intended policy denies",
        "rule 5 (db → 198.18.0.0/15 tcp/any) admits 16 keys the intended policy denies",
        "critical key denied: shop.web 10.1.0.11 → hub.dc 10.0.0.11 udp/53",
        "critical key denied: lb 100.64.0.1 → shop.web 10.1.0.10 tcp/80",
    ];
    assert_eq!(m.lines, want);
}

/// Role inference on a hand partition. Truth: {c1, c2} {w1, w2} {d1, d2}. Answer: w1, w2
/// `front`; c1, d1, d2 `data`; c2 missing (its own cluster), and one address that is no VM.
#[test]
fn role_cluster_scores_equal_the_hand_computed_values() {
    let w = world();
    let answer = json!({"type": "roles", "data": {
        "10.1.0.10": "front", "10.1.0.11": "front",
        "10.0.0.10": "data", "10.1.0.20": "data", "10.1.0.21": "data", "10.9.9.9": "x"}});
    let v = judge(&w, Family::RoleCluster, Form::Np, Ok(answer));
    // Contingency (rows dc, web, db; columns data, front, {c2}): dc 1 0 1, web 0 2 0,
    // db 2 0 0. Rows 2, 2, 2; columns 3, 2, 1; N = 6, C(6, 2) = 15 pairs.
    // Pairs: same in both Σ C(n_ij, 2) = 1 (w1 w2) + 1 (d1 d2) = 2; same in truth 3; same in
    // the answer C(3, 2) + C(2, 2) = 4.
    // Precision 2/4, recall 2/3, F1 = 2·(1/2)(2/3) / (1/2 + 2/3) = 4/7.
    // ARI = (2 − 3·4/15) / ((3 + 4)/2 − 3·4/15) = 1.2 / 2.7 = 4/9.
    // MI = Σ n_ij/N ln(N n_ij / (a_i b_j)) = 1/6 ln(6/6) + 1/6 ln(6/2) + 2/6 ln(12/4) + 2/6 ln(12/6)
    //    = ½ ln 3 + ⅓ ln 2. H(truth) = ln 3; H(answer) = ½ ln 2 + ⅓ ln 3 + ⅙ ln 6 = ½ ln 3 + ⅔ ln 2.
    // E[MI] (hypergeometric margins; each row a_i = 2, the same for the three rows):
    //   b = 3: n = 1 contributes 0, n = 2 (p = 4/20): 2/6 ln(12/6) · 1/5 = 1/15 ln 2;
    //   b = 2: n = 1 (p = 8/15): 1/6 ln(6/4) · 8/15; n = 2 (p = 1/15): 2/6 ln 3 · 1/15;
    //   b = 1: n = 1 (p = 2/6): 1/6 ln 3 · 1/3.
    //   Per row 1/6 ln 3 − 1/45 ln 2, so E[MI] = ½ ln 3 − 1/15 ln 2.
    // AMI = (MI − E[MI]) / (mean(H) − E[MI]) = (2/5 ln 2) / (¾ ln 3 + ⅓ ln 2 − ½ ln 3 + 1/15 ln 2)
    //     = (2/5 ln 2) / (¼ ln 3 + 2/5 ln 2) ≈ 0.50236.
    let (ln2, ln3) = (2f64.ln(), 3f64.ln());
    let ami = 0.4 * ln2 / (0.25 * ln3 + 0.4 * ln2);
    let truth = [0, 0, 1, 1, 2, 2];
    let pred = [0, 9, 1, 1, 0, 0];
    let s = crate::stats::compare_partitions(&truth, &pred).unwrap();
    for (got, want) in
        [(s.ari, 4.0 / 9.0), (s.ami, ami), (s.precision, 0.5), (s.recall, 2.0 / 3.0), (s.f1, 4.0 / 7.0)]
    {
        assert!((got - want).abs() < 1e-12, "{got} != {want}");
    }
    assert!(!v.correct && v.safe);
    assert!((v.progress - 4.0 / 9.0).abs() < 1e-12, "{}", v.progress);
    assert_eq!(v.why, "ARI 0.444 and pairwise F1 0.571 (both must be ≥ 0.95)");
    assert_eq!(
        v.lines[..3],
        [
            "ARI 0.444, AMI 0.502, pairwise precision 0.500 recall 0.667 F1 0.571 over 6 VMs",
            "1 VMs missing from the answer (each counted as its own cluster)",
            "1 addresses that are not VMs of the visible windows ignored: 10.9.9.9",
        ]
    );
    assert_eq!(v.lines[3..5], ["2 × true shop.db → answer data", "2 × true shop.web → answer front"]);
}

/// Role labelling: c1 and w1 are tagged. Untagged c2 (wrong), w2 and d1 (right), d2 (missing):
/// accuracy 2 / 4; w1's tag changed: 1.
#[test]
fn role_label_accuracy_and_changed_tags_equal_the_hand_count() {
    let w = world();
    let answer = json!({"type": "roles", "data": {
        "10.0.0.10": "hub.dc", "10.0.0.11": "shop.db", "10.1.0.10": "shop.db",
        "10.1.0.11": "shop.web", "10.1.0.20": "shop.db"}});
    let v = judge(&w, Family::RoleLabel, Form::Np, Ok(answer));
    assert!(!v.correct && v.safe);
    assert_eq!(v.progress, 0.5);
    assert_eq!(v.why, "accuracy 50.0% (2 of 4 untagged VMs; must be ≥ 95%), 1 tags changed");
    let wrong: Vec<&String> = v.lines.iter().filter(|l| l.contains(", answered ")).collect();
    assert_eq!(wrong, ["10.0.0.11 is hub.dc, answered shop.db", "10.1.0.21 is shop.db, answered nothing"]);
}
