//! The flow model (docs/flows.md, "Flow model"): a tenant's connections over a trace, drawn
//! minute by minute per pattern row, plus scanners, churn and coverage.
//!
//! Each row draws from its own stream (`e{r}`), minute-major, so the first m minutes of a trace
//! are the same for every longer trace; rows are then merged in connection order.

use std::collections::{BTreeMap, HashSet};

use super::patterns::{self, Alive, Arrival, Ep, ROWS, Server, Size, Unit};
use super::tenant::{ADMINS, RoleKind, SCANNER_NET, STORAGE, TCP, Tenant, Vm, vm_ids};
use crate::seed::{Stream, Width};
use rustc_hash::FxHashSet as FastSet;

/// No VM at this end of a connection.
pub const NO_VM: u32 = u32::MAX;
const MIN: u64 = 60_000;
/// Connections above this estimate are refused.
pub const MAX_CONNECTIONS: u64 = 50_000_000;

/// One connection. Times are ms after T0; `end` past the trace means still open.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Connection {
    pub start: u64,
    pub end: u64,
    /// Initiator.
    pub src: u32,
    pub sport: u16,
    /// Responder.
    pub dst: u32,
    pub dport: u16,
    pub proto: u8,
    pub allow: bool,
    pub pkts_f: u32,
    pub bytes_f: u64,
    pub pkts_r: u32,
    pub bytes_r: u64,
    /// VM indexes into [`Trace::vms`], or [`NO_VM`].
    pub src_vm: u32,
    pub dst_vm: u32,
    /// Round-trip time in ms (TCP; GCP reports it).
    pub rtt: u16,
}

impl Connection {
    fn order_key(&self) -> (u64, u32, u16, u32, u16, u8) {
        (self.start, self.src, self.sport, self.dst, self.dport, self.proto)
    }
}

/// `share(P)` of a counter over [x, y) for a connection [s, e): exact, so the shares of a
/// partition sum to P.
pub fn share(p: u64, s: u64, e: u64, x: u64, y: u64) -> u64 {
    if e <= s {
        return if (x..y).contains(&s) { p } else { 0 };
    }
    let at = |t: u64| scale(p, t.clamp(s, e) - s, e - s);
    if y <= x { 0 } else { at(y.min(e)).saturating_sub(at(x.max(s))) }
}

/// `p * num / den` rounded down, in u64 when the product fits: the flow logs compute it for
/// every record, and a u128 division is a library call several times slower than a u64 one.
pub fn scale(p: u64, num: u64, den: u64) -> u64 {
    match p.checked_mul(num) {
        Some(product) => product / den,
        None => (u128::from(p) * u128::from(num) / u128::from(den)) as u64,
    }
}

/// A named window of whole minutes the application asks about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Window {
    pub name: String,
    pub start_min: u32,
    pub len_min: u32,
}

/// What the asking application fixes beyond the knobs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Scenario {
    pub windows: Vec<Window>,
    /// Churn points, in minutes.
    pub churn: Vec<u32>,
    /// The churn stream's part name (`churn`; an application may rename it).
    pub churn_stream: String,
}

impl Default for Scenario {
    fn default() -> Self {
        Scenario { windows: Vec::new(), churn: Vec::new(), churn_stream: "churn".into() }
    }
}

/// A tenant's trace: every VM that ever ran, and the connections in order.
#[derive(Debug, Clone)]
pub struct Trace {
    pub minutes: u32,
    pub vms: Vec<Vm>,
    pub connections: Vec<Connection>,
}

impl Trace {
    /// The trace's end, ms after T0.
    pub fn end_ms(&self) -> u64 {
        u64::from(self.minutes) * MIN
    }
}

/// Generates the trace of `tenant` for its `d` minutes.
pub fn generate(tenant: &Tenant, scenario: &Scenario) -> Result<Trace, String> {
    let d = tenant.key.knobs.d;
    let vms = churn(tenant, scenario, d);
    let epochs = epochs(scenario, d);
    let estimate = estimate(tenant, &vms, d);
    if estimate > MAX_CONNECTIONS {
        return Err(format!(
            "about {estimate} connections: more than the {MAX_CONNECTIONS} a trace may hold"
        ));
    }
    let mut all = Vec::with_capacity(estimate as usize + estimate as usize / 8);
    for r in 1..=ROWS {
        let mut row = Row::new(tenant, &vms, r, d);
        row.run(&epochs, &scenario.windows);
        all.append(&mut row.out);
    }
    all.append(&mut scanners(tenant, &vms, d));
    all.sort_unstable_by_key(Connection::order_key);
    Ok(Trace { minutes: d, vms, connections: all })
}

/// The minutes at which the alive set changes: 0, each churn point and the minute after it.
fn epochs(scenario: &Scenario, d: u32) -> Vec<u32> {
    let mut e: Vec<u32> = vec![0];
    for &p in &scenario.churn {
        e.extend([p, p + 1]);
    }
    e.retain(|&m| m < d);
    e.sort_unstable();
    e.dedup();
    e
}

/// The VMs alive during minute `m`: started by its beginning (added VMs join the minute after
/// their churn point) and not yet stopped.
fn alive<'a>(t: &Tenant, vms: &'a [Vm], m: u32) -> Alive<'a> {
    let from = u64::from(m) * MIN;
    let mut by_role = vec![Vec::new(); t.roles.len()];
    for (i, vm) in vms.iter().enumerate() {
        let started = vm.start_ms == 0 || vm.start_ms / MIN < u64::from(m);
        if started && vm.stop_ms > from {
            by_role[vm.role].push(i as u32);
        }
    }
    Alive { vms, by_role }
}

fn estimate(t: &Tenant, vms: &[Vm], d: u32) -> u64 {
    let a = alive(t, vms, 0);
    let per_min: u64 =
        (1..=ROWS).flat_map(|r| patterns::units(r, t, &a)).map(|u| patterns::milli_rate(&u)).sum();
    per_min * u64::from(d) / 1000
}

/// Arrival state of a periodic or pooled unit.
#[derive(Debug, Clone)]
enum State {
    Next(u64),
    Slots(Vec<u64>),
}

/// One row's generator.
struct Row<'a> {
    t: &'a Tenant,
    vms: &'a [Vm],
    s: Stream,
    d: u32,
    r: u8,
    seen: FastSet<(u32, u16, u32, u16)>,
    out: Vec<Connection>,
}

type UnitKey = (Ep, Option<Ep>, u16, u8);

fn unit_key(u: &Unit) -> UnitKey {
    let server = match &u.server {
        Server::One(e) => Some(*e),
        Server::Any(_) => None,
    };
    (u.client, server, u.port, u.proto)
}

impl<'a> Row<'a> {
    fn new(t: &'a Tenant, vms: &'a [Vm], r: u8, d: u32) -> Row<'a> {
        let s = Stream::new(&t.key.part(&format!("e{r}")), Width::W64);
        Row { t, vms, s, d, r, seen: FastSet::default(), out: Vec::new() }
    }

    fn run(&mut self, epochs: &[u32], windows: &[Window]) {
        let r = self.r;
        // A unit's arrival state lives in `pool`, found through its key only when the units
        // change (at an epoch); each minute then reaches it by the unit's position. Looking the
        // key up every minute cost a tree search per unit-minute (docs/microseg.md, "Speed").
        // Units with equal keys share one state, as they did through the map.
        let mut states: BTreeMap<UnitKey, usize> = BTreeMap::new();
        let mut pool: Vec<State> = Vec::new();
        let mut units = Vec::new();
        let mut slot: Vec<Option<usize>> = Vec::new();
        for m in 0..self.d {
            if epochs.contains(&m) {
                units = patterns::units(r, self.t, &alive(self.t, self.vms, m));
                let keep: HashSet<UnitKey> = units.iter().map(unit_key).collect();
                states.retain(|k, _| keep.contains(k));
                for u in &units {
                    if states.contains_key(&unit_key(u)) {
                        continue;
                    }
                    let base = u64::from(m) * MIN;
                    let st = match u.arrival {
                        Arrival::Every(sec) => State::Next(base + self.s.below(1000 * sec)),
                        Arrival::Pool(n) => State::Slots((0..n).map(|_| base + self.s.below(MIN)).collect()),
                        _ => continue,
                    };
                    pool.push(st);
                    states.insert(unit_key(u), pool.len() - 1);
                }
                slot = units.iter().map(|u| states.get(&unit_key(u)).copied()).collect();
            }
            for (u, &j) in units.iter().zip(&slot) {
                self.minute(u, m, j.map(|j| &mut pool[j]));
            }
        }
        self.cover(windows);
    }

    fn minute(&mut self, u: &Unit, m: u32, state: Option<&mut State>) {
        let (from, to) = (u64::from(m) * MIN, u64::from(m + 1) * MIN);
        match (u.arrival, state) {
            (Arrival::Burst(r), _) => {
                for _ in 0..self.s.below(2 * r + 1) {
                    let at = from + self.s.below(MIN);
                    self.connect(u, at);
                }
            }
            (Arrival::Chance(n), _) if self.s.chance(1, n) => {
                let at = from + self.s.below(MIN);
                self.connect(u, at);
            }
            (Arrival::Every(sec), Some(State::Next(next))) => {
                while *next < to {
                    self.connect(u, *next);
                    *next += 1000 * sec;
                }
            }
            (Arrival::Pool(_), Some(State::Slots(slots))) => {
                for slot in slots.iter_mut() {
                    while *slot < to {
                        let c = self.connect(u, *slot);
                        *slot = c.end + self.s.below(1000);
                    }
                }
            }
            _ => {}
        }
    }

    fn endpoint(&mut self, e: Ep) -> (u32, u32) {
        match e {
            Ep::Vm(v) => (self.vms[v as usize].ip, v),
            Ep::Addr(a) => (a, NO_VM),
            Ep::Internet => (self.t.internet[self.s.index(self.t.internet.len())], NO_VM),
            Ep::Admin => (ADMINS[self.s.index(ADMINS.len())], NO_VM),
            Ep::Storage => (STORAGE[self.s.index(STORAGE.len())], NO_VM),
        }
    }

    /// Draws one connection of `u` starting at `at` and keeps it.
    fn connect(&mut self, u: &Unit, at: u64) -> Connection {
        let (src, src_vm) = self.endpoint(u.client);
        let (dst, dst_vm) = match &u.server {
            Server::One(e) => self.endpoint(*e),
            Server::Any(list) => {
                let v = list[self.s.index(list.len())];
                (self.vms[v as usize].ip, v)
            }
        };
        let c = self.draw(u, at, (src, src_vm), (dst, dst_vm));
        self.out.push(c);
        c
    }

    fn draw(
        &mut self,
        u: &Unit,
        at: u64,
        (src, src_vm): (u32, u32),
        (dst, dst_vm): (u32, u32),
    ) -> Connection {
        let dur = self.s.range(u.dur.0, u.dur.1);
        let mult = if u.size == Size::Pool { dur.div_ceil(MIN) } else { 1 };
        let [pf, pr, bf, br] = u.size.ranges().map(|(lo, hi)| self.s.range(lo, hi));
        let sport = self.sport(src, dst, u.port);
        let rtt = self.rtt(u.proto, src, dst);
        let mut c = Connection {
            start: at,
            end: at + dur,
            src,
            sport,
            dst,
            dport: u.port,
            proto: u.proto,
            allow: true,
            pkts_f: (pf * mult) as u32,
            bytes_f: pf * mult * bf,
            pkts_r: (pr * mult) as u32,
            bytes_r: pr * mult * br,
            src_vm,
            dst_vm,
            rtt,
        };
        c.allow = allowed(self.t, self.vms, &c);
        if !c.allow {
            (c.pkts_r, c.bytes_r) = (0, 0);
        }
        let stop =
            [src_vm, dst_vm].iter().filter(|&&v| v != NO_VM).map(|&v| self.vms[v as usize].stop_ms).min();
        c.end = c.end.min(stop.unwrap_or(u64::MAX)).max(c.start);
        c
    }

    /// A client port in 32768..=60999 not yet used by this row for the same 5-tuple.
    fn sport(&mut self, src: u32, dst: u32, dport: u16) -> u16 {
        loop {
            let p = self.s.range(32768, 60999) as u16;
            if self.seen.insert((src, p, dst, dport)) {
                return p;
            }
        }
    }

    fn rtt(&mut self, proto: u8, src: u32, dst: u32) -> u16 {
        if proto != TCP {
            return 0;
        }
        let internal = patterns::private(src) && (patterns::private(dst) || patterns::platform(dst))
            || patterns::platform(src);
        (if internal { self.s.range(1, 5) } else { self.s.range(20, 200) }) as u16
    }

    /// Forces one connection for each (unit kind, client role, server role, port) left without
    /// one in a window of five minutes or more.
    fn cover(&mut self, windows: &[Window]) {
        for w in windows.iter().filter(|w| w.len_min >= 5) {
            let (from, to) = (u64::from(w.start_min) * MIN, u64::from(w.start_min + w.len_min) * MIN);
            let units = patterns::units(self.r, self.t, &alive(self.t, self.vms, w.start_min));
            let mut combos: BTreeMap<(u32, u32, u16), Unit> = BTreeMap::new();
            for u in &units {
                let client = self.group(u.client);
                let servers = match &u.server {
                    Server::One(e) => vec![self.group(*e)],
                    Server::Any(list) => list.iter().map(|&v| self.group(Ep::Vm(v))).collect(),
                };
                for s in servers {
                    combos.entry((client, s, u.port)).or_insert_with(|| u.clone());
                }
            }
            let have: FastSet<(u32, u32, u16)> = self
                .out
                .iter()
                .filter(|c| c.start < to && (c.end > from || c.start >= from))
                .map(|c| (self.group_of(c.src, c.src_vm), self.group_of(c.dst, c.dst_vm), c.dport))
                .collect();
            for (key, u) in combos {
                if !have.contains(&key) {
                    self.force(&units, key, &u, w);
                }
            }
        }
    }

    fn force(&mut self, units: &[Unit], (cg, sg, _): (u32, u32, u16), u: &Unit, w: &Window) {
        let members = |g: u32| -> Vec<u32> {
            let mut m: Vec<u32> = units
                .iter()
                .flat_map(|u| {
                    let mut eps = vec![u.client];
                    match &u.server {
                        Server::One(e) => eps.push(*e),
                        Server::Any(l) => eps.extend(l.iter().map(|&v| Ep::Vm(v))),
                    }
                    eps
                })
                .filter_map(|e| match e {
                    Ep::Vm(v) if self.vms[v as usize].role as u32 == g => Some(v),
                    _ => None,
                })
                .collect();
            m.sort_unstable();
            m.dedup();
            m
        };
        let client = match u.client {
            Ep::Vm(_) => members(cg).first().map_or(u.client, |&v| Ep::Vm(v)),
            Ep::Internet => Ep::Addr(self.t.internet[0]),
            Ep::Admin => Ep::Addr(ADMINS[0]),
            e => e,
        };
        let server = match &u.server {
            Server::Any(_) | Server::One(Ep::Vm(_)) => {
                let m = members(sg);
                let v = m[self.s.index(m.len())];
                Ep::Vm(v)
            }
            Server::One(e) => *e,
        };
        let at = u64::from(w.start_min) * MIN + self.s.below(u64::from(w.len_min)) * MIN;
        let forced = Unit { client, server: Server::One(server), ..u.clone() };
        self.connect(&forced, at);
    }

    /// A coverage group: a VM's role index, or a fixed number per kind of outside endpoint.
    fn group(&self, e: Ep) -> u32 {
        match e {
            Ep::Vm(v) => self.vms[v as usize].role as u32,
            Ep::Addr(a) => self.group_of(a, NO_VM),
            Ep::Internet => OUTSIDE,
            Ep::Admin => OUTSIDE + 1,
            Ep::Storage => OUTSIDE + 2,
        }
    }

    fn group_of(&self, addr: u32, vm: u32) -> u32 {
        if vm != NO_VM {
            self.vms[vm as usize].role as u32
        } else if ADMINS.contains(&addr) {
            OUTSIDE + 1
        } else if STORAGE.contains(&addr) {
            OUTSIDE + 2
        } else if patterns::platform(addr) {
            OUTSIDE + 3 + (addr & 0xffff)
        } else {
            OUTSIDE
        }
    }
}

const OUTSIDE: u32 = 1 << 24;

/// The deployed policy: allow within 10.0.0.0/8, with the platform, Internet → web on tcp
/// 80/443, admins → bastion on tcp 22 and everything outbound; deny other inbound.
pub fn allowed(t: &Tenant, vms: &[Vm], c: &Connection) -> bool {
    c.dst_vm == NO_VM || rule(t, vms, c, true) != Rule::DenyAllInBound
}

/// Which rule of the deployed policy passes a connection at one of its NICs (Azure prints its
/// name): `inbound` at the responder's, else at the initiator's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Rule {
    AllowWeb,
    AllowBastion,
    AllowVnetInBound,
    AllowVnetOutBound,
    AllowInternetOutBound,
    DenyAllInBound,
}

impl Rule {
    pub const ALL: [Rule; 6] = [
        Rule::AllowWeb,
        Rule::AllowBastion,
        Rule::AllowVnetInBound,
        Rule::AllowVnetOutBound,
        Rule::AllowInternetOutBound,
        Rule::DenyAllInBound,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Rule::AllowWeb => "UserRule_allow-web",
            Rule::AllowBastion => "UserRule_allow-bastion",
            Rule::AllowVnetInBound => "DefaultRule_AllowVnetInBound",
            Rule::AllowVnetOutBound => "DefaultRule_AllowVnetOutBound",
            Rule::AllowInternetOutBound => "DefaultRule_AllowInternetOutBound",
            Rule::DenyAllInBound => "DefaultRule_DenyAllInBound",
        }
    }
}

/// The rule deciding `c` at its responder's NIC (`inbound`) or its initiator's.
pub fn rule(t: &Tenant, vms: &[Vm], c: &Connection, inbound: bool) -> Rule {
    let inside = |a: u32| patterns::private(a) || patterns::platform(a);
    if !inbound {
        return if inside(c.dst) { Rule::AllowVnetOutBound } else { Rule::AllowInternetOutBound };
    }
    if inside(c.src) {
        return Rule::AllowVnetInBound;
    }
    let kind = (c.dst_vm != NO_VM).then(|| t.roles[vms[c.dst_vm as usize].role].kind);
    match kind {
        Some(RoleKind::Web) if c.proto == TCP && (c.dport == 80 || c.dport == 443) => Rule::AllowWeb,
        Some(RoleKind::Bastion) if c.proto == TCP && c.dport == 22 && patterns::admin(c.src) => {
            Rule::AllowBastion
        }
        _ => Rule::DenyAllInBound,
    }
}

/// Scanner ports: 1..=1024 and the usual database, remote-desktop and admin ports.
fn scan_ports() -> Vec<u16> {
    let mut p: Vec<u16> = (1..=1024).collect();
    p.extend([1433, 3306, 3389, 5432, 5900, 6379, 8080, 8443, 9200]);
    p
}

/// The scanners of every started hour (stream `scan`).
fn scanners(t: &Tenant, vms: &[Vm], d: u32) -> Vec<Connection> {
    let mut s = Stream::new(&t.key.part("scan"), Width::W64);
    let ports = scan_ports();
    let mut out = Vec::new();
    let mut seen = HashSet::new();
    for h in 0..d.div_ceil(60) {
        for _ in 0..1 + s.below(3) {
            let m = h * 60 + s.below(60) as u32;
            let src = SCANNER_NET + 1 + s.below(254) as u32;
            let a = alive(t, vms, m.min(d - 1));
            let exposed: Vec<u32> = a
                .by_role
                .iter()
                .enumerate()
                .filter(|(r, _)| t.roles[*r].kind.exposed())
                .flat_map(|(_, v)| v.iter().copied())
                .collect();
            let probes: Vec<(u32, u16)> = if s.chance(1, 2) {
                let target = exposed[s.index(exposed.len())];
                let k = 20 + s.below(181) as usize;
                s.subset(ports.len(), k).into_iter().map(|i| (target, ports[i])).collect()
            } else {
                let port = ports[s.index(ports.len())];
                exposed.iter().map(|&v| (v, port)).collect()
            };
            for (v, port) in probes {
                let at = u64::from(m) * MIN + s.below(MIN);
                let pkts = 1 + s.below(2);
                let sport = loop {
                    let p = s.range(32768, 60999) as u16;
                    if seen.insert((src, p, v, port)) {
                        break p;
                    }
                };
                let mut c = Connection {
                    start: at,
                    end: at,
                    src,
                    sport,
                    dst: vms[v as usize].ip,
                    dport: port,
                    proto: TCP,
                    allow: true,
                    pkts_f: pkts as u32,
                    bytes_f: 60 * pkts,
                    pkts_r: pkts as u32,
                    bytes_r: 60 * pkts,
                    src_vm: NO_VM,
                    dst_vm: v,
                    rtt: 0,
                };
                c.allow = allowed(t, vms, &c);
                if !c.allow {
                    (c.pkts_r, c.bytes_r) = (0, 0);
                }
                if m < d {
                    out.push(c);
                }
            }
        }
    }
    out
}

/// The VMs after churn (stream `churn`): at each point R = ⌈u·V/100⌉ removals over instances
/// above their role's minimum, then R additions, half of them on a freed address.
pub(crate) fn churn(t: &Tenant, scenario: &Scenario, d: u32) -> Vec<Vm> {
    let mut vms = t.vms.clone();
    let u = u64::from(t.key.knobs.u);
    if u == 0 || scenario.churn.is_empty() {
        return vms;
    }
    let mut s = Stream::new(&t.key.part(&scenario.churn_stream), Width::W64);
    let mut alloc = t.alloc.clone();
    let mut points = scenario.churn.clone();
    points.sort_unstable();
    points.dedup();
    for p in points.into_iter().filter(|&p| p > 0 && p < d) {
        let at = u64::from(p) * MIN;
        let live = |vms: &[Vm]| -> Vec<usize> { (0..vms.len()).filter(|&i| vms[i].stop_ms > at).collect() };
        let count = |vms: &[Vm], r: usize| live(vms).iter().filter(|&&i| vms[i].role == r).count() as u32;
        let removals = (u * live(&vms).len() as u64).div_ceil(100);
        let mut freed: Vec<(u32, usize)> = Vec::new();
        for _ in 0..removals {
            let cands: Vec<usize> = live(&vms)
                .into_iter()
                .filter(|&i| count(&vms, vms[i].role) > t.roles[vms[i].role].min)
                .collect();
            if cands.is_empty() {
                break;
            }
            let i = cands[s.index(cands.len())];
            vms[i].stop_ms = at;
            freed.push((vms[i].ip, vms[i].role));
        }
        for _ in 0..removals {
            let app_roles: Vec<usize> = (0..t.roles.len()).filter(|&r| t.roles[r].vnet != 0).collect();
            let weights: Vec<u64> = app_roles.iter().map(|&r| u64::from(count(&vms, r))).collect();
            let role = app_roles[s.weighted(&weights)];
            let addr = if !freed.is_empty() && s.chance(1, 2) {
                let other: Vec<usize> = (0..freed.len()).filter(|&i| freed[i].1 != role).collect();
                let pick = if other.is_empty() { s.index(freed.len()) } else { other[s.index(other.len())] };
                freed.remove(pick).0
            } else {
                alloc.next(&t.roles, role, &mut s)
            };
            let start_ms = at + s.below(MIN);
            let (eni, instance, mac) = vm_ids(&mut s);
            let id = vms.len() as u32;
            vms.push(Vm {
                id,
                role,
                ip: addr,
                start_ms,
                stop_ms: u64::MAX,
                known: false,
                eni,
                instance,
                mac,
            });
        }
    }
    vms
}

#[cfg(test)]
mod tests {
    use super::super::knobs::{Knobs, TenantKey};
    use super::*;

    fn tenant(knobs: Knobs) -> Tenant {
        Tenant::new(&TenantKey { app: "test".into(), level: 1, seed: 5, knobs }).unwrap()
    }

    fn window(start_min: u32, len_min: u32) -> Window {
        Window { name: "w".into(), start_min, len_min }
    }

    #[test]
    fn a_short_trace_is_the_start_of_a_long_one() {
        let long = generate(&tenant(Knobs { d: 60, ..Knobs::default() }), &Scenario::default()).unwrap();
        let short = generate(&tenant(Knobs { d: 30, ..Knobs::default() }), &Scenario::default()).unwrap();
        let prefix: Vec<&Connection> = long.connections.iter().filter(|c| c.start < 30 * MIN).collect();
        assert_eq!(prefix.len(), short.connections.len());
        assert!(prefix.into_iter().eq(short.connections.iter()));
    }

    #[test]
    fn connections_are_ordered_and_five_tuples_unique() {
        let t = generate(&tenant(Knobs { a: 2, ..Knobs::default() }), &Scenario::default()).unwrap();
        assert!(t.connections.windows(2).all(|w| w[0].order_key() <= w[1].order_key()));
        let mut tuples: Vec<_> =
            t.connections.iter().map(|c| (c.src, c.sport, c.dst, c.dport, c.proto)).collect();
        tuples.sort_unstable();
        let n = tuples.len();
        tuples.dedup();
        assert_eq!(tuples.len(), n);
        assert!(t.connections.iter().all(|c| c.sport >= 32768 && c.dport < 32768));
    }

    #[test]
    fn scanners_are_denied_except_on_web_ports() {
        let t = tenant(Knobs::default());
        let tr = generate(&t, &Scenario::default()).unwrap();
        let t_roles_kind = |tr: &Trace, c: &Connection| t.roles[tr.vms[c.dst_vm as usize].role].kind;
        let scans: Vec<&Connection> =
            tr.connections.iter().filter(|c| c.src >> 8 == SCANNER_NET >> 8).collect();
        assert!(!scans.is_empty());
        let denied = scans.iter().filter(|c| !c.allow).count();
        assert!(denied > 0);
        for c in scans {
            let web = t_roles_kind(&tr, c) == RoleKind::Web;
            assert_eq!(c.allow, web && (c.dport == 80 || c.dport == 443), "{c:?}");
            if !c.allow {
                assert_eq!((c.pkts_r, c.bytes_r), (0, 0));
            }
        }
    }

    #[test]
    fn every_pair_of_a_row_shows_up_in_a_covered_window() {
        let t = tenant(Knobs { d: 12, c: 1, ..Knobs::default() });
        let sc = Scenario { windows: vec![window(5, 5)], ..Scenario::default() };
        let tr = generate(&t, &sc).unwrap();
        // tcp 389 from bastion is rare (1/10 per minute): coverage must still show it.
        let bastion = t.roles.iter().position(|r| r.kind == RoleKind::Bastion).unwrap();
        let has = tr.connections.iter().any(|c| {
            c.dport == 389
                && c.src_vm != NO_VM
                && tr.vms[c.src_vm as usize].role == bastion
                && c.end > 5 * MIN
                && c.start < 10 * MIN
        });
        assert!(has);
    }

    #[test]
    fn churn_replaces_vms_and_ends_their_connections() {
        let t = tenant(Knobs { n: 8, u: 25, d: 20, ..Knobs::default() });
        let sc = Scenario { churn: vec![10], ..Scenario::default() };
        let tr = generate(&t, &sc).unwrap();
        let removed: Vec<usize> = (0..tr.vms.len()).filter(|&i| tr.vms[i].stop_ms == 10 * MIN).collect();
        let added = tr.vms.len() - t.vms.len();
        assert!(!removed.is_empty());
        assert_eq!(removed.len(), added);
        for c in &tr.connections {
            for v in [c.src_vm, c.dst_vm] {
                if v != NO_VM {
                    let vm = &tr.vms[v as usize];
                    assert!(c.end <= vm.stop_ms && c.start >= vm.start_ms, "{c:?}");
                    assert!(c.start < vm.stop_ms);
                }
            }
        }
    }

    #[test]
    fn too_many_connections_are_refused() {
        let t = tenant(Knobs { a: 4, n: 1000, d: 1440, c: 100_000, ..Knobs::default() });
        let e = generate(&t, &Scenario::default()).unwrap_err();
        assert!(e.contains("50000000"), "{e}");
    }

    #[test]
    fn shares_partition_exactly() {
        for (p, s, e) in [(7u64, 0u64, 10u64), (1000, 5, 123_457), (3, 10, 10), (0, 0, 9)] {
            let cuts = [0, 3, 11, 60, 61, 200_000];
            let total: u64 = cuts.windows(2).map(|w| share(p, s, e, w[0], w[1])).sum();
            assert_eq!(total, p, "{p} {s} {e}");
        }
        assert_eq!(share(10, 0, 100, 0, 50), 5);
        assert_eq!(share(10, 5, 5, 0, 5), 0);
        assert_eq!(share(10, 5, 5, 5, 6), 10);
    }
}
