//! The same network as the emulator's, built from Linux network namespaces: one namespace
//! per machine, one with a Linux bridge per switch, veth pairs named as in the emulator and
//! direct veth pairs for transit links (docs/route.md, "Fidelity against real Linux").

use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};

use netpress::route::matrix::Machine;
use netpress::route::topology::{Port, Topology};

/// Tools the harness needs on the host.
pub const TOOLS: [&str; 8] = ["ip", "iptables", "ping", "traceroute", "ifconfig", "route", "sysctl", "bash"];

/// Why the fidelity test cannot run here, if it cannot.
pub fn unavailable() -> Option<String> {
    if cfg!(not(target_os = "linux")) {
        return Some("not Linux".into());
    }
    let uid = Command::new("id")
        .arg("-u")
        .output()
        .ok()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string());
    if uid.as_deref() != Some("0") {
        return Some("not root".into());
    }
    for tool in TOOLS {
        let found = Command::new("bash")
            .args(["-c", &format!("command -v {tool}")])
            .stdout(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if !found {
            return Some(format!("{tool} not installed"));
        }
    }
    let probe = format!("npf{}_probe", std::process::id());
    let ok = sh(&format!("ip netns add {probe} && ip netns del {probe}")).1 == 0;
    if !ok {
        return Some("cannot create network namespaces".into());
    }
    None
}

/// Whether the kernel can make a netem qdisc.
pub fn has_netem() -> bool {
    let ns = format!("npf{}_netem", std::process::id());
    let script = format!(
        "ip netns add {ns} && ip -n {ns} link add a type veth peer name b && ip netns exec {ns} tc qdisc add dev a root netem delay 1ms; r=$?; ip netns del {ns}; exit $r"
    );
    sh(&script).1 == 0
}

/// Runs a bash script on the host; returns (stdout+stderr, status).
pub fn sh(script: &str) -> (String, i32) {
    let out = Command::new("bash")
        .args(["-c", &format!("exec 2>&1\n{script}")])
        .stdin(Stdio::null())
        .output()
        .expect("bash runs");
    (String::from_utf8_lossy(&out.stdout).into_owned(), out.status.code().unwrap_or(-1))
}

/// One test at a time builds labs: the tests of this binary run on parallel threads, and
/// two of them at once would share the host's redirect limits and starve each other's pings.
static TURN: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// The host's ICMP redirect rate limits (global, not per namespace) lifted for the test's
/// duration, so every redirect the emulator sends is sent by Linux too; restored on drop.
/// It holds the lab's turn ([`TURN`]) meanwhile.
pub struct RedirectLimits {
    saved: String,
    _turn: std::sync::MutexGuard<'static, ()>,
}

impl RedirectLimits {
    pub fn lift() -> Self {
        // A test that failed while holding the turn leaves nothing behind to guard.
        let turn = TURN.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let (saved, _) = sh("sysctl -n net.ipv4.route.redirect_load net.ipv4.route.redirect_number");
        sh("sysctl -qw net.ipv4.route.redirect_load=0 net.ipv4.route.redirect_number=1000000");
        RedirectLimits { saved, _turn: turn }
    }
}

impl Drop for RedirectLimits {
    fn drop(&mut self) {
        let mut v = self.saved.split_whitespace();
        if let (Some(load), Some(number)) = (v.next(), v.next()) {
            sh(&format!(
                "sysctl -qw net.ipv4.route.redirect_load={load} net.ipv4.route.redirect_number={number}"
            ));
        }
    }
}

static LABS: AtomicU32 = AtomicU32::new(0);

/// A built namespace lab; torn down on drop.
pub struct Lab {
    prefix: String,
    names: Vec<String>,
    switches: Vec<String>,
    pub machines: Vec<Machine>,
}

impl Lab {
    /// Builds the healthy network of `topo`.
    pub fn build(topo: &Topology) -> Lab {
        let n = LABS.fetch_add(1, Ordering::Relaxed);
        let prefix = format!("npf{}x{n}", std::process::id());
        let machines = topo.machines();
        let mut names: Vec<String> = (0..topo.r).map(|x| format!("r{x}")).collect();
        names.extend(machines.iter().filter(|m| m.name.starts_with('h')).map(|m| m.name.clone()));
        let switches: Vec<String> = (1..=topo.n).map(|s| format!("s{s}")).collect();
        let lab = Lab { prefix, names, switches, machines };
        let mut script = String::from("set -e\n");
        for name in lab.names.iter().chain(&lab.switches) {
            let ns = lab.ns(name);
            script.push_str(&format!(
                "ip netns add {ns}\nip netns exec {ns} sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1 net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.default.rp_filter=0 net.ipv4.icmp_ratelimit=0 net.ipv4.conf.all.arp_ignore=0 net.ipv4.conf.all.accept_redirects=0 net.ipv4.conf.default.accept_redirects=0\nip -n {ns} link set lo up\n"
            ));
        }
        for s in &lab.switches {
            script.push_str(&format!(
                "ip -n {0} link add {s} type bridge\nip -n {0} link set {s} up\n",
                lab.ns(s)
            ));
        }
        let mut port = vec![0usize; topo.n + 1];
        let mut plug = |script: &mut String, node: &str, ifname: &str, s: usize| {
            port[s] += 1;
            let sw = format!("s{s}");
            let peer = format!("{sw}p{}", port[s]);
            script.push_str(&format!(
                "ip link add {ifname} netns {} type veth peer name {peer} netns {}\nip -n {1} link set {peer} master {sw} up\n",
                lab.ns(node),
                lab.ns(&sw)
            ));
        };
        for x in 0..topo.r {
            for p in topo.ports(x) {
                if let Port::Lan(s) = p.port {
                    plug(&mut script, &format!("r{x}"), &p.name, s);
                }
            }
        }
        for s in 1..=topo.n {
            for j in 0..topo.m {
                let (h, _) = topo.host(s, j);
                plug(&mut script, &h, &format!("{h}-eth0"), s);
            }
        }
        for t in 1..=topo.transits() {
            let (a, b) = topo.transit(t);
            let end = |x: usize| {
                topo.ports(x).into_iter().find(|p| p.port == Port::Transit(t)).expect("transit port").name
            };
            script.push_str(&format!(
                "ip link add {} netns {} type veth peer name {} netns {}\n",
                end(a),
                lab.ns(&format!("r{a}")),
                end(b),
                lab.ns(&format!("r{b}"))
            ));
        }
        let (out, status) = sh(&script);
        assert_eq!(status, 0, "building the lab failed:\n{out}");
        for (node, cmds) in topo.config() {
            for c in cmds {
                let (out, status) = lab.exec(&node, &c);
                assert_eq!(status, 0, "healthy config `{c}` on {node} failed:\n{out}");
            }
        }
        lab
    }

    pub fn ns(&self, node: &str) -> String {
        format!("{}_{node}", self.prefix)
    }

    /// Runs one command line on a machine as the emulator's shell would see it.
    pub fn exec(&self, node: &str, line: &str) -> (String, i32) {
        let out = Command::new("timeout")
            .args(["30", "ip", "netns", "exec", &self.ns(node), "bash", "-c", &format!("exec 2>&1\n{line}")])
            .stdin(Stdio::null())
            .output()
            .expect("ip netns exec runs");
        (String::from_utf8_lossy(&out.stdout).into_owned(), out.status.code().unwrap_or(-1))
    }

    /// Empties every neighbour cache and route cache (PMTU exceptions) of the lab: the
    /// emulator keeps neither between evaluations.
    fn flush_script(&self) -> String {
        self.names
            .iter()
            .map(|n| format!("ip -n {0} neigh flush all\nip -n {0} route flush cache\n", self.ns(n)))
            .collect()
    }

    pub fn cool(&self) {
        sh(&self.flush_script());
    }

    /// One ping with every neighbour cache of the lab cold, retried once: the emulator's
    /// semantics exactly, for pairs where parallel pings may have taught each other MACs.
    pub fn cold_ping(&self, s: usize, d: usize) -> bool {
        let ping = format!(
            "ip netns exec {} ping -c1 -W 1 -q {} >/dev/null\n",
            self.ns(&self.machines[s].name),
            self.machines[d].target
        );
        let once = format!("{}{ping}", self.flush_script());
        sh(&once).1 == 0 || sh(&once).1 == 0
    }

    /// The ping matrix: caches flushed, every pair pinged at once with `ping -c1 -W 1`.
    /// Parallel pings can teach each other MACs (a node learns the sender of an ARP request
    /// for it), so callers re-measure pairs that disagree with the emulator, cold and with
    /// one retry, by [`Lab::cold_ping`].
    pub fn matrix(&self) -> Vec<bool> {
        sh(&self.flush_script());
        let n = self.machines.len();
        let mut ok = vec![false; n * n];
        let children: Vec<_> = (0..n)
            .flat_map(|s| (0..n).filter(move |&d| d != s).map(move |d| (s, d)))
            .map(|(s, d)| {
                let child = Command::new("ip")
                    .args(["netns", "exec", &self.ns(&self.machines[s].name), "ping", "-c1", "-W", "1", "-q"])
                    .arg(self.machines[d].target.to_string())
                    .stdout(Stdio::null())
                    .stderr(Stdio::null())
                    .spawn()
                    .expect("ping spawns");
                ((s, d), child)
            })
            .collect();
        for ((s, d), mut child) in children {
            ok[s * n + d] = child.wait().is_ok_and(|st| st.success());
        }
        ok
    }

    /// Runs several command lines on one machine in one process; their outputs in order.
    pub fn exec_many(&self, node: &str, lines: &[&str]) -> Vec<String> {
        const MARK: &str = "@@netpress-fidelity-mark@@";
        let script: String = lines.iter().map(|l| format!("{l}\necho {MARK}\n")).collect();
        let (out, _) = self.exec(node, &script);
        let mut parts: Vec<String> = out.split(&format!("{MARK}\n")).map(str::to_string).collect();
        parts.truncate(lines.len());
        parts
    }
}

impl Drop for Lab {
    fn drop(&mut self) {
        let script: String = self
            .names
            .iter()
            .chain(&self.switches)
            .map(|n| format!("ip netns del {} 2>/dev/null\n", self.ns(n)))
            .collect();
        sh(&script);
    }
}
