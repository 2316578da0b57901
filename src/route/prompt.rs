//! The prompt an agent receives (prompt version 1, our own words; docs/route.md, "What the agent has"), the
//! observation format it reads after every step, and the few-shot examples, which are
//! rendered by running the emulator on five fixed faults.

use std::sync::OnceLock;

use crate::app::PromptVariant;

use super::engine::matrix::{self, Machine};
use super::net::Net;
use super::shell;
use super::text::truncate_note;
use super::topology::{Shape, Topology};

/// Longest observation an agent receives (docs/route.md, "What the agent has").
pub const MAX_OBSERVATION: usize = 16_000;

/// The machines in short form: `h1..h4, r0` or `h1..h24, r0..r3`.
pub fn machines_summary(machines: &[Machine]) -> String {
    let hosts = machines.iter().filter(|m| m.name.starts_with('h')).count();
    let routers = machines.len() - hosts;
    [range_text("h", 1, hosts), range_text("r", 0, routers)]
        .into_iter()
        .filter(|s| !s.is_empty())
        .collect::<Vec<_>>()
        .join(", ")
}

/// `h1..h4`, `r0` or nothing.
fn range_text(prefix: &str, first: usize, n: usize) -> String {
    match n {
        0 => String::new(),
        1 => format!("{prefix}{first}"),
        _ => format!("{prefix}{first}..{prefix}{}", first + n - 1),
    }
}

/// The task text without examples: role, machines, goal, rules, then the matrix.
pub fn render(machines: &[Machine], max_turns: u32, matrix_text: &str, variant: PromptVariant) -> String {
    let hosts = machines.iter().filter(|m| m.name.starts_with('h')).count();
    let routers = machines.len() - hosts;
    let (host_list, router_list) = (range_text("h", 1, hosts), range_text("r", 0, routers));
    let router_word = if routers == 1 { "router" } else { "routers" };
    // The matrix is most of a large prompt: room for it up front saves copying it as it grows.
    let mut p = String::with_capacity(4096 + matrix_text.len());
    p.push_str(
        "You are a network engineer repairing a small IPv4 network of Linux machines. Faults were injected \
into the configuration of its router(s), so some machines can no longer ping each other.\n\n",
    );
    p.push_str(&format!(
        "Machines: hosts {host_list} and {router_word} {router_list}. Every host sits on a subnet behind a router.\n\n"
    ));
    p.push_str(
        "Goal: restore full connectivity, so that every machine can ping every other machine with no lost \
ping. Diagnose before you change anything, fix every fault, and do not break pings that work now.\n\n",
    );
    p.push_str(&format!(
        "Rules:\n\
- Each turn, reply with exactly one command line to run on one machine, as JSON: \
{{\"machine\": \"{}\", \"command\": \"ip route\"}}\n\
- You are root. Available: ip (address, route, rule, link, neigh), ifconfig, route, netstat -rn, arp, \
sysctl, iptables, iptables-save, tc, ping, traceroute; a line may join commands with ;, && and || and pipe \
them into grep, head, tail, wc or cat. There are no editors, services or package managers.\n\
- After each command you see its output and the ping matrix again.\n\
- You have at most {max_turns} turns; the task ends as soon as every ping succeeds.\n\n",
        "r0"
    ));
    if variant.few_shot() {
        p.push_str(&examples());
    }
    if variant.chain_of_thought() {
        p.push_str(
            "Think step by step: before your JSON action, explain briefly what you suspect and why the \
command you choose tests or fixes it.\n\n",
        );
    }
    p.push_str("Pingall result:\n");
    p.push_str(matrix_text);
    p
}

/// What the agent sees after a step.
pub fn observation(machine: &str, command: &str, output: &str, matrix_text: &str) -> String {
    let output = output.trim_end_matches('\n');
    let head = format!("Machine: {machine}\nCommand: {command}\nCommand output:\n");
    let tail = format!("\nPingall result:\n{matrix_text}");
    let room = MAX_OBSERVATION.saturating_sub(head.len() + tail.len() + 40);
    let body = if output.is_empty() { "(no output)".to_string() } else { truncate_note(output, room) };
    format!("{head}{body}{tail}")
}

/// The five worked examples (DR1, DI2, DT1, WR1, RI1) on one router with two hosts, each a
/// diagnosis and a fix, with the emulator's real outputs.
pub fn examples() -> String {
    static TEXT: OnceLock<String> = OnceLock::new();
    TEXT.get_or_init(|| {
        let cases: [(&str, &str, [&str; 2]); 5] = [
            ("sysctl -w net.ipv4.ip_forward=0", "the router does not forward", [
                "sysctl net.ipv4.ip_forward",
                "sysctl -w net.ipv4.ip_forward=1",
            ]),
            ("ip link set r0-eth2 down", "an interface is down", ["ip -br link", "ip link set r0-eth2 up"]),
            (
                "iptables -A INPUT -s 192.168.1.0/24 -j DROP; iptables -A OUTPUT -d 192.168.1.0/24 -j DROP",
                "only pings between the router and one subnet fail: a filter",
                [
                    "iptables -S",
                    "iptables -D INPUT -s 192.168.1.0/24 -j DROP; iptables -D OUTPUT -d 192.168.1.0/24 -j DROP",
                ],
            ),
            (
                "ip route del 192.168.2.0/24 dev r0-eth2; ip route add 192.168.2.0/24 dev r0-eth1",
                "a route points a subnet at the wrong interface",
                ["ip route", "ip route replace 192.168.2.0/24 dev r0-eth2"],
            ),
            ("ip addr flush dev r0-eth1", "an interface lost its address", [
                "ip -br addr",
                "ip addr add 192.168.1.1/24 brd + dev r0-eth1",
            ]),
        ];
        let mut out = String::from(
            "Examples, each on a network of router r0 with hosts h1 (192.168.1.0/24) and h2 (192.168.2.0/24):\n\n",
        );
        for (i, (fault, hint, steps)) in cases.iter().enumerate() {
            out.push_str(&example(i + 1, fault, hint, steps));
        }
        out
    })
    .clone()
}

fn example(number: usize, fault: &str, hint: &str, steps: &[&str; 2]) -> String {
    let topo = Topology { n: 2, m: 1, r: 1, shape: Shape::Single };
    let machines = topo.machines();
    let mut net: Net = topo.build();
    shell::run(&mut net, 0, fault);
    let start = matrix::compute(&mut net, &machines).render(&machines);
    let mut s = format!("Example {number} ({hint}).\nPingall result:\n{start}\n");
    for command in steps {
        let out = shell::run(&mut net, 0, command);
        let m = matrix::compute(&mut net, &machines).render(&machines);
        let reply = serde_json::json!({ "machine": "r0", "command": command });
        s.push_str(&format!("Reply: {reply}\n{}\n", observation("r0", command, &out.output, &m)));
    }
    s.push('\n');
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_uses_ranges() {
        let t = Topology { n: 2, m: 2, r: 1, shape: Shape::Single };
        assert_eq!(machines_summary(&t.machines()), "h1..h4, r0");
        let t = Topology { n: 4, m: 1, r: 3, shape: Shape::Chain };
        assert_eq!(machines_summary(&t.machines()), "h1..h4, r0..r2");
    }

    #[test]
    fn observation_layout_and_truncation() {
        let o = observation("r0", "ip route", "", "M");
        assert_eq!(o, "Machine: r0\nCommand: ip route\nCommand output:\n(no output)\nPingall result:\nM");
        let big = "x".repeat(40_000);
        let o = observation("r0", "cat", &big, "M");
        assert!(
            o.len() <= MAX_OBSERVATION
                && o.contains("characters truncated]")
                && o.ends_with("Pingall result:\nM")
        );
    }

    #[test]
    fn examples_end_healed() {
        let text = examples();
        assert_eq!(text.matches("Example ").count(), 5);
        assert_eq!(text.matches("*** Results: 0% dropped (6/6 received)").count(), 5, "{text}");
    }
}
