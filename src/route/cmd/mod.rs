//! The lab's commands: iproute2, net-tools, sysctl, iptables, tc, ping, traceroute and the
//! machine's own `hostname` and `ls`, each printing what its Linux counterpart prints; the
//! shell registers them next to its text tools (docs/shell.md).

mod arp;
mod builtins;
mod ifconfig;
mod ip;
mod iptables;
mod netstat;
mod nettools;
mod ping;
mod sysctl;
mod tc;
mod traceroute;

use super::net::{Net, NodeId};

/// Where commands write: the shell's writer, which holds the output limit as they write.
pub(crate) use crate::shell::Io;

/// What a command runs against.
pub struct Ctx<'a> {
    pub net: &'a mut Net,
    pub node: NodeId,
}

impl Ctx<'_> {
    pub fn node(&self) -> &super::net::Node {
        &self.net.nodes[self.node]
    }

    pub fn node_mut(&mut self) -> &mut super::net::Node {
        self.net.node_mut(self.node)
    }
}

type Handler = fn(&mut Ctx<'_>, &[String], &mut Io) -> i32;

/// Commands that exist on a Linux machine but not in the lab (exit 126).
const REFUSED: &[&str] = &[
    "systemctl",
    "service",
    "vtysh",
    "zebra",
    "dhclient",
    "ethtool",
    "tcpdump",
    "tshark",
    "top",
    "htop",
    "watch",
    "less",
    "more",
    "vi",
    "vim",
    "nano",
    "ssh",
    "telnet",
    "nc",
    "curl",
    "wget",
    "mtr",
    "nmap",
    "nft",
    "ip6tables",
    "brctl",
    "modprobe",
    "insmod",
    "rmmod",
    "kill",
    "pkill",
    "killall",
    "reboot",
    "shutdown",
    "nohup",
    "apt",
    "apt-get",
    "pip",
    "perl",
    "sh",
    "bash",
    "sed",
    "awk",
    "tee",
    "rm",
    "cp",
    "mv",
    "touch",
];

/// Name prefixes refused the same way (`frr*`, `bird*`, `iperf*`, `ovs-*`, `python*`).
const REFUSED_PREFIXES: &[&str] = &["frr", "bird", "iperf", "ovs-", "python"];

fn handler(name: &str) -> Option<Handler> {
    Some(match name {
        "ip" => ip::run,
        "ifconfig" => ifconfig::run,
        "route" => nettools::run,
        "netstat" => netstat::run,
        "arp" => arp::run,
        "sysctl" => sysctl::run,
        "iptables" => iptables::run,
        "iptables-save" => iptables::save,
        "tc" => tc::run,
        "ping" => ping::run,
        "traceroute" => traceroute::run,
        _ => return builtins::handler(name),
    })
}

/// Runs the command `name` if the lab has it (a refused one exits 126); `None` leaves it to
/// the shell's tools.
pub(crate) fn run(ctx: &mut Ctx<'_>, name: &str, args: &[String], io: &mut Io) -> Option<i32> {
    if let Some(h) = handler(name) {
        return Some(h(ctx, args, io));
    }
    if REFUSED.contains(&name) || REFUSED_PREFIXES.iter().any(|p| name.starts_with(p)) {
        return Some(io.refuse(126, &format!("bash: {name}: not available in this lab")));
    }
    None
}

/// The lab's refusal of a real but unmodelled form (exit 2).
pub(crate) fn unsupported(io: &mut Io, words: &str) -> i32 {
    io.refuse(2, &format!("netpress: {words}: not supported in this lab"))
}
