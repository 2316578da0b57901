//! What the comparison ignores (docs/route.md, "Fidelity against real Linux"): MACs, ifindexes, `@ifN`, netns ids, IPv6
//! extras, save-file comments, counters and sizes (but not whether an interface dropped
//! frames it sent), times, qdisc handles, `refcnt`, and the `line N:` that `bash -c` adds to its
//! messages.

use regex_lite::Regex;

pub struct Normalizer {
    rules: Vec<(Regex, &'static str)>,
    /// The host kernel has IPv6 multicast routing (`CONFIG_IPV6_MROUTE`), hence the
    /// `net.ipv6.conf.*.mc_forwarding` keys the emulator models, as Debian's kernels have them.
    /// A kernel built without it (some VM kernels) lists none, so there the emulator's are not
    /// compared, as `has_netem` leaves out the netem sequences on kernels without it.
    ipv6_mroute: bool,
}

impl Normalizer {
    pub fn new() -> Self {
        let rules = [
            (r"([0-9a-f]{2}:){5}[0-9a-f]{2}", "MAC"),
            (r"(?m)^\d+: ", "N: "),
            (r"@if\d+", ""),
            (r" link-netns(id)? \S+", ""),
            (r"bash: (-c: )?line \d+: ", "bash: "),
            (r"(RX|TX) packets \d+  bytes \d+ \([^)]*\)", "$1 packets N  bytes N"),
            // Receive drops also count frames the lab's own setup makes: an interface created
            // before its namespace turns IPv6 off can send a frame or two that its peer then
            // drops, depending on timing. So only transmit drops (the sender's side of a frame
            // its peer cannot take) are compared, by whether there were any.
            (r"RX errors (\d+)  dropped \d+", "RX errors $1  dropped R"),
            (r"errors 0  dropped [1-9]\d*", "errors 0  dropped N"),
            (r"(?m)^( +)\d+ +\d+ +\d+ +\d+ +\d+ +\d+ $", "$1COUNTERS"),
            (r"(?m)^ *\d+[KMGT]? +\d+[KMGT]? ", "C C "),
            (r"\(policy (\w+) \d+[KMGT]? packets, \d+[KMGT]? bytes\)", "(policy $1 C)"),
            (r"time[= ][0-9.]+ ?ms", "time T"),
            (r"rtt min/avg/max/mdev = \S+ ms(, pipe \d+)?", "rtt T"),
            (r"  [0-9.]+ ms", "  T ms"),
            (r"qdisc (\w+) [0-9a-f]+:", "qdisc $1 H:"),
            (r"refcnt \d+ ", ""),
        ];
        Normalizer {
            rules: rules.into_iter().map(|(p, r)| (Regex::new(p).expect("valid pattern"), r)).collect(),
            ipv6_mroute: std::path::Path::new("/proc/sys/net/ipv6/conf/all/mc_forwarding").exists(),
        }
    }

    /// The entries of a neighbour table that hold an address, sorted, with the kernel's
    /// timed states (`REACHABLE`, `STALE`, `DELAY`, `PROBE`) folded into `VALID`. Entries
    /// whose resolution failed or still runs are left out: which next hops a misrouted
    /// packet makes a router try differs between the emulator and Linux (see docs/route.md).
    pub fn neighbours(&self, text: &str) -> String {
        let mut lines: Vec<String> = self
            .apply(text)
            .lines()
            .filter_map(|l| {
                let mut words: Vec<&str> = l.split_whitespace().collect();
                let state = words.last_mut()?;
                if !matches!(*state, "REACHABLE" | "STALE" | "DELAY" | "PROBE") {
                    return None;
                }
                *state = "VALID";
                Some(words.join(" "))
            })
            .collect();
        lines.sort();
        lines.join("\n")
    }

    /// Whether `line` is a key only some kernels list: `force_forwarding` (newer ones), and
    /// IPv6 `mc_forwarding` where the host kernel has no IPv6 multicast routing.
    fn kernel_specific(&self, line: &str) -> bool {
        line.contains("force_forwarding")
            || (!self.ipv6_mroute && line.starts_with("net.ipv6.conf.") && line.contains(".mc_forwarding"))
    }

    pub fn apply(&self, text: &str) -> String {
        let kept: Vec<&str> = text
            .lines()
            .filter(|l| {
                !l.starts_with('#')
                    && !self.kernel_specific(l)
                    && !l.contains("inet6")
                    // iproute2's complaint when another lab's namespace vanishes mid-dump.
                    && *l != "Error: Peer netns reference is invalid."
            })
            .collect();
        let mut s = kept.join("\n");
        for (re, with) in &self.rules {
            s = re.replace_all(&s, *with).into_owned();
        }
        s
    }
}

/// The differing lines of two texts with two lines of context (`-` real, `+` emulator).
pub fn diff(expected: &str, got: &str) -> String {
    let a: Vec<&str> = expected.lines().collect();
    let b: Vec<&str> = got.lines().collect();
    let n = a.len().max(b.len());
    let differs: Vec<bool> = (0..n).map(|i| a.get(i) != b.get(i)).collect();
    let near = |i: usize| (i.saturating_sub(2)..=(i + 2).min(n.saturating_sub(1))).any(|j| differs[j]);
    let mut out = String::new();
    let mut skipped = false;
    for i in 0..n {
        if !near(i) {
            skipped = true;
            continue;
        }
        if skipped {
            out.push_str("  …\n");
            skipped = false;
        }
        match (a.get(i), b.get(i)) {
            (Some(x), Some(y)) if x == y => out.push_str(&format!("  {x}\n")),
            (x, y) => {
                if let Some(x) = x {
                    out.push_str(&format!("- {x}\n"));
                }
                if let Some(y) = y {
                    out.push_str(&format!("+ {y}\n"));
                }
            }
        }
    }
    out
}
