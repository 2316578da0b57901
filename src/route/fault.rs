//! Fault families and variants (docs/route.md, "Tasks"): how each is drawn, injected and fixed.
//!
//! Every random choice is made when the fault is drawn and stored in [`Fault`]; injection and
//! fix are plain command lines run through the lab's shell, so a task can be replayed on a
//! real Linux lab as well.

use std::fmt;
use std::net::Ipv4Addr;

use ipnet::Ipv4Net;
use serde::{Deserialize, Serialize};

use super::net::Net;
use super::shell;
use super::topology::{PerTopology, Port, Topology};
use crate::seed::Stream;

/// The five fault families, in injection order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Family {
    /// Disabled routing (forwarding off, FORWARD policy, prohibit rule, FORWARD drop).
    DR,
    /// Disabled interface (down, MTU 68).
    DI,
    /// Removed or wrong interface address.
    RI,
    /// Dropped traffic to and from the router (filters, netem delay).
    DT,
    /// Wrong route.
    WR,
}

impl Family {
    pub const ALL: [Family; 5] = [Family::DR, Family::DI, Family::RI, Family::DT, Family::WR];

    pub fn name(self) -> &'static str {
        match self {
            Family::DR => "DR",
            Family::DI => "DI",
            Family::RI => "RI",
            Family::DT => "DT",
            Family::WR => "WR",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|f| f.name() == s)
    }

    /// How many variants the family has (DR1–DR4, DI1–DI3, …).
    pub fn variants(self) -> u8 {
        match self {
            Family::DI => 3,
            _ => 4,
        }
    }
}

impl fmt::Display for Family {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One drawn fault with every parameter resolved.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Fault {
    /// Variant id, e.g. `WR3`.
    pub id: String,
    pub family: Family,
    pub variant: u8,
    /// Router number (r0 = 0).
    pub router: usize,
    /// The interface number k of `X_k` (rX-eth{k}).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub k: Option<usize>,
    /// The other interface o.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub o: Option<usize>,
    /// The LAN prefix S.
    #[serde(rename = "S", skip_serializing_if = "Option::is_none")]
    pub s: Option<Ipv4Net>,
    /// The routed prefix P (WR).
    #[serde(rename = "P", skip_serializing_if = "Option::is_none")]
    pub p: Option<Ipv4Net>,
    /// RI3's prefix length.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub m: Option<u8>,
    /// RI2's address 10.a.b.1.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub a: Option<u8>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub b: Option<u8>,
    /// DT4's delay in milliseconds.
    #[serde(rename = "D", skip_serializing_if = "Option::is_none")]
    pub delay_ms: Option<u32>,
    /// Injection command lines, run in order on the router.
    pub commands: Vec<String>,
    /// The known-good fix, run in order on the router.
    pub fix: Vec<String>,
}

impl Fault {
    pub fn router_name(&self) -> String {
        format!("r{}", self.router)
    }

    /// The injection commands, read once to run on many networks.
    pub fn injection(&self) -> Lines {
        Lines::read(self.router_name(), &self.commands)
    }

    /// Runs the injection on `net` (failures are part of some variants, e.g. WR2).
    pub fn inject(&self, net: &mut Net) {
        self.injection().run(net);
    }

    /// Runs the known-good fix on `net`; true when every line succeeded.
    pub fn repair(&self, net: &mut Net) -> bool {
        Lines::read(self.router_name(), &self.fix).run(net)
    }
}

/// Command lines for one router, read by the shell once ([`shell::read`]): the generator
/// injects a fault into several networks.
pub struct Lines {
    router: String,
    scripts: Vec<Result<shell::Script, shell::ShellError>>,
}

impl Lines {
    fn read(router: String, lines: &[String]) -> Lines {
        Lines { router, scripts: lines.iter().map(|line| shell::read(line)).collect() }
    }

    /// Runs every line on the router; true when each exited 0 (a line the shell refuses
    /// changes nothing and fails, as [`shell::run`] has it).
    pub fn run(&self, net: &mut Net) -> bool {
        let id = net.node(&self.router).expect("fault routers exist");
        let mut ok = true;
        for script in &self.scripts {
            ok &= script.as_ref().is_ok_and(|script| shell::execute(net, id, script).status == 0);
        }
        ok
    }
}

/// What a router looks like to the fault generator.
struct RouterView {
    /// (interface name, healthy address) in interface order.
    ports: Vec<(String, Ipv4Net)>,
    routes: Vec<HealthyRoute>,
}

/// One healthy route of a router: connected (`P dev X`) or static (`P via G`), leaving by
/// interface `dev`.
#[derive(Clone, Copy)]
struct HealthyRoute {
    prefix: Ipv4Net,
    gw: Option<Ipv4Addr>,
    dev: usize,
}

impl RouterView {
    /// H_P: the route as `ip route add` takes it. Written only for the routes a fault names.
    fn text(&self, r: HealthyRoute) -> String {
        match r.gw {
            Some(gw) => format!("{} via {gw}", r.prefix),
            None => format!("{} dev {}", r.prefix, self.ports[r.dev].0),
        }
    }
}

/// Router `x` of a topology as the fault generator sees it. Every draw on a topology asks for
/// the same views (hosts per subnet aside), so they are built once per process.
fn view(topo: &Topology, x: usize) -> &'static RouterView {
    static BUILT: PerTopology<Vec<RouterView>> = PerTopology::new();
    let topo = Topology { m: 1, ..*topo };
    &BUILT.get(&topo, || (0..topo.r).map(|x| build_view(&topo, x)).collect())[x]
}

fn build_view(topo: &Topology, x: usize) -> RouterView {
    let plans = topo.ports(x);
    let mut routes: Vec<HealthyRoute> = plans
        .iter()
        .enumerate()
        .map(|(dev, p)| HealthyRoute { prefix: p.addr.trunc(), gw: None, dev })
        .collect();
    for (prefix, gw) in topo.static_routes(x) {
        let dev = plans
            .iter()
            .position(|p| matches!(p.port, Port::Transit(_)) && p.addr.trunc().contains(&gw))
            .expect("gateways sit on transit links");
        routes.push(HealthyRoute { prefix, gw: Some(gw), dev });
    }
    let ports = plans.into_iter().map(|p| (p.name, p.addr)).collect();
    RouterView { ports, routes }
}

/// The healthy static routes leaving by interface `k` (lost when it goes down or loses its
/// address, so a fix must restore them).
fn statics_via(v: &RouterView, k: usize) -> Vec<String> {
    v.routes
        .iter()
        .filter(|r| r.dev == k && r.gw.is_some())
        .map(|&r| format!("ip route replace {}", v.text(r)))
        .collect()
}

/// The device index the healthy router uses toward `s`.
fn egress(v: &RouterView, s: Ipv4Net) -> usize {
    v.routes.iter().find(|r| r.prefix == s).map(|r| r.dev).expect("every LAN is routed")
}

/// Draws one fault of `family`: its variant, its router (when there are several), then its
/// parameters.
pub fn draw(stream: &mut Stream, topo: &Topology, family: Family) -> Fault {
    let variant = stream.range(1, u64::from(family.variants())) as u8;
    let router = if topo.r > 1 { stream.index(topo.r) } else { 0 };
    let mut f = Fault {
        id: format!("{family}{variant}"),
        family,
        variant,
        router,
        k: None,
        o: None,
        s: None,
        p: None,
        m: None,
        a: None,
        b: None,
        delay_ms: None,
        commands: Vec::new(),
        fix: Vec::new(),
    };
    let lan = |stream: &mut Stream| Topology::lan(stream.range(1, topo.n as u64) as usize);
    match family {
        Family::DR => dr(&mut f, stream, lan),
        Family::DI => di(&mut f, stream, view(topo, router)),
        Family::RI => ri(&mut f, stream, view(topo, router)),
        Family::DT => dt(&mut f, stream, view(topo, router), lan),
        Family::WR => wr(&mut f, stream, view(topo, router)),
    }
    f
}

fn dr(f: &mut Fault, stream: &mut Stream, lan: impl Fn(&mut Stream) -> Ipv4Net) {
    let (inject, fix) = match f.variant {
        1 => ("sysctl -w net.ipv4.ip_forward=0".to_string(), "sysctl -w net.ipv4.ip_forward=1".to_string()),
        2 => ("iptables -P FORWARD DROP".into(), "iptables -P FORWARD ACCEPT".into()),
        3 => ("ip rule add prohibit pref 0".into(), "ip rule del prohibit pref 0".into()),
        _ => {
            let s = lan(stream);
            f.s = Some(s);
            (format!("iptables -A FORWARD -s {s} -j DROP"), format!("iptables -D FORWARD -s {s} -j DROP"))
        }
    };
    f.commands = vec![inject];
    f.fix = vec![fix];
}

fn pick_port(stream: &mut Stream, v: &RouterView) -> usize {
    stream.index(v.ports.len())
}

fn di(f: &mut Fault, stream: &mut Stream, v: &RouterView) {
    let k = pick_port(stream, v);
    f.k = Some(k + 1);
    let x = &v.ports[k].0;
    let (inject, mut fix) = match f.variant {
        1 => (format!("ifconfig {x} down"), vec![format!("ip link set {x} up")]),
        2 => (format!("ip link set {x} down"), vec![format!("ip link set {x} up")]),
        _ => (format!("ip link set {x} mtu 68"), vec![format!("ip link set {x} mtu 1500")]),
    };
    if f.variant < 3 {
        fix.extend(statics_via(v, k));
    }
    f.commands = vec![inject];
    f.fix = fix;
}

fn ri(f: &mut Fault, stream: &mut Stream, v: &RouterView) {
    let k = pick_port(stream, v);
    f.k = Some(k + 1);
    let (x, healthy) = (&v.ports[k].0, v.ports[k].1);
    let flush = format!("ip addr flush dev {x}");
    let restore = format!("ip addr add {healthy} brd + dev {x}");
    let wrong = match f.variant {
        1 => None,
        2 => {
            let (a, b) = (stream.range(1, 254) as u8, stream.range(1, 254) as u8);
            (f.a, f.b) = (Some(a), Some(b));
            Some(format!("10.{a}.{b}.1/24"))
        }
        3 => {
            let lens: Vec<u8> =
                [8u8, 16, 24, 30, 31, 32].into_iter().filter(|&m| m != healthy.prefix_len()).collect();
            let m = *stream.choose(&lens);
            f.m = Some(m);
            Some(format!("{}/{m}", healthy.addr()))
        }
        _ => {
            let others: Vec<usize> = (0..v.ports.len()).filter(|&o| o != k).collect();
            let o = *stream.choose(&others);
            f.o = Some(o + 1);
            Some(v.ports[o].1.to_string())
        }
    };
    f.commands = vec![match &wrong {
        None => flush.clone(),
        Some(w) => format!("{flush} && ip addr add {w} dev {x}"),
    }];
    f.fix = vec![if wrong.is_none() { restore } else { format!("{flush} && {restore}") }];
    f.fix.extend(statics_via(v, k));
}

fn dt(f: &mut Fault, stream: &mut Stream, v: &RouterView, lan: impl Fn(&mut Stream) -> Ipv4Net) {
    let s = lan(stream);
    f.s = Some(s);
    if f.variant == 4 {
        let d = stream.range(1000, 5000) as u32;
        f.delay_ms = Some(d);
        let x = &v.ports[egress(v, s)].0;
        f.commands = vec![format!("tc qdisc add dev {x} root netem delay {d}ms")];
        f.fix = vec![format!("tc qdisc del dev {x} root")];
        return;
    }
    let rule = match f.variant {
        1 => "-j DROP",
        2 => "-j REJECT",
        _ => "-p icmp -j DROP",
    };
    f.commands =
        vec![format!("iptables -A INPUT -s {s} {rule}"), format!("iptables -A OUTPUT -d {s} {rule}")];
    f.fix = vec![format!("iptables -D INPUT -s {s} {rule}"), format!("iptables -D OUTPUT -d {s} {rule}")];
}

fn wr(f: &mut Fault, stream: &mut Stream, v: &RouterView) {
    let route = v.routes[stream.index(v.routes.len())];
    let (p, healthy, k) = (route.prefix, v.text(route), route.dev);
    f.p = Some(p);
    let others: Vec<usize> = (0..v.ports.len()).filter(|&o| o != k).collect();
    let o = *stream.choose(&others);
    f.o = Some(o + 1);
    let (xo, ao): (&str, Ipv4Addr) = (&v.ports[o].0, v.ports[o].1.addr());
    let del = format!("ip route del {healthy}");
    let (wrong, fix) = match f.variant {
        1 => (format!("ip route add {p} dev {xo}"), vec![format!("ip route replace {healthy}")]),
        2 => (format!("ip route add {p} via 10.255.255.254"), vec![format!("ip route add {healthy}")]),
        3 => (format!("ip route add {p} dev {xo} metric 10000"), vec![format!("ip route add {healthy}")]),
        _ => {
            (format!("ip route add {p} via {ao}"), vec![format!("ip route del {p}; ip route add {healthy}")])
        }
    };
    f.commands = vec![del, wrong];
    f.fix = fix;
}

/// The fault families as task labels spell them (`L2:DI+WR`, variants `DI3`).
pub const GLOSSARY: &[crate::app::Term] = &[
    crate::app::Term {
        abbr: "DR",
        meaning: "disabled routing: forwarding off, a FORWARD drop or policy, or a prohibit rule",
    },
    crate::app::Term { abbr: "DI", meaning: "disabled interface: a router port down or its MTU cut to 68" },
    crate::app::Term { abbr: "RI", meaning: "removed or wrong interface address on a router port" },
    crate::app::Term {
        abbr: "DT",
        meaning: "dropped traffic to or from the router: filter rules or a netem delay",
    },
    crate::app::Term { abbr: "WR", meaning: "wrong route: a route sends a subnet out of the wrong port" },
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::route::engine::matrix;
    use crate::route::topology::Shape;
    use crate::seed::Width;

    fn lab() -> Topology {
        Topology { n: 2, m: 1, r: 1, shape: Shape::Single }
    }

    /// Every variant of every family, drawn many times, breaks something and its fix heals.
    #[test]
    fn each_variant_injects_and_its_fix_heals() {
        let topo = lab();
        let machines = topo.machines();
        let mut stream = Stream::new("fault-test", Width::W32);
        let mut seen = std::collections::BTreeSet::new();
        for _ in 0..400 {
            let family = *stream.choose(&Family::ALL);
            let f = draw(&mut stream, &topo, family);
            seen.insert(f.id.clone());
            let mut net = topo.build();
            f.inject(&mut net);
            let broken = matrix::compute(&mut net, &machines);
            assert!(f.repair(&mut net), "{f:?}");
            let healed = matrix::compute(&mut net, &machines);
            assert_eq!(healed.lost(), 0, "{f:?}\n{}", healed.render(&machines));
            if f.id != "RI3" || f.m.is_some_and(|m| m > 24) {
                assert!(broken.lost() > 0, "{f:?} broke nothing");
            }
        }
        assert_eq!(seen.len(), 19, "{seen:?}");
    }
}
