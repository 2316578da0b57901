//! The machine shell's tests: joins, redirections into `/proc/sys`, the lab's refusals, and
//! random lines over the lab's own words.

use super::*;
use crate::route::topology::{Shape, Topology};

fn lab() -> Net {
    Topology { n: 2, m: 1, r: 1, shape: Shape::Single }.build()
}

fn sh(net: &mut Net, line: &str) -> (String, i32) {
    let o = run(net, 0, line);
    (o.output, o.status)
}

#[test]
fn joins_follow_status() {
    let mut net = lab();
    assert_eq!(sh(&mut net, "false && echo a || echo b; echo c"), ("b\nc\n".into(), 0));
    assert_eq!(sh(&mut net, "! true"), (String::new(), 1));
    assert_eq!(sh(&mut net, "sudo -E echo hi | wc -l"), ("1\n".into(), 0));
}

#[test]
fn redirections_route_streams() {
    let mut net = lab();
    assert_eq!(sh(&mut net, "echo x > /dev/null"), (String::new(), 0));
    assert_eq!(sh(&mut net, "echo x > /tmp/f"), ("bash: /tmp/f: Read-only file system\n".into(), 1));
    assert_eq!(sh(&mut net, "nosuch 2>/dev/null"), (String::new(), 127));
    assert_eq!(sh(&mut net, "nosuch 2>&1 | wc -l"), ("1\n".into(), 0));
    assert_eq!(
        sh(&mut net, "echo 0 > /proc/sys/net/ipv4/ip_forward; cat /proc/sys/net/ipv4/ip_forward").0,
        "0\n"
    );
    assert_eq!(net.nodes[0].ifaces[1].forwarding, 0);
    assert_eq!(
        sh(&mut net, "echo 1 > /proc/sys/net/ipv4/ip_forwar"),
        ("bash: /proc/sys/net/ipv4/ip_forwar: No such file or directory\n".into(), 1)
    );
    assert_eq!(
        sh(&mut net, "echo abc > /proc/sys/net/ipv4/ip_forward"),
        ("bash: echo: write error: Invalid argument\n".into(), 1)
    );
}

#[test]
fn errors_are_one_line() {
    let mut net = lab();
    assert_eq!(sh(&mut net, "echo $PATH").0, "bash: $: not supported in this lab\n");
    assert_eq!(sh(&mut net, "; ls").0, "bash: syntax error near unexpected token `;'\n");
    assert_eq!(sh(&mut net, "vim x"), ("bash: vim: not available in this lab\n".into(), 126));
    assert_eq!(sh(&mut net, "foo"), ("bash: foo: command not found\n".into(), 127));
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod proptests {
    use super::*;
    use crate::route::topology::{Shape, Topology};
    use proptest::prelude::*;

    /// Words the lab knows, so random lines reach deep into the commands.
    const WORDS: &[&str] = &[
        "ip",
        "addr",
        "a",
        "add",
        "del",
        "flush",
        "dev",
        "r0-eth1",
        "r0-eth2",
        "route",
        "r",
        "rule",
        "link",
        "set",
        "up",
        "down",
        "mtu",
        "68",
        "neigh",
        "show",
        "get",
        "via",
        "metric",
        "table",
        "local",
        "all",
        "pref",
        "0",
        "prohibit",
        "192.168.1.0/24",
        "192.168.2.1",
        "10.0.0.0/8",
        "default",
        "ifconfig",
        "netmask",
        "255.255.0.0",
        "iptables",
        "-A",
        "-I",
        "-D",
        "-P",
        "-L",
        "-S",
        "-F",
        "-Z",
        "-nvx",
        "INPUT",
        "FORWARD",
        "OUTPUT",
        "-s",
        "-d",
        "-p",
        "icmp",
        "-j",
        "DROP",
        "REJECT",
        "ACCEPT",
        "!",
        "sysctl",
        "-w",
        "net.ipv4.ip_forward=0",
        "-a",
        "tc",
        "qdisc",
        "root",
        "netem",
        "delay",
        "100ms",
        "loss",
        "60%",
        "ping",
        "-c",
        "2",
        "-W",
        "1",
        "-I",
        "192.168.2.100",
        "traceroute",
        "-n",
        "-m",
        "3",
        "route",
        "-net",
        "gw",
        "netstat",
        "-rn",
        "arp",
        "grep",
        "-v",
        "head",
        "wc",
        "-l",
        "echo",
        "cat",
        "/proc/sys/net/ipv4/ip_forward",
        "|",
        ";",
        "&&",
        "||",
        ">",
        "2>&1",
        "/dev/null",
        "'",
        "\"",
        "sudo",
    ];

    fn line() -> impl Strategy<Value = String> {
        prop::collection::vec(prop::sample::select(WORDS), 0..24).prop_map(|w| w.join(" "))
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 600, ..ProptestConfig::default() })]

        #[test]
        fn word_salad_never_panics(lines in prop::collection::vec(line(), 1..4)) {
            let mut net = Topology { n: 2, m: 1, r: 1, shape: Shape::Single }.build();
            for l in &lines {
                let out = run(&mut net, 0, l);
                prop_assert!(out.output.len() <= MAX_OUTPUT + crate::shell::TRUNCATED.len() + 1);
            }
            let m = crate::route::engine::matrix::compute(&mut net, &Topology { n: 2, m: 1, r: 1, shape: Shape::Single }.machines());
            prop_assert_eq!(m.n, 3);
        }

        #[test]
        fn arbitrary_text_never_panics(text in "\\PC{0,300}") {
            let mut net = Topology { n: 2, m: 1, r: 1, shape: Shape::Single }.build();
            let _ = run(&mut net, 1, &text);
        }

    }
}

/// The lab's limits and their words: 4096 bytes a line, 32 commands, 64 KiB of output cut
/// with the shell's marker.
#[test]
fn limits_are_the_labs() {
    let mut net = lab();
    let long = format!("echo {}", "x".repeat(5000));
    assert_eq!(sh(&mut net, &long), ("netpress: command line longer than 4096 bytes\n".into(), 2));
    assert_eq!(
        sh(&mut net, &"true;".repeat(33)),
        ("netpress: more than 32 commands on one line\n".into(), 2)
    );
    let pipes = format!("true{}", " | true".repeat(8));
    assert_eq!(sh(&mut net, &pipes), ("netpress: more than 8 commands in one pipeline\n".into(), 2));
    for i in 0..1000u32 {
        let add = format!("ip route add 10.{}.{}.0/24 dev r0-eth1", i / 256, i % 256);
        assert_eq!(sh(&mut net, &add).1, 0, "{add}");
    }
    let out = sh(&mut net, "ip route; ip route; ip route").0;
    assert!(out.len() <= MAX_OUTPUT + crate::shell::TRUNCATED.len() + 1, "{}", out.len());
    assert!(out.ends_with(crate::shell::TRUNCATED));
}

#[test]
fn refusals_are_recorded_even_when_hidden() {
    let mut net = lab();
    let o = run(&mut net, 0, "vim x 2>/dev/null; echo not supported in this lab; ip -6 addr");
    assert_eq!(
        o.refused,
        ["bash: vim: not available in this lab", "netpress: ip -6 (IPv6): not supported in this lab"]
    );
    assert_eq!(run(&mut net, 0, "echo $PATH").refused, ["bash: $: not supported in this lab"]);
    assert!(run(&mut net, 0, "nosuch; echo x > /tmp/f").refused.is_empty());
    let o = run(&mut net, 0, "echo 1 > /proc/sys/net/ipv4/conf/all/rp_filter_x 2>/dev/null");
    assert!(o.refused.is_empty(), "an unknown key is bash's error, not a refusal");
}
