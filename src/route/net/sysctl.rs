//! The lab's `/proc/sys/net` keys and the forwarding propagation rule.
//!
//! Only the keys that matter for IPv4 forwarding exist (route.md §4); everything else under
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

fn conf_dirs(node: &Node) -> Vec<(String, Conf)> {
    let mut dirs = vec![("all".to_string(), Conf::All), ("default".to_string(), Conf::Default)];
    dirs.extend(node.ifaces.iter().enumerate().map(|(i, f)| (f.name.clone(), Conf::Iface(i))));
    dirs.sort_by(|a, b| a.0.cmp(&b.0));
    dirs
}

/// Every key with its value, in `sysctl -a` order.
pub fn all(node: &Node) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let dirs = conf_dirs(node);
    for (dir, conf) in &dirs {
        for key in CONF_KEYS {
            out.push((format!("net.ipv4.conf.{dir}.{key}"), conf_value(node, *conf, key).to_string()));
        }
    }
    out.push(("net.ipv4.icmp_echo_ignore_all".into(), node.icmp_echo_ignore_all.to_string()));
    out.push(("net.ipv4.ip_forward".into(), node.ip_forward.to_string()));
    out.push(("net.ipv4.ip_forward_update_priority".into(), "1".into()));
    out.push(("net.ipv4.ip_forward_use_pmtu".into(), "0".into()));
    for (dir, conf) in &dirs {
        if matches!(conf, Conf::Iface(i) if node.ifaces[*i].mtu < IPV6_MIN_MTU) {
            continue;
        }
        for key in CONF6_KEYS {
            out.push((format!("net.ipv6.conf.{dir}.{key}"), "0".into()));
        }
    }
    out
}

fn conf_value(node: &Node, conf: Conf, key: &str) -> i32 {
    if key != "forwarding" {
        return 0;
    }
    match conf {
        Conf::All => node.ip_forward,
        Conf::Default => node.default_forwarding,
        Conf::Iface(i) => node.ifaces[i].forwarding,
    }
}

/// A key with `/` separators in the dotted form sysctl prints.
pub fn normalize(key: &str) -> String {
    key.trim_matches('/').replace('/', ".")
}

/// The keys at or under `key` (a value or a directory), in order; empty if none.
pub fn matching(node: &Node, key: &str) -> Vec<(String, String)> {
    let key = normalize(key);
    let dir = format!("{key}.");
    all(node).into_iter().filter(|(k, _)| *k == key || k.starts_with(&dir)).collect()
}

/// Whether the lab models writes to `key` (forwarding switches and echo-ignore).
pub fn writable(node: &Node, key: &str) -> bool {
    let key = normalize(key);
    match key.as_str() {
        "net.ipv4.ip_forward" | "net.ipv4.icmp_echo_ignore_all" => true,
        _ => key
            .strip_prefix("net.ipv4.conf.")
            .and_then(|rest| rest.strip_suffix(".forwarding"))
            .is_some_and(|dir| dir == "all" || dir == "default" || node.iface(dir).is_some()),
    }
}

/// Writes one key. Values are C integers (`proc_dointvec`): surrounding blanks allowed.
pub fn write(node: &mut Node, key: &str, value: &str) -> Result<(), SysctlError> {
    let key = normalize(key);
    let entries = matching(node, &key);
    if entries.len() != 1 || entries[0].0 != key {
        return Err(SysctlError::Missing);
    }
    if !writable(node, &key) {
        return Err(SysctlError::ReadOnly);
    }
    let v: i32 = value.trim().parse().map_err(|_| SysctlError::Invalid)?;
    match key.as_str() {
        "net.ipv4.ip_forward" | "net.ipv4.conf.all.forwarding" => set_all_forwarding(node, v),
        "net.ipv4.icmp_echo_ignore_all" => node.icmp_echo_ignore_all = v,
        "net.ipv4.conf.default.forwarding" => node.default_forwarding = v,
        _ => {
            let name = &key["net.ipv4.conf.".len()..key.len() - ".forwarding".len()];
            let iface = node.iface(name).ok_or(SysctlError::Missing)?;
            node.ifaces[iface].forwarding = v;
        }
    }
    Ok(())
}

fn set_all_forwarding(node: &mut Node, v: i32) {
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
