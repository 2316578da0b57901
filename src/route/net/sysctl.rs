//! The lab's `/proc/sys/net` keys and the forwarding propagation rule.
//!
//! Only the keys that matter for IPv4 forwarding exist (the lab models IPv4 forwarding only, docs/route.md); everything else under
//! `/proc/sys` is "No such file or directory". Writing `ip_forward` (≡ `conf.all.forwarding`)
//! with a *changed* value copies it to `conf.default` and every interface, as the kernel's
//! `inet_forward_change` does; an unchanged write propagates nothing.

use super::Node;

/// Per-interface keys under `net.ipv4.conf.<x>.`, in directory order.
const CONF_KEYS: [&str; 5] = ["arp_ignore", "bc_forwarding", "forwarding", "mc_forwarding", "rp_filter"];
/// Per-interface keys under `net.ipv6.conf.<x>.`.
const CONF6_KEYS: [&str; 2] = ["forwarding", "mc_forwarding"];

/// Below this MTU the kernel drops an interface's IPv6 state, and its `net.ipv6.conf`
/// directory with it.
const IPV6_MIN_MTU: u32 = 1280;

/// Why a key could not be read or written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SysctlError {
    /// No such key (or a directory where a value was expected).
    Missing,
    /// The value is not an integer the kernel accepts.
    Invalid,
    /// The key exists but the lab does not model writes to it.
    ReadOnly,
}

/// Where a conf key points.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Conf {
    All,
    Default,
    Iface(usize),
}

/// A resolved key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Key {
    Conf { v6: bool, dir: Conf, leaf: &'static str },
    Global(&'static str),
}

/// Node-wide keys under `net.ipv4.`, in directory order.
const GLOBALS: [&str; 4] =
    ["icmp_echo_ignore_all", "ip_forward", "ip_forward_update_priority", "ip_forward_use_pmtu"];

fn conf_dirs(node: &Node) -> Vec<(String, Conf)> {
    let mut dirs = vec![("all".to_string(), Conf::All), ("default".to_string(), Conf::Default)];
    dirs.extend(node.ifaces.iter().enumerate().map(|(i, f)| (f.name.to_string(), Conf::Iface(i))));
    dirs.sort_by(|a, b| a.0.cmp(&b.0));
    dirs
}

/// Whether the node has an IPv6 `conf` directory for `dir`.
fn has_v6(node: &Node, dir: Conf) -> bool {
    !matches!(dir, Conf::Iface(i) if node.ifaces[i].mtu < IPV6_MIN_MTU)
}

/// The key a dotted name denotes, if it is one (not a directory).
fn resolve(node: &Node, key: &str) -> Option<Key> {
    if let Some(name) = key.strip_prefix("net.ipv4.")
        && let Some(g) = GLOBALS.iter().find(|g| **g == name)
    {
        return Some(Key::Global(g));
    }
    let (v6, rest) = match (key.strip_prefix("net.ipv4.conf."), key.strip_prefix("net.ipv6.conf.")) {
        (Some(r), _) => (false, r),
        (_, Some(r)) => (true, r),
        _ => return None,
    };
    let (dir, leaf) = rest.rsplit_once('.')?;
    let leaves: &[&'static str] = if v6 { &CONF6_KEYS } else { &CONF_KEYS };
    let leaf = leaves.iter().find(|l| **l == leaf)?;
    let dir = match dir {
        "all" => Conf::All,
        "default" => Conf::Default,
        name => Conf::Iface(node.iface(name)?),
    };
    (!v6 || has_v6(node, dir)).then_some(Key::Conf { v6, dir, leaf })
}

fn value(node: &Node, key: Key) -> i32 {
    match key {
        Key::Global("icmp_echo_ignore_all") => node.icmp_echo_ignore_all,
        Key::Global("ip_forward") => node.ip_forward,
        Key::Global("ip_forward_update_priority") => 1,
        Key::Conf { v6: false, dir, leaf: "forwarding" } => match dir {
            Conf::All => node.ip_forward,
            Conf::Default => node.default_forwarding,
            Conf::Iface(i) => node.ifaces[i].forwarding,
        },
        _ => 0,
    }
}

/// Every key with its value, in `sysctl -a` order.
pub fn all(node: &Node) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let dirs = conf_dirs(node);
    let mut push = |name: String, key: Key| out.push((name, value(node, key).to_string()));
    for (dir, conf) in &dirs {
        for leaf in CONF_KEYS {
            push(format!("net.ipv4.conf.{dir}.{leaf}"), Key::Conf { v6: false, dir: *conf, leaf });
        }
    }
    for g in GLOBALS {
        push(format!("net.ipv4.{g}"), Key::Global(g));
    }
    for (dir, conf) in dirs.iter().filter(|(_, c)| has_v6(node, *c)) {
        for leaf in CONF6_KEYS {
            push(format!("net.ipv6.conf.{dir}.{leaf}"), Key::Conf { v6: true, dir: *conf, leaf });
        }
    }
    out
}

/// A key with `/` separators in the dotted form sysctl prints.
pub fn normalize(key: &str) -> String {
    key.trim_matches('/').replace('/', ".")
}

/// The keys at or under `key` (a value or a directory), in order; empty if none.
pub fn matching(node: &Node, key: &str) -> Vec<(String, String)> {
    let key = normalize(key);
    if let Some(k) = resolve(node, &key) {
        return vec![(key, value(node, k).to_string())];
    }
    let dir = format!("{key}.");
    all(node).into_iter().filter(|(k, _)| k.starts_with(&dir)).collect()
}

/// Whether the lab models writes to a key (forwarding switches and echo-ignore).
fn can_write(key: Key) -> bool {
    matches!(
        key,
        Key::Global("ip_forward" | "icmp_echo_ignore_all") | Key::Conf { v6: false, leaf: "forwarding", .. }
    )
}

/// Whether the lab models writes to `key`.
pub fn writable(node: &Node, key: &str) -> bool {
    resolve(node, &normalize(key)).is_some_and(can_write)
}

/// Writes one key. Values are C integers (`proc_dointvec`): surrounding blanks allowed.
pub fn write(node: &mut Node, key: &str, value: &str) -> Result<(), SysctlError> {
    let key = resolve(node, &normalize(key)).ok_or(SysctlError::Missing)?;
    if !can_write(key) {
        return Err(SysctlError::ReadOnly);
    }
    let v: i32 = value.trim().parse().map_err(|_| SysctlError::Invalid)?;
    match key {
        Key::Global("icmp_echo_ignore_all") => node.icmp_echo_ignore_all = v,
        Key::Global(_) | Key::Conf { dir: Conf::All, .. } => set_all_forwarding(node, v),
        Key::Conf { dir: Conf::Default, .. } => node.default_forwarding = v,
        Key::Conf { dir: Conf::Iface(i), .. } => node.ifaces[i].forwarding = v,
    }
    Ok(())
}

/// Sets `ip_forward` as a write does (propagating only a change).
pub fn set_all_forwarding(node: &mut Node, v: i32) {
    if node.ip_forward == v {
        return;
    }
    node.ip_forward = v;
    node.default_forwarding = v;
    for iface in &mut node.ifaces {
        iface.forwarding = v;
    }
}

/// A `/proc/sys/...` path as a key, if it is one.
pub fn path_key(path: &str) -> Option<String> {
    path.strip_prefix("/proc/sys/").map(normalize)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn router() -> Node {
        let mut n = Node::new("r0", true);
        n.ifaces.push(super::super::Iface { name: "r0-eth1".into(), ..super::super::Iface::loopback(0) });
        n
    }

    #[test]
    fn changed_write_propagates_unchanged_does_not() {
        let mut n = router();
        write(&mut n, "net.ipv4.conf.r0-eth1.forwarding", "1").unwrap();
        write(&mut n, "net.ipv4.ip_forward", "0").unwrap();
        assert_eq!(n.ifaces[1].forwarding, 1, "unchanged write leaves eth1");
        write(&mut n, "net/ipv4/ip_forward", " 1\n").unwrap();
        assert_eq!((n.default_forwarding, n.ifaces[0].forwarding, n.ifaces[1].forwarding), (1, 1, 1));
    }

    #[test]
    fn errors_and_listing() {
        let mut n = router();
        assert_eq!(write(&mut n, "net.ipv4.x", "1"), Err(SysctlError::Missing));
        assert_eq!(write(&mut n, "net.ipv4.ip_forward", "abc"), Err(SysctlError::Invalid));
        assert_eq!(write(&mut n, "net.ipv4.conf.all.rp_filter", "1"), Err(SysctlError::ReadOnly));
        assert_eq!(write(&mut n, "net.ipv4.conf", "1"), Err(SysctlError::Missing));
        let keys: Vec<String> = matching(&n, "net.ipv4.conf.lo").into_iter().map(|(k, _)| k).collect();
        assert_eq!(keys.len(), 5);
        let all_keys: Vec<String> = all(&n).into_iter().map(|(k, _)| k).collect();
        let mut sorted = all_keys.clone();
        sorted.sort();
        assert_eq!(all_keys, sorted);
    }
}
