//! The neutral policy form (docs/microseg.md, "Policies"): named groups of VM addresses and
//! allow rules between groups, reserved groups or CIDRs, with an explicit default deny.
//!
//! Parsing is strict: an unknown key, a bad value, a missing or `allow` default, or a policy
//! over the size limits is invalid, and the one-line error is what the agent is told. Only the
//! membership of addresses that are not VMs is lenient (noted, ignored) — that needs the world,
//! so it happens when the policy is compiled ([`super::allow`]).

use std::collections::BTreeMap;
use std::net::Ipv4Addr;

use serde_json::{Map, Value};

use crate::flows::tenant::{ADMINS, LB, STORAGE, TELEMETRY, ip};

/// Limits of a valid policy.
pub const MAX_RULES: usize = 2_000;
pub const MAX_GROUPS: usize = 200;
pub const MAX_MEMBERS: usize = 100_000;
pub const MAX_BYTES: usize = 1 << 20;

/// The reserved groups: external endpoints by address, and `any`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Reserved {
    Internet,
    Admin,
    Lb,
    Storage,
    Telemetry,
    Any,
}

impl Reserved {
    pub const ALL: [Reserved; 6] = [
        Reserved::Internet,
        Reserved::Admin,
        Reserved::Lb,
        Reserved::Storage,
        Reserved::Telemetry,
        Reserved::Any,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Reserved::Internet => "internet",
            Reserved::Admin => "admin",
            Reserved::Lb => "lb",
            Reserved::Storage => "storage",
            Reserved::Telemetry => "telemetry",
            Reserved::Any => "any",
        }
    }

    pub fn parse(s: &str) -> Option<Reserved> {
        Reserved::ALL.into_iter().find(|r| r.name() == s)
    }

    /// Whether the group holds `addr` (`any` holds everything).
    pub fn contains(self, addr: u32) -> bool {
        match self {
            Reserved::Internet => {
                addr >> 17 == ip(198, 18, 0, 0) >> 17 || addr >> 8 == ip(203, 0, 113, 0) >> 8
            }
            Reserved::Admin => ADMINS.contains(&addr),
            Reserved::Lb => addr == LB,
            Reserved::Storage => STORAGE.contains(&addr),
            Reserved::Telemetry => addr == TELEMETRY,
            Reserved::Any => true,
        }
    }

    /// The external group an address belongs to (not `any`).
    pub fn of(addr: u32) -> Option<Reserved> {
        Reserved::ALL[..5].iter().copied().find(|r| r.contains(addr))
    }
}

/// One end of a rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Peer {
    Group(String),
    Reserved(Reserved),
    /// Network address (host bits cleared) and prefix length.
    Cidr(u32, u8),
}

impl Peer {
    pub fn text(&self) -> String {
        match self {
            Peer::Group(g) => g.clone(),
            Peer::Reserved(r) => r.name().to_string(),
            Peer::Cidr(a, l) => format!("{}/{l}", Ipv4Addr::from(*a)),
        }
    }
}

/// `tcp`, `udp` or `any`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Proto {
    Tcp,
    Udp,
    Any,
}

impl Proto {
    pub fn matches(self, proto: u8) -> bool {
        match self {
            Proto::Tcp => proto == 6,
            Proto::Udp => proto == 17,
            Proto::Any => true,
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            Proto::Tcp => "tcp",
            Proto::Udp => "udp",
            Proto::Any => "any",
        }
    }
}

/// One allow rule; `ports` empty means any port.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rule {
    pub src: Peer,
    pub dst: Peer,
    pub proto: Proto,
    pub ports: Vec<(u16, u16)>,
}

impl Rule {
    pub fn admits_port(&self, proto: u8, port: u16) -> bool {
        self.proto.matches(proto)
            && (self.ports.is_empty() || self.ports.iter().any(|&(a, b)| a <= port && port <= b))
    }

    /// `src → dst proto/ports`, as explanations print it.
    pub fn text(&self) -> String {
        let ports: Vec<String> = self
            .ports
            .iter()
            .map(|&(a, b)| if a == b { a.to_string() } else { format!("{a}-{b}") })
            .collect();
        let ports = if ports.is_empty() { "any".to_string() } else { ports.join(",") };
        format!("{} → {} {}/{ports}", self.src.text(), self.dst.text(), self.proto.name())
    }

    pub fn is_cidr(&self) -> bool {
        matches!(self.src, Peer::Cidr(..)) || matches!(self.dst, Peer::Cidr(..))
    }
}

/// A parsed, valid policy.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Policy {
    /// Group name → member addresses, in the answer's order.
    pub groups: BTreeMap<String, Vec<u32>>,
    pub rules: Vec<Rule>,
}

impl Policy {
    /// The policy as the neutral JSON form.
    pub fn to_json(&self) -> Value {
        let groups: Map<String, Value> = self
            .groups
            .iter()
            .map(|(g, m)| {
                (g.clone(), Value::from(m.iter().map(|&a| Ipv4Addr::from(a).to_string()).collect::<Vec<_>>()))
            })
            .collect();
        let rules: Vec<Value> = self
            .rules
            .iter()
            .map(|r| {
                let ports: Vec<String> =
                    r.ports.iter().map(|&(a, b)| if a == b { a.to_string() } else { format!("{a}-{b}") }).collect();
                let ports = match ports.len() {
                    0 => Value::from("any"),
                    1 => Value::from(ports[0].clone()),
                    _ => Value::from(ports),
                };
                serde_json::json!({"src": r.src.text(), "dst": r.dst.text(), "proto": r.proto.name(), "ports": ports})
            })
            .collect();
        serde_json::json!({"groups": groups, "rules": rules, "default": "deny"})
    }

    /// Members over all groups.
    pub fn members(&self) -> usize {
        self.groups.values().map(Vec::len).sum()
    }
}

/// Whether `name` is a valid group name: `[a-z][a-z0-9_.-]{0,62}`, not reserved.
pub fn valid_group_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_lowercase())
        && name.len() <= 63
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || "_.-".contains(c))
        && Reserved::parse(name).is_none()
}

fn addr(s: &str) -> Option<u32> {
    s.parse::<Ipv4Addr>().ok().map(u32::from)
}

fn peer(v: &Value, groups: &BTreeMap<String, Vec<u32>>) -> Result<Peer, String> {
    let s = v.as_str().ok_or_else(|| format!("expected a group, reserved group or CIDR, got {v}"))?;
    if let Some(r) = Reserved::parse(s) {
        return Ok(Peer::Reserved(r));
    }
    if groups.contains_key(s) {
        return Ok(Peer::Group(s.to_string()));
    }
    if let Some((a, l)) = s.split_once('/') {
        if let (Some(a), Ok(l @ 0..=32)) = (addr(a), l.parse::<u8>()) {
            let mask = if l == 0 { 0 } else { u32::MAX << (32 - l) };
            return Ok(Peer::Cidr(a & mask, l));
        }
        return Err(format!("bad CIDR {s:?}"));
    }
    Err(format!("unknown group {s:?} (not in groups, not reserved, not a CIDR)"))
}

fn port_item(v: &Value) -> Result<Option<(u16, u16)>, String> {
    let bad = || format!("bad ports {v} (N, A-B or any, 1..65535)");
    let num = |s: &str| s.parse::<u16>().ok().filter(|&n| n >= 1);
    match v {
        Value::Number(n) => n
            .as_u64()
            .and_then(|n| u16::try_from(n).ok())
            .filter(|&n| n >= 1)
            .map(|n| Some((n, n)))
            .ok_or_else(bad),
        Value::String(s) if s == "any" => Ok(None),
        Value::String(s) => match s.split_once('-') {
            Some((a, b)) => match (num(a), num(b)) {
                (Some(a), Some(b)) if a <= b => Ok(Some((a, b))),
                _ => Err(bad()),
            },
            None => num(s).map(|n| Some((n, n))).ok_or_else(bad),
        },
        _ => Err(bad()),
    }
}

fn ports(v: &Value) -> Result<Vec<(u16, u16)>, String> {
    let items: Vec<&Value> = match v {
        Value::Array(a) if a.is_empty() => return Err("bad ports [] (N, A-B or any, 1..65535)".into()),
        Value::Array(a) => a.iter().collect(),
        v => vec![v],
    };
    let mut out = Vec::new();
    for i in items {
        match port_item(i)? {
            None => return Ok(Vec::new()),
            Some(r) => out.push(r),
        }
    }
    Ok(out)
}

fn rule(i: usize, v: &Value, groups: &BTreeMap<String, Vec<u32>>) -> Result<Rule, String> {
    let at = |e: String| format!("rule {}: {e}", i + 1);
    let obj = v.as_object().ok_or_else(|| at(format!("expected an object, got {v}")))?;
    if let Some(k) = obj.keys().find(|k| !["src", "dst", "proto", "ports"].contains(&k.as_str())) {
        return Err(at(format!("unknown key {k:?} (keys: src, dst, proto, ports)")));
    }
    let field = |k: &str| obj.get(k).ok_or_else(|| at(format!("missing {k}")));
    let proto = match field("proto")?.as_str() {
        Some("tcp") => Proto::Tcp,
        Some("udp") => Proto::Udp,
        Some("any") => Proto::Any,
        _ => return Err(at(format!("bad proto {} (tcp, udp or any)", obj["proto"]))),
    };
    Ok(Rule {
        src: peer(field("src")?, groups).map_err(at)?,
        dst: peer(field("dst")?, groups).map_err(at)?,
        proto,
        ports: ports(field("ports")?).map_err(at)?,
    })
}

fn groups(v: &Value) -> Result<BTreeMap<String, Vec<u32>>, String> {
    let obj =
        v.as_object().ok_or_else(|| format!("groups: expected an object of name → addresses, got {v}"))?;
    if obj.len() > MAX_GROUPS {
        return Err(format!("{} groups (at most {MAX_GROUPS})", obj.len()));
    }
    let mut out = BTreeMap::new();
    let mut members = 0;
    for (name, list) in obj {
        if !valid_group_name(name) {
            return Err(format!(
                "bad group name {name:?} ([a-z][a-z0-9_.-]{{0,62}}, not internet, admin, lb, storage, telemetry or any)"
            ));
        }
        let list = list.as_array().ok_or_else(|| format!("group {name}: expected a list of addresses"))?;
        members += list.len();
        if members > MAX_MEMBERS {
            return Err(format!("more than {MAX_MEMBERS} members"));
        }
        let ips = list
            .iter()
            .map(|m| m.as_str().and_then(addr).ok_or_else(|| format!("group {name}: bad address {m}")))
            .collect::<Result<Vec<u32>, String>>()?;
        out.insert(name.clone(), ips);
    }
    Ok(out)
}

/// Parses the `data` of a policy answer, or says why it is invalid.
pub fn parse(data: &Value) -> Result<Policy, String> {
    let size = serde_json::to_string(data).map_or(usize::MAX, |s| s.len());
    if size > MAX_BYTES {
        return Err(format!("the policy is {size} bytes (at most 1 MiB)"));
    }
    let obj = data
        .as_object()
        .ok_or_else(|| format!("expected an object with groups, rules and default, got {}", kind(data)))?;
    if let Some(k) = obj.keys().find(|k| !["groups", "rules", "default"].contains(&k.as_str())) {
        return Err(format!("unknown key {k:?} (keys: groups, rules, default)"));
    }
    match obj.get("default").map(|d| d.as_str()) {
        Some(Some("deny")) => {}
        None => return Err("default is absent: it must be \"deny\"".into()),
        Some(_) => return Err(format!("default is {}: it must be \"deny\"", obj["default"])),
    }
    let groups = match obj.get("groups") {
        Some(g) => groups(g)?,
        None => BTreeMap::new(),
    };
    let list = match obj.get("rules") {
        Some(Value::Array(a)) => a,
        Some(v) => return Err(format!("rules: expected a list, got {}", kind(v))),
        None => return Err("rules is absent".into()),
    };
    if list.len() > MAX_RULES {
        return Err(format!("{} rules (at most {MAX_RULES})", list.len()));
    }
    let rules = list.iter().enumerate().map(|(i, r)| rule(i, r, &groups)).collect::<Result<_, _>>()?;
    Ok(Policy { groups, rules })
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a bool",
        Value::Number(_) => "a number",
        Value::String(_) => "a str",
        Value::Array(_) => "a list",
        Value::Object(_) => "a dict",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn ok() -> Value {
        json!({"groups": {"shop-db": ["10.1.0.41", "10.1.0.42"], "shop-api": ["10.1.0.23"]},
               "rules": [{"src": "shop-api", "dst": "shop-db", "proto": "tcp", "ports": "5432"},
                         {"src": "internet", "dst": "10.1.0.0/16", "proto": "tcp", "ports": ["80", "443", "1000-1010"]}],
               "default": "deny"})
    }

    #[test]
    fn the_example_parses_and_round_trips() {
        let p = parse(&ok()).unwrap();
        assert_eq!(p.rules.len(), 2);
        assert_eq!(p.rules[1].ports, vec![(80, 80), (443, 443), (1000, 1010)]);
        assert_eq!(p.rules[1].dst, Peer::Cidr(ip(10, 1, 0, 0), 16));
        assert_eq!(parse(&p.to_json()).unwrap(), p);
        assert_eq!(p.rules[0].text(), "shop-api → shop-db tcp/5432");
    }

    /// Each validity error of the spec gives its own message.
    #[test]
    fn each_validity_error() {
        let with = |f: &dyn Fn(&mut Value)| {
            let mut v = ok();
            f(&mut v);
            parse(&v).unwrap_err()
        };
        let cases: Vec<(String, &str)> = vec![
            (with(&|v| v["extra"] = json!(1)), "unknown key \"extra\""),
            (with(&|v| v["rules"][0]["port"] = json!(1)), "rule 1: unknown key \"port\""),
            (with(&|v| v["rules"][0]["proto"] = json!("icmp")), "bad proto"),
            (
                with(&|v| v["rules"][0]["ports"] = json!("70000")),
                "bad ports \"70000\" (N, A-B or any, 1..65535)",
            ),
            (with(&|v| v["rules"][0]["ports"] = json!("0")), "bad ports"),
            (with(&|v| v["rules"][0]["ports"] = json!("9-3")), "bad ports"),
            (with(&|v| v["rules"][0]["src"] = json!("dbs")), "unknown group \"dbs\""),
            (with(&|v| v["rules"][0]["src"] = json!("10.0.0.0/33")), "bad CIDR"),
            (with(&|v| v["groups"]["Bad"] = json!([])), "bad group name \"Bad\""),
            (with(&|v| v["groups"]["lb"] = json!([])), "bad group name \"lb\""),
            (with(&|v| v["groups"]["x"] = json!(["10.1.0.300"])), "bad address"),
            (
                with(&|v| v.as_object_mut().unwrap().remove("default").map(drop).unwrap_or(())),
                "default is absent",
            ),
            (with(&|v| v["default"] = json!("allow")), "default is \"allow\""),
            (with(&|v| v["rules"] = json!(vec![v["rules"][0].clone(); 2001])), "2001 rules (at most 2000)"),
            (
                with(&|v| {
                    v["groups"] = json!((0..201).map(|i| (format!("g{i}"), json!([]))).collect::<Map<_, _>>())
                }),
                "201 groups (at most 200)",
            ),
            (with(&|v| v["groups"]["big"] = json!(vec!["1.1.1.1"; 100_001])), "more than 100000 members"),
            (with(&|v| v["rules"][0]["ports"] = json!("x".repeat(1 << 20))), "bytes (at most 1 MiB)"),
        ];
        for (got, want) in cases {
            assert!(got.contains(want), "{got:?} lacks {want:?}");
        }
    }

    #[test]
    fn reserved_groups_hold_their_addresses() {
        assert!(
            Reserved::Internet.contains(ip(198, 19, 255, 1))
                && Reserved::Internet.contains(ip(203, 0, 113, 250))
        );
        assert!(!Reserved::Internet.contains(ip(198, 20, 0, 1)));
        assert_eq!(Reserved::of(ip(100, 64, 1, 12)), Some(Reserved::Storage));
        assert_eq!(Reserved::of(ip(10, 0, 0, 1)), None);
    }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod proptests {
    use super::*;
    use proptest::prelude::*;

    fn peer_text() -> impl Strategy<Value = String> {
        prop_oneof![
            Just("a".to_string()),
            Just("internet".to_string()),
            Just("any".into()),
            "10\\.[0-9]{1,3}\\.0\\.0/[0-9]{1,2}",
            "[a-z.]{1,4}"
        ]
    }

    proptest! {
        #[test]
        fn never_panics_and_valid_round_trips(
            src in peer_text(), dst in peer_text(), proto in "tcp|udp|any|x",
            ports in proptest::collection::vec("[0-9]{1,5}|any|[0-9]{1,4}-[0-9]{1,5}", 0..3),
            members in proptest::collection::vec("10\\.1\\.[0-9]{1,3}\\.[0-9]{1,3}", 0..4),
        ) {
            let v = serde_json::json!({"groups": {"a": members}, "rules": [{"src": src, "dst": dst, "proto": proto, "ports": ports}], "default": "deny"});
            if let Ok(p) = parse(&v) {
                prop_assert_eq!(parse(&p.to_json()).unwrap(), p);
            }
        }

        #[test]
        fn arbitrary_json_never_panics(s in "[\\[\\]{}\",:a-z0-9 ./-]{0,80}") {
            if let Ok(v) = serde_json::from_str::<Value>(&s) {
                let _ = parse(&v);
            }
        }
    }
}
