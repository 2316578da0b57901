//! The deterministic baseline troubleshooter (docs/route.md, "Baseline"). It reads only the conversation:
//! the machines from the prompt, then each router's one-shot dump. From the dumps it infers
//! the intended plan (the lab's addressing convention: subnet s is 192.168.s.0/24 behind
//! router ⌊(s−1)R/N⌋, transit links 10.0.t.0/30), and sends one `;`-joined fix line per
//! router that differs from it. Routers still implicated are dumped and fixed again.

use std::net::Ipv4Addr;

use ipnet::Ipv4Net;

use crate::conversation::{Agent, AgentError, AgentInfo, AgentReply, Message, Role};

use super::net::addr::parse_iproute_prefix;
use super::topology::{Shape, Topology};

/// The dump a router gets; markers keep the sections apart.
pub const DUMP: &str = "echo @link; ip link; echo @addr; ip -br addr; echo @route; ip route; echo @rule; ip rule; \
echo @sysctl; sysctl net.ipv4.ip_forward; echo @iptables; iptables -S; echo @tc; tc qdisc show";

/// The baseline agent.
#[derive(Debug, Default)]
pub struct Baseline;

impl Agent for Baseline {
    fn info(&self) -> AgentInfo {
        AgentInfo::new("baseline", "route-baseline")
    }

    fn reply(&mut self, messages: &[Message]) -> Result<AgentReply, AgentError> {
        let t = Transcript::read(messages);
        let (machine, command) = decide(&t);
        let text = serde_json::json!({ "machine": machine, "command": command }).to_string();
        Ok(AgentReply { text, latency_ms: None, tokens: None })
    }
}

/// One observed step.
#[derive(Debug, Clone)]
struct Seen {
    machine: String,
    command: String,
    output: String,
}

/// What the conversation says.
#[derive(Debug, Default)]
struct Transcript {
    hosts: usize,
    routers: Vec<String>,
    steps: Vec<Seen>,
}

impl Transcript {
    fn read(messages: &[Message]) -> Self {
        let mut t = Transcript::default();
        if let Some(first) = messages.first()
            && let Some(line) = first.content.lines().find(|l| l.starts_with("Machines: "))
        {
            for word in line.split([' ', ',']).map(|w| w.trim_end_matches('.')) {
                let (a, b) = word.split_once("..").unwrap_or((word, word));
                let number = |w: &str, p: char| w.strip_prefix(p).and_then(|n| n.parse::<usize>().ok());
                if let (Some(a), Some(b)) = (number(a, 'h'), number(b, 'h')) {
                    t.hosts += b + 1 - a.min(b + 1);
                } else if let (Some(a), Some(b)) = (number(a, 'r'), number(b, 'r')) {
                    t.routers.extend((a..=b).map(|x| format!("r{x}")));
                }
            }
        }
        for m in messages.iter().skip(1).filter(|m| m.role == Role::User) {
            if let Some(seen) = parse_observation(&m.content) {
                t.steps.push(seen);
            }
        }
        t
    }
}

fn parse_observation(text: &str) -> Option<Seen> {
    let text = text.strip_prefix("Note: only the first action was executed.\n").unwrap_or(text);
    let rest = text.strip_prefix("Machine: ")?;
    let (machine, rest) = rest.split_once("\nCommand: ")?;
    let (command, rest) = rest.split_once("\nCommand output:\n")?;
    let output = rest.rsplit_once("\nPingall result:\n").map_or(rest, |(o, _)| o);
    Some(Seen { machine: machine.into(), command: command.into(), output: output.into() })
}

/// A router as its dump shows it.
#[derive(Debug, Default, Clone)]
struct Dump {
    /// (name, up, mtu) of every interface but lo, in order.
    links: Vec<(String, bool, u32)>,
    /// Addresses per interface name.
    addrs: Vec<(String, Vec<Ipv4Net>)>,
    /// Main-table routes: (dst, via, dev, metric, kind, text to delete it).
    routes: Vec<RouteLine>,
    rules: Vec<String>,
    forward: Option<String>,
    iptables: Vec<String>,
    netem: Vec<String>,
}

#[derive(Debug, Clone)]
struct RouteLine {
    dst: Ipv4Net,
    via: Option<Ipv4Addr>,
    dev: Option<String>,
    metric: u32,
    unicast: bool,
    spec: String,
}

fn sections(output: &str) -> Vec<(&str, Vec<&str>)> {
    let mut out: Vec<(&str, Vec<&str>)> = Vec::new();
    for line in output.lines() {
        match line.strip_prefix('@') {
            Some(name) if !name.contains(' ') => out.push((name, Vec::new())),
            _ => {
                if let Some(last) = out.last_mut() {
                    last.1.push(line);
                }
            }
        }
    }
    out
}

fn parse_dump(output: &str) -> Dump {
    let mut d = Dump::default();
    for (name, lines) in sections(output) {
        match name {
            "link" => d.links = lines.iter().filter_map(|l| parse_link(l)).collect(),
            "addr" => {
                d.addrs = lines
                    .iter()
                    .filter_map(|l| {
                        let mut w = l.split_whitespace();
                        let name = w.next()?.split('@').next()?.to_string();
                        let _state = w.next()?;
                        Some((name, w.filter_map(|a| a.parse().ok()).collect()))
                    })
                    .collect();
            }
            "route" => d.routes = lines.iter().filter_map(|l| parse_route(l)).collect(),
            "rule" => d.rules = lines.iter().map(|l| l.to_string()).collect(),
            "sysctl" => {
                d.forward =
                    lines.iter().find_map(|l| l.strip_prefix("net.ipv4.ip_forward = ")).map(String::from)
            }
            "iptables" => d.iptables = lines.iter().map(|l| l.to_string()).collect(),
            "tc" => {
                d.netem = lines
                    .iter()
                    .filter(|l| l.starts_with("qdisc netem"))
                    .filter_map(|l| l.split(" dev ").nth(1)?.split_whitespace().next().map(String::from))
                    .collect();
            }
            _ => {}
        }
    }
    d
}

fn parse_link(line: &str) -> Option<(String, bool, u32)> {
    let (index, rest) = line.split_once(": ")?;
    index.parse::<u32>().ok()?;
    let (name, rest) = rest.split_once(": ")?;
    let name = name.split('@').next()?.to_string();
    if name == "lo" {
        return None;
    }
    let flags = rest.split('>').next()?;
    let up = flags.split(',').any(|f| f.trim_start_matches('<') == "UP");
    let mtu = rest.split(" mtu ").nth(1)?.split_whitespace().next()?.parse().ok()?;
    Some((name, up, mtu))
}

fn parse_route(line: &str) -> Option<RouteLine> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let (unicast, at) = match words.first()? {
        &("blackhole" | "prohibit" | "unreachable") => (false, 1),
        _ => (true, 0),
    };
    let dst_text = *words.get(at)?;
    let dst = parse_iproute_prefix(dst_text)?;
    let after = |key: &str| words.iter().position(|w| *w == key).and_then(|i| words.get(i + 1)).copied();
    let via = after("via").and_then(|v| v.parse().ok());
    let dev = after("dev").map(String::from);
    let metric = after("metric").and_then(|m| m.parse().ok()).unwrap_or(0);
    let mut spec = if unicast { dst_text.to_string() } else { format!("{} {dst_text}", words[0]) };
    if let Some(g) = via {
        spec.push_str(&format!(" via {g}"));
    }
    if let Some(d) = &dev {
        spec.push_str(&format!(" dev {d}"));
    }
    spec.push_str(&format!(" metric {metric}"));
    Some(RouteLine { dst: dst.trunc(), via, dev, metric, unicast, spec })
}

/// The intended topology the dumps imply, when they are consistent.
fn plan(hosts: usize, dumps: &[Dump]) -> Option<Topology> {
    let r = dumps.len();
    let counts: Vec<usize> = dumps.iter().map(|d| d.links.len()).collect();
    let n = counts.iter().sum::<usize>().checked_sub(2 * (r - 1))?;
    if n == 0 || !hosts.is_multiple_of(n) {
        return None;
    }
    let shapes: &[Shape] = match r {
        1 => &[Shape::Single],
        2 => &[Shape::Chain],
        _ => &[Shape::Chain, Shape::Star],
    };
    shapes.iter().map(|&shape| Topology { n, m: hosts / n, r, shape }).find(|t| {
        (0..r).all(|x| {
            let ports = t.ports(x);
            ports.len() == counts[x] && ports.iter().zip(&dumps[x].links).all(|(p, l)| p.name == l.0)
        })
    })
}

/// The fix line for router `x`, empty when its dump matches the plan.
fn fixes(topo: &Topology, x: usize, d: &Dump) -> Vec<String> {
    let ports = topo.ports(x);
    let mut intended: Vec<(Ipv4Net, Option<Ipv4Addr>, String)> =
        ports.iter().map(|p| (p.addr.trunc(), None, p.name.clone())).collect();
    for (prefix, gw) in topo.static_routes(x) {
        let dev =
            ports.iter().find(|p| p.addr.trunc().contains(&gw)).map(|p| p.name.clone()).unwrap_or_default();
        intended.push((prefix, Some(gw), dev));
    }
    let mut out = Vec::new();
    let mut repair_routes = Vec::new();
    for (prefix, via, dev) in &intended {
        let here: Vec<&RouteLine> = d.routes.iter().filter(|r| r.dst == *prefix).collect();
        let good =
            |r: &RouteLine| r.unicast && r.via == *via && r.dev.as_deref() == Some(dev) && r.metric == 0;
        let wrong: Vec<&&RouteLine> = here.iter().filter(|r| !good(r)).collect();
        for r in &wrong {
            out.push(format!("ip route del {}", r.spec));
        }
        if !wrong.is_empty() || here.is_empty() {
            repair_routes.push((prefix, via, dev));
        }
    }
    if d.forward.as_deref() != Some("1") {
        out.push("sysctl -w net.ipv4.ip_forward=1".into());
    }
    for line in &d.iptables {
        if let Some(chain) = line.strip_prefix("-P ").and_then(|r| r.strip_suffix(" DROP")) {
            out.push(format!("iptables -P {chain} ACCEPT"));
        } else if line.starts_with("-A ") && (line.contains("-j DROP") || line.contains("-j REJECT")) {
            out.push(format!("iptables -D {}", &line[3..]));
        }
    }
    let defaults =
        ["0:\tfrom all lookup local", "32766:\tfrom all lookup main", "32767:\tfrom all lookup default"];
    for rule in &d.rules {
        if !defaults.contains(&rule.as_str())
            && let Some((pref, body)) = rule.split_once(":\t")
        {
            out.push(format!("ip rule del pref {pref} {}", body.replace("from all ", "")));
        }
    }
    for (rule, add) in
        defaults.iter().zip(["lookup local pref 0", "lookup main pref 32766", "lookup default pref 32767"])
    {
        if !d.rules.iter().any(|r| r == rule) {
            out.push(format!("ip rule add {add}"));
        }
    }
    for dev in &d.netem {
        out.push(format!("tc qdisc del dev {dev} root"));
    }
    for (p, (name, up, mtu)) in ports.iter().zip(&d.links) {
        debug_assert_eq!(&p.name, name);
        if !up {
            out.push(format!("ip link set {name} up"));
        }
        if *mtu != 1500 {
            out.push(format!("ip link set {name} mtu 1500"));
        }
        let have = d.addrs.iter().find(|(n, _)| n == name).map(|(_, a)| a.as_slice()).unwrap_or(&[]);
        if have != [p.addr] {
            let add = format!("ip addr add {} brd + dev {name}", p.addr);
            out.push(if have.is_empty() { add } else { format!("ip addr flush dev {name} && {add}") });
        }
        if !up || have != [p.addr] {
            for (prefix, via, dev) in &intended {
                if via.is_some() && dev == name && !repair_routes.iter().any(|(q, ..)| *q == prefix) {
                    repair_routes.push((prefix, via, dev));
                }
            }
        }
    }
    if out.is_empty() && repair_routes.is_empty() {
        return out;
    }
    for (prefix, via, dev) in repair_routes {
        out.push(match via {
            Some(g) => format!("ip route replace {prefix} via {g}"),
            None => format!("ip route add {prefix} dev {dev}"),
        });
    }
    out
}

/// The next action: dump routers not yet seen (or seen before a fix), fix those that differ.
fn decide(t: &Transcript) -> (String, String) {
    let routers = if t.routers.is_empty() { vec!["r0".to_string()] } else { t.routers.clone() };
    let last_dump = |r: &str| t.steps.iter().rposition(|s| s.machine == r && s.command == DUMP);
    let last_fix = |r: &str| t.steps.iter().rposition(|s| s.machine == r && s.command != DUMP);
    for r in &routers {
        let fresh = match (last_dump(r), last_fix(r)) {
            (None, _) => false,
            (Some(d), Some(f)) => d > f,
            (Some(_), None) => true,
        };
        if !fresh {
            return (r.clone(), DUMP.into());
        }
    }
    let dumps: Vec<Dump> =
        routers.iter().map(|r| parse_dump(&t.steps[last_dump(r).expect("all dumped")].output)).collect();
    let Some(topo) = plan(t.hosts, &dumps) else { return (routers[0].clone(), DUMP.into()) };
    for (x, r) in routers.iter().enumerate() {
        let fix = fixes(&topo, x, &dumps[x]);
        if !fix.is_empty() {
            return (r.clone(), fix.join("; "));
        }
    }
    (routers[0].clone(), DUMP.into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::route::net::Net;
    use crate::route::shell;

    fn dump_of(net: &mut Net, node: usize) -> Dump {
        parse_dump(&shell::run(net, node, DUMP).output)
    }

    #[test]
    fn healthy_dumps_need_no_fix_and_imply_the_plan() {
        for topo in [
            Topology { n: 3, m: 2, r: 1, shape: Shape::Single },
            Topology { n: 5, m: 1, r: 3, shape: Shape::Star },
            Topology { n: 6, m: 2, r: 4, shape: Shape::Chain },
        ] {
            let mut net = topo.build();
            let dumps: Vec<Dump> = (0..topo.r).map(|x| dump_of(&mut net, x)).collect();
            assert_eq!(plan(topo.hosts(), &dumps), Some(topo));
            for (x, d) in dumps.iter().enumerate() {
                assert!(fixes(&topo, x, d).is_empty(), "{topo:?} r{x}: {:?}", fixes(&topo, x, d));
            }
        }
    }

    #[test]
    fn a_broken_router_gets_a_fix_line() {
        let topo = Topology { n: 2, m: 1, r: 1, shape: Shape::Single };
        let mut net = topo.build();
        shell::run(
            &mut net,
            0,
            "ip link set r0-eth2 down; iptables -P FORWARD DROP; ip rule add prohibit pref 0",
        );
        let fix = fixes(&topo, 0, &dump_of(&mut net, 0));
        assert!(fix.contains(&"ip link set r0-eth2 up".to_string()), "{fix:?}");
        assert!(fix.contains(&"iptables -P FORWARD ACCEPT".to_string()), "{fix:?}");
        assert!(fix.contains(&"ip rule del pref 0 prohibit".to_string()), "{fix:?}");
    }
}
