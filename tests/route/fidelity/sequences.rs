//! The steps the fidelity test runs: the required behaviours (B1–B19), every fault variant
//! with its fix, and seeded random sequences (a variant's injection, then 1–6 steps, 70% on
//! routers: right and wrong fixes, diagnostics, destructive edits and every write form).

use netpress::route::fault::{self, Family};
use netpress::route::topology::{Shape, Topology};
use netpress::seed::{Stream, Width};

/// One command line on one machine.
#[derive(Debug, Clone)]
pub struct Step {
    pub node: String,
    pub line: String,
    /// Compare matrices and router state after this step (not only its output).
    pub check_state: bool,
}

impl Step {
    pub fn on(node: &str, line: &str) -> Step {
        Step { node: node.into(), line: line.into(), check_state: true }
    }
}

/// A sequence to run on a fresh network.
pub struct Case {
    pub label: String,
    pub topo: Topology,
    pub steps: Vec<Step>,
    /// Leading steps the shrinker keeps (the injection).
    pub keep: usize,
    /// Also compare every router's neighbour table right after each matrix.
    pub neigh: bool,
}

/// `machine: command` lines (blank and `#` lines skipped).
pub fn parse_lines(text: &str) -> Vec<Step> {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .filter_map(|l| l.split_once(':').map(|(m, c)| Step::on(m.trim(), c.trim())))
        .collect()
}

fn small(n: usize) -> Topology {
    Topology { n, m: 1, r: 1, shape: Shape::Single }
}

fn case(label: &str, topo: Topology, lines: &[(&str, &str)]) -> Case {
    Case {
        label: label.into(),
        topo,
        steps: lines.iter().map(|(n, l)| Step::on(n, l)).collect(),
        keep: 0,
        neigh: false,
    }
}

/// B1–B19 (the Linux behaviours `src/route/behaviours.rs` names) (B18 only with netem).
pub fn behaviours(netem: bool) -> Vec<Case> {
    let t = small(2);
    let mut cases = vec![
        case("B1", t, &[("r0", "ip link set r0-eth1 down")]),
        case("B2a", t, &[("r0", "sysctl -w net.ipv4.ip_forward=0")]),
        case("B2b", t, &[("r0", "iptables -P FORWARD DROP")]),
        case("B3a", t, &[("r0", "ip addr flush dev r0-eth2 && ip addr add 192.168.2.1/8 dev r0-eth2")]),
        case("B3b", t, &[("r0", "ip addr flush dev r0-eth2 && ip addr add 192.168.2.1/16 dev r0-eth2")]),
        case(
            "B4",
            t,
            &[("r0", "ip route del 192.168.1.0/24 dev r0-eth1; ip route add 192.168.1.0/24 via 192.168.2.1")],
        ),
        case(
            "B5",
            t,
            &[
                (
                    "r0",
                    "ip link set r0-eth1 down; ip route add 192.168.1.0/24 dev r0-eth2; ip link set r0-eth1 up",
                ),
                ("r0", "ip route del 192.168.1.0/24 dev r0-eth2"),
            ],
        ),
        case(
            "B6",
            t,
            &[
                ("r0", "ip rule add prohibit pref 0; ip rule del pref 0"),
                ("r0", "ip rule del prohibit pref 0"),
                ("r0", "ip rule add lookup local pref 0"),
            ],
        ),
        case("B7", t, &[("r0", "ip rule add prohibit pref 0"), ("r0", "ip route get 192.168.2.100")]),
        case(
            "B8",
            t,
            &[("r0", "sysctl -w net.ipv4.ip_forward=0; sysctl -w net.ipv4.conf.r0-eth1.forwarding=1")],
        ),
        case(
            "B9",
            t,
            &[("r0", "sysctl -w net.ipv4.conf.r0-eth1.forwarding=0; sysctl -w net.ipv4.ip_forward=1")],
        ),
        case(
            "B10",
            t,
            &[
                ("r0", "ip route add 192.168.1.0/24 dev r0-eth2"),
                ("r0", "ip route replace 192.168.1.0/24 dev r0-eth2"),
            ],
        ),
        case(
            "B11",
            t,
            &[
                ("r0", "ip route add 10.9.0.0/16 via 192.168.1.100"),
                ("r0", "ip link set r0-eth1 down; ip link set r0-eth1 up"),
                ("r0", "ip route add 10.9.0.0/16 via 192.168.1.100"),
                ("r0", "ip addr flush dev r0-eth1 && ip addr add 192.168.1.1/24 brd + dev r0-eth1"),
            ],
        ),
        case(
            "B12",
            t,
            &[
                ("r0", "ip addr add 192.168.1.5/24 dev r0-eth1"),
                ("r0", "ip addr del 192.168.1.1/24 dev r0-eth1"),
            ],
        ),
        case(
            "B13",
            t,
            &[
                ("r0", "ip link set r0-eth2 mtu 68"),
                ("h1", "ping -c1 -W1 192.168.2.100"),
                ("r0", "ping -c1 -W1 192.168.2.100"),
                ("r0", "ping -c1 -W1 -s 20 192.168.2.100"),
            ],
        ),
        case(
            "B14",
            small(3),
            &[
                ("r0", "ip addr flush dev r0-eth1 && ip addr add 192.168.3.1/24 dev r0-eth1"),
                ("r0", "ip addr del 192.168.3.1/24 dev r0-eth1"),
            ],
        ),
        case(
            "B15",
            t,
            &[("r0", "ip route add 192.168.1.0/24 dev r0-eth2 metric 10000; ip route del 192.168.1.0/24")],
        ),
        case("B16", t, &[("r0", "route add -net 192.168.2.0 netmask 255.255.255.0 dev r0-eth1")]),
        case("B17", t, &[("h1", "ip route add 192.168.2.1/32 dev h1-eth0; ping -c1 -W1 192.168.2.1")]),
        case(
            "B19",
            t,
            &[
                ("r0", "ip route del 192.168.1.0/24 dev r0-eth1"),
                ("r0", "ip route add 192.168.1.0/24 via 10.255.255.254"),
            ],
        ),
    ];
    if netem {
        cases.push(case(
            "B18",
            t,
            &[("r0", "tc qdisc add dev r0-eth2 root netem delay 1500ms"), ("h1", "ping -c1 192.168.2.100")],
        ));
    }
    cases
}

/// Draws faults until one of variant `id` comes up.
fn fault_of(stream: &mut Stream, topo: &Topology, family: Family, variant: u8) -> fault::Fault {
    loop {
        let f = fault::draw(stream, topo, family);
        if f.variant == variant {
            return f;
        }
    }
}

/// Each variant's injection then its fix, on N=2 M=1 and on a two-router chain.
pub fn variants_with_fixes(netem: bool) -> Vec<Case> {
    let mut stream = Stream::new("route-fidelity-variants", Width::W32);
    let mut cases = Vec::new();
    for topo in [small(2), Topology { n: 3, m: 1, r: 2, shape: Shape::Chain }] {
        for family in Family::ALL {
            for variant in 1..=family.variants() {
                if family == Family::DT && variant == 4 && !netem {
                    continue;
                }
                let f = fault_of(&mut stream, &topo, family, variant);
                let r = f.router_name();
                let mut steps: Vec<Step> = f.commands.iter().map(|c| Step::on(&r, c)).collect();
                let keep = steps.len();
                steps.extend(f.fix.iter().map(|c| Step::on(&r, c)));
                cases.push(Case { label: format!("{} fix ({})", f.id, r), topo, steps, keep, neigh: false });
            }
        }
    }
    cases
}

/// Seeded random sequences: N ≤ 3, M ≤ 2, every fifth with two routers.
pub fn random(count: usize, seed: u64, netem: bool) -> Vec<Case> {
    (0..count)
        .map(|i| {
            let mut s = Stream::new(&format!("route-fidelity|{seed}|{i}"), Width::W32);
            let topo = if i % 5 == 4 {
                Topology { n: s.range(2, 3) as usize, m: s.range(1, 2) as usize, r: 2, shape: Shape::Chain }
            } else {
                Topology { n: s.range(2, 3) as usize, m: s.range(1, 2) as usize, r: 1, shape: Shape::Single }
            };
            let f = loop {
                let family = *s.choose(&Family::ALL);
                let f = fault::draw(&mut s, &topo, family);
                if netem || f.id != "DT4" {
                    break f;
                }
            };
            let r = f.router_name();
            let mut steps: Vec<Step> = f.commands.iter().map(|c| Step::on(&r, c)).collect();
            let keep = steps.len();
            for _ in 0..s.range(1, 6) {
                steps.push(random_step(&mut s, &topo, &f, netem));
            }
            Case { label: format!("sequence {seed}/{i} ({})", f.id), topo, steps, keep, neigh: false }
        })
        .collect()
}

/// One random step: a machine and a command from the catalogue.
pub fn random_step(s: &mut Stream, topo: &Topology, f: &fault::Fault, netem: bool) -> Step {
    let on_router = s.chance(7, 10);
    let machines = topo.machines();
    let target = machines[s.index(machines.len())].target;
    if !on_router {
        let (host, _) = topo.host(s.range(1, topo.n as u64) as usize, s.index(topo.m));
        let gw = format!("192.168.{}.1", s.range(1, topo.n as u64));
        let line = match s.below(8) {
            0 => format!("ping -c1 -W1 {target}"),
            1 => format!("traceroute -n -q 1 -N 1 -w 2 -m 8 {target}"),
            2 => "ip route".to_string(),
            3 => "ip route del default".to_string(),
            4 => format!("ip route replace default via {gw}"),
            5 => "ip addr; ip -br link".to_string(),
            6 => format!("ip route get {target}"),
            _ => format!("route -n; ping -c1 -W1 -I {host}-eth0 {target}"),
        };
        return Step::on(&host, &line);
    }
    let x = if topo.r > 1 { s.index(topo.r) } else { 0 };
    let r = format!("r{x}");
    let ports = topo.ports(x);
    let p = &ports[s.index(ports.len())];
    let (dev, addr) = (p.name.clone(), p.addr);
    let lan = Topology::lan(s.range(1, topo.n as u64) as usize);
    let other = &ports[s.index(ports.len())].name;
    let odd = format!("10.{}.{}.0/24", s.range(1, 254), s.range(1, 254));
    let lines: Vec<String> = vec![
        f.fix.join("; "),
        f.fix.join("; "),
        "ip addr".into(),
        "ip route; ip rule".into(),
        "ip -br addr; ip -br link".into(),
        "ip -o addr; ip -s link show lo".into(),
        "iptables -L -n -v --line-numbers".into(),
        "iptables -L; iptables-save".into(),
        "sysctl net.ipv4.ip_forward net.ipv4.conf.all.forwarding".into(),
        format!("ip route get {target}"),
        format!("ping -c1 -W1 {target}"),
        format!("traceroute -n -q 1 -N 1 -w 2 -m 8 {target}"),
        "route -n; netstat -rn".into(),
        "ifconfig -a".into(),
        "tc qdisc show".into(),
        "cat /proc/sys/net/ipv4/ip_forward".into(),
        format!("ip link set {dev} down"),
        format!("ip link set {dev} up"),
        format!("ip addr flush dev {dev}"),
        format!("ip addr add {addr} brd + dev {dev}"),
        format!("ip addr add {}/{} dev {dev}", addr.addr(), [8, 16, 30, 32][s.index(4)]),
        format!("ip addr del {addr} dev {dev}"),
        format!("ip link set {dev} mtu {}", [68, 576, 1400, 1500][s.index(4)]),
        format!("ip link set dev {dev} promisc on"),
        format!("iptables -A FORWARD -s {lan} -j DROP"),
        format!("iptables -I INPUT -d {lan} -p icmp -j REJECT"),
        format!("iptables -A OUTPUT ! -d {lan} -o {dev} -j ACCEPT"),
        "iptables -F; iptables -P FORWARD ACCEPT".into(),
        "iptables -P INPUT DROP".into(),
        "iptables -D FORWARD 1".into(),
        "iptables -Z FORWARD".into(),
        "ip rule add prohibit pref 0".into(),
        format!("ip rule add from {lan} blackhole pref 100"),
        format!("ip rule add to {lan} lookup main pref 200"),
        "ip rule del pref 0".into(),
        "ip rule flush".into(),
        format!("ip route add {lan} dev {other}"),
        format!("ip route replace {lan} dev {other}"),
        format!("ip route append {lan} dev {other} metric 5"),
        format!("ip route change {lan} dev {dev}"),
        format!("ip route add {odd} via {}", topo.host(1, 0).1.addr()),
        format!("ip route add blackhole {odd}"),
        format!("ip route add unreachable {odd} metric 7"),
        format!("ip route del {lan}"),
        format!("ip route flush dev {dev}"),
        format!("route add -net {} netmask 255.255.255.0 dev {other}", lan.addr()),
        format!("route del -net {} netmask 255.255.255.0", lan.addr()),
        format!("ifconfig {dev} down"),
        format!("ifconfig {dev} up"),
        format!("ifconfig {dev} {} netmask 255.255.255.0", addr.addr()),
        format!("ifconfig {dev} mtu 1400"),
        "sysctl -w net.ipv4.ip_forward=0".into(),
        "sysctl -w net.ipv4.ip_forward=1".into(),
        format!("sysctl -w net.ipv4.conf.{dev}.forwarding=0"),
        "echo 1 > /proc/sys/net/ipv4/ip_forward".into(),
        "sysctl -w net.ipv4.icmp_echo_ignore_all=1".into(),
    ];
    let mut line = lines[s.index(lines.len())].clone();
    if line.is_empty() || (!netem && line.starts_with("tc qdisc add")) {
        line = "ip route".into();
    }
    Step::on(&r, &line)
}
