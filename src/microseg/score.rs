//! Scoring a policy on the hidden window (docs/microseg.md, "Scoring"): the benign keys B of
//! the test window, the intended keys I of the universe U, the attack keys A and the critical
//! keys K, and the rates over them.
//!
//! B, A and K are explicit key lists, fixed when the world is made (stream `attack`). U is never
//! enumerated: its endpoints fall into classes (same party, same rules matching as source, same
//! as destination), and each (class, class, port) is decided once and multiplied by its pairs.

use std::collections::BTreeMap;

use crate::flows::tenant::{RoleKind, SCANNER_NET, TCP, UDP, dotted, ip};
use crate::seed::{Stream, Width};

use super::allow::{Bits, Compiled, End};
use super::policy::{Policy, Reserved};
use super::world::{Party, World};

/// Ports attackers try beyond the served ones (tcp).
pub const P_ATT: [u16; 5] = [22, 23, 445, 3389, 5985];
/// At most this many attack keys are kept.
pub const MAX_ATTACK: usize = 20_000;

/// A connection key of the hidden window.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Key {
    pub s: End,
    pub d: End,
    pub proto: u8,
    pub port: u16,
}

/// The key sets of a world.
#[derive(Debug, Clone)]
pub struct Sets {
    /// Benign keys with their test-window connection counts.
    pub b: Vec<(Key, u64)>,
    pub a: Vec<Key>,
    pub k: Vec<Key>,
    /// U's endpoints (test VMs, then the five representatives) and ports.
    pub ends: Vec<End>,
    pub ports: Vec<(u8, u16)>,
}

/// The representatives of the external groups in U.
pub const REPRESENTATIVES: [u32; 5] =
    [ip(198, 18, 0, 1), ip(198, 51, 100, 10), ip(100, 64, 0, 1), ip(100, 64, 1, 10), ip(100, 64, 2, 10)];
/// The attacker of the injected set.
pub const ATTACKER: u32 = ip(203, 0, 113, 250);

/// The party of an endpoint.
pub fn party(w: &World, e: End) -> Party {
    match e.vm {
        Some(v) => Party::Role(w.trace.vms[v as usize].role),
        None => Party::Res(Reserved::of(e.ip).unwrap_or(Reserved::Internet)),
    }
}

/// An endpoint as explanations name it: `shop.db 10.1.0.41`, `internet 198.18.0.1`.
pub fn label(w: &World, e: End) -> String {
    let p = match party(w, e) {
        Party::Role(r) => w.tenant.roles[r].name.clone(),
        Party::Res(r) => r.name().to_string(),
    };
    format!("{p} {}", dotted(e.ip))
}

fn proto_name(p: u8) -> &'static str {
    if p == UDP { "udp" } else { "tcp" }
}

/// `a → b tcp/5432`.
pub fn key_text(w: &World, k: &Key) -> String {
    format!("{} → {} {}/{}", label(w, k.s), label(w, k.d), proto_name(k.proto), k.port)
}

impl Sets {
    pub fn new(w: &World) -> Sets {
        let mut s = Stream::new(&w.tenant.key.part("attack"), Width::W64);
        let (t0, t1) = w.test();
        let vm_end = |v: u32| End { ip: w.trace.vms[v as usize].ip, vm: Some(v) };
        let ext = |ip: u32| End { ip, vm: None };
        let conn_end = |ip: u32, vm: u32| if vm == crate::flows::NO_VM { ext(ip) } else { vm_end(vm) };
        // Sorting the keys and counting runs gives what a map from key to count would, in the
        // same order; at ~1,000 VMs the test window has hundreds of thousands of connections,
        // and a tree insert per connection was a tenth of the world's build time.
        let mut keys: Vec<Key> = w
            .trace
            .connections
            .iter()
            .filter(|c| c.allow && c.start >= t0 && c.start < t1 && c.src >> 8 != SCANNER_NET >> 8)
            .map(|c| Key {
                s: conn_end(c.src, c.src_vm),
                d: conn_end(c.dst, c.dst_vm),
                proto: c.proto,
                port: c.dport,
            })
            .collect();
        keys.sort_unstable();
        let mut b: Vec<(Key, u64)> = Vec::new();
        for k in keys {
            match b.last_mut() {
                Some((last, n)) if *last == k => *n += 1,
                _ => b.push((k, 1)),
            }
        }
        let mut ports = w.served();
        let drawn = (TCP, s.range(1025, 32767) as u16);
        ports.extend(P_ATT.iter().map(|&p| (TCP, p)).chain([drawn]));
        ports.sort_unstable();
        ports.dedup();
        let vms: Vec<End> = w.test_vms.iter().map(|&v| vm_end(v)).collect();
        let mut ends = vms.clone();
        ends.extend(REPRESENTATIVES.map(ext));
        let a = attacks(w, &mut s, &vms, &ends, &ports);
        let k = critical(w, &b);
        Sets { b, a, k, ends, ports }
    }
}

fn attacks(w: &World, s: &mut Stream, vms: &[End], ends: &[End], ports: &[(u8, u16)]) -> Vec<Key> {
    let served = w.served();
    let att: Vec<(u8, u16)> =
        ports.iter().copied().filter(|p| P_ATT.contains(&p.1) || served.contains(p)).collect();
    // A vector sorted and deduplicated at the end holds what a set would, in the same order; at
    // ~1,000 VMs there are hundreds of thousands of candidates, many more than tree inserts
    // should cost.
    let mut set = Vec::new();
    let mut add = |sx: End, dx: End, proto: u8, port: u16| {
        if sx != dx && !w.intended(party(w, sx), party(w, dx), proto, port) {
            set.push(Key { s: sx, d: dx, proto, port });
        }
    };
    for r in 0..w.tenant.roles.len() {
        let of: Vec<&End> = vms.iter().filter(|e| party(w, **e) == Party::Role(r)).collect();
        if of.is_empty() {
            continue;
        }
        let src = *of[s.index(of.len())];
        for &d in vms {
            att.iter().for_each(|&(p, port)| add(src, d, p, port));
        }
    }
    let attacker = End { ip: ATTACKER, vm: None };
    for &d in vms {
        att.iter().for_each(|&(p, port)| add(attacker, d, p, port));
    }
    let internet = End { ip: REPRESENTATIVES[0], vm: None };
    for &v in vms {
        if let Party::Role(r) = party(w, v)
            && matches!(w.tenant.roles[r].kind, RoleKind::Db | RoleKind::Cache | RoleKind::Queue)
        {
            add(v, internet, TCP, 80);
            add(v, internet, TCP, 443);
        }
    }
    for &v in vms {
        let vm = &w.trace.vms[v.vm.expect("a VM") as usize];
        let old = w.trace.vms.iter().find(|o| o.ip == vm.ip && o.stop_ms <= vm.start_ms && o.role != vm.role);
        let (Some(old), true) = (old, vm.start_ms >= w.vis_end) else { continue };
        let (was, now) = (Party::Role(old.role), Party::Role(vm.role));
        for &e in ends.iter().filter(|&&e| e != v) {
            let pe = party(w, e);
            for &(p, port) in ports {
                if w.intended(was, pe, p, port) && !w.intended(now, pe, p, port) {
                    add(v, e, p, port);
                }
                if w.intended(pe, was, p, port) && !w.intended(pe, now, p, port) {
                    add(e, v, p, port);
                }
            }
        }
    }
    let mut all = set;
    all.sort_unstable();
    all.dedup();
    if all.len() <= MAX_ATTACK {
        return all;
    }
    let mut keep: Vec<Key> = s.subset(all.len(), MAX_ATTACK).into_iter().map(|i| all[i]).collect();
    keep.sort_unstable();
    keep
}

/// The critical keys among the benign ones: DNS and NTP to a DC, the load balancer's probes and
/// the monitoring scrapes (docs/microseg.md explains why K is drawn from B rather than all of U).
fn critical(w: &World, b: &[(Key, u64)]) -> Vec<Key> {
    let kind = |e: End| match party(w, e) {
        Party::Role(r) => Some(w.tenant.roles[r].kind),
        Party::Res(_) => None,
    };
    b.iter()
        .map(|(k, _)| k)
        .filter(|k| {
            let dns_ntp =
                k.proto == UDP && (k.port == 53 || k.port == 123) && kind(k.d) == Some(RoleKind::Dc);
            let probe = k.s.ip == REPRESENTATIVES[2];
            let scrape = k.proto == TCP && k.port == 9100 && kind(k.s) == Some(RoleKind::Monitoring);
            dns_ntp || probe || scrape
        })
        .copied()
        .collect()
}

/// A rate with its counts.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Rate {
    pub hit: u64,
    pub of: u64,
}

impl Rate {
    pub fn value(self) -> f64 {
        if self.of == 0 { 0.0 } else { self.hit as f64 / self.of as f64 }
    }
}

/// Everything one policy scores.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Metrics {
    pub fdr: Rate,
    pub gdr: Rate,
    pub far: Rate,
    pub op: Rate,
    pub cdr: Rate,
    pub rules: usize,
    pub groups: usize,
    pub members: usize,
    pub cidr_rules: usize,
    pub star_rules: usize,
    /// The explanation lines.
    pub lines: Vec<String>,
}

impl Metrics {
    pub fn correct(&self) -> bool {
        self.fdr.value() <= 0.01 && self.gdr.value() <= 0.02
    }
    pub fn safe(&self) -> bool {
        self.far.hit == 0 && self.op.value() <= 0.01 && self.cdr.hit == 0
    }
}

fn pct(r: Rate) -> String {
    format!("{:.2}%", 100.0 * r.value())
}

/// What scoring needs of an allow function, the neutral policy's or a rendering's: a side per
/// endpoint (computed once), a class key (endpoints of one party with equal keys decide alike),
/// the verdict with the admitting rule when there is one, and the size.
pub trait Allows {
    type Side: Clone;
    fn side(&self, e: End) -> Self::Side;
    fn class(&self, side: &Self::Side) -> Vec<u64>;
    fn admit(&self, s: &Self::Side, d: &Self::Side, proto: u8, port: u16) -> Option<usize>;
    /// `rule 3`, or how a rendering names what admits.
    fn rule_name(&self, r: usize) -> String;
    /// `rule 3 (a → b tcp/80)`.
    fn rule_text(&self, r: usize) -> String;
    /// Rules, groups, members, CIDR rules.
    fn size(&self) -> [usize; 4];
    fn notes(&self) -> Vec<String>;
}

impl Allows for Compiled<'_> {
    type Side = (Bits, Bits);
    fn side(&self, e: End) -> (Bits, Bits) {
        (self.bits(e, true), self.bits(e, false))
    }
    fn class(&self, side: &(Bits, Bits)) -> Vec<u64> {
        side.0.iter().chain(&side.1).copied().collect()
    }
    fn admit(&self, s: &(Bits, Bits), d: &(Bits, Bits), proto: u8, port: u16) -> Option<usize> {
        self.admits(&s.0, &d.1, proto, port)
    }
    fn rule_name(&self, r: usize) -> String {
        format!("rule {}", r + 1)
    }
    fn rule_text(&self, r: usize) -> String {
        format!("rule {} ({})", r + 1, self.policy.rules[r].text())
    }
    fn size(&self) -> [usize; 4] {
        let p = self.policy;
        [p.rules.len(), p.groups.len(), p.members(), p.rules.iter().filter(|r| r.is_cidr()).count()]
    }
    fn notes(&self) -> Vec<String> {
        self.notes.clone()
    }
}

/// Scores a valid policy on a world.
pub fn evaluate(w: &World, sets: &Sets, policy: &Policy) -> Metrics {
    measure(w, sets, &Compiled::new(policy, w))
}

/// Scores any allow function on a world.
pub fn measure<A: Allows>(w: &World, sets: &Sets, c: &A) -> Metrics {
    let mut memo: BTreeMap<End, A::Side> = BTreeMap::new();
    let mut admit = |k: &Key| {
        let s = memo.entry(k.s).or_insert_with(|| c.side(k.s)).clone();
        let d = memo.entry(k.d).or_insert_with(|| c.side(k.d));
        c.admit(&s, d, k.proto, k.port)
    };
    let denied_b: Vec<&(Key, u64)> = sets.b.iter().filter(|(k, _)| admit(k).is_none()).collect();
    let admitted_a: Vec<(&Key, usize)> = sets.a.iter().filter_map(|k| admit(k).map(|r| (k, r))).collect();
    let denied_k: Vec<&Key> = sets.k.iter().filter(|k| admit(k).is_none()).collect();
    let (gdr, op, blame) = universe(w, sets, c);
    let [rules, groups, members, cidr_rules] = c.size();
    let mut m = Metrics {
        fdr: Rate { hit: denied_b.len() as u64, of: sets.b.len() as u64 },
        gdr,
        far: Rate { hit: admitted_a.len() as u64, of: sets.a.len() as u64 },
        op,
        cdr: Rate { hit: denied_k.len() as u64, of: sets.k.len() as u64 },
        rules,
        groups,
        members,
        cidr_rules,
        star_rules: w.star.len(),
        lines: Vec::new(),
    };
    let mut lines = vec![
        format!("FDR {} ({} of {} held-out keys denied)", pct(m.fdr), m.fdr.hit, m.fdr.of),
        format!("GDR {} ({} of {} intended keys denied)", pct(m.gdr), m.gdr.hit, m.gdr.of),
        format!("FAR {} ({} of {} attack keys admitted)", pct(m.far), m.far.hit, m.far.of),
        format!("OP {} ({} of {} unintended keys admitted)", pct(m.op), m.op.hit, m.op.of),
        format!("CDR {} ({} of {} critical keys denied)", pct(m.cdr), m.cdr.hit, m.cdr.of),
        format!(
            "size: {} rules ({:.2} × P*'s {}), {} groups, {} members, {} CIDR rules",
            m.rules,
            m.rules as f64 / m.star_rules.max(1) as f64,
            m.star_rules,
            m.groups,
            m.members,
            m.cidr_rules
        ),
    ];
    let mut top = denied_b.clone();
    top.sort_by_key(|(k, n)| (std::cmp::Reverse(*n), *k));
    lines.extend(top.iter().take(5).map(|(k, n)| format!("denied: {}: {n} connections", key_text(w, k))));
    lines.extend(
        admitted_a
            .iter()
            .take(5)
            .map(|(k, r)| format!("{} admits attack key {}", c.rule_name(*r), key_text(w, k))),
    );
    let mut blamed: Vec<(usize, u64)> = blame.into_iter().collect();
    blamed.sort_by_key(|&(r, n)| (std::cmp::Reverse(n), r));
    lines.extend(
        blamed
            .iter()
            .take(5)
            .map(|&(r, n)| format!("{} admits {n} keys the intended policy denies", c.rule_text(r))),
    );
    lines.extend(denied_k.iter().take(5).map(|k| format!("critical key denied: {}", key_text(w, k))));
    lines.extend(c.notes());
    m.lines = lines;
    m
}

/// GDR and OP over U by classes, and the unintended keys each rule admits first.
fn universe<A: Allows>(w: &World, sets: &Sets, c: &A) -> (Rate, Rate, BTreeMap<usize, u64>) {
    let mut classes: BTreeMap<(Party, Vec<u64>), (A::Side, u64)> = BTreeMap::new();
    for &e in &sets.ends {
        let side = c.side(e);
        classes.entry((party(w, e), c.class(&side))).or_insert((side, 0)).1 += 1;
    }
    let classes: Vec<(Party, A::Side, u64)> = classes.into_iter().map(|((p, _), (s, n))| (p, s, n)).collect();
    let (mut gdr, mut op) = (Rate::default(), Rate::default());
    let mut blame: BTreeMap<usize, u64> = BTreeMap::new();
    for (i, (ps, sb, ns)) in classes.iter().enumerate() {
        for (j, (pd, db, nd)) in classes.iter().enumerate() {
            let tenant = matches!(ps, Party::Role(_)) || matches!(pd, Party::Role(_));
            let n = if i == j { ns * (ns - 1) } else { ns * nd };
            if !tenant || n == 0 {
                continue;
            }
            for &(proto, port) in &sets.ports {
                let allowed = c.admit(sb, db, proto, port);
                if w.intended(*ps, *pd, proto, port) {
                    gdr.of += n;
                    gdr.hit += if allowed.is_none() { n } else { 0 };
                } else {
                    op.of += n;
                    if let Some(r) = allowed {
                        op.hit += n;
                        *blame.entry(r).or_default() += n;
                    }
                }
            }
        }
    }
    (gdr, op, blame)
}

/// The intended policy in the neutral form at the end of the visible windows.
pub fn star_policy(w: &World) -> Policy {
    star_policy_at(w, w.vis_end)
}

/// The intended policy at `t` (ms after T0): a group per role listing the VMs that hold an
/// address then, a rule per intended allow.
pub fn star_policy_at(w: &World, t: u64) -> Policy {
    use super::policy::{Peer, Proto, Rule};
    let mut p = Policy::default();
    for &v in &w.visible {
        if w.holder_at(w.trace.vms[v as usize].ip, t) == Some(v) {
            p.groups.entry(w.role_name(v).to_string()).or_default().push(w.trace.vms[v as usize].ip);
        }
    }
    let peer = |x: Party| match x {
        Party::Role(r) => Peer::Group(w.tenant.roles[r].name.clone()),
        Party::Res(r) => Peer::Reserved(r),
    };
    for &(s, d, proto, port) in &w.star {
        let proto = if proto == UDP { Proto::Udp } else { Proto::Tcp };
        p.rules.push(Rule { src: peer(s), dst: peer(d), proto, ports: vec![(port, port)] });
    }
    p
}

#[cfg(test)]
mod tests {
    use super::super::world::{Shape, build, setup};
    use super::*;

    fn world(id: &str) -> World {
        build(&setup(&id.parse().unwrap()).unwrap(), Shape::Split).unwrap()
    }

    #[test]
    fn the_intended_policy_scores_perfectly() {
        for id in ["microseg-v1-L1-s0-i0", "microseg-v1-L3-s2-i0"] {
            let w = world(id);
            let sets = Sets::new(&w);
            assert!(!sets.b.is_empty() && !sets.a.is_empty() && !sets.k.is_empty());
            let m = evaluate(&w, &sets, &star_policy(&w));
            assert_eq!(
                (m.fdr.hit, m.gdr.hit, m.far.hit, m.op.hit, m.cdr.hit),
                (0, 0, 0, 0, 0),
                "{id}: {:?}",
                m.lines
            );
            assert!(m.correct() && m.safe());
        }
    }

    #[test]
    fn an_empty_policy_denies_everything_and_any_any_admits_everything() {
        let w = world("microseg-v1-L1-s1-i0");
        let sets = Sets::new(&w);
        let m = evaluate(&w, &sets, &Policy::default());
        assert_eq!((m.fdr.hit, m.gdr.hit, m.cdr.hit), (m.fdr.of, m.gdr.of, m.cdr.of));
        assert!(!m.correct() && !m.safe());
        let any = super::super::policy::parse(
            &serde_json::json!({"rules": [{"src": "any", "dst": "any", "proto": "any", "ports": "any"}], "default": "deny"}),
        )
        .unwrap();
        let m = evaluate(&w, &sets, &any);
        assert_eq!((m.fdr.hit, m.gdr.hit, m.far.hit, m.op.hit), (0, 0, m.far.of, m.op.of));
        assert!(m.correct() && !m.safe());
        assert!(m.lines.iter().any(|l| l.starts_with("rule 1 (any → any any/any) admits")), "{:?}", m.lines);
    }
}
