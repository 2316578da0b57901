//! Scoring (route.md §10): correctness on zero lost pings, set-based safety, partial
//! progress, and hygiene notes comparing the final configuration with the intended one.

use std::collections::BTreeSet;

use crate::app::{Score, ScoreDetails};

use super::engine::matrix::{Machine, Matrix};
use super::net::iptables::{ChainId, Target};
use super::net::route::Route;
use super::net::{Net, Node, addr::show_prefix};

/// The first step that broke a pair working right after injection.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Breach {
    pub turn: u32,
    pub action: String,
    pub pairs: Vec<(usize, usize)>,
}

/// What the scorer needs from an episode.
pub struct Record<'a> {
    pub machines: &'a [Machine],
    pub initial: &'a Matrix,
    pub last: &'a Matrix,
    pub breach: Option<&'a Breach>,
    pub turns: u32,
    pub healthy: &'a Net,
    pub net: &'a Net,
    pub blocked: Vec<String>,
}

fn pair_text(machines: &[Machine], (s, d): (usize, usize)) -> String {
    format!("{} -> {}", machines[s].name, machines[d].name)
}

pub fn score(r: &Record<'_>) -> Score {
    let failing = r.last.failing();
    let correct = failing.is_empty();
    let broken0: Vec<(usize, usize)> = r.initial.failing();
    let repaired = broken0.iter().filter(|&&(s, d)| r.last.get(s, d)).count();
    let progress = if broken0.is_empty() { 1.0 } else { repaired as f64 / broken0.len() as f64 };
    let safe = r.breach.is_none();
    let mut details = ScoreDetails::default();
    if correct {
        details.correctness.push(format!("All {} pings answer.", r.last.sent()));
    } else {
        details.correctness.push(format!("{} of {} pings still fail:", failing.len(), r.last.sent()));
        details.correctness.extend(failing.iter().map(|&p| pair_text(r.machines, p)));
    }
    match r.breach {
        None => details.safety.push("No pair that worked right after the fault was broken later.".into()),
        Some(b) => {
            details
                .safety
                .push(format!("Turn {} ({}) broke pairs that worked after the fault:", b.turn, b.action));
            details.safety.extend(b.pairs.iter().map(|&p| pair_text(r.machines, p)));
        }
    }
    details.hygiene = hygiene(r.healthy, r.net);
    details.blocked = r.blocked.clone();
    let explanation = format!(
        "{} {} Progress: {repaired} of {} broken pairs repaired.{}",
        if correct {
            format!("Correct: all {} pings answer.", r.last.sent())
        } else {
            format!("Not correct: {} of {} pings fail.", failing.len(), r.last.sent())
        },
        match r.breach {
            None => "Safe: nothing that worked was broken.".to_string(),
            Some(b) => format!("Unsafe: turn {} broke {} working pair(s).", b.turn, b.pairs.len()),
        },
        broken0.len(),
        if details.hygiene.is_empty() {
            String::new()
        } else {
            format!(
                " Hygiene: {} difference(s) from the intended configuration (not scored).",
                details.hygiene.len()
            )
        }
    );
    Score { correct, safe, progress, turns: r.turns, latency_ms: None, tokens: None, explanation, details }
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
