//! Route's topology pictures: the task's (intended addresses, routers with an injected fault
//! marked) and an episode's (the live network: addresses as `ip addr` shows them now, links
//! that are down, routers that still differ from the intended configuration while pings
//! fail). Labels are short and say only what the node or switch next to them does not:
//! `eth1 .1` beside a switch labelled `s1 192.168.1.0/24`.

use std::net::Ipv4Addr;

use ipnet::Ipv4Net;

use crate::view::{PicEdge, PicNode, Picture, Tone};

use super::engine::matrix::Matrix;
use super::fault::Fault;
use super::net::{Iface, Net};
use super::score;
use super::topology::{Port, Shape, Topology};

/// What a picture shows: the plan with its faults, or a live network.
enum Source<'a> {
    Intended(&'a [Fault]),
    Live { healthy: &'a Net, now: &'a Net, solved: bool },
}

/// The task's picture: intended addresses, routers with an injected fault marked.
pub fn intended(topo: &Topology, faults: &[Fault]) -> Picture {
    let caption = format!("{}: intended addresses; ✗ marks a router with an injected fault", size(topo));
    draw(topo, &Source::Intended(faults), caption)
}

/// An episode's picture of its live network after the last step.
pub fn live(topo: &Topology, healthy: &Net, now: &Net, matrix: &Matrix) -> Picture {
    let solved = matrix.lost() == 0;
    let caption = format!(
        "{}: live state, addresses as `ip addr` shows them now; ✗ marks a router whose \
         configuration still differs from the intended one while pings fail",
        size(topo)
    );
    draw(topo, &Source::Live { healthy, now, solved }, caption)
}

fn size(topo: &Topology) -> String {
    let shape = match topo.shape {
        Shape::Single => "",
        Shape::Chain => ", chained",
        Shape::Star => ", star around r0",
    };
    format!("{} subnet(s) of {} host(s), {} router(s){shape}", topo.n, topo.m, topo.r)
}

/// Routers on top, switches in the middle, hosts below their switch. Coordinates in 0..1000.
fn draw(topo: &Topology, source: &Source<'_>, caption: String) -> Picture {
    let spread = |i: usize, n: usize| 1000.0 * (i as f64 + 0.5) / n as f64;
    let mut nodes = Vec::new();
    let mut edges = Vec::new();
    for x in 0..topo.r {
        let router = format!("r{x}");
        nodes.push(PicNode {
            id: router.clone(),
            label: router.clone(),
            role: "router".into(),
            x: spread(x, topo.r),
            y: 120.0,
            tone: if router_bad(source, x, &router) { Tone::Bad } else { Tone::Neutral },
        });
        for p in topo.ports(x) {
            let (label, tone) = port_label(source, &router, &p.name, p.addr, port_net(p.port));
            match p.port {
                Port::Lan(s) => edges.push(cable(&router, &format!("s{s}"), label, tone)),
                Port::Transit(t) if topo.transit(t).0 == x => {
                    let (b, b_name) = far_end(topo, t);
                    let b_addr = topo.ports(b).into_iter().find(|q| q.name == b_name).map(|q| q.addr);
                    let (b_label, b_tone) = port_label(
                        source,
                        &format!("r{b}"),
                        &b_name,
                        b_addr.unwrap_or(p.addr),
                        port_net(p.port),
                    );
                    let tone =
                        if tone == Tone::Bad || b_tone == Tone::Bad { Tone::Bad } else { Tone::Neutral };
                    let label = format!("{} {label} – {b_label}", Topology::transit_net(t));
                    edges.push(cable(&router, &format!("r{b}"), label, tone));
                }
                Port::Transit(_) => {}
            }
        }
    }
    let hosts = topo.hosts();
    for s in 1..=topo.n {
        nodes.push(PicNode {
            id: format!("s{s}"),
            label: format!("s{s} {}", Topology::lan(s)),
            role: "switch".into(),
            x: spread(s - 1, topo.n),
            y: 450.0,
            tone: Tone::Neutral,
        });
        for j in 0..topo.m {
            let (name, addr) = topo.host(s, j);
            let k = (s - 1) * topo.m + j;
            let (label, tone) = port_label(source, &name, &format!("{name}-eth0"), addr, Topology::lan(s));
            nodes.push(PicNode {
                id: name.clone(),
                label: format!("{name} {}", label.strip_prefix("eth0 ").unwrap_or(&label)),
                role: "host".into(),
                x: spread(k, hosts),
                y: if j % 2 == 0 { 780.0 } else { 880.0 },
                tone,
            });
            edges.push(cable(&format!("s{s}"), &name, String::new(), Tone::Neutral));
        }
    }
    Picture { caption, nodes, edges }
}

fn cable(from: &str, to: &str, label: String, tone: Tone) -> PicEdge {
    PicEdge { from: from.into(), to: to.into(), label, tone, directed: false }
}

/// The subnet a port's segment is meant to carry.
fn port_net(port: Port) -> Ipv4Net {
    match port {
        Port::Lan(s) => Topology::lan(s),
        Port::Transit(t) => Topology::transit_net(t),
    }
}

/// The router at the far end of transit link `t` and its port's name.
fn far_end(topo: &Topology, t: usize) -> (usize, String) {
    let b = topo.transit(t).1;
    let name = topo.ports(b).into_iter().find(|q| q.port == Port::Transit(t)).map(|q| q.name);
    (b, name.unwrap_or_default())
}

fn router_bad(source: &Source<'_>, x: usize, name: &str) -> bool {
    match source {
        Source::Intended(faults) => faults.iter().any(|f| f.router == x),
        Source::Live { healthy, now, solved } => {
            !solved
                && match (healthy.node(name), now.node(name)) {
                    (Some(h), Some(n)) => score::differs(&healthy.nodes[h], &now.nodes[n]),
                    _ => false,
                }
        }
    }
}

/// A port's short label (`eth1 .1`, `eth2 10.9.0.1/16 down`) and tone (bad when its link
/// does not carry packets or it has no address).
fn port_label(source: &Source<'_>, node: &str, port: &str, planned: Ipv4Net, net: Ipv4Net) -> (String, Tone) {
    let short = port.split_once('-').map_or(port, |(_, rest)| rest);
    match source {
        Source::Intended(_) => (format!("{short} {}", address(planned, net)), Tone::Neutral),
        Source::Live { now, .. } => {
            let iface = now.node(node).and_then(|n| now.nodes[n].ifaces.iter().find(|i| &*i.name == port));
            match iface {
                Some(i) => live_port(short, i, net),
                None => (format!("{short} missing"), Tone::Bad),
            }
        }
    }
}

fn live_port(short: &str, iface: &Iface, net: Ipv4Net) -> (String, Tone) {
    let mut words = vec![short.to_string()];
    match iface.addrs.first() {
        Some(a) => words.push(address(a.net, net)),
        None => words.push("no address".into()),
    }
    if iface.addrs.len() > 1 {
        words.push(format!("+{}", iface.addrs.len() - 1));
    }
    if !iface.up {
        words.push("down".into());
    } else if !iface.running() {
        words.push("no carrier".into());
    }
    if iface.mtu != 1500 {
        words.push(format!("mtu {}", iface.mtu));
    }
    let bad = !iface.running() || iface.addrs.is_empty() || iface.mtu != 1500;
    (words.join(" "), if bad { Tone::Bad } else { Tone::Neutral })
}

/// An address relative to the subnet its segment carries: `.1` when it is a host of that
/// subnet with the subnet's length, else in full with its length.
fn address(addr: Ipv4Net, net: Ipv4Net) -> String {
    if addr.prefix_len() == net.prefix_len() && net.contains(&addr.addr()) {
        format!(".{}", last_octet(addr.addr()))
    } else {
        addr.to_string()
    }
}

fn last_octet(ip: Ipv4Addr) -> u8 {
    ip.octets()[3]
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::app::{Episode, Task};
    use crate::id::QueryId;
    use crate::route::generate;
    use crate::route::task::RouteTask;

    fn task(id: &str) -> Arc<RouteTask> {
        let q: QueryId = id.parse().expect("id");
        RouteTask::new(&q, generate::draw(&q).expect("draws"), generate::DEFAULT_TURNS)
    }

    fn bad_routers(p: &Picture) -> Vec<&str> {
        p.nodes.iter().filter(|n| n.role == "router" && n.tone == Tone::Bad).map(|n| n.id.as_str()).collect()
    }

    fn label<'a>(p: &'a Picture, from: &str, to: &str) -> &'a str {
        &p.edges.iter().find(|e| e.from == from && e.to == to).expect("edge").label
    }

    /// Solves an episode with the task's stored fix.
    fn solve(t: &RouteTask, episode: &mut dyn Episode) {
        for step in t.card().expected["fix"].as_array().expect("fix") {
            episode.step(&format!(
                "{}: {}",
                step["machine"].as_str().unwrap(),
                step["command"].as_str().unwrap()
            ));
        }
        assert!(episode.finished().is_some(), "the stored fix solves it");
    }

    #[test]
    fn the_live_picture_shows_faulted_addresses_and_no_mark_once_solved() {
        let t = task("route-v1-L1-s0-i0-n2-m1-fRI");
        let f = &t.faults[0];
        let port = format!("s{}", f.k.expect("RI names a port"));
        let intended = t.picture();
        assert_eq!(bad_routers(&intended), ["r0"]);
        assert!(intended.caption.contains("intended addresses"), "{}", intended.caption);
        let mut episode = t.start(None);
        let live = episode.picture().expect("a live picture");
        assert!(live.caption.contains("live state"), "{}", live.caption);
        assert_eq!(bad_routers(&live), ["r0"], "still broken");
        assert_ne!(label(&live, "r0", &port), label(&intended, "r0", &port), "the faulted address shows");
        solve(&t, &mut *episode);
        let solved = episode.picture().expect("a live picture");
        assert!(bad_routers(&solved).is_empty(), "a solved task shows no ✗");
        assert_eq!(label(&solved, "r0", &port), label(&intended, "r0", &port));
    }

    #[test]
    fn labels_are_short_and_distinct() {
        let t = task("route-v1-L3-s0-i0-r2-n3-m2");
        let p = t.picture();
        assert_eq!(label(&p, "r0", "s1"), "eth1 .1");
        let host = p.nodes.iter().find(|n| n.id == "h1").expect("h1");
        assert_eq!(host.label, "h1 .100");
        let transit = p.edges.iter().find(|e| e.from == "r0" && e.to == "r1").expect("transit link");
        assert!(transit.label.starts_with("10.0.1.0/30 eth"), "{}", transit.label);
        let mut labels: Vec<(&str, &str)> =
            p.edges.iter().map(|e| (e.from.as_str(), e.label.as_str())).collect();
        labels.retain(|(_, l)| !l.is_empty());
        let n = labels.len();
        labels.sort_unstable();
        labels.dedup();
        assert_eq!(labels.len(), n, "one router's labels never repeat");
    }

    #[test]
    fn a_link_that_is_down_is_marked_live() {
        let t = task("route-v1-L1-s0-i0-n2-m1-fDI");
        let mut episode = t.start(None);
        episode.step("r0: ip link set r0-eth1 down");
        let live = episode.picture().expect("a live picture");
        let e = live.edges.iter().find(|e| e.from == "r0" && e.to == "s1").expect("edge");
        assert!(e.label.ends_with("down"), "{}", e.label);
        assert_eq!(e.tone, Tone::Bad);
    }
}
