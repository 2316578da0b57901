//! The world of one id (docs/microseg.md, "Ids, knobs, windows"): the level's defaults and the
//! id's knobs, the windows, the tenant and its trace, and the truth every score needs: each
//! VM's role and the intended policy P\*.
//!
//! Two window shapes exist (a split train/test, and w1/w2/test for the incremental family),
//! so a seed's tasks share at most two traces; both are cached, as generating one is the
//! expensive part of a task.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Mutex, OnceLock};

use crate::error::{Error, Result};
use crate::flows::patterns::{self, Alive, Ep, ROWS, Server};
use crate::flows::tenant::{LB, TELEMETRY};
use crate::flows::{Format, Knobs, Layout, Scenario, Tenant, TenantKey, Trace, Window};
use crate::id::QueryId;
use crate::seed::{Stream, Width};

use super::forms::Form;
use super::policy::Reserved;
use super::score::Sets;
use crate::flows::format;
use crate::flows::graph::Graph;
use crate::flows::table::Table;

const MIN: u64 = 60_000;

/// One end of an intended rule: a role (index into the tenant's roles) or a reserved group.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Party {
    Role(usize),
    Res(Reserved),
}

/// An intended allow: (client, server, proto, port).
pub type StarKey = (Party, Party, u8, u16);

/// Which windows the family sees.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Shape {
    /// `train` [0, h) visible, `test` [h, d) hidden.
    Split,
    /// `w1` [0, h1), `w2` [h1, h2) visible, `test` [h2, d) hidden.
    Incremental,
}

/// The id's resolved settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Setup {
    pub level: u8,
    pub seed: u64,
    pub knobs: Knobs,
    /// Turn limit (`t`).
    pub turns: u32,
    /// The policy form the `r` knob fixes, if given.
    pub form: Option<Form>,
}

/// Instances per role when the id has no `n` knob.
pub const DEFAULT_SCALE: u32 = 4;

/// The level defaults, with the drawn ones (a at L3, f from L2 on) drawn first.
fn defaults(level: u8, seed: u64) -> Knobs {
    let mut s = Stream::new(&format!("netpress|flows|v1|microseg|L{level}|s{seed}|draws"), Width::W64);
    let (a, layout, d, k, u) = match level {
        1 => (1, Layout::Tier, 60, 30, 0),
        2 => (2, Layout::Flat, 30, 20, 0),
        3 => (3 + s.below(2) as u32, Layout::Flat, 20, 10, 10),
        _ => (2, Layout::Flat, 30, 20, 10),
    };
    let format = match level {
        1 => Format::Vnet4,
        2 => *s.choose(&[Format::Vnet4, Format::Nsg2, Format::Aws5]),
        _ => *s.choose(&Format::ALL),
    };
    Knobs { a, n: DEFAULT_SCALE, d, c: 200, k, u, layout, format }
}

/// The id's setup: level defaults overridden by its knobs (`a n d c k u l f r t`).
pub fn setup(id: &QueryId) -> Result<Setup> {
    let bad = |m: String| Error::bad_id(&id.to_string(), m);
    let mut k = defaults(id.level, id.seed);
    let num = |key: char| -> Result<Option<u32>> {
        id.knob(key)
            .map(|v| v.parse::<u32>().map_err(|_| bad(format!("knob {key} must be a number, got {v:?}"))))
            .transpose()
    };
    k.a = num('a')?.unwrap_or(k.a);
    k.n = num('n')?.unwrap_or(k.n);
    k.c = num('c')?.unwrap_or(50 * k.n);
    for (key, slot) in [('d', &mut k.d), ('k', &mut k.k), ('u', &mut k.u)] {
        *slot = num(key)?.unwrap_or(*slot);
    }
    if let Some(l) = id.knob('l') {
        k.layout = Layout::parse(l).ok_or_else(|| bad(format!("knob l must be tier or flat, got {l:?}")))?;
    }
    if let Some(f) = id.knob('f') {
        k.format = Format::parse(f)
            .ok_or_else(|| bad(format!("knob f must be aws2, aws5, nsg2, vnet4 or gcp, got {f:?}")))?;
    }
    let form = id
        .knob('r')
        .map(|r| Form::parse(r).ok_or_else(|| bad(format!("knob r must be np, nsg, sg or k8s, got {r:?}"))))
        .transpose()?;
    let turns = num('t')?.unwrap_or(10);
    if !(1..=50).contains(&turns) {
        return Err(bad(format!("knob t={turns} is out of range 1..50")));
    }
    k.validate().map_err(bad)?;
    if k.d < 15 {
        return Err(bad(format!("knob d={} is out of range 15..1440 for microseg", k.d)));
    }
    Ok(Setup { level: id.level, seed: id.seed, knobs: k, turns, form })
}

/// A tenant, its trace and the truth, for one window shape.
#[derive(Debug)]
pub struct World {
    pub tenant: Tenant,
    pub trace: Trace,
    pub shape: Shape,
    /// Visible windows, then `test`.
    pub windows: Vec<Window>,
    pub churn_stream: String,
    /// End of the last visible window, ms after T0.
    pub vis_end: u64,
    /// Indexes (into `trace.vms`) of the VMs running in a visible window, by address.
    pub visible: Vec<u32>,
    /// Indexes of the VMs running in `test`.
    pub test_vms: Vec<u32>,
    /// The intended policy's allows.
    pub star: BTreeSet<StarKey>,
    lazy: Lazy,
}

/// What only some uses need, made on first use.
#[derive(Debug, Default)]
struct Lazy {
    sets: OnceLock<Sets>,
    table: OnceLock<std::result::Result<Arc<Table>, String>>,
    graph: OnceLock<Graph>,
}

impl World {
    /// The test window, ms after T0.
    pub fn test(&self) -> (u64, u64) {
        let w = self.windows.last().expect("a test window");
        (u64::from(w.start_min) * MIN, u64::from(w.start_min + w.len_min) * MIN)
    }

    /// The role name of a VM.
    pub fn role_name(&self, vm: u32) -> &str {
        &self.tenant.roles[self.trace.vms[vm as usize].role].name
    }

    /// The VM holding `ip` at the end of the visible windows (a listed member denotes it).
    pub fn holder(&self, ip: u32) -> Option<u32> {
        self.holder_at(ip, self.vis_end)
    }

    /// The VM holding `ip` at `t` (ms after T0; a VM stopping at `t` still holds it).
    pub fn holder_at(&self, ip: u32, t: u64) -> Option<u32> {
        self.trace.vms.iter().position(|v| v.ip == ip && v.start_ms < t && v.stop_ms >= t).map(|i| i as u32)
    }

    /// The key sets B, A, K and U's endpoints.
    pub fn sets(&self) -> &Sets {
        self.lazy.sets.get_or_init(|| Sets::new(self))
    }

    /// The flows table `F` of the visible windows, in the id's format.
    pub fn table(&self) -> std::result::Result<Arc<Table>, String> {
        self.lazy.table.get_or_init(|| self.make_table().map(Arc::new)).clone()
    }

    /// The trace of the visible windows: what the agent's logs may show, never the hidden one.
    fn visible_trace(&self) -> Trace {
        Trace {
            minutes: (self.vis_end / MIN) as u32,
            vms: self.trace.vms.clone(),
            connections: self.trace.connections.iter().filter(|c| c.start < self.vis_end).copied().collect(),
        }
    }

    /// The visible windows' flow logs as the provider of `format` writes them (`F.raw`'s text
    /// when `format` is the id's own).
    pub fn logs(&self, format: Format) -> String {
        let (visible, records) = self.visible_records(format);
        format::render(format, &self.tenant, &visible, &records)
    }

    /// [`World::logs`] written to `w` a block at a time (`format::write`).
    pub fn write_logs(&self, format: Format, w: &mut dyn std::io::Write) -> std::io::Result<()> {
        let (visible, records) = self.visible_records(format);
        format::write(format, &self.tenant, &visible, &records, w)
    }

    fn visible_records(&self, format: Format) -> (Trace, Vec<format::Emitted>) {
        let visible = self.visible_trace();
        let records = format::emit(format, &self.tenant, &visible, format::Options::default());
        (visible, records)
    }

    fn make_table(&self) -> std::result::Result<Table, String> {
        let format = self.tenant.key.knobs.format;
        let text = self.logs(format);
        let inv = format::Inventory::new(&self.trace.vms);
        let parsed = format::parse(format, &text, &inv).map_err(|e| e.to_string())?;
        let windows = self.windows[..self.windows.len() - 1]
            .iter()
            .map(|w| {
                let at = |m: u32| crate::flows::T0 + 60 * u64::from(m);
                (w.name.clone(), at(w.start_min), at(w.start_min + w.len_min))
            })
            .collect();
        Table::new(format, parsed, &inv, windows)
    }

    /// The communication graph `G` of the visible windows.
    pub fn graph(&self) -> &Graph {
        self.lazy
            .graph
            .get_or_init(|| Graph::from_trace(&self.tenant, &self.trace, false, Some((0, self.vis_end))))
    }

    /// Whether P\* allows (client, server, proto, port).
    pub fn intended(&self, s: Party, d: Party, proto: u8, port: u16) -> bool {
        self.star.contains(&(s, d, proto, port))
    }

    /// Every (proto, port) some role serves.
    pub fn served(&self) -> Vec<(u8, u16)> {
        let mut p: Vec<(u8, u16)> =
            self.tenant.roles.iter().flat_map(|r| r.listens.iter().copied()).collect();
        p.sort_unstable();
        p.dedup();
        p
    }
}

/// Windows and churn points of a shape over d minutes.
fn windows(shape: Shape, d: u32) -> (Vec<Window>, Vec<u32>) {
    let w = |name: &str, a: u32, b: u32| Window { name: name.into(), start_min: a, len_min: b - a };
    match shape {
        Shape::Split => (vec![w("train", 0, d / 2), w("test", d / 2, d)], vec![d / 2]),
        Shape::Incremental => {
            let (h1, h2) = (d / 3, 2 * d / 3);
            (vec![w("w1", 0, h1), w("w2", h1, h2), w("test", h2, d)], vec![h1])
        }
    }
}

/// Whether every churn point reuses an address for a VM of a different role.
fn reuses(t: &Tenant, vms: &[crate::flows::Vm], points: &[u32]) -> bool {
    points.iter().all(|&p| {
        let at = u64::from(p) * MIN;
        vms.iter().filter(|n| n.start_ms >= at && n.start_ms < at + MIN).any(|n| {
            vms.iter()
                .any(|o| o.stop_ms == at && o.ip == n.ip && t.roles[o.role].name != t.roles[n.role].name)
        })
    })
}

/// Builds the world of a setup and shape (uncached).
pub fn build(setup: &Setup, shape: Shape) -> Result<World> {
    let mut knobs = setup.knobs.clone();
    if shape == Shape::Incremental && knobs.u == 0 {
        knobs.u = 10;
    }
    let key = TenantKey { app: "microseg".into(), level: setup.level, seed: setup.seed, knobs };
    let tenant = Tenant::new(&key).map_err(Error::Invalid)?;
    let d = key.knobs.d;
    let (windows, points) = windows(shape, d);
    let churn = if key.knobs.u > 0 { points } else { Vec::new() };
    let mut scenario = Scenario { windows: windows.clone(), churn: churn.clone(), ..Scenario::default() };
    if setup.level == 3 && !churn.is_empty() {
        let name = (0..=64)
            .map(|i| if i == 0 { "churn".to_string() } else { format!("churn{i}") })
            .find(|n| {
                let sc = Scenario { churn_stream: n.clone(), ..scenario.clone() };
                reuses(&tenant, &crate::flows::churn(&tenant, &sc, d), &churn)
            })
            .ok_or_else(|| Error::GenerationExhausted(key.material()))?;
        scenario.churn_stream = name;
    }
    let trace = crate::flows::generate(&tenant, &scenario).map_err(Error::Invalid)?;
    let star = star(&tenant);
    Ok(World::assemble(tenant, trace, shape, windows, scenario.churn_stream, star))
}

impl World {
    /// The world of a tenant's trace over `windows` (the last one hidden): the VMs each side
    /// sees, by address. Generation passes the drawn tenant; the hand-made fixture its own.
    pub(super) fn assemble(
        tenant: Tenant,
        trace: Trace,
        shape: Shape,
        windows: Vec<Window>,
        churn_stream: String,
        star: BTreeSet<StarKey>,
    ) -> World {
        let test = windows.last().expect("a test window");
        let vis_end = u64::from(test.start_min) * MIN;
        let test_end = u64::from(test.start_min + test.len_min) * MIN;
        let pick = |f: &dyn Fn(&crate::flows::Vm) -> bool| -> Vec<u32> {
            let mut v: Vec<u32> =
                (0..trace.vms.len() as u32).filter(|&i| f(&trace.vms[i as usize])).collect();
            v.sort_by_key(|&i| (trace.vms[i as usize].ip, trace.vms[i as usize].start_ms));
            v
        };
        let visible = pick(&|v| v.start_ms < vis_end);
        let test_vms = pick(&|v| v.stop_ms > vis_end && v.start_ms < test_end);
        World {
            tenant,
            trace,
            shape,
            windows,
            churn_stream,
            vis_end,
            visible,
            test_vms,
            star,
            lazy: Lazy::default(),
        }
    }
}

/// The world of a setup and shape, from a small cache (a run walks a seed's indexes in turn).
pub fn world(setup: &Setup, shape: Shape) -> Result<Arc<World>> {
    type Cache = Vec<((Setup, Shape), Arc<World>)>;
    static CACHE: OnceLock<Mutex<Cache>> = OnceLock::new();
    let cache = CACHE.get_or_init(|| Mutex::new(Vec::new()));
    let key = (setup.clone(), shape);
    if let Some(w) = cache.lock().ok().and_then(|c| c.iter().find(|(k, _)| *k == key).map(|(_, w)| w.clone()))
    {
        return Ok(w);
    }
    let w = Arc::new(build(setup, shape)?);
    if let Ok(mut c) = cache.lock() {
        if c.len() >= 4 {
            c.remove(0);
        }
        c.push((key, w.clone()));
    }
    Ok(w)
}

/// The party of a pattern endpoint.
fn party(t: &Tenant, e: Ep) -> Party {
    match e {
        Ep::Vm(v) => Party::Role(t.vms[v as usize].role),
        Ep::Internet => Party::Res(Reserved::Internet),
        Ep::Admin => Party::Res(Reserved::Admin),
        Ep::Storage => Party::Res(Reserved::Storage),
        Ep::Addr(LB) => Party::Res(Reserved::Lb),
        Ep::Addr(TELEMETRY) => Party::Res(Reserved::Telemetry),
        Ep::Addr(a) => Party::Res(Reserved::of(a).unwrap_or(Reserved::Internet)),
    }
}

/// P\*: one allow per (pattern row, client party, server party, proto, port) the tenant has.
/// Churn never adds a role, so the initial VMs show every combination.
pub fn star(t: &Tenant) -> BTreeSet<StarKey> {
    let mut by_role = vec![Vec::new(); t.roles.len()];
    for (i, v) in t.vms.iter().enumerate() {
        by_role[v.role].push(i as u32);
    }
    let alive = Alive { vms: &t.vms, by_role };
    let mut out = BTreeSet::new();
    for r in 1..=ROWS {
        for u in patterns::units(r, t, &alive) {
            let c = party(t, u.client);
            let servers: Vec<Party> = match &u.server {
                Server::One(e) => vec![party(t, *e)],
                Server::Any(list) => list.iter().map(|&v| party(t, Ep::Vm(v))).collect(),
            };
            for s in servers {
                out.insert((c, s, u.proto, u.port));
            }
        }
    }
    out
}

/// Role names by index, and the map from a role name to its index.
pub fn role_index(t: &Tenant) -> BTreeMap<&str, usize> {
    t.roles.iter().enumerate().map(|(i, r)| (r.name.as_str(), i)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(s: &str) -> QueryId {
        s.parse().unwrap()
    }

    #[test]
    fn level_defaults_and_knobs() {
        let s = setup(&id("microseg-v1-L1-s0-i0")).unwrap();
        assert_eq!((s.knobs.a, s.knobs.d, s.knobs.k, s.knobs.u, s.knobs.c), (1, 60, 30, 0, 200));
        assert_eq!(s.knobs.format, Format::Vnet4);
        let s = setup(&id("microseg-v1-L3-s4-i0-n8-faws2")).unwrap();
        assert!((3..=4).contains(&s.knobs.a));
        assert_eq!((s.knobs.n, s.knobs.c, s.knobs.format), (8, 400, Format::Aws2));
        for (bad, msg) in [
            ("microseg-v1-L1-s0-i0-d10", "15..1440"),
            ("microseg-v1-L1-s0-i0-raws", "knob r"),
            ("microseg-v1-L1-s0-i0-fxx", "knob f"),
            ("microseg-v1-L1-s0-i0-t0", "1..50"),
        ] {
            let e = setup(&id(bad)).unwrap_err().to_string();
            assert!(e.contains(msg), "{bad}: {e}");
        }
    }

    #[test]
    fn l3_reuses_an_address_at_its_churn_point() {
        let s = setup(&id("microseg-v1-L3-s1-i0")).unwrap();
        let w = build(&s, Shape::Split).unwrap();
        assert!(reuses(&w.tenant, &w.trace.vms, &[s.knobs.d / 2]));
        assert!(w.test_vms.iter().any(|&v| w.trace.vms[v as usize].start_ms >= w.vis_end));
    }

    #[test]
    fn star_has_the_rows_of_the_table() {
        let s = setup(&id("microseg-v1-L1-s0-i0")).unwrap();
        let w = build(&s, Shape::Split).unwrap();
        let ri = role_index(&w.tenant);
        let web = Party::Role(ri["shop.web"]);
        assert!(w.intended(Party::Res(Reserved::Internet), web, 6, 443));
        assert!(w.intended(Party::Role(ri["hub.monitoring"]), web, 6, 9100));
        assert!(!w.intended(web, Party::Role(ri["shop.db"]), 6, w.tenant.apps[0].p_db));
    }
}
