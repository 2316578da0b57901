//! The Linux behaviours the emulator must reproduce (B1–B19: what a fault or a fix does to
//! forwarding, ARP, rules, iptables and qdiscs) and every fault family's symptom, one named
//! test each, on one router with two hosts (three subnets for B14). The same sequences run
//! against real namespaces in `tests/route_fidelity.rs` (docs/route.md, "Fidelity against real
//! Linux").

use super::engine::matrix::{self, Matrix};
use super::net::Net;
use super::shell;
use super::topology::{Shape, Topology};

/// A lab of N subnets with one host each.
struct Lab {
    topo: Topology,
    net: Net,
}

impl Lab {
    fn new(n: usize) -> Lab {
        let topo = Topology { n, m: 1, r: 1, shape: Shape::Single };
        Lab { net: topo.build(), topo }
    }

    /// Runs a line on a machine; returns (output, status).
    fn on(&mut self, machine: &str, line: &str) -> (String, i32) {
        let id = self.net.node(machine).expect("machine exists");
        let o = shell::run(&mut self.net, id, line);
        (o.output, o.status)
    }

    fn r0(&mut self, line: &str) -> String {
        self.on("r0", line).0
    }

    fn matrix(&mut self) -> Matrix {
        matrix::compute(&mut self.net, &self.topo.machines())
    }

    /// The matrix's results line.
    fn results(&mut self) -> String {
        let machines = self.topo.machines();
        self.matrix().render(&machines).lines().last().unwrap_or_default().to_string()
    }

    /// The live ordered pairs as `a>b` strings.
    fn live(&mut self) -> Vec<String> {
        let machines = self.topo.machines();
        let m = self.matrix();
        m.pairs()
            .filter(|&(s, d)| m.get(s, d))
            .map(|(s, d)| format!("{}>{}", machines[s].name, machines[d].name))
            .collect()
    }
}

const ALL_LIVE: &str = "*** Results: 0% dropped (6/6 received)";
const FORWARDED_CUT: &str = "*** Results: 33% dropped (4/6 received)";
const SUBNET_CUT: &str = "*** Results: 66% dropped (2/6 received)";
const NOTHING: &str = "*** Results: 100% dropped (0/6 received)";

#[test]
fn b01_link_down_leaves_only_h2_and_r0() {
    let mut lab = Lab::new(2);
    lab.r0("ip link set r0-eth1 down");
    assert_eq!(lab.live(), ["h2>r0", "r0>h2"]);
    assert_eq!(lab.results(), SUBNET_CUT);
}

#[test]
fn b02_forwarding_off_or_forward_drop_cuts_only_forwarded_pairs() {
    for line in ["sysctl -w net.ipv4.ip_forward=0", "iptables -P FORWARD DROP"] {
        let mut lab = Lab::new(2);
        lab.r0(line);
        assert_eq!(lab.live(), ["h1>r0", "h2>r0", "r0>h1", "r0>h2"], "{line}");
        assert_eq!(lab.results(), FORWARDED_CUT);
    }
}

#[test]
fn b03_wider_prefix_still_reaches_the_hosts() {
    for (len, route) in [
        (8, "192.0.0.0/8 dev r0-eth2 proto kernel scope link src 192.168.2.1 "),
        (16, "192.168.0.0/16 dev r0-eth2 proto kernel scope link src 192.168.2.1 "),
    ] {
        let mut lab = Lab::new(2);
        lab.r0(&format!("ip addr flush dev r0-eth2 && ip addr add 192.168.2.1/{len} dev r0-eth2"));
        assert_eq!(lab.results(), ALL_LIVE);
        assert!(lab.r0("ip route").lines().any(|l| l == route), "{}", lab.r0("ip route"));
    }
}

#[test]
fn b04_route_via_own_address_is_accepted_and_misroutes() {
    let mut lab = Lab::new(2);
    let (out, status) =
        lab.on("r0", "ip route del 192.168.1.0/24 dev r0-eth1; ip route add 192.168.1.0/24 via 192.168.2.1");
    assert_eq!((out.as_str(), status), ("", 0));
    assert!(lab.r0("ip route").contains("192.168.1.0/24 via 192.168.2.1 dev r0-eth2 \n"));
    assert_eq!(lab.results(), SUBNET_CUT);
}

#[test]
fn b05_static_route_added_while_down_is_listed_first_and_wins() {
    let mut lab = Lab::new(2);
    lab.r0("ip link set r0-eth1 down; ip route add 192.168.1.0/24 dev r0-eth2; ip link set r0-eth1 up");
    let routes = lab.r0("ip route");
    let first = routes.lines().next().unwrap_or_default();
    assert_eq!(first, "192.168.1.0/24 dev r0-eth2 scope link ");
    assert_eq!(lab.results(), SUBNET_CUT);
    lab.r0("ip route del 192.168.1.0/24 dev r0-eth2");
    assert_eq!(lab.results(), ALL_LIVE);
}

#[test]
fn b06_deleting_pref_zero_hits_the_local_rule() {
    let mut lab = Lab::new(2);
    lab.r0("ip rule add prohibit pref 0; ip rule del pref 0");
    assert_eq!(
        lab.r0("ip rule"),
        "0:\tfrom all prohibit\n32766:\tfrom all lookup main\n32767:\tfrom all lookup default\n"
    );
    assert_eq!(lab.results(), NOTHING);
    lab.r0("ip rule del prohibit pref 0");
    assert_eq!(lab.results(), NOTHING);
    lab.r0("ip rule add lookup local pref 0");
    assert_eq!(lab.results(), ALL_LIVE);
}

#[test]
fn b07_prohibit_rule_after_local_blocks_everything() {
    let mut lab = Lab::new(2);
    lab.r0("ip rule add prohibit pref 0");
    assert!(lab.r0("ip rule").starts_with("0:\tfrom all lookup local\n0:\tfrom all prohibit\n"));
    assert_eq!(lab.results(), NOTHING);
    assert_eq!(
        lab.on("r0", "ip route get 192.168.2.100"),
        ("RTNETLINK answers: Permission denied\n".into(), 2)
    );
}

#[test]
fn b08_interface_forwarding_does_not_override_ip_forward() {
    let mut lab = Lab::new(2);
    lab.r0("sysctl -w net.ipv4.ip_forward=0; sysctl -w net.ipv4.conf.r0-eth1.forwarding=1");
    assert_eq!(lab.results(), FORWARDED_CUT);
}

#[test]
fn b09_unchanged_ip_forward_write_propagates_nothing() {
    let mut lab = Lab::new(2);
    lab.r0("sysctl -w net.ipv4.conf.r0-eth1.forwarding=0; sysctl -w net.ipv4.ip_forward=1");
    assert_eq!(lab.r0("sysctl -n net.ipv4.conf.r0-eth1.forwarding"), "0\n");
    assert_eq!(lab.results(), FORWARDED_CUT);
}

#[test]
fn b10_add_refuses_an_existing_slot_replace_does_not() {
    let mut lab = Lab::new(2);
    assert_eq!(
        lab.on("r0", "ip route add 192.168.1.0/24 dev r0-eth2"),
        ("RTNETLINK answers: File exists\n".into(), 2)
    );
    assert_eq!(lab.on("r0", "ip route replace 192.168.1.0/24 dev r0-eth2"), (String::new(), 0));
    assert!(lab.r0("ip route").starts_with("192.168.1.0/24 dev r0-eth2 scope link \n"));
}

#[test]
fn b11_static_routes_die_with_their_link_or_address() {
    for reset in [
        "ip link set r0-eth1 down; ip link set r0-eth1 up",
        "ip addr flush dev r0-eth1 && ip addr add 192.168.1.1/24 brd + dev r0-eth1",
    ] {
        let mut lab = Lab::new(2);
        lab.r0("ip route add 10.9.0.0/16 via 192.168.1.100");
        assert!(lab.r0("ip route").contains("10.9.0.0/16 via 192.168.1.100 dev r0-eth1 \n"));
        lab.r0(reset);
        assert!(!lab.r0("ip route").contains("10.9.0.0/16"), "{reset}");
    }
}

#[test]
fn b12_secondaries_go_with_their_primary() {
    let mut lab = Lab::new(2);
    lab.r0("ip addr add 192.168.1.5/24 dev r0-eth1");
    assert!(lab.r0("ip addr show r0-eth1").contains("inet 192.168.1.5/24 scope global secondary r0-eth1"));
    lab.r0("ip addr del 192.168.1.1/24 dev r0-eth1");
    assert!(!lab.r0("ip addr show r0-eth1").contains("inet "));
}

#[test]
fn b13_small_mtu_gives_frag_needed_to_forwarded_traffic_only() {
    let mut lab = Lab::new(2);
    lab.r0("ip link set r0-eth2 mtu 68");
    assert_eq!(lab.results(), SUBNET_CUT);
    let (out, _) = lab.on("h1", "ping -c1 -W1 192.168.2.100");
    assert!(out.contains("From 192.168.1.1 icmp_seq=1 Frag needed and DF set (mtu = 68)\n"), "{out}");
    let (out, status) = lab.on("r0", "ping -c1 -W1 192.168.2.100");
    assert!(status == 1 && !out.contains("From"), "{out}");
    assert_eq!(lab.on("r0", "ping -c1 -W1 -s 20 192.168.2.100").1, 0);
}

#[test]
fn b14_readded_connected_route_is_listed_after_the_existing_one() {
    let mut lab = Lab::new(3);
    lab.r0("ip addr flush dev r0-eth1 && ip addr add 192.168.3.1/24 dev r0-eth1");
    let routes = lab.r0("ip route");
    let eth3 = routes.find("192.168.3.0/24 dev r0-eth3").expect("eth3 route");
    let eth1 = routes.find("192.168.3.0/24 dev r0-eth1").expect("eth1 route");
    assert!(eth3 < eth1, "{routes}");
    lab.r0("ip addr del 192.168.3.1/24 dev r0-eth1");
    let routes = lab.r0("ip route");
    assert!(routes.contains("192.168.3.0/24 dev r0-eth3") && !routes.contains("dev r0-eth1"), "{routes}");
}

#[test]
fn b15_delete_without_metric_takes_the_kernel_route() {
    let mut lab = Lab::new(2);
    lab.r0("ip route add 192.168.1.0/24 dev r0-eth2 metric 10000; ip route del 192.168.1.0/24");
    let routes = lab.r0("ip route");
    assert!(routes.starts_with("192.168.1.0/24 dev r0-eth2 scope link metric 10000 \n"), "{routes}");
    assert!(!routes.contains("192.168.1.0/24 dev r0-eth1"));
    assert_eq!(lab.results(), SUBNET_CUT);
}

#[test]
fn b16_net_tools_route_goes_before_its_equals() {
    let mut lab = Lab::new(2);
    assert_eq!(
        lab.on("r0", "route add -net 192.168.2.0 netmask 255.255.255.0 dev r0-eth1"),
        (String::new(), 0)
    );
    let routes = lab.r0("ip route");
    assert!(
        routes.contains("192.168.2.0/24 dev r0-eth1 scope link \n192.168.2.0/24 dev r0-eth2 proto kernel"),
        "{routes}"
    );
    assert_eq!(lab.live(), ["h1>r0", "r0>h1"]);
}

#[test]
fn b17_router_answers_arp_for_any_of_its_addresses() {
    let mut lab = Lab::new(2);
    let (out, status) = lab.on("h1", "ip route add 192.168.2.1/32 dev h1-eth0; ping -c1 -W1 192.168.2.1");
    assert_eq!(status, 0, "{out}");
    assert!(out.contains("64 bytes from 192.168.2.1: icmp_seq=1 ttl=64 time=0.050 ms"), "{out}");
}

#[test]
fn b18_netem_delay_outlasts_the_matrix_wait() {
    let mut lab = Lab::new(2);
    lab.r0("tc qdisc add dev r0-eth2 root netem delay 1500ms");
    assert_eq!(lab.results(), SUBNET_CUT);
    let (out, status) = lab.on("h1", "ping -c1 192.168.2.100");
    assert_eq!(status, 0);
    assert!(out.contains("icmp_seq=1 ttl=63 time=1500 ms"), "{out}");
}

#[test]
fn b19_gateway_off_every_subnet_is_refused() {
    let mut lab = Lab::new(2);
    lab.r0("ip route del 192.168.1.0/24 dev r0-eth1");
    assert_eq!(
        lab.on("r0", "ip route add 192.168.1.0/24 via 10.255.255.254"),
        ("Error: Nexthop has invalid gateway.\n".into(), 2)
    );
    assert!(!lab.r0("ip route").contains("192.168.1.0/24"));
    assert_eq!(lab.results(), SUBNET_CUT);
}

/// Injects one variant's commands on r0 of N=2, M=1 and returns the live pairs.
fn symptom(lines: &[&str]) -> Vec<String> {
    let mut lab = Lab::new(2);
    for l in lines {
        lab.r0(l);
    }
    lab.live()
}

const R0_ONLY: [&str; 4] = ["h1>r0", "h2>r0", "r0>h1", "r0>h2"];
const SUBNET1_CUT: [&str; 2] = ["h2>r0", "r0>h2"];
const DT_S1: [&str; 4] = ["h1>h2", "h2>h1", "h2>r0", "r0>h2"];

#[test]
fn symptom_dr1_forwarding_off() {
    assert_eq!(symptom(&["sysctl -w net.ipv4.ip_forward=0"]), R0_ONLY);
}

#[test]
fn symptom_dr2_forward_policy_drop() {
    assert_eq!(symptom(&["iptables -P FORWARD DROP"]), R0_ONLY);
}

#[test]
fn symptom_dr3_prohibit_rule() {
    assert!(symptom(&["ip rule add prohibit pref 0"]).is_empty());
}

#[test]
fn symptom_dr4_forward_drop_from_subnet() {
    assert_eq!(symptom(&["iptables -A FORWARD -s 192.168.1.0/24 -j DROP"]), R0_ONLY);
}

#[test]
fn symptom_di1_ifconfig_down() {
    assert_eq!(symptom(&["ifconfig r0-eth1 down"]), SUBNET1_CUT);
}

#[test]
fn symptom_di2_link_down() {
    assert_eq!(symptom(&["ip link set r0-eth1 down"]), SUBNET1_CUT);
}

#[test]
fn symptom_di3_mtu_68() {
    assert_eq!(symptom(&["ip link set r0-eth1 mtu 68"]), SUBNET1_CUT);
}

#[test]
fn symptom_ri1_flush_makes_the_router_unreachable_at_its_target() {
    assert_eq!(symptom(&["ip addr flush dev r0-eth1"]), ["r0>h2"]);
}

#[test]
fn symptom_ri2_foreign_address() {
    assert_eq!(symptom(&["ip addr flush dev r0-eth1 && ip addr add 10.7.9.1/24 dev r0-eth1"]), ["r0>h2"]);
}

#[test]
fn symptom_ri3_narrow_prefix_misses_the_hosts() {
    for m in [30, 31, 32] {
        let live =
            symptom(&[&format!("ip addr flush dev r0-eth1 && ip addr add 192.168.1.1/{m} dev r0-eth1")]);
        assert_eq!(live, SUBNET1_CUT, "/{m}");
    }
    let live = symptom(&["ip addr flush dev r0-eth1 && ip addr add 192.168.1.1/8 dev r0-eth1"]);
    assert_eq!(live.len(), 6, "/8 still reaches the hosts (rejected by the generator)");
}

#[test]
fn symptom_ri4_duplicate_connected_route_listed_second() {
    let mut lab = Lab::new(2);
    lab.r0("ip addr flush dev r0-eth1 && ip addr add 192.168.2.1/24 dev r0-eth1");
    let routes = lab.r0("ip route");
    assert!(routes.contains("192.168.2.0/24 dev r0-eth2 proto kernel scope link src 192.168.2.1 \n192.168.2.0/24 dev r0-eth1 proto kernel"), "{routes}");
    assert_eq!(lab.live(), ["r0>h2"]);
}

#[test]
fn symptom_dt1_filters_cut_the_router_from_one_subnet() {
    assert_eq!(
        symptom(&[
            "iptables -A INPUT -s 192.168.1.0/24 -j DROP",
            "iptables -A OUTPUT -d 192.168.1.0/24 -j DROP"
        ]),
        DT_S1
    );
}

#[test]
fn symptom_dt2_reject() {
    assert_eq!(
        symptom(&[
            "iptables -A INPUT -s 192.168.1.0/24 -j REJECT",
            "iptables -A OUTPUT -d 192.168.1.0/24 -j REJECT"
        ]),
        DT_S1
    );
}

#[test]
fn symptom_dt3_icmp_only() {
    let lines = [
        "iptables -A INPUT -s 192.168.1.0/24 -p icmp -j DROP",
        "iptables -A OUTPUT -d 192.168.1.0/24 -p icmp -j DROP",
    ];
    assert_eq!(symptom(&lines), DT_S1);
}

#[test]
fn symptom_dt4_delay() {
    assert_eq!(symptom(&["tc qdisc add dev r0-eth1 root netem delay 2000ms"]), SUBNET1_CUT);
}

#[test]
fn symptom_wr1_wrong_segment() {
    assert_eq!(
        symptom(&["ip route del 192.168.1.0/24 dev r0-eth1", "ip route add 192.168.1.0/24 dev r0-eth2"]),
        SUBNET1_CUT
    );
}

#[test]
fn symptom_wr2_invalid_gateway() {
    assert_eq!(
        symptom(&[
            "ip route del 192.168.1.0/24 dev r0-eth1",
            "ip route add 192.168.1.0/24 via 10.255.255.254"
        ]),
        SUBNET1_CUT
    );
}

#[test]
fn symptom_wr3_wrong_segment_high_metric() {
    let lines =
        ["ip route del 192.168.1.0/24 dev r0-eth1", "ip route add 192.168.1.0/24 dev r0-eth2 metric 10000"];
    assert_eq!(symptom(&lines), SUBNET1_CUT);
}

#[test]
fn symptom_wr4_router_arps_for_itself() {
    let mut lab = Lab::new(2);
    lab.r0("ip route del 192.168.1.0/24 dev r0-eth1");
    lab.r0("ip route add 192.168.1.0/24 via 192.168.2.1");
    assert!(lab.r0("ip route").contains("192.168.1.0/24 via 192.168.2.1 dev r0-eth2 \n"));
    assert_eq!(lab.live(), SUBNET1_CUT);
}
