//! Route's score card: the shared reactive scorer ([`crate::score`]) over the ping matrix,
//! worded in pings and pairs, and hygiene notes comparing the final configuration with the
//! intended one. Correct means no lost ping; see docs/scoring.md for the definitions.

use std::collections::BTreeSet;

use crate::app::{Score, ScoreDetails};
use crate::score::{self, Breach, Reactive, Refusal, Tally, Wording};

use super::engine::matrix::{Machine, Matrix};
use super::net::iptables::{ChainId, Target};
use super::net::route::Route;
use super::net::{Net, Node, addr::show_prefix};

/// The ping matrix as behaviours: every ordered pair answers, in [`Matrix::pairs`] order.
pub fn holds(m: &Matrix) -> Vec<bool> {
    m.pairs().map(|(s, d)| m.get(s, d)).collect()
}

/// What the scorer needs from an episode.
pub struct Record<'a> {
    pub machines: &'a [Machine],
    pub matrix: &'a Matrix,
    pub tracker: &'a Reactive,
    pub turns: u32,
    pub healthy: &'a Net,
    pub net: &'a Net,
}

pub fn score(r: &Record<'_>) -> Score {
    let words = Words { machines: r.machines, pairs: r.matrix.pairs().collect() };
    score::score(r.tracker, r.turns, &words, hygiene(r.healthy, r.net))
}

/// Route's wording: behaviours are ordered pairs of machines.
struct Words<'a> {
    machines: &'a [Machine],
    pairs: Vec<(usize, usize)>,
}

impl Words<'_> {
    fn pair(&self, i: usize) -> String {
        let (s, d) = self.pairs[i];
        format!("{} -> {}", self.machines[s].name, self.machines[d].name)
    }
}

impl Wording for Words<'_> {
    fn wrong(&self, i: usize) -> String {
        self.pair(i)
    }

    fn broken(&self, i: usize) -> String {
        self.pair(i)
    }

    fn all_hold(&self, t: &Tally<'_>) -> String {
        format!("All {} pings answer.", t.behaviours)
    }

    fn some_wrong(&self, t: &Tally<'_>) -> String {
        format!("{} of {} pings still fail:", t.wrong.len(), t.behaviours)
    }

    fn no_breach(&self) -> String {
        "No pair that worked right after the fault was broken later.".into()
    }

    fn breach(&self, b: &Breach) -> String {
        format!("Turn {} ({}) broke pairs that worked after the fault:", b.turn, b.action)
    }

    fn refusal(&self, r: &Refusal) -> String {
        format!("{} \u{2014} {}", r.action, r.reason)
    }

    fn explanation(&self, t: &Tally<'_>, details: &ScoreDetails) -> String {
        let correct = if t.correct() {
            format!("Correct: all {} pings answer.", t.behaviours)
        } else {
            format!("Not correct: {} of {} pings fail.", t.wrong.len(), t.behaviours)
        };
        let safe = match t.breach {
            None => "Safe: nothing that worked was broken.".to_string(),
            Some(b) => format!("Unsafe: turn {} broke {} working pair(s).", b.turn, b.behaviours.len()),
        };
        let hygiene = if details.hygiene.is_empty() {
            String::new()
        } else {
            format!(
                " Hygiene: {} difference(s) from the intended configuration (not scored).",
                details.hygiene.len()
            )
        };
        format!(
            "{correct} {safe} Progress: {} of {} broken pairs repaired.{hygiene}",
            t.repaired, t.broken_at_start
        )
    }
}

/// A route as hygiene compares it: type, destination, gateway, device, metric.
fn route_key(node: &Node, r: &Route) -> String {
    let mut s = String::new();
    if r.rtype != super::net::route::RouteType::Unicast {
        s.push_str(r.rtype.keyword());
        s.push(' ');
    }
    s.push_str(&show_prefix(r.dst));
    if let Some(g) = r.via {
        s.push_str(&format!(" via {g}"));
    }
    if let Some(d) = r.dev {
        s.push_str(&format!(" dev {}", node.ifaces[d].name));
    }
    if r.metric != 0 {
        s.push_str(&format!(" metric {}", r.metric));
    }
    s
}

/// Everything hygiene compares on one node, as labelled facts.
fn facts(node: &Node) -> BTreeSet<String> {
    let mut f = BTreeSet::new();
    for i in &node.ifaces {
        for a in &i.addrs {
            f.insert(format!("address {}/{} on {}", a.ip(), a.len(), i.name));
        }
        if !i.up {
            f.insert(format!("link {} down", i.name));
        }
        if i.mtu != if i.is_loopback() { 65536 } else { 1500 } {
            f.insert(format!("link {} mtu {}", i.name, i.mtu));
        }
        if i.promisc {
            f.insert(format!("link {} promisc on", i.name));
        }
        if let Some(q) = &i.qdisc {
            f.insert(format!("qdisc netem on {} ({})", i.name, q.options()));
        }
        f.insert(format!("net.ipv4.conf.{}.forwarding = {}", i.name, i.forwarding));
    }
    for r in node.main.routes() {
        f.insert(format!("route {}", route_key(node, r)));
    }
    for rule in node.rules.iter() {
        f.insert(format!("rule {}", rule.show().replace('\t', " ")));
    }
    for id in ChainId::ALL {
        let c = node.filter.chain(id);
        if c.policy != Target::Accept {
            f.insert(format!("iptables policy {} {}", id.name(), c.policy.name()));
        }
        for rule in &c.rules {
            f.insert(format!("iptables rule {}", rule.save_line(id)));
        }
    }
    f.insert(format!("net.ipv4.ip_forward = {}", node.ip_forward));
    f.insert(format!("net.ipv4.conf.default.forwarding = {}", node.default_forwarding));
    f
}

/// Whether a node's configuration differs from its healthy one (what [`hygiene`] lists).
pub fn differs(healthy: &Node, now: &Node) -> bool {
    facts(healthy) != facts(now)
}

/// Differences between the final and the intended configuration, per node, ignoring
/// route protocols and counters.
pub fn hygiene(healthy: &Net, now: &Net) -> Vec<String> {
    let mut out = Vec::new();
    for (h, n) in healthy.nodes.iter().zip(&now.nodes) {
        let (want, have) = (facts(h), facts(n));
        for extra in have.difference(&want) {
            out.push(format!("{}: extra {extra}", n.name));
        }
        for missing in want.difference(&have) {
            out.push(format!("{}: missing {missing}", n.name));
        }
    }
    out
}
