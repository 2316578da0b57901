//! The NetworkPolicy evaluator: is a connection allowed under the Kubernetes NetworkPolicy
//! semantics below (docs/k8s.md, "The connectivity analyzer", shows them at work)?
//!
//! A set of policies is first *compiled* against the pods it acts on: each pod gets the
//! policies that isolate it per direction, and each rule's peers become a bit set of pods
//! plus the IP blocks that bare addresses are checked against. A verdict is then a few bit
//! tests, which keeps the full probe matrix well under its time budget and lets the
//! analyzer ask for every port of every pair.
//!
//! Semantics: allowed = egress-ok(src) ∧ ingress-ok(dst); a pod not selected by any policy
//! listing a direction is open in that direction; an isolated pod accepts what some rule of
//! some selecting policy allows (pure union). Replies and loopback always pass. Named ports
//! resolve against the destination pod's container ports and never match a bare IP.

use std::borrow::Cow;
use std::net::Ipv4Addr;

use fixedbitset::FixedBitSet;
use ipnet::{IpNet, Ipv4Net};

use super::cluster::{Container, Protocol};
use super::labels::Labels;
use super::policy::{Direction, IntOrString, NetworkPolicy, Peer, PolicyPort, Rule};
use super::validate::parse_cidr;

/// A pod as the evaluator sees it.
#[derive(Debug, Clone, Copy)]
pub struct PodRef<'a> {
    pub namespace: &'a str,
    pub labels: &'a Labels,
    pub ip: Option<Ipv4Addr>,
    pub containers: &'a [Container],
}

impl PodRef<'_> {
    /// The number of the container port called `name` with `proto`, if any.
    fn named_port(&self, name: &str, proto: Protocol) -> Option<u16> {
        self.containers
            .iter()
            .flat_map(|c| c.ports.iter())
            .find(|p| p.protocol == proto && p.name.as_deref() == Some(name))
            .map(|p| p.port)
    }
}

/// A namespace as the evaluator sees it.
#[derive(Debug, Clone, Copy)]
pub struct NsRef<'a> {
    pub name: &'a str,
    pub labels: &'a Labels,
}

/// One end of a connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum End {
    /// An index into the pods the evaluator was compiled with.
    Pod(usize),
    /// An address that is no pod (carries no policies, matches only IP blocks).
    Ip(Ipv4Addr),
}

#[derive(Debug, Clone)]
enum PortKind {
    Range(u16, u16),
    Named(String),
}

#[derive(Debug, Clone)]
struct CPort {
    proto: Option<Protocol>,
    kind: PortKind,
}

#[derive(Debug, Clone)]
struct CPeers {
    pods: FixedBitSet,
    blocks: Vec<(Ipv4Net, Vec<Ipv4Net>)>,
}

#[derive(Debug, Clone)]
struct CRule {
    /// `None`: any remote end.
    peers: Option<CPeers>,
    /// `None`: any port of any protocol.
    ports: Option<Vec<CPort>>,
}

/// One policy compiled against a fixed set of pods: its rules per direction (empty when the
/// type is listed with no rules) and the pods it isolates, with the directions it lists.
#[derive(Debug, Clone)]
pub struct CompiledPolicy {
    rules: [Vec<CRule>; 2],
    isolates: Vec<usize>,
    dirs: [bool; 2],
}

impl CompiledPolicy {
    /// Compiles `policy` for `pods`; `ns_labels[i]` is pod `i`'s namespace labels.
    pub fn new(policy: &NetworkPolicy, pods: &[PodRef<'_>], ns_labels: &[Option<&Labels>]) -> Self {
        let ns = policy.namespace();
        let mut rules: [Vec<CRule>; 2] = [Vec::new(), Vec::new()];
        let mut dirs = [false; 2];
        for dir in [Direction::Ingress, Direction::Egress].into_iter().filter(|d| policy.spec.lists(*d)) {
            dirs[dir_index(dir)] = true;
            rules[dir_index(dir)] =
                policy.spec.rules(dir).iter().map(|r| compile_rule(r, ns, pods, ns_labels)).collect();
        }
        let isolates = if dirs.contains(&true) {
            (0..pods.len())
                .filter(|&i| pods[i].namespace == ns && policy.spec.pod_selector.matches(pods[i].labels))
                .collect()
        } else {
            Vec::new()
        };
        CompiledPolicy { rules, isolates, dirs }
    }
}

/// Each pod's namespace labels (`None` for a namespace missing from the list).
pub fn namespace_labels<'n>(pods: &[PodRef<'_>], namespaces: &[NsRef<'n>]) -> Vec<Option<&'n Labels>> {
    pods.iter().map(|p| namespaces.iter().find(|n| n.name == p.namespace).map(|n| n.labels)).collect()
}

/// Policies compiled against a fixed set of pods.
#[derive(Debug, Clone)]
pub struct Compiled<'a> {
    pods: &'a [PodRef<'a>],
    /// Per policy, in the order given.
    policies: Vec<Cow<'a, CompiledPolicy>>,
    /// Per pod and direction: the policies that isolate it.
    isolating: Vec<[Vec<u32>; 2]>,
}

fn dir_index(dir: Direction) -> usize {
    match dir {
        Direction::Ingress => 0,
        Direction::Egress => 1,
    }
}

fn v4(net: IpNet) -> Option<Ipv4Net> {
    match net {
        IpNet::V4(n) => Some(n),
        IpNet::V6(_) => None,
    }
}

impl<'a> Compiled<'a> {
    /// Compiles `policies` for `pods` living in `namespaces` (a namespace missing from the
    /// list has no labels).
    pub fn new(pods: &'a [PodRef<'a>], namespaces: &[NsRef<'_>], policies: &[&NetworkPolicy]) -> Self {
        let ns_labels = namespace_labels(pods, namespaces);
        let parts = policies.iter().map(|p| Cow::Owned(CompiledPolicy::new(p, pods, &ns_labels)));
        Self::assemble(pods, parts.collect())
    }

    /// Puts policies compiled for `pods` together; a caller evaluating many sets that share
    /// most policies compiles those once and lends them.
    pub fn assemble(pods: &'a [PodRef<'a>], policies: Vec<Cow<'a, CompiledPolicy>>) -> Self {
        let mut isolating = vec![[Vec::new(), Vec::new()]; pods.len()];
        for (pi, policy) in policies.iter().enumerate() {
            for &i in &policy.isolates {
                for (list, listed) in isolating[i].iter_mut().zip(policy.dirs) {
                    if listed {
                        list.push(pi as u32);
                    }
                }
            }
        }
        Compiled { pods, policies, isolating }
    }

    pub fn pods(&self) -> &'a [PodRef<'a>] {
        self.pods
    }

    /// Whether `src` may open a connection to `dst` on `port`/`proto`.
    pub fn allowed(&self, src: End, dst: End, port: u16, proto: Protocol) -> bool {
        if let (End::Pod(a), End::Pod(b)) = (src, dst)
            && a == b
        {
            return true;
        }
        self.side_ok(Direction::Egress, src, dst, dst, port, proto)
            && self.side_ok(Direction::Ingress, dst, src, dst, port, proto)
    }

    /// Whether `dst` admits a connection from `src` (its ingress side only).
    pub fn ingress_ok(&self, src: End, dst: End, port: u16, proto: Protocol) -> bool {
        self.side_ok(Direction::Ingress, dst, src, dst, port, proto)
    }

    /// Whether `src` may send to `dst` (its egress side only).
    pub fn egress_ok(&self, src: End, dst: End, port: u16, proto: Protocol) -> bool {
        self.side_ok(Direction::Egress, src, dst, dst, port, proto)
    }

    fn side_ok(
        &self,
        dir: Direction,
        subject: End,
        remote: End,
        dst: End,
        port: u16,
        proto: Protocol,
    ) -> bool {
        let End::Pod(i) = subject else { return true };
        let policies = &self.isolating[i][dir_index(dir)];
        policies.is_empty()
            || policies.iter().any(|&p| {
                self.policies[p as usize].rules[dir_index(dir)]
                    .iter()
                    .any(|r| self.peer_matches(r, remote) && self.port_matches(r, dst, port, proto))
            })
    }

    fn peer_matches(&self, rule: &CRule, remote: End) -> bool {
        match (&rule.peers, remote) {
            (None, _) => true,
            (Some(p), End::Pod(j)) => p.pods.contains(j),
            (Some(p), End::Ip(ip)) => block_contains(&p.blocks, ip),
        }
    }

    fn port_matches(&self, rule: &CRule, dst: End, port: u16, proto: Protocol) -> bool {
        let Some(ports) = &rule.ports else { return true };
        ports.iter().any(|p| {
            p.proto == Some(proto)
                && match &p.kind {
                    PortKind::Range(lo, hi) => (*lo..=*hi).contains(&port),
                    PortKind::Named(name) => self.resolve_named(dst, name, proto) == Some(port),
                }
        })
    }

    fn resolve_named(&self, dst: End, name: &str, proto: Protocol) -> Option<u16> {
        match dst {
            End::Pod(j) => self.pods[j].named_port(name, proto),
            End::Ip(_) => None,
        }
    }

    /// Whether any policy isolates pod `i` in `dir`.
    pub fn isolated(&self, dir: Direction, i: usize) -> bool {
        !self.isolating[i][dir_index(dir)].is_empty()
    }

    /// The ports the NetworkPolicies of `subject` admit in `dir`.
    pub fn direction_ports(&self, dir: Direction, subject: End, remote: End, dst: End) -> PortSet {
        self.side_ports(dir, subject, remote, dst)
    }

    /// The first policy (by the order given) with a rule admitting the connection in `dir`.
    pub fn admitting_policy(
        &self,
        dir: Direction,
        subject: usize,
        remote: End,
        dst: End,
        port: u16,
        proto: Protocol,
    ) -> Option<usize> {
        self.isolating[subject][dir_index(dir)].iter().map(|&p| p as usize).find(|&p| {
            self.policies[p].rules[dir_index(dir)]
                .iter()
                .any(|r| self.peer_matches(r, remote) && self.port_matches(r, dst, port, proto))
        })
    }

    /// Every port of every protocol that `src` may open to `dst`.
    pub fn allowed_ports(&self, src: End, dst: End) -> PortSet {
        if let (End::Pod(a), End::Pod(b)) = (src, dst)
            && a == b
        {
            return PortSet::all();
        }
        let out = self.side_ports(Direction::Egress, src, dst, dst);
        out.intersect(&self.side_ports(Direction::Ingress, dst, src, dst))
    }

    fn side_ports(&self, dir: Direction, subject: End, remote: End, dst: End) -> PortSet {
        let End::Pod(i) = subject else { return PortSet::all() };
        let policies = &self.isolating[i][dir_index(dir)];
        if policies.is_empty() {
            return PortSet::all();
        }
        let mut set = PortSet::default();
        for &p in policies {
            for r in &self.policies[p as usize].rules[dir_index(dir)] {
                if !self.peer_matches(r, remote) {
                    continue;
                }
                let Some(ports) = &r.ports else { return PortSet::all() };
                for port in ports {
                    let Some(proto) = port.proto else { continue };
                    match &port.kind {
                        PortKind::Range(lo, hi) => set.add(proto, *lo, *hi),
                        PortKind::Named(name) => {
                            if let Some(n) = self.resolve_named(dst, name, proto) {
                                set.add(proto, n, n);
                            }
                        }
                    }
                }
            }
        }
        set
    }
}

fn block_contains(blocks: &[(Ipv4Net, Vec<Ipv4Net>)], ip: Ipv4Addr) -> bool {
    blocks.iter().any(|(cidr, except)| cidr.contains(&ip) && !except.iter().any(|e| e.contains(&ip)))
}

fn compile_rule(rule: &Rule, policy_ns: &str, pods: &[PodRef<'_>], ns_labels: &[Option<&Labels>]) -> CRule {
    let peers = (!rule.peers.is_empty()).then(|| {
        let mut set = FixedBitSet::with_capacity(pods.len());
        let mut blocks = Vec::new();
        for peer in &rule.peers {
            if let Some(b) = &peer.ip_block {
                let except = b.except.iter().filter_map(|e| parse_cidr(e).and_then(v4)).collect();
                if let Some(cidr) = parse_cidr(&b.cidr).and_then(v4) {
                    blocks.push((cidr, except));
                }
            }
        }
        for (j, pod) in pods.iter().enumerate() {
            let by_ip = pod.ip.is_some_and(|ip| block_contains(&blocks, ip));
            if by_ip || rule.peers.iter().any(|p| peer_selects(p, policy_ns, pod, ns_labels[j])) {
                set.insert(j);
            }
        }
        CPeers { pods: set, blocks }
    });
    let ports = (!rule.ports.is_empty()).then(|| rule.ports.iter().map(compile_port).collect());
    CRule { peers, ports }
}

fn peer_selects(peer: &Peer, policy_ns: &str, pod: &PodRef<'_>, ns_labels: Option<&Labels>) -> bool {
    let empty = Labels::new();
    match (&peer.pod_selector, &peer.namespace_selector) {
        (Some(ps), None) => pod.namespace == policy_ns && ps.matches(pod.labels),
        (None, Some(ns)) => ns.matches(ns_labels.unwrap_or(&empty)),
        (Some(ps), Some(ns)) => ns.matches(ns_labels.unwrap_or(&empty)) && ps.matches(pod.labels),
        (None, None) => false,
    }
}

fn compile_port(p: &PolicyPort) -> CPort {
    let proto = Protocol::parse(p.protocol.as_deref().unwrap_or("TCP"));
    let kind = match &p.port {
        None => PortKind::Range(1, 65535),
        Some(IntOrString::Int(n)) => {
            let lo = (*n).clamp(0, 65535) as u16;
            let hi = p.end_port.map_or(lo, |e| e.clamp(0, 65535) as u16);
            PortKind::Range(lo, hi)
        }
        Some(IntOrString::Str(s)) => PortKind::Named(s.clone()),
    };
    CPort { proto, kind }
}

/// A set of ports per protocol, as sorted disjoint inclusive ranges.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PortSet {
    ranges: [Vec<(u16, u16)>; 3],
}

fn proto_index(p: Protocol) -> usize {
    match p {
        Protocol::Tcp => 0,
        Protocol::Udp => 1,
        Protocol::Sctp => 2,
    }
}

impl PortSet {
    /// Every port 1–65535 of every protocol.
    pub fn all() -> Self {
        let full = vec![(1, 65535)];
        PortSet { ranges: [full.clone(), full.clone(), full] }
    }

    pub fn is_all(&self) -> bool {
        self == &PortSet::all()
    }

    pub fn is_empty(&self) -> bool {
        self.ranges.iter().all(Vec::is_empty)
    }

    pub fn ranges(&self, proto: Protocol) -> &[(u16, u16)] {
        &self.ranges[proto_index(proto)]
    }

    pub fn add(&mut self, proto: Protocol, lo: u16, hi: u16) {
        let lo = lo.max(1);
        if lo > hi {
            return;
        }
        let v = &mut self.ranges[proto_index(proto)];
        v.push((lo, hi));
        v.sort_unstable();
        let mut merged: Vec<(u16, u16)> = Vec::with_capacity(v.len());
        for &(a, b) in v.iter() {
            match merged.last_mut() {
                Some(last) if u32::from(a) <= u32::from(last.1) + 1 => last.1 = last.1.max(b),
                _ => merged.push((a, b)),
            }
        }
        *v = merged;
    }

    pub fn intersect(&self, other: &PortSet) -> PortSet {
        let mut out = PortSet::default();
        for (i, proto) in Protocol::ALL.into_iter().enumerate() {
            for &(a, b) in &self.ranges[i] {
                for &(c, d) in &other.ranges[i] {
                    let (lo, hi) = (a.max(c), b.min(d));
                    if lo <= hi {
                        out.add(proto, lo, hi);
                    }
                }
            }
        }
        out
    }

    /// The ports in either set.
    pub fn union(&self, other: &PortSet) -> PortSet {
        let mut out = self.clone();
        for (i, proto) in Protocol::ALL.into_iter().enumerate() {
            for &(a, b) in &other.ranges[i] {
                out.add(proto, a, b);
            }
        }
        out
    }

    /// The ports of `self` not in `other`.
    pub fn minus(&self, other: &PortSet) -> PortSet {
        let mut out = PortSet::default();
        for (i, proto) in Protocol::ALL.into_iter().enumerate() {
            for &(a, b) in &self.ranges[i] {
                let mut lo = u32::from(a);
                for &(c, d) in other.ranges[i].iter().filter(|&&(c, d)| d >= a && c <= b) {
                    if u32::from(c) > lo {
                        out.add(proto, lo as u16, c - 1);
                    }
                    lo = u32::from(d) + 1;
                }
                if lo <= u32::from(b) {
                    out.add(proto, lo as u16, b);
                }
            }
        }
        out
    }

    pub fn contains(&self, proto: Protocol, port: u16) -> bool {
        self.ranges(proto).iter().any(|&(a, b)| (a..=b).contains(&port))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::k8s::cluster::ContainerPort;
    use crate::k8s::meta::Meta;
    use crate::k8s::policy::{LabelSelector, PolicySpec};

    fn labels(pairs: &[(&str, &str)]) -> Labels {
        pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    }

    fn policy(ns: &str, spec: PolicySpec) -> NetworkPolicy {
        let mut spec = spec;
        spec.apply_defaults();
        NetworkPolicy { meta: Meta { name: "p".into(), namespace: ns.into(), ..Meta::default() }, spec }
    }

    #[test]
    fn isolation_union_and_named_ports() {
        let (la, lb) = (labels(&[("app", "a")]), labels(&[("app", "b")]));
        let containers = vec![Container {
            name: "c".into(),
            image: "i".into(),
            ports: vec![ContainerPort { name: Some("http".into()), port: 8080, protocol: Protocol::Tcp }],
        }];
        let pods = [
            PodRef { namespace: "x", labels: &la, ip: Some(Ipv4Addr::new(10, 0, 0, 1)), containers: &[] },
            PodRef {
                namespace: "x",
                labels: &lb,
                ip: Some(Ipv4Addr::new(10, 0, 0, 2)),
                containers: &containers,
            },
        ];
        let nsl = labels(&[("kubernetes.io/metadata.name", "x")]);
        let nss = [NsRef { name: "x", labels: &nsl }];
        let allow_named = policy(
            "x",
            PolicySpec {
                pod_selector: LabelSelector::app("b"),
                ingress: vec![Rule {
                    peers: vec![Peer::app("a")],
                    ports: vec![PolicyPort {
                        protocol: None,
                        port: Some(IntOrString::Str("http".into())),
                        end_port: None,
                    }],
                }],
                ..PolicySpec::default()
            },
        );
        let c = Compiled::new(&pods, &nss, &[&allow_named]);
        assert!(c.allowed(End::Pod(0), End::Pod(1), 8080, Protocol::Tcp));
        assert!(!c.allowed(End::Pod(0), End::Pod(1), 8081, Protocol::Tcp));
        assert!(!c.allowed(End::Pod(0), End::Pod(1), 8080, Protocol::Udp));
        assert!(!c.allowed(End::Ip(Ipv4Addr::new(1, 2, 3, 4)), End::Pod(1), 8080, Protocol::Tcp));
        assert!(c.allowed(End::Pod(1), End::Pod(0), 1, Protocol::Udp), "a is not isolated");
        assert!(c.allowed(End::Pod(1), End::Pod(1), 1, Protocol::Udp), "loopback");
        let ports = c.allowed_ports(End::Pod(0), End::Pod(1));
        assert_eq!(ports.ranges(Protocol::Tcp), &[(8080, 8080)]);
        assert!(ports.ranges(Protocol::Udp).is_empty());
    }

    #[test]
    fn port_sets_merge_and_intersect() {
        let mut a = PortSet::default();
        a.add(Protocol::Tcp, 1, 79);
        a.add(Protocol::Tcp, 81, 65535);
        a.add(Protocol::Tcp, 80, 80);
        assert_eq!(a.ranges(Protocol::Tcp), &[(1, 65535)]);
        let mut b = PortSet::default();
        b.add(Protocol::Tcp, 100, 200);
        assert_eq!(a.intersect(&b).ranges(Protocol::Tcp), &[(100, 200)]);
        assert!(PortSet::all().is_all());
        let mut hole = PortSet::default();
        hole.add(Protocol::Tcp, 80, 80);
        hole.add(Protocol::Tcp, 65535, 65535);
        let rest = PortSet::all().minus(&hole);
        assert_eq!(rest.ranges(Protocol::Tcp), &[(1, 79), (81, 65534)]);
        assert!(rest.union(&hole).is_all());
        assert!(hole.minus(&PortSet::all()).is_empty());
    }
}
