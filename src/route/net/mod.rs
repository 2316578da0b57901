//! The emulated network's state: nodes (hosts and routers) with their kernel state, joined by
//! L2 segments (switches and transit links).
//!
//! The state is plain data that clones cheaply and hashes, so an episode can keep snapshots
//! and the generator can try fault combinations. Changes go through [`kernel`], which applies
//! the kernel's side effects (connected routes, route flushes, forwarding propagation);
//! packets move in `engine`; text in and out lives in `cmd`.

pub mod addr;
pub mod iface;
pub mod iptables;
pub mod kernel;
pub mod local;
pub mod qdisc;
pub mod route;
pub mod rule;
pub mod sysctl;

use std::net::Ipv4Addr;
use std::sync::Arc;

use ipnet::Ipv4Net;

pub use iface::{Addr, Iface};
pub use route::IfId;

use self::iptables::Filter;
use self::local::LocalIndex;
use self::route::Table;
use self::rule::Rule;

/// A node of [`Net::nodes`].
pub type NodeId = usize;

/// One neighbour-table entry, as the last evaluation left it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Neigh {
    pub ip: Ipv4Addr,
    pub dev: IfId,
    /// The answering interface's MAC, or `None` when resolution failed.
    pub mac: Option<[u8; 6]>,
    pub state: NeighState,
}

/// The kernel's neighbour states an evaluation can leave (timers never run between steps,
/// so an entry stays as the evaluation's last packet left it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum NeighState {
    /// Resolved by the node's own solicitation.
    Reachable,
    /// Learned from a neighbour's ARP request for one of the node's addresses.
    Stale,
    /// A stale entry the node then sent through: it waits before confirming it.
    Delay,
    /// The node's solicitation went unanswered.
    Failed,
}

impl NeighState {
    /// The state as `ip neigh` prints it.
    pub fn name(self) -> &'static str {
        match self {
            NeighState::Reachable => "REACHABLE",
            NeighState::Stale => "STALE",
            NeighState::Delay => "DELAY",
            NeighState::Failed => "FAILED",
        }
    }
}

/// Entries a neighbour table keeps (oldest forgotten first).
pub const MAX_NEIGH: usize = 1024;

/// How two nodes differ for a packet ([`Node::difference`]), as far as lookups without an
/// output interface go (every probe of a ping matrix; `ping -I` may pick a route a table
/// shadows, see [`Table::differing_prefixes`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Difference {
    None,
    /// Only a packet that passes one of `ports` (in or out), that tries one while resolving a
    /// neighbour on its segment, that picks its source on one or among every interface's
    /// addresses (a port without a primary address, [`Node::first_global`]), or that carries
    /// an address inside one of `prefixes` (as its source or destination or the next hop it
    /// resolves) can be treated otherwise.
    Partly {
        ports: Vec<IfId>,
        prefixes: Vec<Ipv4Net>,
    },
    Whole,
}

/// A host or router.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Node {
    pub name: Arc<str>,
    pub router: bool,
    /// `lo` first; ifindex = position + 1.
    pub ifaces: Vec<Iface>,
    pub main: Table,
    /// Shared between clones until one changes them, like the main table's routes.
    pub rules: Arc<Vec<Rule>>,
    /// `net.ipv4.ip_forward` ≡ `net.ipv4.conf.all.forwarding`.
    pub ip_forward: i32,
    pub default_forwarding: i32,
    pub icmp_echo_ignore_all: i32,
    pub filter: Filter,
    pub neigh: Vec<Neigh>,
    /// The next automatic qdisc handle (`8001:` first).
    pub next_handle: u32,
    /// A counter of address and link changes, for the kernel's insertion orders.
    pub clock: u64,
    /// The local table's answers, in step with `ifaces` through [`Node::reindex`]; shared
    /// between clones until one of them changes.
    local: Arc<LocalIndex>,
}

impl Node {
    /// A node with only `lo`, default rules, and forwarding off.
    pub fn new(name: &str, router: bool) -> Self {
        let ifaces = vec![Iface::loopback(0)];
        Node {
            name: name.into(),
            router,
            local: Arc::new(LocalIndex::of(&ifaces)),
            ifaces,
            main: Table::default(),
            rules: Arc::new(rule::default_rules()),
            ip_forward: 0,
            default_forwarding: 0,
            icmp_echo_ignore_all: 0,
            filter: Filter::default(),
            neigh: Vec::new(),
            next_handle: 0x8001,
            clock: 1,
        }
    }

    /// The interface called `name`.
    pub fn iface(&self, name: &str) -> Option<IfId> {
        self.ifaces.iter().position(|i| *i.name == *name)
    }

    /// Whether `ip` is in the local table: one of the node's addresses (on any interface, up
    /// or down) or inside a prefix of `lo` (127.0.0.0/8).
    pub fn is_local(&self, ip: Ipv4Addr) -> bool {
        let local = self.local.is_local(ip);
        debug_assert_eq!(local, local::scan(&self.ifaces, ip).0, "{}: local index out of step", self.name);
        local
    }

    /// Whether `ip`, not a local address, is in the local table as a broadcast address of an
    /// up interface's subnet.
    pub fn is_broadcast(&self, ip: Ipv4Addr) -> bool {
        let broadcast = self.local.is_broadcast(ip);
        debug_assert!(
            self.is_local(ip) || broadcast == local::scan(&self.ifaces, ip).1,
            "{}: local index out of step",
            self.name
        );
        broadcast
    }

    /// Whether two nodes are equal up to history: neighbour caches, change clocks, the next
    /// qdisc handle, the history of their interfaces and filters ([`Iface::same_port_state`],
    /// [`Filter::differing_prefixes`]), and the order of routes no lookup compares
    /// ([`Table::differing_prefixes`]). Nothing a packet does reads those, so alike nodes
    /// forward alike.
    pub fn alike(&self, other: &Node) -> bool {
        self.difference(other) == Difference::None
    }

    /// How two nodes differ for a packet: not at all ([`Node::alike`]); only in the state of
    /// some ports ([`Iface::same_port_state`], which a packet reads where it passes them, and
    /// their local-table entries, [`Iface::same_local_entries`], also read where it asks for
    /// one of their addresses, [`Iface::address_prefixes`]) and in routes and filter rules
    /// that every packet they treat otherwise carries an address of some listed prefix for
    /// ([`Table::differing_prefixes`], [`Filter::differing_prefixes`]); or as a whole.
    pub fn difference(&self, other: &Node) -> Difference {
        if !self.alike_but_ports_and_tables(other) {
            return Difference::Whole;
        }
        let mut ports = Vec::new();
        let mut prefixes = Vec::new();
        for (id, (a, b)) in self.ifaces.iter().zip(&other.ifaces).enumerate() {
            if !a.same_port(b) {
                return Difference::Whole;
            }
            let same_entries = a.same_local_entries(b);
            if !same_entries || !a.same_port_state(b) {
                ports.push(id);
            }
            if !same_entries {
                prefixes.extend(a.address_prefixes().chain(b.address_prefixes()));
            }
        }
        prefixes.extend(self.main.differing_prefixes(&other.main, |a, b| self.same_source(other, a, b)));
        match self.filter.differing_prefixes(&other.filter) {
            Some(more) => prefixes.extend(more),
            None => return Difference::Whole,
        }
        if ports.is_empty() && prefixes.is_empty() {
            Difference::None
        } else {
            Difference::Partly { ports, prefixes }
        }
    }

    /// Whether two routes, of this node and of `other`, give their packets one source address.
    fn same_source(&self, other: &Node, a: &route::Route, b: &route::Route) -> bool {
        self.route_source(a).is_some_and(|s| other.route_source(b) == Some(s))
    }

    /// [`Node::alike`] but for the interfaces, the main table and the filter.
    fn alike_but_ports_and_tables(&self, other: &Node) -> bool {
        let Node {
            name,
            router,
            rules,
            ip_forward,
            default_forwarding,
            icmp_echo_ignore_all,
            // Compared by the callers.
            ifaces: _,
            main: _,
            filter: _,
            neigh: _,
            next_handle: _,
            clock: _,
            // Derived from the interfaces.
            local: _,
        } = self;
        (name, router, rules, ip_forward, default_forwarding, icmp_echo_ignore_all)
            == (
                &other.name,
                &other.router,
                &other.rules,
                &other.ip_forward,
                &other.default_forwarding,
                &other.icmp_echo_ignore_all,
            )
            && self.ifaces.len() == other.ifaces.len()
    }

    /// Brings the local table's answers in step with the interfaces: every change of an
    /// interface's addresses or link state calls this.
    pub fn reindex(&mut self) {
        self.local = Arc::new(LocalIndex::of(&self.ifaces));
    }

    /// The interface holding `ip`, if any.
    pub fn owner(&self, ip: Ipv4Addr) -> Option<IfId> {
        self.ifaces.iter().position(|i| i.has(ip))
    }

    /// Advances the change clock.
    pub fn tick(&mut self) -> u64 {
        self.clock += 1;
        self.clock
    }

    /// The first global (non-loopback) address, the last resort for a source address.
    pub fn first_global(&self) -> Option<Ipv4Addr> {
        self.ifaces.iter().filter(|i| !i.is_loopback()).flat_map(|i| i.primaries()).map(|a| a.ip()).next()
    }

    /// The source address every packet that `route` sends from this node gets, when it is
    /// one address whatever the destination (the lookup's `source_for`): the route's `src`;
    /// else the device's choice toward the gateway; else, on link, the first primary whose
    /// subnet meets the prefix when it holds all of it, or the first primary when none meets
    /// it; else the first global address. `None` when it varies or there is none.
    fn route_source(&self, route: &route::Route) -> Option<Ipv4Addr> {
        if route.src.is_some() {
            return route.src;
        }
        let iface = &self.ifaces[route.dev?];
        let chosen = match route.via {
            Some(gw) => iface.select_src(gw),
            None => match iface.primaries().find(|a| addr::overlaps(&a.net, &route.dst)) {
                Some(a) if a.net.contains(&route.dst) => Some(a.ip()),
                Some(_) => return None,
                None => iface.primaries().next().map(|a| a.ip()),
            },
        };
        chosen.or_else(|| self.first_global())
    }
}

/// An L2 segment: a switch (`s1`) or a transit link (`t1`), with its ports in plug order.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Segment {
    pub name: Arc<str>,
    /// A Linux bridge in its own namespace (switches) rather than a direct veth pair.
    pub switch: bool,
    pub ports: Vec<(NodeId, IfId)>,
}

/// The whole network.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct Net {
    /// Routers first (`r0`, `r1`, …), then hosts: the order next-hop resolution scans and the
    /// node number in MACs. Shared between clones until one changes them ([`Net::node_mut`]):
    /// the generator's checks copy a network per fault subset and change one router or two.
    pub nodes: Vec<Arc<Node>>,
    /// Fixed once the topology is built, so clones share them.
    pub segments: Arc<Vec<Segment>>,
}

impl Net {
    pub fn node(&self, name: &str) -> Option<NodeId> {
        self.nodes.iter().position(|n| *n.name == *name)
    }

    /// A node to change, copied first if a clone of this network shares it.
    pub fn node_mut(&mut self, id: NodeId) -> &mut Node {
        Arc::make_mut(&mut self.nodes[id])
    }

    /// Plugs a new interface of `node` into `segment`, returning its id. The MAC is
    /// `02:00:00:<node#>:<ifindex>:01` (docs/route.md, "What the agent has").
    pub fn plug(&mut self, node: NodeId, name: &str, segment: usize) -> IfId {
        let id = self.nodes[node].ifaces.len();
        let forwarding = self.nodes[node].default_forwarding;
        let mac = [0x02, 0, 0, node as u8, (id + 1) as u8, 0x01];
        self.node_mut(node).ifaces.push(Iface {
            name: name.into(),
            mac,
            segment: Some(segment),
            peer_index: 0,
            up: false,
            up_seq: 0,
            carrier: true,
            mtu: 1500,
            promisc: false,
            addrs: Vec::new(),
            qdisc: None,
            forwarding,
            rx: iface::Counter::default(),
            tx: iface::Counter::default(),
        });
        Arc::make_mut(&mut self.segments)[segment].ports.push((node, id));
        id
    }

    /// Recomputes carriers: the ends of a direct link see each other's admin state. Only a
    /// carrier that changes is written, so nodes shared with a clone stay shared.
    pub fn sync_carrier(&mut self) {
        let segments = Arc::clone(&self.segments);
        for seg in segments.iter().filter(|s| !s.switch && s.ports.len() == 2) {
            let [(a, ai), (b, bi)] = [seg.ports[0], seg.ports[1]];
            let (a_up, b_up) = (self.nodes[a].ifaces[ai].up, self.nodes[b].ifaces[bi].up);
            for (n, i, carrier) in [(a, ai, b_up), (b, bi, a_up)] {
                if self.nodes[n].ifaces[i].carrier != carrier {
                    self.node_mut(n).ifaces[i].carrier = carrier;
                }
            }
        }
    }

    /// Fills each interface's `@ifN` peer index: a switch port's peer is the bridge port in
    /// the switch's namespace (lo = 1, bridge = 2, ports from 3 in plug order); a transit
    /// link's peer is the other end.
    pub fn set_peer_indexes(&mut self) {
        let segments = Arc::clone(&self.segments);
        for seg in segments.iter() {
            for (p, &(n, i)) in seg.ports.iter().enumerate() {
                let peer = if seg.switch { p as u32 + 3 } else { seg.ports[1 - p.min(1)].1 as u32 + 1 };
                self.node_mut(n).ifaces[i].peer_index = peer;
            }
        }
    }
}
