//! The policy a repair episode edits, and what its commands do (docs/microseg-repair.md):
//! applying a parsed [`Command`], `show`, `flows` and the report (`check`) over the visible
//! windows.
//!
//! The report names what is wrong without naming the fault: observed connections the policy
//! denies (grouped by the groups at each end, protocol and port), rules admitting class keys
//! never observed, and a default allow. A class is a set of visible endpoints with the same
//! groups and the same rules matching (each reserved group's representative its own class);
//! a class key adds a protocol and a port of the scoring universe.

use std::collections::{BTreeMap, BTreeSet};
use std::net::Ipv4Addr;

use crate::flows::NO_VM;
use crate::flows::tenant::{UDP, dotted};

use super::allow::{Bits, Compiled, End, Memo};
use super::policy::{Peer, Policy, Proto, Reserved, Rule};
use super::repair::{
    Command, Endpoint, Filter, Port, Ports, RepairError, RuleField, RuleProto, RuleSpec, Show,
};
use super::score::REPRESENTATIVES;
use super::world::World;

/// The edited policy: the neutral form plus the default (which a fault may flip to allow).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct State {
    pub policy: Policy,
    pub default_allow: bool,
}

/// Lines of `Denied observed` before `… and m more`.
const MAX_DENIED: usize = 20;

fn peer(e: &Endpoint) -> Peer {
    match e {
        Endpoint::Group(g) => Reserved::parse(g).map_or_else(|| Peer::Group(g.clone()), Peer::Reserved),
        Endpoint::Cidr(n) => Peer::Cidr(u32::from(n.network()), n.prefix_len()),
    }
}

fn proto(p: RuleProto) -> Proto {
    match p {
        RuleProto::Tcp => Proto::Tcp,
        RuleProto::Udp => Proto::Udp,
        RuleProto::Any => Proto::Any,
    }
}

fn ports(p: &Ports) -> Vec<(u16, u16)> {
    if p.0.contains(&Port::Any) {
        return Vec::new();
    }
    p.0.iter()
        .map(|x| match *x {
            Port::One(n) => (n, n),
            Port::Range(a, b) => (a, b),
            Port::Any => (1, u16::MAX),
        })
        .collect()
}

/// The rule a `rule add` spec denotes (whether its groups exist is not checked here).
pub fn rule_of(spec: &RuleSpec) -> Rule {
    Rule { src: peer(&spec.src), dst: peer(&spec.dst), proto: proto(spec.proto), ports: ports(&spec.ports) }
}

fn proto_name(p: u8) -> &'static str {
    if p == UDP { "udp" } else { "tcp" }
}

impl State {
    fn group_must_exist(&self, e: &Endpoint) -> Result<(), RepairError> {
        match peer(e) {
            Peer::Group(g) if !self.policy.groups.contains_key(&g) => Err(RepairError::UnknownGroup(g)),
            _ => Ok(()),
        }
    }

    fn rule(&self, spec: &RuleSpec) -> Result<Rule, RepairError> {
        self.group_must_exist(&spec.src)?;
        self.group_must_exist(&spec.dst)?;
        Ok(rule_of(spec))
    }

    fn index(&self, n: usize) -> Result<usize, RepairError> {
        let count = self.policy.rules.len();
        if (1..=count).contains(&n) { Ok(n - 1) } else { Err(RepairError::NoRule { index: n, count }) }
    }

    /// Runs one command: its output (possibly empty), or its error.
    pub fn apply(&mut self, c: &Command, w: &World) -> Result<String, RepairError> {
        let groups = &mut self.policy.groups;
        match c {
            Command::Show(s) => return self.show(s),
            Command::Check => return Ok(report(self, w).join("\n")),
            Command::Flows(q) => {
                let cols = q.filters.iter().map(|f| match f {
                    Filter::Equals { column, .. } | Filter::Within { column, .. } => column,
                });
                if let Some(c) =
                    cols.chain(&q.by).find(|c| !["src", "dst", "proto", "dport"].contains(&c.as_str()))
                {
                    return Err(RepairError::FlowsColumn(c.clone()));
                }
                return Ok(flows(w, &q.filters, q.top.unwrap_or(20)));
            }
            Command::GroupNew(g) if groups.contains_key(g) => {
                return Err(RepairError::GroupExists(g.clone()));
            }
            Command::GroupNew(g) => {
                groups.insert(g.clone(), Vec::new());
            }
            Command::GroupDel(g) => {
                groups.remove(g).ok_or_else(|| RepairError::UnknownGroup(g.clone()))?;
                let gone = Peer::Group(g.clone());
                self.policy.rules.retain(|r| r.src != gone && r.dst != gone);
            }
            Command::MemberAdd { group, ips } | Command::MemberDel { group, ips } => {
                let m = groups.get_mut(group).ok_or_else(|| RepairError::UnknownGroup(group.clone()))?;
                let ips = ips.iter().map(|&a| u32::from(a));
                if matches!(c, Command::MemberAdd { .. }) {
                    m.extend(ips);
                    m.sort_unstable();
                    m.dedup();
                } else {
                    let del: BTreeSet<u32> = ips.collect();
                    m.retain(|a| !del.contains(a));
                }
            }
            Command::RuleAdd { rule, at } => {
                let r = self.rule(rule)?;
                let at = match at {
                    Some(n) if *n == self.policy.rules.len() + 1 => *n - 1,
                    Some(n) => self.index(*n)?,
                    None => self.policy.rules.len(),
                };
                self.policy.rules.insert(at, r);
            }
            Command::RuleDel(n) => {
                let i = self.index(*n)?;
                self.policy.rules.remove(i);
            }
            Command::RuleSet { index, field } => {
                let i = self.index(*index)?;
                if let RuleField::Src(e) | RuleField::Dst(e) = field {
                    self.group_must_exist(e)?;
                }
                let r = &mut self.policy.rules[i];
                match field {
                    RuleField::Src(e) => r.src = peer(e),
                    RuleField::Dst(e) => r.dst = peer(e),
                    RuleField::Proto(p) => r.proto = proto(*p),
                    RuleField::Ports(p) => r.ports = ports(p),
                }
            }
            Command::Default { deny } => self.default_allow = !deny,
            Command::Done => {}
        }
        Ok(String::new())
    }

    /// `show`: groups by name, rules numbered from 1, the default.
    pub fn show(&self, s: &Show) -> Result<String, RepairError> {
        let group = |(g, m): (&String, &Vec<u32>)| {
            let ips: Vec<String> = m.iter().map(|&a| dotted(a)).collect();
            format!("group {g}: {}", ips.join(" "))
        };
        let mut out: Vec<String> = Vec::new();
        if let Show::Group(g) = s {
            let m =
                self.policy.groups.get_key_value(g).ok_or_else(|| RepairError::UnknownGroup(g.clone()))?;
            return Ok(group(m));
        }
        if matches!(s, Show::All | Show::Groups) {
            out.extend(self.policy.groups.iter().map(group));
        }
        if matches!(s, Show::All | Show::Rules) {
            out.extend(
                self.policy.rules.iter().enumerate().map(|(i, r)| format!("rule {}: {}", i + 1, r.text())),
            );
        }
        if *s == Show::All {
            out.push(format!("default {}", if self.default_allow { "allow" } else { "deny" }));
        }
        Ok(out.join("\n"))
    }

    /// Whether the policy admits a key of the visible windows.
    pub fn admits(&self, memo: &mut Memo<'_, '_>, s: End, d: End, proto: u8, port: u16) -> bool {
        self.default_allow || memo.admits(s, d, proto, port).is_some()
    }
}

/// An endpoint of a visible connection.
fn end(ip: u32, vm: u32) -> End {
    End { ip, vm: (vm != NO_VM).then_some(vm) }
}

/// The allowed connections of the visible windows, by key, with their counts.
pub fn observed(w: &World) -> BTreeMap<(End, End, u8, u16), u64> {
    let mut keys = BTreeMap::new();
    for c in w.trace.connections.iter().filter(|c| c.allow && c.start < w.vis_end) {
        *keys.entry((end(c.src, c.src_vm), end(c.dst, c.dst_vm), c.proto, c.dport)).or_default() += 1;
    }
    keys
}

/// Denied observed connections are grouped by (source groups, destination groups, proto, port).
type DeniedKey<'a> = (Vec<&'a str>, Vec<&'a str>, u8, u16);

/// The report on the visible windows: `No findings.` when there is nothing to say.
pub fn report(s: &State, w: &World) -> Vec<String> {
    let c = Compiled::visible(&s.policy, w);
    let seen = observed(w);
    let label = |e: End| -> String {
        let groups = e.vm.map(|v| c.groups_of(v)).unwrap_or_default();
        let name = match (groups.first(), Reserved::of(e.ip)) {
            (Some(g), _) => g.to_string(),
            (None, Some(r)) if e.vm.is_none() => r.name().to_string(),
            _ => dotted(e.ip),
        };
        format!("{name} {}", dotted(e.ip))
    };
    let mut denied: BTreeMap<DeniedKey<'_>, (End, End, u64)> = BTreeMap::new();
    let mut memo = c.memo();
    for (&(a, b, p, port), &n) in &seen {
        if !s.admits(&mut memo, a, b, p, port) {
            let g = |e: End| e.vm.map(|v| c.groups_of(v)).unwrap_or_default();
            denied.entry((g(a), g(b), p, port)).or_insert((a, b, 0)).2 += n;
        }
    }
    let mut denied: Vec<_> = denied.into_iter().collect();
    denied.sort_by_key(|(k, (_, _, n))| (std::cmp::Reverse(*n), k.clone()));
    let mut out: Vec<String> = denied
        .iter()
        .take(MAX_DENIED)
        .map(|((_, _, p, port), (a, b, n))| {
            format!(
                "Denied observed: {} → {} {}/{port} ({n} connections)",
                label(*a),
                label(*b),
                proto_name(*p)
            )
        })
        .collect();
    if denied.len() > MAX_DENIED {
        out.push(format!("… and {} more", denied.len() - MAX_DENIED));
    }
    for (i, m) in unobserved(s, w, &mut memo, &seen).into_iter().enumerate() {
        if m > 0 {
            let r = &s.policy.rules[i];
            out.push(format!(
                "Unobserved allow: rule {} ({}) admits {m} class keys never observed",
                i + 1,
                r.text()
            ));
        }
    }
    if s.default_allow {
        out.push("Default allow: every unmatched key is admitted".into());
    }
    if out.is_empty() {
        out.push("No findings.".into());
    }
    out
}

/// An endpoint's class: its source and destination bitsets, and its reserved group when it is
/// an external address (two externals never form a key).
type Class = (Bits, Bits, Option<Reserved>);

/// Per rule, the class keys it admits that no visible connection falls in.
/// `memo` holds the bitsets the report's denied-connection pass already computed.
fn unobserved(
    s: &State,
    w: &World,
    memo: &mut Memo<'_, '_>,
    seen: &BTreeMap<(End, End, u8, u16), u64>,
) -> Vec<u64> {
    // Classes are numbered once, so the keys seen are sets of small integers, not of bitsets.
    let mut number: BTreeMap<Class, usize> = BTreeMap::new();
    let mut class_of = |e: End| {
        let (src, dst) = memo.sides(e).clone();
        let n = number.len();
        *number.entry((src, dst, Reserved::of(e.ip).filter(|_| e.vm.is_none()))).or_insert(n)
    };
    let mut ends: Vec<End> =
        w.visible.iter().map(|&v| End { ip: w.trace.vms[v as usize].ip, vm: Some(v) }).collect();
    ends.extend(REPRESENTATIVES.map(|ip| End { ip, vm: None }));
    let listed: BTreeSet<usize> = ends.iter().map(|&e| class_of(e)).collect();
    let hit: BTreeSet<(usize, usize, u8, u16)> =
        seen.keys().map(|&(a, b, p, port)| (class_of(a), class_of(b), p, port)).collect();
    let mut classes: Vec<Option<&Class>> = vec![None; number.len()];
    for (k, &n) in &number {
        classes[n] = Some(k);
    }
    let mut per = vec![0u64; s.policy.rules.len()];
    for &i in &listed {
        for &j in &listed {
            let (Some(a), Some(b)) = (classes[i], classes[j]) else { continue };
            if a.2.is_some() && b.2.is_some() {
                continue;
            }
            for &(p, port) in &w.sets().ports {
                if hit.contains(&(i, j, p, port)) {
                    continue;
                }
                for (k, (x, y)) in a.0.iter().zip(&b.1).enumerate() {
                    let mut both = x & y;
                    while both != 0 {
                        let r = k * 64 + both.trailing_zeros() as usize;
                        per[r] += u64::from(s.policy.rules[r].admits_port(p, port));
                        both &= both - 1;
                    }
                }
            }
        }
    }
    per
}

/// `flows`: visible connections per key, most first, filtered on `src`, `dst` (`=` or `~`),
/// `proto` and `dport` (`by=` adds nothing: the listing is per key already).
pub fn flows(w: &World, filters: &[Filter], top: usize) -> String {
    let keep = |a: u32, b: u32, p: u8, port: u16| {
        filters.iter().all(|f| match f {
            Filter::Within { column, net } => {
                let ip = Ipv4Addr::from(if column == "dst" { b } else { a });
                net.contains(&ip)
            }
            Filter::Equals { column, value } => match column.as_str() {
                "src" => dotted(a) == *value,
                "dst" => dotted(b) == *value,
                "proto" => value == proto_name(p) || *value == p.to_string(),
                "dport" => *value == port.to_string(),
                _ => true,
            },
        })
    };
    let mut bytes: BTreeMap<(u32, u32, u8, u16), (u64, u64)> = BTreeMap::new();
    for c in w.trace.connections.iter().filter(|c| c.allow && c.start < w.vis_end) {
        if keep(c.src, c.dst, c.proto, c.dport) {
            let e = bytes.entry((c.src, c.dst, c.proto, c.dport)).or_default();
            *e = (e.0 + 1, e.1 + c.bytes_f + c.bytes_r);
        }
    }
    let mut list: Vec<_> = bytes.into_iter().collect();
    list.sort_by_key(|(k, (n, _))| (std::cmp::Reverse(*n), *k));
    let lines: Vec<String> = list
        .iter()
        .take(top)
        .map(|((a, b, p, port), (n, by))| {
            format!("{} → {} {}/{port}: {n} connections, {by} bytes", dotted(*a), dotted(*b), proto_name(*p))
        })
        .collect();
    if lines.is_empty() { "no connections".into() } else { lines.join("\n") }
}
