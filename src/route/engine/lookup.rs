//! Route lookup through the policy rules (rules by preference, then each table, as Linux does).

use std::net::Ipv4Addr;

use crate::route::net::route::{IfId, RouteType};
use crate::route::net::rule::{RuleAction, TableId};
use crate::route::net::{Node, addr};

/// Where a lookup sends a packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hop {
    /// The destination is one of the node's addresses.
    Local,
    /// A broadcast address of one of the node's subnets.
    Broadcast,
    /// Out of `dev`, to `gw` or on-link; `src` is the route's preferred source.
    Out { dev: IfId, gw: Option<Ipv4Addr>, src: Option<Ipv4Addr> },
}

/// A failed lookup, by the errno the kernel returns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LookupError {
    /// ENETUNREACH: nothing matched.
    NoRoute,
    /// EHOSTUNREACH: an `unreachable` route or rule.
    Unreachable,
    /// EACCES: `prohibit`.
    Prohibit,
    /// EINVAL: `blackhole`.
    Blackhole,
}

impl LookupError {
    fn of_route(t: RouteType) -> Option<Self> {
        match t {
            RouteType::Unicast => None,
            RouteType::Blackhole => Some(LookupError::Blackhole),
            RouteType::Prohibit => Some(LookupError::Prohibit),
            RouteType::Unreachable => Some(LookupError::Unreachable),
        }
    }

    /// The text after `RTNETLINK answers: ` (ip route get) or `connect: ` (ping).
    pub fn strerror(self) -> &'static str {
        match self {
            LookupError::NoRoute => "Network is unreachable",
            LookupError::Unreachable => "No route to host",
            LookupError::Prohibit => "Permission denied",
            LookupError::Blackhole => "Invalid argument",
        }
    }
}

/// What the derived local table says of `ip`: `Local` for one of the node's addresses or
/// inside a prefix of `lo` ([`Node::is_local`]), else `Broadcast` for a broadcast address of
/// an up interface's subnet.
fn local_table(node: &Node, ip: Ipv4Addr) -> Option<Hop> {
    if node.is_local(ip) { Some(Hop::Local) } else { node.is_broadcast(ip).then_some(Hop::Broadcast) }
}

/// Lookup(node, dst, src?, oif?): the rules in order; `lookup local` finds local and
/// broadcast addresses, `lookup main` the best main route (an error route's hit is that error),
/// `lookup default` nothing. With `oif`, a failed lookup becomes on-link via `oif`, as the
/// kernel's output path assumes.
pub fn lookup(
    node: &Node,
    dst: Ipv4Addr,
    src: Option<Ipv4Addr>,
    oif: Option<IfId>,
) -> Result<Hop, LookupError> {
    let result = policy_lookup(node, dst, src, oif);
    match (result, oif) {
        (Err(_), Some(dev)) => Ok(Hop::Out { dev, gw: None, src: None }),
        _ => result,
    }
}

fn policy_lookup(
    node: &Node,
    dst: Ipv4Addr,
    src: Option<Ipv4Addr>,
    oif: Option<IfId>,
) -> Result<Hop, LookupError> {
    for rule in node.rules.iter() {
        if !rule.matches(dst, src) {
            continue;
        }
        match rule.action {
            RuleAction::Lookup(TableId::Local) => {
                if let Some(hop) = local_table(node, dst) {
                    return Ok(hop);
                }
            }
            RuleAction::Lookup(TableId::Main) => {
                if let Some(r) = node.main.lookup(dst, oif) {
                    if let Some(e) = LookupError::of_route(r.rtype) {
                        return Err(e);
                    }
                    let dev = r.dev.expect("unicast routes have a device");
                    return Ok(Hop::Out { dev, gw: r.via, src: r.src });
                }
            }
            RuleAction::Lookup(TableId::Default) => {}
            RuleAction::Blackhole => return Err(LookupError::Blackhole),
            RuleAction::Prohibit => return Err(LookupError::Prohibit),
            // An `unreachable` rule answers ENETUNREACH (fib4_rule_action), unlike the route type.
            RuleAction::Unreachable => return Err(LookupError::NoRoute),
        }
    }
    Err(LookupError::NoRoute)
}

/// Whether a lookup of `ip`, one of the node's own addresses, answers `Local`: at once when
/// the first rule sends every packet to the local table (as by default), else as the lookup
/// says. Neighbour resolution asks this of every peer that owns the address it resolves.
pub fn looks_up_local(node: &Node, ip: Ipv4Addr, src: Option<Ipv4Addr>) -> bool {
    let local_first = node.rules.first().is_some_and(|r| {
        r.from.is_none() && r.to.is_none() && r.action == RuleAction::Lookup(TableId::Local)
    });
    debug_assert!(node.is_local(ip));
    local_first || lookup(node, ip, src, None) == Ok(Hop::Local)
}

/// The source address for a packet leaving by `hop`: the route's `src`, else the egress
/// interface's first primary covering the next hop, else its first primary, else the node's
/// first global address; for local destinations, the destination itself.
pub fn source_for(node: &Node, dst: Ipv4Addr, hop: Hop) -> Option<Ipv4Addr> {
    match hop {
        Hop::Local if addr::is_loopback(dst) => Some(Ipv4Addr::LOCALHOST),
        Hop::Local | Hop::Broadcast => Some(dst),
        Hop::Out { src: Some(s), .. } => Some(s),
        Hop::Out { dev, gw, src: None } => {
            node.ifaces[dev].select_src(gw.unwrap_or(dst)).or_else(|| node.first_global())
        }
    }
}
