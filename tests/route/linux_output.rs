//! Outputs where the emulator once differed from real Linux on generated tasks (measured in
//! network namespaces with Debian 12 user space; `tests/route/fidelity.rs` compares them on
//! generated tasks too): ping's `pipe` line, ifconfig's interface order, drop counters on a
//! link into an MTU 68 port, the neighbour a router learns from an ARP request, and the path
//! MTU ping's later probes keep.

use netpress::route::matrix;
use netpress::route::net::Net;
use netpress::route::shell;
use netpress::route::topology::{Shape, Topology};

fn single(n: usize, m: usize) -> (Topology, Net) {
    let topo = Topology { n, m, r: 1, shape: Shape::Single };
    (topo, topo.build())
}

fn run(net: &mut Net, machine: &str, line: &str) -> (String, i32) {
    let id = net.node(machine).unwrap_or_else(|| panic!("no machine {machine}"));
    let o = shell::run(net, id, line);
    (o.output, o.status)
}

/// The interface names an `ifconfig` listing shows, in order.
fn listed(text: &str) -> Vec<String> {
    text.lines()
        .filter(|l| !l.starts_with(' ') && l.contains(": flags="))
        .map(|l| l.split(':').next().unwrap_or_default().to_string())
        .collect()
}

/// The number after `word` on the first line holding `line_start`.
fn counter(text: &str, line_start: &str, word: &str) -> u64 {
    let line = text.lines().find(|l| l.trim_start().starts_with(line_start)).expect("counter line");
    let mut words = line.split_whitespace();
    words.find(|w| *w == word).expect("counter word");
    words.next().and_then(|v| v.parse().ok()).expect("counter value")
}

#[test]
fn ping_whose_probes_are_all_lost_prints_no_pipe() {
    let (_, mut net) = single(2, 1);
    run(&mut net, "r0", "sysctl -w net.ipv4.ip_forward=0");
    let (out, status) = run(&mut net, "h1", "ping -c3 -W1 192.168.2.100");
    assert_eq!(status, 1);
    assert!(out.ends_with("3 packets transmitted, 0 received, 100% packet loss, time 2000ms\n\n"), "{out}");
    assert!(!out.contains("pipe"), "{out}");
}

#[test]
fn ping_counts_its_pipe_from_answers() {
    // An unanswered neighbour: the errors for the first three probes come together when the
    // resolution gives up, by when the fourth was sent.
    let (_, mut net) = single(2, 1);
    let (out, _) = run(&mut net, "h1", "ping -c4 -W1 192.168.1.77");
    assert!(out.contains("+3 errors"), "{out}");
    assert!(out.ends_with("pipe 4\n"), "{out}");
    let (out, _) = run(&mut net, "h1", "ping -c3 192.168.2.100");
    assert!(!out.contains("pipe"), "answered at once, nothing in flight: {out}");
}

#[test]
fn ifconfig_lists_interfaces_in_net_tools_order() {
    let (_, mut net) = single(2, 1);
    for line in ["ifconfig", "ifconfig -a"] {
        let (out, _) = run(&mut net, "h1", line);
        assert_eq!(listed(&out), ["h1-eth0", "lo"], "{line}");
    }
    let (_, mut big) = single(11, 1);
    let (out, _) = run(&mut big, "r0", "ifconfig -a");
    let mut want = vec!["lo".to_string()];
    want.extend((1..=11).map(|k| format!("r0-eth{k}")));
    assert_eq!(listed(&out), want, "numbers count as numbers");
}

/// Two chained routers with one subnet each; the transit port of r1 set to MTU 68.
fn transit_into_mtu_68() -> (Net, String, String) {
    let topo = Topology { n: 2, m: 1, r: 2, shape: Shape::Chain };
    let mut net = topo.build();
    let out_of_r0 = topo.ports(0).into_iter().find(|p| p.name != "r0-eth1").expect("transit port").name;
    let into_r1 = topo.ports(1).into_iter().find(|p| p.addr.addr().octets()[0] == 10).expect("transit").name;
    run(&mut net, "r1", &format!("ip link set {into_r1} mtu 68"));
    matrix::compute(&mut net, &topo.machines());
    (net, out_of_r0, into_r1)
}

#[test]
fn a_veth_into_an_mtu_68_port_counts_its_frames_as_dropped() {
    let (mut net, out_of_r0, into_r1) = transit_into_mtu_68();
    let (sender, _) = run(&mut net, "r0", &format!("ifconfig {out_of_r0}"));
    assert_eq!(counter(&sender, "TX packets", "packets"), 0, "{sender}");
    assert!(counter(&sender, "TX errors", "dropped") > 0, "{sender}");
    let (receiver, _) = run(&mut net, "r1", &format!("ifconfig {into_r1}"));
    assert!(counter(&receiver, "RX errors", "dropped") > 0, "{receiver}");
    assert_eq!(counter(&receiver, "TX errors", "dropped"), 0, "fragments of 68 bytes fit: {receiver}");
    let (stats, _) = run(&mut net, "r0", &format!("ip -s link show {out_of_r0}"));
    let tx = stats.lines().skip_while(|l| !l.contains("TX:")).nth(1).expect("TX counters");
    let dropped: u64 = tx.split_whitespace().nth(3).and_then(|v| v.parse().ok()).expect("dropped");
    assert!(dropped > 0, "{stats}");
}

#[test]
fn a_switch_hands_on_frames_an_mtu_68_port_drops() {
    let (topo, mut net) = single(2, 1);
    run(&mut net, "r0", "ip link set r0-eth2 mtu 68");
    matrix::compute(&mut net, &topo.machines());
    let (host, _) = run(&mut net, "h2", "ifconfig h2-eth0");
    assert!(counter(&host, "TX packets", "packets") > 0, "the bridge took them: {host}");
    assert_eq!(counter(&host, "TX errors", "dropped"), 0, "{host}");
    let (router, _) = run(&mut net, "r0", "ifconfig r0-eth2");
    assert!(counter(&router, "RX errors", "dropped") > 0, "{router}");
}

#[test]
fn a_router_learns_the_sender_of_an_arp_request() {
    let (topo, mut net) = single(2, 1);
    // WR1: the route to subnet 2 points out of the wrong port.
    run(&mut net, "r0", "ip route replace 192.168.2.0/24 dev r0-eth1");
    matrix::compute(&mut net, &topo.machines());
    let (out, _) = run(&mut net, "r0", "ip neigh");
    let learned: Vec<&str> = out.lines().filter(|l| l.contains("dev r0-eth2")).collect();
    assert_eq!(learned.len(), 1, "{out}");
    assert!(learned[0].starts_with("192.168.2.100 dev r0-eth2 lladdr "), "{out}");
    assert!(learned[0].ends_with(" STALE "), "{out}");
    assert!(out.contains("192.168.2.100 dev r0-eth1 FAILED"), "{out}");
}

#[test]
fn a_learned_entry_used_to_send_waits_in_delay() {
    let (topo, mut net) = single(2, 1);
    matrix::compute(&mut net, &topo.machines());
    let (out, _) = run(&mut net, "h2", "ip neigh");
    // h2 learned r0 from r0's request, then answered h1's pings through it.
    assert!(out.starts_with("192.168.2.1 dev h2-eth0 lladdr ") && out.ends_with(" DELAY \n"), "{out}");
    let (out, _) = run(&mut net, "r0", "ping -c1 -W1 192.168.1.100 >/dev/null; ip neigh show dev r0-eth1");
    assert!(out.ends_with("REACHABLE \n") || out.ends_with("DELAY \n"), "{out}");
}

#[test]
fn ping_keeps_the_path_mtu_a_frag_needed_reports() {
    let (_, mut net) = single(2, 1);
    run(&mut net, "r0", "ip link set r0-eth2 mtu 68");
    let (out, status) = run(&mut net, "h1", "ping -c2 -W1 192.168.2.100");
    assert_eq!(status, 1);
    assert_eq!(out.matches("Frag needed and DF set (mtu = 68)").count(), 1, "{out}");
    assert!(out.contains("2 packets transmitted, 0 received, +1 errors"), "{out}");
}
