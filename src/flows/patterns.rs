//! The communication patterns (docs/flows.md, "Communication patterns"): who talks to whom,
//! on which port, how often, for how long and how much, as data the model walks.
//!
//! A [`Unit`] is one arrival process: a client (or a uniform pick of clients) and a server (or a
//! uniform pick of servers). Units are rebuilt from the VMs alive in each churn epoch, always in
//! the same order, so every draw has its place in the row's stream.

use super::tenant::{ADMINS, AppNet, LB, RoleKind, TCP, TELEMETRY, Tenant, UDP, Vm};

/// How connections arrive for a unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arrival {
    /// Per minute below(2r+1) connections.
    Burst(u64),
    /// Every S seconds from a drawn phase.
    Every(u64),
    /// Per minute one connection with chance 1/M.
    Chance(u64),
    /// m concurrent long connections, each lasting a draw of the duration range.
    Pool(u64),
}

/// Packet and bytes-per-packet ranges: (fwd packets, rev packets, fwd bpp, rev bpp).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Size {
    Probe,
    Small,
    Rpc,
    Web,
    Pool,
    Bulk,
    Dns,
    Ntp,
}

impl Size {
    pub fn ranges(self) -> [(u64, u64); 4] {
        match self {
            Size::Probe => [(3, 5), (3, 4), (60, 120), (60, 200)],
            Size::Small => [(4, 8), (4, 8), (60, 300), (60, 600)],
            Size::Rpc => [(4, 12), (4, 20), (80, 600), (80, 1400)],
            Size::Web => [(6, 30), (8, 120), (80, 700), (200, 1460)],
            Size::Pool => [(20, 200), (20, 400), (80, 600), (80, 1400)],
            Size::Bulk => [(1000, 50_000), (500, 5000), (1000, 1460), (52, 80)],
            Size::Dns => [(1, 1), (1, 1), (60, 100), (80, 400)],
            Size::Ntp => [(1, 1), (1, 1), (90, 90), (90, 90)],
        }
    }
}

/// One endpoint of a unit: a VM (index into the trace's VMs) or an address that logs nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Ep {
    Vm(u32),
    Addr(u32),
    /// Uniform over the tenant's Internet clients.
    Internet,
    /// Uniform over the administrators.
    Admin,
    /// Uniform over the storage endpoints.
    Storage,
}

/// Who serves a unit's connections.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Server {
    One(Ep),
    /// Uniform over these VMs, per connection.
    Any(Vec<u32>),
}

/// One arrival process of a row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unit {
    pub client: Ep,
    pub server: Server,
    pub proto: u8,
    pub port: u16,
    pub arrival: Arrival,
    /// Duration range in ms (pools: each connection's lifetime).
    pub dur: (u64, u64),
    pub size: Size,
}

/// The VMs alive in one epoch, by role (indexes into the trace's VMs, in id order).
pub struct Alive<'a> {
    pub vms: &'a [Vm],
    pub by_role: Vec<Vec<u32>>,
}

impl Alive<'_> {
    fn of(&self, tenant: &Tenant, vnet: u32, kind: RoleKind) -> &[u32] {
        tenant.roles.iter().position(|r| r.vnet == vnet && r.kind == kind).map_or(&[], |r| &self.by_role[r])
    }

    fn all(&self) -> impl Iterator<Item = u32> + '_ {
        let mut all: Vec<u32> = self.by_role.iter().flatten().copied().collect();
        all.sort_unstable();
        all.into_iter()
    }
}

/// Rows of the pattern table.
pub const ROWS: u8 = 15;

const MIN: u64 = 60_000;

fn unit(
    client: Ep,
    server: Server,
    proto: u8,
    port: u16,
    arrival: Arrival,
    dur: (u64, u64),
    size: Size,
) -> Unit {
    Unit { client, server, proto, port, arrival, dur, size }
}

fn one(vm: u32) -> Server {
    Server::One(Ep::Vm(vm))
}

/// The units of row `r` (1-based) for the VMs alive now.
pub fn units(r: u8, t: &Tenant, alive: &Alive<'_>) -> Vec<Unit> {
    let mut out = Vec::new();
    let internet = !t.internet.is_empty();
    for app in &t.apps {
        app_row(r, t, app, alive, internet, &mut out);
    }
    let dc = alive.of(t, 0, RoleKind::Dc);
    let mon = alive.of(t, 0, RoleKind::Monitoring);
    let bastion = alive.of(t, 0, RoleKind::Bastion);
    let not_dc = || alive.all().filter(|&v| t.roles[alive.vms[v as usize].role].kind != RoleKind::Dc);
    match r {
        9 if !dc.is_empty() => {
            out.extend(not_dc().map(|v| {
                unit(Ep::Vm(v), Server::Any(dc.to_vec()), UDP, 53, Arrival::Burst(4), (1, 20), Size::Dns)
            }));
        }
        10 if !dc.is_empty() => out.extend(not_dc().map(|v| {
            let d = dc[alive.vms[v as usize].id as usize % dc.len()];
            unit(Ep::Vm(v), one(d), UDP, 123, Arrival::Every(64), (1, 20), Size::Ntp)
        })),
        11 if !dc.is_empty() => {
            let clients = t.apps.iter().flat_map(|a| {
                let mut c = alive.of(t, a.v, RoleKind::Web).to_vec();
                c.extend(alive.of(t, a.v, RoleKind::Api));
                c
            });
            let mut clients: Vec<u32> = clients.chain(bastion.iter().copied()).collect();
            clients.sort_unstable();
            for v in clients {
                for port in [88, 389] {
                    out.push(unit(
                        Ep::Vm(v),
                        Server::Any(dc.to_vec()),
                        TCP,
                        port,
                        Arrival::Chance(10),
                        (20, 200),
                        Size::Small,
                    ));
                }
            }
        }
        12 if !mon.is_empty() => out.extend(alive.all().filter_map(|v| {
            let m = mon[alive.vms[v as usize].id as usize % mon.len()];
            (m != v).then(|| unit(Ep::Vm(m), one(v), TCP, 9100, Arrival::Every(15), (10, 100), Size::Small))
        })),
        13 => out.extend(mon.iter().map(|&m| {
            unit(
                Ep::Vm(m),
                Server::One(Ep::Addr(TELEMETRY)),
                TCP,
                443,
                Arrival::Every(60),
                (200, 2000),
                Size::Rpc,
            )
        })),
        14 => out.extend(bastion.iter().map(|&b| {
            unit(Ep::Admin, one(b), TCP, 22, Arrival::Chance(20), (120_000, 1_200_000), Size::Pool)
        })),
        15 => {
            let targets: Vec<u32> =
                alive.all().filter(|&v| t.roles[alive.vms[v as usize].role].vnet != 0).collect();
            if !targets.is_empty() {
                out.extend(bastion.iter().map(|&b| {
                    unit(
                        Ep::Vm(b),
                        Server::Any(targets.clone()),
                        TCP,
                        22,
                        Arrival::Chance(30),
                        (10_000, 300_000),
                        Size::Rpc,
                    )
                }));
            }
        }
        _ => {}
    }
    out
}

/// Rows 1–8: within one application.
fn app_row(r: u8, t: &Tenant, app: &AppNet, alive: &Alive<'_>, internet: bool, out: &mut Vec<Unit>) {
    let of = |k| alive.of(t, app.v, k);
    let (web, api, worker, db, cache, queue) = (
        of(RoleKind::Web),
        of(RoleKind::Api),
        of(RoleKind::Worker),
        of(RoleKind::Db),
        of(RoleKind::Cache),
        of(RoleKind::Queue),
    );
    let pool_d = (5 * MIN, 30 * MIN);
    match r {
        1 if internet => out.extend(
            web.iter()
                .map(|&w| unit(Ep::Internet, one(w), TCP, 443, Arrival::Burst(30), (200, 5000), Size::Web)),
        ),
        2 if internet => out.extend(
            web.iter()
                .map(|&w| unit(Ep::Internet, one(w), TCP, 80, Arrival::Burst(3), (50, 500), Size::Small)),
        ),
        3 => {
            out.extend(
                web.iter()
                    .map(|&w| unit(Ep::Addr(LB), one(w), TCP, 80, Arrival::Every(5), (20, 50), Size::Probe)),
            );
            out.extend(api.iter().map(|&a| {
                unit(Ep::Addr(LB), one(a), TCP, app.p_api, Arrival::Every(5), (20, 50), Size::Probe)
            }));
        }
        4 if !api.is_empty() => out.extend(web.iter().map(|&w| {
            unit(
                Ep::Vm(w),
                Server::Any(api.to_vec()),
                TCP,
                app.p_api,
                Arrival::Burst(20),
                (50, 2000),
                Size::Rpc,
            )
        })),
        5 => {
            for &a in api {
                out.extend(
                    db.iter().map(|&d| {
                        unit(Ep::Vm(a), one(d), TCP, app.p_db, Arrival::Pool(4), pool_d, Size::Pool)
                    }),
                );
            }
            if !db.is_empty() {
                out.extend(worker.iter().map(|&w| {
                    unit(
                        Ep::Vm(w),
                        Server::Any(db.to_vec()),
                        TCP,
                        app.p_db,
                        Arrival::Burst(2),
                        (50, 2000),
                        Size::Rpc,
                    )
                }));
            }
        }
        6 => {
            for &a in api {
                out.extend(
                    cache
                        .iter()
                        .map(|&c| unit(Ep::Vm(a), one(c), TCP, 6379, Arrival::Pool(2), pool_d, Size::Pool)),
                );
            }
        }
        7 if !queue.is_empty() => {
            out.extend(api.iter().map(|&a| {
                unit(
                    Ep::Vm(a),
                    Server::Any(queue.to_vec()),
                    TCP,
                    5672,
                    Arrival::Burst(5),
                    (20, 500),
                    Size::Rpc,
                )
            }));
            out.extend(worker.iter().enumerate().map(|(w, &v)| {
                let q = queue[w % queue.len()];
                unit(Ep::Vm(v), one(q), TCP, 5672, Arrival::Pool(1), (10 * MIN, 60 * MIN), Size::Pool)
            }));
        }
        8 => {
            out.extend(worker.iter().map(|&w| {
                unit(
                    Ep::Vm(w),
                    Server::One(Ep::Storage),
                    TCP,
                    443,
                    Arrival::Chance(10),
                    (1000, 20_000),
                    Size::Rpc,
                )
            }));
            out.extend(db.iter().map(|&d| {
                unit(
                    Ep::Vm(d),
                    Server::One(Ep::Storage),
                    TCP,
                    443,
                    Arrival::Chance(30),
                    (60_000, 300_000),
                    Size::Bulk,
                )
            }));
        }
        _ => {}
    }
}

/// Expected connections per minute of a unit (for the size estimate), in thousandths.
pub fn milli_rate(u: &Unit) -> u64 {
    match u.arrival {
        Arrival::Burst(r) => 1000 * r,
        Arrival::Every(s) => 60_000 / s,
        Arrival::Chance(m) => 1000 / m,
        Arrival::Pool(m) => 1000 * m * MIN / ((u.dur.0 + u.dur.1) / 2),
    }
}

/// Whether `addr` is one of the tenant's private addresses (10.0.0.0/8).
pub fn private(addr: u32) -> bool {
    addr >> 24 == 10
}

/// Whether `addr` is a platform address (100.64.0.0/10).
pub fn platform(addr: u32) -> bool {
    addr >> 22 == (100 << 2 | 1)
}

/// Admin addresses.
pub fn admin(addr: u32) -> bool {
    ADMINS.contains(&addr)
}
