//! The main routing table with the kernel's ordering rules, and the derived local table.
//!
//! The kernel's FIB keeps the routes of one destination as a list ordered by prefix length
//! (longer first), then metric; among equal metrics the position depends on how the route was
//! added (measured on Linux 6.1; docs/route.md, "Fidelity against real Linux"): `ip route add` refuses a duplicate
//! destination/length/metric, `append` and the kernel's connected routes go after their
//! equals, net-tools goes before them, `replace`/`change` rewrite the first. Destinations are
//! listed in ascending address order. We keep the table as one `Vec` in exactly that display
//! order, so printing, deleting ("the first match") and lookup ties all read it front to back.

use std::cmp::Ordering;
use std::net::Ipv4Addr;
use std::sync::Arc;

use ipnet::Ipv4Net;

use super::addr::covers;

/// An interface of the same node: index into `Node::ifaces` (0 is `lo`; ifindex = index + 1).
pub type IfId = usize;

/// What a route does with matching packets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RouteType {
    Unicast,
    Blackhole,
    Prohibit,
    Unreachable,
}

impl RouteType {
    pub fn keyword(self) -> &'static str {
        match self {
            RouteType::Unicast => "unicast",
            RouteType::Blackhole => "blackhole",
            RouteType::Prohibit => "prohibit",
            RouteType::Unreachable => "unreachable",
        }
    }

    pub fn parse(word: &str) -> Option<Self> {
        [RouteType::Unicast, RouteType::Blackhole, RouteType::Prohibit, RouteType::Unreachable]
            .into_iter()
            .find(|t| t.keyword() == word)
    }
}

/// Who installed a route: the kernel (connected routes) or a tool (`proto boot`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Proto {
    Kernel,
    Boot,
}

/// Route scope as iproute2 prints it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Scope {
    Universe,
    Link,
}

/// One main-table route.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Route {
    pub rtype: RouteType,
    /// Destination, host bits clear.
    pub dst: Ipv4Net,
    pub via: Option<Ipv4Addr>,
    pub dev: Option<IfId>,
    pub metric: u32,
    pub proto: Proto,
    pub scope: Scope,
    pub src: Option<Ipv4Addr>,
    pub onlink: bool,
}

impl Route {
    /// Whether a lookup reads the two routes alike but for their source address: protocol,
    /// scope and `onlink` are read when a route is added, and the metric only ranks routes of
    /// one prefix.
    pub fn sends_like(&self, other: &Route) -> bool {
        (self.rtype, self.dst, self.via, self.dev) == (other.rtype, other.dst, other.via, other.dev)
    }

    /// A route as `ip route add` makes it (before gateway resolution fills `dev`).
    pub fn user(
        rtype: RouteType,
        dst: Ipv4Net,
        via: Option<Ipv4Addr>,
        dev: Option<IfId>,
        metric: u32,
    ) -> Self {
        let scope = if via.is_none() && rtype == RouteType::Unicast { Scope::Link } else { Scope::Universe };
        Route { rtype, dst, via, dev, metric, proto: Proto::Boot, scope, src: None, onlink: false }
    }

    /// The connected route of a primary address.
    pub fn connected(dst: Ipv4Net, dev: IfId, src: Ipv4Addr) -> Self {
        Route {
            rtype: RouteType::Unicast,
            dst,
            via: None,
            dev: Some(dev),
            metric: 0,
            proto: Proto::Kernel,
            scope: Scope::Link,
            src: Some(src),
            onlink: false,
        }
    }

    /// Same destination, length and metric: the kernel's unit of "already exists".
    pub fn same_slot(&self, other: &Route) -> bool {
        self.dst == other.dst && self.metric == other.metric
    }

    /// Display order between two routes of different slots (ties keep list order).
    fn order(&self, other: &Route) -> Ordering {
        u32::from(self.dst.addr())
            .cmp(&u32::from(other.dst.addr()))
            .then(other.dst.prefix_len().cmp(&self.dst.prefix_len()))
            .then(self.metric.cmp(&other.metric))
    }
}

/// How a new route joins the routes of its slot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AddMode {
    /// `ip route add`: the slot must be empty.
    Exclusive,
    /// `ip route append` and connected routes: after the slot's routes.
    Append,
    /// net-tools `route add` and `ip route prepend`: before them.
    Prepend,
    /// `ip route replace`: rewrite the slot's first route, or add.
    Replace,
    /// `ip route change`: rewrite the slot's first route, which must exist.
    Change,
}

/// Why the table refused a change.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TableError {
    Exists,
    NotFound,
    NoSuchProcess,
    Full,
}

/// Routes a table may hold before refusing more (docs/route.md, "What the agent has": state is bounded).
pub const MAX_ROUTES: usize = 1024;

/// A main routing table in display order. The routes are shared between clones of a
/// network until one of them changes its table: the generator clones networks many times
/// and a fault touches one router's table at most.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct Table {
    routes: Arc<Vec<Route>>,
    /// Indexes into `routes` in the order a lookup prefers them: longest prefix, then lowest
    /// metric, then list order. A lookup takes the first that covers its destination instead
    /// of weighing every route; rebuilt on every change.
    ranked: Arc<Vec<u16>>,
}

/// For each destination prefix, in prefix order, the route a lookup without an output
/// interface takes there: the first of lowest metric.
fn chosen(routes: &[Route]) -> Vec<&Route> {
    let mut chosen: Vec<&Route> = Vec::with_capacity(routes.len());
    for r in routes {
        match chosen.iter_mut().find(|c| c.dst == r.dst) {
            Some(c) if r.metric < c.metric => *c = r,
            Some(_) => {}
            None => chosen.push(r),
        }
    }
    chosen.sort_by_key(|r| r.dst);
    chosen
}

impl Table {
    pub fn routes(&self) -> &[Route] {
        &self.routes
    }

    /// Adds a route as the kernel's `fib_table_insert` does.
    pub fn insert(&mut self, route: Route, mode: AddMode) -> Result<(), TableError> {
        let first = self.routes.iter().position(|r| r.same_slot(&route));
        if let Some(first) = first {
            let slot_end = first + self.routes[first..].iter().take_while(|r| r.same_slot(&route)).count();
            let duplicate = self.routes[first..slot_end].iter().position(|r| *r == route).map(|i| first + i);
            match mode {
                AddMode::Exclusive => return Err(TableError::Exists),
                AddMode::Replace | AddMode::Change => {
                    return match duplicate {
                        Some(d) if d == first => Ok(()),
                        Some(_) => Err(TableError::Exists),
                        None => {
                            Arc::make_mut(&mut self.routes)[first] = route;
                            self.rerank();
                            Ok(())
                        }
                    };
                }
                _ if duplicate.is_some() => return Err(TableError::Exists),
                AddMode::Append => return self.put(slot_end, route),
                AddMode::Prepend => return self.put(first, route),
            }
        }
        if mode == AddMode::Change {
            return Err(TableError::NotFound);
        }
        let at = self
            .routes
            .iter()
            .position(|r| r.order(&route) == Ordering::Greater)
            .unwrap_or(self.routes.len());
        self.put(at, route)
    }

    fn put(&mut self, at: usize, route: Route) -> Result<(), TableError> {
        if self.routes.len() >= MAX_ROUTES {
            return Err(TableError::Full);
        }
        Arc::make_mut(&mut self.routes).insert(at, route);
        self.rerank();
        Ok(())
    }

    /// Deletes the first route (display order) that `matches` accepts.
    pub fn delete_first(&mut self, matches: impl Fn(&Route) -> bool) -> Result<Route, TableError> {
        let i = self.routes.iter().position(matches).ok_or(TableError::NoSuchProcess)?;
        let gone = Arc::make_mut(&mut self.routes).remove(i);
        self.rerank();
        Ok(gone)
    }

    /// Removes every route the predicate selects; returns how many.
    pub fn remove_where(&mut self, pred: impl Fn(&Route) -> bool) -> usize {
        let before = self.routes.len();
        if self.routes.iter().any(&pred) {
            Arc::make_mut(&mut self.routes).retain(|r| !pred(r));
            self.rerank();
        }
        before - self.routes.len()
    }

    /// The destination prefixes whose routes do not send alike in the two tables, for a
    /// lookup without an output interface (every probe of a ping matrix): for each prefix,
    /// the route such a lookup takes, of lowest metric and first in list order among equals
    /// ([`Table::best`]). Routes it shadows, and how prefixes interleave, show in `ip route`
    /// only: a table repaired by shadowing a wrong route, or with its connected routes put
    /// back last, has none. A lookup of an address outside every prefix listed weighs the same
    /// routes in either table, since only routes whose prefix holds the address compete.
    ///
    /// Two routes send alike when they have the same type, prefix, gateway and device
    /// ([`Route::sends_like`]) and `same_source` says their packets get the same source
    /// address: so a connected route put back by hand (`proto boot`, no `src`) sends alike the
    /// kernel's, whose `src` is the address the interface would choose anyway.
    pub fn differing_prefixes(
        &self,
        other: &Table,
        same_source: impl Fn(&Route, &Route) -> bool,
    ) -> Vec<Ipv4Net> {
        if Arc::ptr_eq(&self.routes, &other.routes) || self.routes == other.routes {
            return Vec::new();
        }
        let (ours, theirs) = (chosen(&self.routes), chosen(&other.routes));
        let (mut a, mut b) = (ours.iter().peekable(), theirs.iter().peekable());
        let mut differing = Vec::new();
        loop {
            let prefix = match (a.peek(), b.peek()) {
                (Some(x), Some(y)) if x.dst == y.dst => {
                    let (x, y) = (a.next().expect("peeked"), b.next().expect("peeked"));
                    if x == y || (x.sends_like(y) && same_source(x, y)) {
                        continue;
                    }
                    x.dst
                }
                (Some(x), Some(y)) if x.dst < y.dst => a.next().expect("peeked").dst,
                (_, Some(_)) => b.next().expect("peeked").dst,
                (Some(_), None) => a.next().expect("peeked").dst,
                (None, None) => return differing,
            };
            differing.push(prefix);
        }
    }

    /// The best route for `dst`: longest prefix, then metric, then list order; `oif` restricts
    /// unicast routes to one device (error routes match any).
    pub fn lookup(&self, dst: Ipv4Addr, oif: Option<IfId>) -> Option<&Route> {
        self.best(dst, |r| r.rtype != RouteType::Unicast || oif.is_none_or(|o| r.dev == Some(o)))
    }

    /// The best route for `dst` among those `eligible` accepts (the kernel's trie search
    /// backtracks past ineligible routes to shorter prefixes).
    pub fn best(&self, dst: Ipv4Addr, eligible: impl Fn(&Route) -> bool) -> Option<&Route> {
        self.ranked.iter().map(|&i| &self.routes[usize::from(i)]).find(|r| covers(&r.dst, dst) && eligible(r))
    }

    /// Brings `ranked` in step with `routes` (at most [`MAX_ROUTES`], so indexes fit in u16).
    fn rerank(&mut self) {
        let mut ranked: Vec<u16> = (0..self.routes.len() as u16).collect();
        ranked.sort_by_key(|&i| {
            let r = &self.routes[usize::from(i)];
            (std::cmp::Reverse(r.dst.prefix_len()), r.metric, i)
        });
        self.ranked = Arc::new(ranked);
    }
}

/// One entry of the derived local table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LocalRoute {
    pub broadcast: bool,
    pub dst: Ipv4Net,
    pub dev: IfId,
    pub src: Ipv4Addr,
    /// When the kernel would have inserted it (equal keys list oldest first).
    pub seq: u64,
}

/// Sorts local entries into the kernel's display order and drops exact duplicates.
pub fn sort_local(entries: &mut Vec<LocalRoute>) {
    entries.sort_by(|a, b| {
        u32::from(a.dst.addr())
            .cmp(&u32::from(b.dst.addr()))
            .then(b.dst.prefix_len().cmp(&a.dst.prefix_len()))
            .then(a.seq.cmp(&b.seq))
    });
    let mut seen: Vec<LocalRoute> = Vec::with_capacity(entries.len());
    entries.retain(|e| {
        let dup = seen.iter().any(|s| s.broadcast == e.broadcast && s.dst == e.dst && s.dev == e.dev);
        if !dup {
            seen.push(*e);
        }
        !dup
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn net(s: &str) -> Ipv4Net {
        s.parse().unwrap()
    }

    fn dev_route(dst: &str, dev: IfId, metric: u32) -> Route {
        Route::user(RouteType::Unicast, net(dst), None, Some(dev), metric)
    }

    #[test]
    fn add_refuses_an_occupied_slot_and_append_goes_after() {
        let mut t = Table::default();
        let kernel = Route::connected(net("192.168.1.0/24"), 1, "192.168.1.1".parse().unwrap());
        t.insert(kernel, AddMode::Append).unwrap();
        assert_eq!(t.insert(dev_route("192.168.1.0/24", 2, 0), AddMode::Exclusive), Err(TableError::Exists));
        t.insert(dev_route("192.168.1.0/24", 2, 0), AddMode::Append).unwrap();
        assert_eq!(t.routes()[1].dev, Some(2));
        t.insert(dev_route("192.168.1.0/24", 3, 0), AddMode::Prepend).unwrap();
        assert_eq!(t.routes()[0].dev, Some(3));
        assert_eq!(t.insert(dev_route("192.168.1.0/24", 3, 0), AddMode::Prepend), Err(TableError::Exists));
    }

    #[test]
    fn display_order_is_address_then_longer_then_metric() {
        let mut t = Table::default();
        for (d, m) in [("192.168.0.0/16", 0), ("10.0.0.0/8", 5), ("192.168.0.0/24", 0), ("10.0.0.0/8", 1)] {
            t.insert(dev_route(d, 1, m), AddMode::Exclusive).unwrap();
        }
        let order: Vec<String> = t.routes().iter().map(|r| format!("{} {}", r.dst, r.metric)).collect();
        assert_eq!(order, ["10.0.0.0/8 1", "10.0.0.0/8 5", "192.168.0.0/24 0", "192.168.0.0/16 0"]);
    }

    #[test]
    fn replace_and_change_rewrite_the_first() {
        let mut t = Table::default();
        assert_eq!(t.insert(dev_route("10.0.0.0/8", 1, 0), AddMode::Change), Err(TableError::NotFound));
        t.insert(dev_route("10.0.0.0/8", 1, 0), AddMode::Replace).unwrap();
        t.insert(dev_route("10.0.0.0/8", 2, 0), AddMode::Append).unwrap();
        t.insert(dev_route("10.0.0.0/8", 3, 0), AddMode::Replace).unwrap();
        assert_eq!(t.routes().iter().map(|r| r.dev.unwrap()).collect::<Vec<_>>(), [3, 2]);
        assert_eq!(t.insert(dev_route("10.0.0.0/8", 2, 0), AddMode::Replace), Err(TableError::Exists));
    }

    #[test]
    fn lookup_prefers_longest_then_metric_then_order() {
        let mut t = Table::default();
        t.insert(dev_route("10.0.0.0/8", 1, 0), AddMode::Exclusive).unwrap();
        t.insert(dev_route("10.1.0.0/16", 2, 10), AddMode::Exclusive).unwrap();
        t.insert(dev_route("10.1.0.0/16", 3, 5), AddMode::Exclusive).unwrap();
        let a = "10.1.2.3".parse().unwrap();
        assert_eq!(t.lookup(a, None).unwrap().dev, Some(3));
        assert_eq!(t.lookup(a, Some(2)).unwrap().dev, Some(2));
        assert_eq!(t.lookup(a, Some(1)).unwrap().dev, Some(1));
        assert!(t.lookup("11.0.0.1".parse().unwrap(), None).is_none());
    }
}
