//! The lab's topologies (docs/route.md, "Tasks") and the healthy network built from them.
//!
//! L1/L2: one router `r0` with N subnets of M hosts. L3: R routers joined in a chain or a
//! star by /30 transit links, subnet s on router ⌊(s−1)R/N⌋, static routes toward every
//! prefix a router lacks. Everything here is a pure function of [`Topology`].

use std::net::Ipv4Addr;
use std::sync::{Arc, OnceLock};

use ipnet::Ipv4Net;
use serde::{Deserialize, Serialize};

use super::engine::matrix::Machine;
use super::net::route::{AddMode, IfId, Route, RouteType};
use super::net::{Net, Node, NodeId, Segment, sysctl};

/// How L3 routers are joined.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Shape {
    /// One router (L1, L2, and L3 with R = 1).
    Single,
    /// r0 — r1 — r2 — …
    Chain,
    /// r1, r2, … each joined to r0.
    Star,
}

/// Size and shape of a task's network.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Topology {
    /// Subnets.
    pub n: usize,
    /// Hosts per subnet.
    pub m: usize,
    /// Routers.
    pub r: usize,
    pub shape: Shape,
}

/// A router interface's role.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Port {
    /// The LAN of subnet `s` (1-based).
    Lan(usize),
    /// Transit link `t` (1-based).
    Transit(usize),
}

/// A healthy interface: where it plugs and its address.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PortPlan {
    pub name: String,
    pub port: Port,
    pub addr: Ipv4Net,
}

impl Topology {
    /// The router that owns subnet `s` (1-based): ⌊(s−1)R/N⌋.
    pub fn subnet_router(&self, s: usize) -> usize {
        (s - 1) * self.r / self.n
    }

    /// Transit link `t` (1-based) as (lower router, other router).
    pub fn transit(&self, t: usize) -> (usize, usize) {
        match self.shape {
            Shape::Star => (0, t),
            _ => (t - 1, t),
        }
    }

    pub fn transits(&self) -> usize {
        self.r.saturating_sub(1)
    }

    /// The prefix of subnet `s`: 192.168.s.0/24.
    pub fn lan(s: usize) -> Ipv4Net {
        Ipv4Net::new(Ipv4Addr::new(192, 168, s as u8, 0), 24).expect("valid")
    }

    /// The prefix of transit link `t`: 10.0.t.0/30.
    pub fn transit_net(t: usize) -> Ipv4Net {
        Ipv4Net::new(Ipv4Addr::new(10, 0, t as u8, 0), 30).expect("valid")
    }

    /// Router `x`'s interfaces in order: LANs by subnet, then transit links.
    pub fn ports(&self, x: usize) -> Vec<PortPlan> {
        let mut roles: Vec<Port> =
            (1..=self.n).filter(|&s| self.subnet_router(s) == x).map(Port::Lan).collect();
        roles.extend(
            (1..=self.transits())
                .filter(|&t| {
                    let (a, b) = self.transit(t);
                    a == x || b == x
                })
                .map(Port::Transit),
        );
        roles
            .into_iter()
            .enumerate()
            .map(|(k, port)| {
                let addr = match port {
                    Port::Lan(s) => with_host(Self::lan(s), 1),
                    Port::Transit(t) => {
                        with_host(Self::transit_net(t), if self.transit(t).0 == x { 1 } else { 2 })
                    }
                };
                PortPlan { name: format!("r{x}-eth{}", k + 1), port, addr }
            })
            .collect()
    }

    /// Host `h{(i−1)M+j+1}` of subnet i: name and address.
    pub fn host(&self, s: usize, j: usize) -> (String, Ipv4Net) {
        (format!("h{}", (s - 1) * self.m + j + 1), with_host(Self::lan(s), 100 + j as u8))
    }

    /// Every prefix of the network: LANs then transit links.
    pub fn prefixes(&self) -> Vec<Ipv4Net> {
        (1..=self.n).map(Self::lan).chain((1..=self.transits()).map(Self::transit_net)).collect()
    }

    /// The neighbour of router `x` toward router `y` (x ≠ y) and the transit link used.
    fn next_toward(&self, x: usize, y: usize) -> (usize, usize) {
        match self.shape {
            Shape::Star if x == 0 => (y, y),
            Shape::Star => (0, x),
            _ if y > x => (x + 1, x + 1),
            _ => (x - 1, x),
        }
    }

    /// The routers' static routes: `P via G` for every prefix the router lacks, G the next
    /// router's address on the transit link toward P's owner.
    pub fn static_routes(&self, x: usize) -> Vec<(Ipv4Net, Ipv4Addr)> {
        let own: Vec<Ipv4Net> = self.ports(x).iter().map(|p| p.addr.trunc()).collect();
        let mut out = Vec::new();
        for prefix in self.prefixes() {
            if own.contains(&prefix) {
                continue;
            }
            let owner = self.prefix_owner(prefix);
            let (next, t) = self.next_toward(x, owner);
            let (lower, _) = self.transit(t);
            let gw = with_host(Self::transit_net(t), if lower == next { 1 } else { 2 }).addr();
            out.push((prefix, gw));
        }
        out
    }

    /// A router holding `prefix` (a transit link's lower router).
    fn prefix_owner(&self, prefix: Ipv4Net) -> usize {
        let [a, b, c, _] = prefix.addr().octets();
        if a == 192 && b == 168 { self.subnet_router(usize::from(c)) } else { self.transit(usize::from(c)).0 }
    }

    pub fn hosts(&self) -> usize {
        self.n * self.m
    }

    /// The node id of router `x` and of host number `k` (1-based) in the built [`Net`].
    pub fn router_node(&self, x: usize) -> NodeId {
        x
    }

    pub fn host_node(&self, k: usize) -> NodeId {
        self.r + k - 1
    }

    /// The machines of the ping matrix: hosts, then routers, each with its target.
    pub fn machines(&self) -> Vec<Machine> {
        let mut out = Vec::with_capacity(self.hosts() + self.r);
        for s in 1..=self.n {
            for j in 0..self.m {
                let (name, addr) = self.host(s, j);
                out.push(Machine {
                    node: self.host_node((s - 1) * self.m + j + 1),
                    name,
                    target: addr.addr(),
                });
            }
        }
        for x in 0..self.r {
            out.push(Machine { name: format!("r{x}"), node: x, target: self.ports(x)[0].addr.addr() });
        }
        out
    }

    /// The healthy network.
    pub fn build(&self) -> Net {
        let mut net = Net::default();
        let segments = Arc::make_mut(&mut net.segments);
        for x in 0..self.r {
            net.nodes.push(Node::new(&format!("r{x}"), true).into());
        }
        for s in 1..=self.n {
            for j in 0..self.m {
                net.nodes.push(Node::new(&self.host(s, j).0, false).into());
            }
        }
        segments.extend((1..=self.n).map(|s| Segment {
            name: format!("s{s}").into(),
            switch: true,
            ports: vec![],
        }));
        segments.extend((1..=self.transits()).map(|t| Segment {
            name: format!("t{t}").into(),
            switch: false,
            ports: vec![],
        }));
        for x in 0..self.r {
            sysctl::set_all_forwarding(net.node_mut(x), 1);
            for p in self.ports(x) {
                let seg = match p.port {
                    Port::Lan(s) => s - 1,
                    Port::Transit(t) => self.n + t - 1,
                };
                let dev = net.plug(x, &p.name, seg);
                configure(net.node_mut(x), dev, p.addr);
            }
        }
        for s in 1..=self.n {
            for j in 0..self.m {
                let (name, addr) = self.host(s, j);
                let node = self.host_node((s - 1) * self.m + j + 1);
                let dev = net.plug(node, &format!("{name}-eth0"), s - 1);
                configure(net.node_mut(node), dev, addr);
                let gw = with_host(Self::lan(s), 1).addr();
                add_static(net.node_mut(node), Ipv4Net::default(), gw);
            }
        }
        for x in 0..self.r {
            for (prefix, gw) in self.static_routes(x) {
                add_static(net.node_mut(x), prefix, gw);
            }
        }
        net.set_peer_indexes();
        net.sync_carrier();
        net
    }

    /// How many topologies the knobs allow (n ≤ 16, m ≤ 4, r ≤ 4, three shapes).
    pub const COUNT: usize = 16 * 4 * 4 * 3;

    /// This topology's place among the [`Topology::COUNT`]; `n`, `m` and `r` within the knobs'
    /// ranges.
    fn index(&self) -> usize {
        assert!(
            (1..=16).contains(&self.n) && (1..=4).contains(&self.m) && (1..=4).contains(&self.r),
            "no such topology: {self:?}"
        );
        (((self.n - 1) * 4 + self.m - 1) * 4 + self.r - 1) * 3 + self.shape as usize
    }

    /// The healthy configuration as commands per node (after links exist): what
    /// [`Topology::build`] does, in the form a Linux lab runs it.
    pub fn config(&self) -> Vec<(String, Vec<String>)> {
        let mut out = Vec::new();
        for x in 0..self.r {
            let mut cmds = vec!["sysctl -w net.ipv4.ip_forward=1".to_string()];
            for p in self.ports(x) {
                cmds.push(format!("ip link set {} up", p.name));
                cmds.push(format!("ip addr add {} brd + dev {}", p.addr, p.name));
            }
            for (prefix, gw) in self.static_routes(x) {
                cmds.push(format!("ip route add {prefix} via {gw}"));
            }
            out.push((format!("r{x}"), cmds));
        }
        for s in 1..=self.n {
            for j in 0..self.m {
                let (name, addr) = self.host(s, j);
                let gw = with_host(Self::lan(s), 1).addr();
                out.push((
                    name.clone(),
                    vec![
                        format!("ip link set {name}-eth0 up"),
                        format!("ip addr add {addr} brd + dev {name}-eth0"),
                        format!("ip route add default via {gw}"),
                    ],
                ));
            }
        }
        out
    }
}

/// One value per topology, built on first use and kept for the process: the generator asks
/// for the same few hundred topologies' networks, views and configurations again and again.
pub struct PerTopology<T>([OnceLock<T>; Topology::COUNT]);

impl<T> PerTopology<T> {
    pub const fn new() -> Self {
        PerTopology([const { OnceLock::new() }; Topology::COUNT])
    }

    /// The value of `topo`, built by `build` the first time; `n`, `m` and `r` within the
    /// knobs' ranges.
    pub fn get(&self, topo: &Topology, build: impl FnOnce() -> T) -> &T {
        self.0[topo.index()].get_or_init(build)
    }
}

impl<T> Default for PerTopology<T> {
    fn default() -> Self {
        Self::new()
    }
}

/// `prefix` with host part `host` (the address of a /24 or /30 subnet member).
fn with_host(prefix: Ipv4Net, host: u8) -> Ipv4Net {
    let ip = Ipv4Addr::from(u32::from(prefix.addr()) | u32::from(host));
    Ipv4Net::new(ip, prefix.prefix_len()).expect("valid")
}

fn configure(node: &mut Node, dev: IfId, addr: Ipv4Net) {
    node.set_link(dev, true);
    node.add_addr(dev, addr, Some(addr.broadcast())).expect("fresh interface");
}

fn add_static(node: &mut Node, prefix: Ipv4Net, gw: Ipv4Addr) {
    let route = Route::user(RouteType::Unicast, prefix, Some(gw), None, 0);
    node.add_route(route, AddMode::Exclusive).expect("healthy routes are valid");
}

#[cfg(test)]
mod tests {
    use super::*;

    fn l3(n: usize, r: usize, shape: Shape) -> Topology {
        Topology { n, m: 1, r, shape }
    }

    #[test]
    fn subnets_split_evenly_and_ports_are_ordered() {
        let t = l3(5, 2, Shape::Chain);
        let owners: Vec<usize> = (1..=5).map(|s| t.subnet_router(s)).collect();
        assert_eq!(owners, [0, 0, 0, 1, 1]);
        let names: Vec<String> = t.ports(1).iter().map(|p| format!("{} {}", p.name, p.addr)).collect();
        assert_eq!(names, ["r1-eth1 192.168.4.1/24", "r1-eth2 192.168.5.1/24", "r1-eth3 10.0.1.2/30"]);
    }

    #[test]
    fn static_routes_follow_the_shape() {
        let chain = l3(4, 4, Shape::Chain);
        let r0: Vec<String> = chain.static_routes(0).iter().map(|(p, g)| format!("{p} via {g}")).collect();
        assert_eq!(
            r0,
            [
                "192.168.2.0/24 via 10.0.1.2",
                "192.168.3.0/24 via 10.0.1.2",
                "192.168.4.0/24 via 10.0.1.2",
                "10.0.2.0/30 via 10.0.1.2",
                "10.0.3.0/30 via 10.0.1.2"
            ]
        );
        let r2: Vec<String> = chain.static_routes(2).iter().map(|(p, g)| format!("{p} via {g}")).collect();
        assert_eq!(r2[0], "192.168.1.0/24 via 10.0.2.1");
        assert_eq!(r2[2], "192.168.4.0/24 via 10.0.3.2");
        let star = l3(4, 4, Shape::Star);
        let r3: Vec<String> = star.static_routes(3).iter().map(|(p, g)| format!("{p} via {g}")).collect();
        assert!(r3.iter().all(|r| r.ends_with("via 10.0.3.1")), "{r3:?}");
        let r0: Vec<String> = star.static_routes(0).iter().map(|(p, g)| format!("{p} via {g}")).collect();
        assert_eq!(r0[0], "192.168.2.0/24 via 10.0.1.2");
    }

    #[test]
    fn healthy_build_has_the_reference_layout() {
        let t = Topology { n: 2, m: 1, r: 1, shape: Shape::Single };
        let net = t.build();
        let r0 = &net.nodes[0];
        assert_eq!(r0.ifaces[1].mac_text(), "02:00:00:00:02:01");
        assert_eq!(r0.ifaces[1].peer_index, 3);
        assert_eq!(&*net.nodes[1].name, "h1");
        assert_eq!(r0.main.routes().len(), 2);
        let names: Vec<String> = t.machines().iter().map(|m| format!("{} {}", m.name, m.target)).collect();
        assert_eq!(names, ["h1 192.168.1.100", "h2 192.168.2.100", "r0 192.168.1.1"]);
    }

    #[test]
    fn healthy_networks_answer_every_ping() {
        let shapes = [
            Topology { n: 2, m: 1, r: 1, shape: Shape::Single },
            Topology { n: 8, m: 4, r: 1, shape: Shape::Single },
            Topology { n: 9, m: 2, r: 1, shape: Shape::Single },
            Topology { n: 5, m: 2, r: 2, shape: Shape::Chain },
            Topology { n: 7, m: 1, r: 4, shape: Shape::Chain },
            Topology { n: 12, m: 2, r: 4, shape: Shape::Star },
        ];
        for t in shapes {
            let mut net = t.build();
            let m = crate::route::engine::matrix::compute(&mut net, &t.machines());
            assert_eq!(m.lost(), 0, "{t:?}\n{}", m.render(&t.machines()));
        }
    }
}
