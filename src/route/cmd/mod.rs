//! The lab's commands: iproute2, net-tools, sysctl, iptables, tc, ping, traceroute and a few
//! shell utilities, each printing what its Linux counterpart prints (route.md §8).

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

/// A command's output stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stream {
    Out = 0,
    Err = 1,
}

/// Output a command may print (route.md §7).
pub const MAX_OUTPUT: usize = 64 * 1024;

/// What a command printed, in order, stream by stream.
#[derive(Debug, Default)]
pub struct Io {
    chunks: Vec<(Stream, String)>,
    bytes: usize,
    /// The lab's refusals printed so far, kept as data for the score card.
    refused: Vec<String>,
}

impl Io {
    fn write(&mut self, stream: Stream, text: &str) {
        let room = MAX_OUTPUT.saturating_sub(self.bytes);
        if room == 0 || text.is_empty() {
            return;
        }
        let mut end = text.len().min(room);
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        self.bytes += end;
        match self.chunks.last_mut() {
            Some((s, buf)) if *s == stream => buf.push_str(&text[..end]),
            _ => self.chunks.push((stream, text[..end].to_string())),
        }
    }

    /// Writes to standard output.
    pub fn out(&mut self, text: &str) {
        self.write(Stream::Out, text);
    }

    /// Writes a line to standard output.
    pub fn outln(&mut self, text: &str) {
        self.write(Stream::Out, text);
        self.write(Stream::Out, "\n");
    }

    /// Writes a line to standard error.
    pub fn errln(&mut self, text: &str) {
        self.write(Stream::Err, text);
        self.write(Stream::Err, "\n");
    }

    /// Writes a line to standard error and returns `status`, for early exits.
    pub fn fail(&mut self, status: i32, text: &str) -> i32 {
        self.errln(text);
        status
    }

    /// Refuses what the lab does not model: prints `text` like [`Io::fail`] and records it.
    pub fn refuse(&mut self, status: i32, text: &str) -> i32 {
        self.refused.push(text.to_string());
        self.fail(status, text)
    }

    /// The refusals recorded so far, taken out.
    pub fn take_refused(&mut self) -> Vec<String> {
        std::mem::take(&mut self.refused)
    }

    pub fn into_chunks(self) -> Vec<(Stream, String)> {
        self.chunks
    }
}

/// What a command runs against.
pub struct Ctx<'a> {
    pub net: &'a mut Net,
    pub node: NodeId,
    pub stdin: &'a str,
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

/// Runs one command (the words after sudo removal).
pub fn run(ctx: &mut Ctx<'_>, words: &[String], io: &mut Io) -> i32 {
    let name = words[0].as_str();
    let name = name.rsplit('/').next().unwrap_or(name);
    if let Some(h) = handler(name) {
        return h(ctx, &words[1..], io);
    }
    if REFUSED.contains(&name) || REFUSED_PREFIXES.iter().any(|p| name.starts_with(p)) {
        return io.refuse(126, &format!("bash: {name}: not available in this lab"));
    }
    io.fail(127, &format!("bash: {}: command not found", words[0]))
}

/// The lab's refusal of a real but unmodelled form (exit 2).
pub fn unsupported(io: &mut Io, words: &str) -> i32 {
    io.refuse(2, &format!("netpress: {words}: not supported in this lab"))
}
