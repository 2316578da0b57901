//! The tenant: VNets, roles, instances, platform and Internet endpoints, and the identifiers
//! the log formats print (docs/flows.md, "Tenant").
//!
//! Everything is drawn from the tenant's `plan` stream (and `labels` for the known role tags),
//! in the documented order, so a tenant is one value of its key.

use std::net::Ipv4Addr;

use super::knobs::{Layout, TenantKey};
use crate::seed::{Stream, Width};

/// Application VNet names, in order (application v is `APP_NAMES[v - 1]`).
pub const APP_NAMES: [&str; 4] = ["shop", "crm", "hr", "billing"];
/// TCP and UDP.
pub const TCP: u8 = 6;
pub const UDP: u8 = 17;
/// Every VM's exporter port.
pub const EXPORTER: u16 = 9100;

/// Platform endpoints (not VMs; they log nothing).
pub const LB: u32 = ip(100, 64, 0, 1);
pub const STORAGE: [u32; 4] =
    [ip(100, 64, 1, 10), ip(100, 64, 1, 11), ip(100, 64, 1, 12), ip(100, 64, 1, 13)];
pub const TELEMETRY: u32 = ip(100, 64, 2, 10);
/// Administrators' addresses on the Internet.
pub const ADMINS: [u32; 2] = [ip(198, 51, 100, 10), ip(198, 51, 100, 11)];
/// Scanners and attackers come from this /24.
pub const SCANNER_NET: u32 = ip(203, 0, 113, 0);

/// An IPv4 address as its number.
pub const fn ip(a: u8, b: u8, c: u8, d: u8) -> u32 {
    u32::from_be_bytes([a, b, c, d])
}

/// Dotted form of an address number.
pub fn dotted(addr: u32) -> String {
    Ipv4Addr::from(addr).to_string()
}

/// What a role does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum RoleKind {
    Web,
    Api,
    Worker,
    Db,
    Cache,
    Queue,
    Dc,
    Monitoring,
    Bastion,
}

impl RoleKind {
    /// Application roles in table order.
    pub const APP: [RoleKind; 6] =
        [RoleKind::Web, RoleKind::Api, RoleKind::Worker, RoleKind::Db, RoleKind::Cache, RoleKind::Queue];
    /// Hub roles in table order.
    pub const HUB: [RoleKind; 3] = [RoleKind::Dc, RoleKind::Monitoring, RoleKind::Bastion];

    pub fn name(self) -> &'static str {
        match self {
            RoleKind::Web => "web",
            RoleKind::Api => "api",
            RoleKind::Worker => "worker",
            RoleKind::Db => "db",
            RoleKind::Cache => "cache",
            RoleKind::Queue => "queue",
            RoleKind::Dc => "dc",
            RoleKind::Monitoring => "monitoring",
            RoleKind::Bastion => "bastion",
        }
    }

    /// Position in its VNet's table (1-based): the /22 a `tier` layout gives it.
    fn tier_index(self) -> u32 {
        match self {
            RoleKind::Web | RoleKind::Dc => 1,
            RoleKind::Api | RoleKind::Monitoring => 2,
            RoleKind::Worker | RoleKind::Bastion => 3,
            RoleKind::Db => 4,
            RoleKind::Cache => 5,
            RoleKind::Queue => 6,
        }
    }

    /// Whether the Internet may reach it (web and bastion).
    pub fn exposed(self) -> bool {
        matches!(self, RoleKind::Web | RoleKind::Bastion)
    }
}

/// One application VNet's drawn shape.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AppNet {
    /// 1-based: the VNet is 10.v.0.0/16.
    pub v: u32,
    pub name: &'static str,
    pub p_api: u16,
    pub p_db: u16,
}

/// A role: `{vnet}.{role}` with its listening ports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Role {
    /// 0 for the hub, else the application's v.
    pub vnet: u32,
    pub kind: RoleKind,
    /// `shop.db`, `hub.dc`.
    pub name: String,
    /// (protocol, port), the exporter last.
    pub listens: Vec<(u8, u16)>,
    /// The count churn never goes below.
    pub min: u32,
}

/// One VM (one NIC, one ENI).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Vm {
    /// Counted by creation.
    pub id: u32,
    /// Index into [`Tenant::roles`].
    pub role: usize,
    pub ip: u32,
    /// Running from this ms after T0 (0 for the first VMs)…
    pub start_ms: u64,
    /// …until this one (`u64::MAX`: not removed).
    pub stop_ms: u64,
    /// Whether its role tag is known (`role={role name}`).
    pub known: bool,
    pub eni: String,
    pub instance: String,
    pub mac: String,
}

/// The per-VNet identifiers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NetIds {
    pub vpc: String,
    pub subnet: Vec<String>,
    pub nsg_guid: String,
    pub flow_log_guid: String,
}

/// A tenant before churn.
#[derive(Debug, Clone)]
pub struct Tenant {
    pub key: TenantKey,
    pub apps: Vec<AppNet>,
    pub roles: Vec<Role>,
    pub vms: Vec<Vm>,
    /// Internet clients, in draw order.
    pub internet: Vec<u32>,
    pub account: String,
    pub subscription: String,
    /// Index 0 the hub, then the applications.
    pub nets: Vec<NetIds>,
    pub(super) alloc: Alloc,
}

/// Where the next host address of a role comes from (churn keeps drawing from it).
#[derive(Debug, Clone)]
pub(super) enum Alloc {
    /// Next host per role.
    Tier(Vec<u32>),
    /// Per VNet: a partial Fisher–Yates shuffle of its /18's hosts and how far it has gone.
    Flat(Vec<(Vec<u32>, usize)>),
}

const FLAT_HOSTS: u32 = 16_382 - 10 + 1;

impl Alloc {
    /// The next address for role `r`, drawing from `s` in the flat layout.
    pub(super) fn next(&mut self, roles: &[Role], r: usize, s: &mut Stream) -> u32 {
        let vnet = roles[r].vnet;
        match self {
            Alloc::Tier(next) => {
                let base = ip(10, vnet as u8, 0, 0) + (((roles[r].kind.tier_index() - 1) * 4) << 8);
                next[r] += 1;
                base + 9 + next[r]
            }
            Alloc::Flat(pools) => {
                let (pool, i) = &mut pools[vnet as usize];
                if pool.is_empty() {
                    *pool = (0..FLAT_HOSTS).map(|h| ip(10, vnet as u8, 0, 10) + h).collect();
                }
                let j = *i + s.index(pool.len() - *i);
                pool.swap(*i, j);
                *i += 1;
                pool[*i - 1]
            }
        }
    }
}

/// 17 lowercase hex digits.
fn hex17(s: &mut Stream) -> String {
    format!("{:08x}{:09x}", s.below(1 << 32), s.below(1 << 36))
}

/// A lowercase version-4 UUID.
pub(super) fn uuid(s: &mut Stream) -> String {
    let a = s.below(1 << 62);
    let b = s.below(1 << 62);
    let variant = 8 + (b >> 60);
    format!(
        "{:08x}-{:04x}-4{:03x}-{:x}{:03x}-{:012x}",
        a >> 30,
        (a >> 14) & 0xffff,
        (a >> 2) & 0xfff,
        variant,
        (b >> 48) & 0xfff,
        b & 0xffff_ffff_ffff
    )
}

/// A VM's identifiers: ENI, instance, MAC.
pub(super) fn vm_ids(s: &mut Stream) -> (String, String, String) {
    let eni = format!("eni-{}", hex17(s));
    let instance = format!("i-{}", hex17(s));
    let mac = format!("{:012X}", s.below(1 << 48));
    (eni, instance, mac)
}

impl Tenant {
    /// Draws the tenant of `key` (the knobs must be valid).
    pub fn new(key: &TenantKey) -> Result<Tenant, String> {
        key.knobs.validate()?;
        let n = key.knobs.n;
        let mut s = Stream::new(&key.part("plan"), Width::W64);
        let mut apps = Vec::new();
        let mut present: Vec<(u32, RoleKind)> = RoleKind::HUB.iter().map(|&k| (0, k)).collect();
        let mut app_roles = Vec::new();
        for v in 1..=key.knobs.a {
            let p_api = *s.choose(&[8080u16, 8443, 9000, 3000]);
            let p_db = *s.choose(&[5432u16, 3306, 1433]);
            let cache = s.below(4) != 0;
            let queue = s.below(4) != 0;
            let (p_api, p_db) = match apps.first() {
                Some(AppNet { p_api, p_db, .. }) if v == 2 => (*p_api, *p_db),
                _ => (p_api, p_db),
            };
            apps.push(AppNet { v, name: APP_NAMES[v as usize - 1], p_api, p_db });
            for kind in RoleKind::APP {
                let absent = match kind {
                    RoleKind::Cache => !cache,
                    RoleKind::Queue | RoleKind::Worker => !queue,
                    _ => false,
                };
                if !absent {
                    app_roles.push((v, kind));
                }
            }
        }
        present.extend(app_roles);
        let mut roles = Vec::new();
        let mut counts = Vec::new();
        for &(vnet, kind) in &present {
            let delta = s.below(3) as i64 - 1;
            let (count, min) = role_count(kind, n, delta);
            let app = apps.iter().find(|a| a.v == vnet);
            roles.push(Role {
                vnet,
                kind,
                name: format!("{}.{}", app.map_or("hub", |a| a.name), kind.name()),
                listens: listens(kind, app),
                min,
            });
            counts.push(count);
        }
        let nets = key.knobs.a as usize + 1;
        let mut alloc = match key.knobs.layout {
            Layout::Tier => Alloc::Tier(vec![0; roles.len()]),
            Layout::Flat => Alloc::Flat(vec![(Vec::new(), 0); nets]),
        };
        let mut vms = Vec::new();
        for (r, &count) in counts.iter().enumerate() {
            for _ in 0..count {
                let addr = alloc.next(&roles, r, &mut s);
                vms.push(Vm {
                    id: vms.len() as u32,
                    role: r,
                    ip: addr,
                    start_ms: 0,
                    stop_ms: u64::MAX,
                    known: false,
                    eni: String::new(),
                    instance: String::new(),
                    mac: String::new(),
                });
            }
        }
        let internet = internet_clients(&mut s, key.knobs.c);
        let account = format!("{:012}", s.below(1_000_000_000_000));
        let subscription = uuid(&mut s);
        let nets = (0..nets)
            .map(|_| NetIds {
                vpc: format!("vpc-{}", hex17(&mut s)),
                subnet: (0..6).map(|_| format!("subnet-{}", hex17(&mut s))).collect(),
                nsg_guid: uuid(&mut s),
                flow_log_guid: uuid(&mut s),
            })
            .collect();
        for vm in &mut vms {
            (vm.eni, vm.instance, vm.mac) = vm_ids(&mut s);
        }
        let v = vms.len();
        let mut labels = Stream::new(&key.part("labels"), Width::W64);
        for i in labels.subset(v, (key.knobs.k as usize * v).div_ceil(100)) {
            vms[i].known = true;
        }
        Ok(Tenant { key: key.clone(), apps, roles, vms, internet, account, subscription, nets, alloc })
    }

    /// The role of a VM.
    pub fn role_of(&self, vm: &Vm) -> &Role {
        &self.roles[vm.role]
    }

    /// The subnet id of a role (flat: one per VNet).
    pub fn subnet_of(&self, role: usize) -> &str {
        let r = &self.roles[role];
        let i = match self.key.knobs.layout {
            Layout::Tier => r.kind.tier_index() as usize - 1,
            Layout::Flat => 0,
        };
        &self.nets[r.vnet as usize].subnet[i]
    }

    /// The VNet name of a role (`hub`, `shop`, …).
    pub fn vnet_name(&self, vnet: u32) -> &'static str {
        if vnet == 0 { "hub" } else { APP_NAMES[vnet as usize - 1] }
    }
}

/// (count, churn minimum) of a role at scale `n`.
fn role_count(kind: RoleKind, n: u32, delta: i64) -> (u32, u32) {
    let with = |floor: u32, base: u32| (floor as i64).max(base as i64 + delta) as u32;
    match kind {
        RoleKind::Web | RoleKind::Api => (with(2, n), 2),
        RoleKind::Worker => (with(1, n), 1),
        RoleKind::Db => (with(1, n.div_ceil(2)), 1),
        RoleKind::Cache | RoleKind::Queue => (with(1, n.div_ceil(4)), 1),
        RoleKind::Dc => (2, 2),
        RoleKind::Monitoring => (1 + n / 16, 1 + n / 16),
        RoleKind::Bastion => (1, 1),
    }
}

fn listens(kind: RoleKind, app: Option<&AppNet>) -> Vec<(u8, u16)> {
    let mut l = match (kind, app) {
        (RoleKind::Web, _) => vec![(TCP, 443), (TCP, 80)],
        (RoleKind::Api, Some(a)) => vec![(TCP, a.p_api)],
        (RoleKind::Db, Some(a)) => vec![(TCP, a.p_db)],
        (RoleKind::Cache, _) => vec![(TCP, 6379)],
        (RoleKind::Queue, _) => vec![(TCP, 5672)],
        (RoleKind::Dc, _) => vec![(UDP, 53), (UDP, 123), (TCP, 88), (TCP, 389)],
        (RoleKind::Bastion, _) => vec![(TCP, 22)],
        _ => vec![],
    };
    l.push((TCP, EXPORTER));
    l
}

/// `c` distinct addresses of 198.18.0.0/15 other than 198.18.0.1.
fn internet_clients(s: &mut Stream, c: u32) -> Vec<u32> {
    let base = ip(198, 18, 0, 0);
    let hosts = (1u32 << 17) - 1;
    s.subset(hosts as usize, c as usize)
        .into_iter()
        .map(|h| {
            let h = h as u32;
            base + if h >= 1 { h + 1 } else { h }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::knobs::Knobs;
    use super::*;

    fn key(knobs: Knobs) -> TenantKey {
        TenantKey { app: "test".into(), level: 1, seed: 3, knobs }
    }

    #[test]
    fn roles_follow_the_table() {
        let t = Tenant::new(&key(Knobs { a: 2, ..Knobs::default() })).unwrap();
        assert_eq!(t.roles[0].name, "hub.dc");
        assert_eq!(t.roles[0].listens, vec![(UDP, 53), (UDP, 123), (TCP, 88), (TCP, 389), (TCP, 9100)]);
        assert_eq!(t.apps[1].p_api, t.apps[0].p_api);
        assert_eq!(t.apps[1].p_db, t.apps[0].p_db);
        for r in 0..t.roles.len() {
            let count = t.vms.iter().filter(|v| v.role == r).count() as u32;
            assert!(count >= t.roles[r].min, "{}", t.roles[r].name);
        }
        let web = t.roles.iter().position(|r| r.name == "shop.web").unwrap();
        let first = t.vms.iter().find(|v| v.role == web).unwrap();
        assert_eq!(dotted(first.ip), "10.1.0.10");
    }

    #[test]
    fn flat_hosts_are_distinct_and_inside_the_18() {
        let t = Tenant::new(&key(Knobs { a: 3, n: 40, layout: Layout::Flat, ..Knobs::default() })).unwrap();
        let mut ips: Vec<u32> = t.vms.iter().map(|v| v.ip).collect();
        ips.sort();
        ips.dedup();
        assert_eq!(ips.len(), t.vms.len());
        for vm in &t.vms {
            let net = t.roles[vm.role].vnet;
            let host = vm.ip - ip(10, net as u8, 0, 0);
            assert!((10..=16_382).contains(&host), "{}", dotted(vm.ip));
        }
    }

    #[test]
    fn internet_clients_skip_the_gateway() {
        let mut s = Stream::new("x", Width::W64);
        let c = internet_clients(&mut s, 131_071);
        assert!(!c.contains(&ip(198, 18, 0, 1)));
        let mut sorted = c.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted.len(), c.len());
    }

    #[test]
    fn known_labels_are_a_ceiling_share() {
        let t = Tenant::new(&key(Knobs { k: 33, ..Knobs::default() })).unwrap();
        let known = t.vms.iter().filter(|v| v.known).count();
        assert_eq!(known, (33 * t.vms.len()).div_ceil(100));
    }

    #[test]
    fn identifiers_have_their_forms() {
        let t = Tenant::new(&key(Knobs::default())).unwrap();
        let vm = &t.vms[0];
        assert_eq!(vm.eni.len(), 4 + 17);
        assert_eq!(vm.instance.len(), 2 + 17);
        assert!(
            vm.mac.len() == 12 && vm.mac.chars().all(|c| c.is_ascii_hexdigit() && !c.is_ascii_lowercase())
        );
        assert_eq!(t.account.len(), 12);
        let u = &t.subscription;
        assert_eq!(u.len(), 36);
        assert_eq!(&u[14..15], "4");
        assert!("89ab".contains(&u[19..20]));
    }
}
