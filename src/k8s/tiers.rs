//! The policy layers of a cluster with admin network policies: AdminNetworkPolicies, then
//! NetworkPolicies, then the BaselineAdminNetworkPolicy, then allow (docs/k8s.md, "Admin
//! network policies", walks through one connection).
//!
//! Each direction of a connection (egress at the source, ingress at the destination) is
//! decided on its own, and the connection passes when both do:
//! 1. the ANPs whose subject holds the pod, by ascending priority (equal priorities in name
//!    order; upstream leaves that order to the implementation), each one's rules in order:
//!    the first rule whose peers and ports match decides: Allow and Deny are final, Pass
//!    skips every further ANP rule and goes to step 2;
//! 2. NetworkPolicies: if any isolates the pod in that direction, their union is final;
//! 3. the BANP, if its subject holds the pod: the first matching rule's Allow or Deny;
//! 4. otherwise allowed.
//!
//! Ports are evaluated one at a time ([`Layered::decide`], with the layer and rule that
//! decided) or as sets ([`Layered::allowed_ports`]), where each rule takes the still
//! undecided ports it matches; both give the same answers.

use fixedbitset::FixedBitSet;
use ipnet::{IpNet, Ipv4Net};

use super::admin::{Action, AdminKind, AdminPeer, AdminPolicy, AdminPort, AdminRule, Subject};
use super::cluster::Protocol;
use super::eval::{Compiled, End, NsRef, PodRef, PortSet, namespace_labels};
use super::labels::Labels;
use super::policy::Direction;
use super::validate::parse_cidr;

/// A rule compiled against the pods.
#[derive(Debug, Clone)]
struct CRule {
    name: String,
    action: Action,
    pods: FixedBitSet,
    networks: Vec<Ipv4Net>,
    ports: Option<Vec<AdminPort>>,
}

/// An ANP or the BANP compiled against the pods.
#[derive(Debug, Clone)]
struct CAdmin {
    name: String,
    priority: i32,
    subject: FixedBitSet,
    rules: [Vec<CRule>; 2],
}

/// The layer that decided one direction of a connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layer {
    AdminNetworkPolicy,
    NetworkPolicy,
    BaselineAdminNetworkPolicy,
    /// No policy of any layer applied.
    Default,
}

impl Layer {
    pub fn as_str(self) -> &'static str {
        match self {
            Layer::AdminNetworkPolicy => "AdminNetworkPolicy",
            Layer::NetworkPolicy => "NetworkPolicy",
            Layer::BaselineAdminNetworkPolicy => "BaselineAdminNetworkPolicy",
            Layer::Default => "default",
        }
    }
}

/// How one direction was decided.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decision {
    pub allowed: bool,
    pub layer: Layer,
    /// The deciding policy (`ns/name` for a NetworkPolicy), empty for [`Layer::Default`].
    pub policy: String,
    /// The deciding rule: an admin rule's name or `ingress[i]`/`egress[i]` index, or a note.
    pub rule: String,
}

fn dir_index(dir: Direction) -> usize {
    match dir {
        Direction::Ingress => 0,
        Direction::Egress => 1,
    }
}

fn v4_networks(cidrs: &[String]) -> impl Iterator<Item = Ipv4Net> + '_ {
    cidrs.iter().filter_map(|c| match parse_cidr(c) {
        Some(IpNet::V4(n)) => Some(n.trunc()),
        _ => None,
    })
}

struct World<'p, 'n> {
    pods: &'p [PodRef<'p>],
    ns_labels: Vec<Option<&'n Labels>>,
}

impl World<'_, '_> {
    fn select(&self, pick: impl Fn(&PodRef<'_>, &Labels) -> bool) -> FixedBitSet {
        let empty = Labels::new();
        let mut set = FixedBitSet::with_capacity(self.pods.len());
        for (i, p) in self.pods.iter().enumerate() {
            if pick(p, self.ns_labels[i].unwrap_or(&empty)) {
                set.insert(i);
            }
        }
        set
    }

    fn subject(&self, s: &Subject) -> FixedBitSet {
        match s {
            Subject::Namespaces(ns) => self.select(|_, nl| ns.matches(nl)),
            Subject::Pods(np) => {
                self.select(|p, nl| np.namespace_selector.matches(nl) && np.pod_selector.matches(p.labels))
            }
        }
    }

    fn rule(&self, r: &AdminRule) -> CRule {
        let mut pods = FixedBitSet::with_capacity(self.pods.len());
        let mut networks = Vec::new();
        for peer in &r.peers {
            match peer {
                AdminPeer::Namespaces(_) | AdminPeer::Pods(_) => {
                    let subject = match peer {
                        AdminPeer::Namespaces(s) => Subject::Namespaces(s.clone()),
                        AdminPeer::Pods(np) => Subject::Pods(np.clone()),
                        _ => unreachable!("matched above"),
                    };
                    pods.union_with(&self.subject(&subject));
                }
                // The emulated clusters have no node addresses that a connection uses.
                AdminPeer::Nodes(_) => {}
                AdminPeer::Networks(cidrs) => networks.extend(v4_networks(cidrs)),
            }
        }
        for (i, p) in self.pods.iter().enumerate() {
            if p.ip.is_some_and(|ip| networks.iter().any(|n| n.contains(&ip))) {
                pods.insert(i);
            }
        }
        CRule { name: r.name.clone(), action: r.action, pods, networks, ports: r.ports.clone() }
    }

    fn compile(&self, p: &AdminPolicy) -> CAdmin {
        CAdmin {
            name: p.name.clone(),
            priority: p.priority,
            subject: self.subject(&p.subject),
            rules: [
                p.ingress.iter().map(|r| self.rule(r)).collect(),
                p.egress.iter().map(|r| self.rule(r)).collect(),
            ],
        }
    }
}

/// NetworkPolicies compiled with the admin layers around them.
#[derive(Debug, Clone)]
pub struct Layered<'a> {
    np: Compiled<'a>,
    np_names: Vec<String>,
    /// ANPs by priority, then name.
    admins: Vec<CAdmin>,
    baseline: Option<CAdmin>,
}

impl<'a> Layered<'a> {
    /// `np` compiled from the NetworkPolicies named `np_names` (`ns/name`, in order), and the
    /// admin policies (any number of ANPs, at most one BANP is used: the first).
    pub fn new(
        np: Compiled<'a>,
        np_names: Vec<String>,
        namespaces: &[NsRef<'_>],
        admin: &[&AdminPolicy],
    ) -> Self {
        let pods = np.pods();
        let world = World { pods, ns_labels: namespace_labels(pods, namespaces) };
        let mut admins: Vec<CAdmin> =
            admin.iter().filter(|p| p.kind == AdminKind::Admin).map(|p| world.compile(p)).collect();
        admins.sort_by(|a, b| (a.priority, &a.name).cmp(&(b.priority, &b.name)));
        let baseline = admin.iter().find(|p| p.kind == AdminKind::Baseline).map(|p| world.compile(p));
        Layered { np, np_names, admins, baseline }
    }

    pub fn network_policies(&self) -> &Compiled<'a> {
        &self.np
    }

    fn peer_matches(rule: &CRule, remote: End) -> bool {
        match remote {
            End::Pod(j) => rule.pods.contains(j),
            End::Ip(ip) => rule.networks.iter().any(|n| n.contains(&ip)),
        }
    }

    fn named(&self, dst: End, name: &str) -> Vec<(Protocol, u16)> {
        let End::Pod(j) = dst else { return Vec::new() };
        let pod = &self.np.pods()[j];
        pod.containers
            .iter()
            .flat_map(|c| &c.ports)
            .filter(|p| p.name.as_deref() == Some(name))
            .map(|p| (p.protocol, p.port))
            .collect()
    }

    fn rule_ports(&self, rule: &CRule, dst: End) -> PortSet {
        let Some(ports) = &rule.ports else { return PortSet::all() };
        let mut set = PortSet::default();
        for p in ports {
            match p {
                AdminPort::Number { protocol, port } => set.add(*protocol, *port, *port),
                AdminPort::Range { protocol, start, end } => set.add(*protocol, *start, *end),
                AdminPort::Named(name) => {
                    for (proto, n) in self.named(dst, name) {
                        set.add(proto, n, n);
                    }
                }
            }
        }
        set
    }

    /// How `dir` at `subject` treats a connection with `remote` to `dst` on `port`/`proto`.
    pub fn decide(
        &self,
        dir: Direction,
        subject: End,
        remote: End,
        dst: End,
        port: u16,
        proto: Protocol,
    ) -> Decision {
        let decision = |allowed, layer, policy: &str, rule: String| Decision {
            allowed,
            layer,
            policy: policy.to_string(),
            rule,
        };
        let End::Pod(i) = subject else {
            return decision(true, Layer::Default, "", "not a pod".into());
        };
        let d = dir_index(dir);
        'admin: for a in self.admins.iter().filter(|a| a.subject.contains(i)) {
            for r in &a.rules[d] {
                if Self::peer_matches(r, remote) && self.rule_ports(r, dst).contains(proto, port) {
                    match r.action {
                        Action::Pass => break 'admin,
                        act => {
                            return decision(
                                act == Action::Allow,
                                Layer::AdminNetworkPolicy,
                                &a.name,
                                r.name.clone(),
                            );
                        }
                    }
                }
            }
        }
        if self.np.isolated(dir, i) {
            return match self.np.admitting_policy(dir, i, remote, dst, port, proto) {
                Some(p) => decision(
                    true,
                    Layer::NetworkPolicy,
                    &self.np_names[p],
                    format!("a rule of its {}", dir.as_str().to_ascii_lowercase()),
                ),
                None => decision(
                    false,
                    Layer::NetworkPolicy,
                    "",
                    format!("isolated for {}, no rule admits it", dir.as_str().to_ascii_lowercase()),
                ),
            };
        }
        if let Some(b) = self.baseline.as_ref().filter(|b| b.subject.contains(i)) {
            for r in &b.rules[d] {
                if Self::peer_matches(r, remote) && self.rule_ports(r, dst).contains(proto, port) {
                    return decision(
                        r.action == Action::Allow,
                        Layer::BaselineAdminNetworkPolicy,
                        &b.name,
                        r.name.clone(),
                    );
                }
            }
        }
        decision(true, Layer::Default, "", "no policy applies".into())
    }

    /// Whether `src` may open a connection to `dst` on `port`/`proto`.
    pub fn allowed(&self, src: End, dst: End, port: u16, proto: Protocol) -> bool {
        if let (End::Pod(a), End::Pod(b)) = (src, dst)
            && a == b
        {
            return true;
        }
        self.decide(Direction::Egress, src, dst, dst, port, proto).allowed
            && self.decide(Direction::Ingress, dst, src, dst, port, proto).allowed
    }

    /// The ports `dir` at `subject` admits, walking the layers with sets of ports.
    fn side_ports(&self, dir: Direction, subject: End, remote: End, dst: End) -> PortSet {
        let End::Pod(i) = subject else { return PortSet::all() };
        let d = dir_index(dir);
        let (mut undecided, mut allowed, mut passed) =
            (PortSet::all(), PortSet::default(), PortSet::default());
        let take = |r: &CRule, undecided: &mut PortSet, allowed: &mut PortSet, passed: &mut PortSet| {
            if !Self::peer_matches(r, remote) {
                return;
            }
            let hit = undecided.intersect(&self.rule_ports(r, dst));
            match r.action {
                Action::Allow => *allowed = allowed.union(&hit),
                Action::Pass => *passed = passed.union(&hit),
                Action::Deny => {}
            }
            *undecided = undecided.minus(&hit);
        };
        for a in self.admins.iter().filter(|a| a.subject.contains(i)) {
            for r in &a.rules[d] {
                take(r, &mut undecided, &mut allowed, &mut passed);
            }
        }
        undecided = undecided.union(&passed);
        if self.np.isolated(dir, i) {
            return allowed.union(&undecided.intersect(&self.np.direction_ports(dir, subject, remote, dst)));
        }
        if let Some(b) = self.baseline.as_ref().filter(|b| b.subject.contains(i)) {
            for r in &b.rules[d] {
                take(r, &mut undecided, &mut allowed, &mut PortSet::default());
            }
        }
        allowed.union(&undecided)
    }

    /// Every port of every protocol that `src` may open to `dst`.
    pub fn allowed_ports(&self, src: End, dst: End) -> PortSet {
        if let (End::Pod(a), End::Pod(b)) = (src, dst)
            && a == b
        {
            return PortSet::all();
        }
        self.side_ports(Direction::Egress, src, dst, dst).intersect(&self.side_ports(
            Direction::Ingress,
            dst,
            src,
            dst,
        ))
    }

    /// Every CIDR the admin policies name (IPv4), for cutting the outside into ranges.
    pub fn networks(&self) -> Vec<Ipv4Net> {
        let rules = self.admins.iter().chain(&self.baseline).flat_map(|a| a.rules.iter().flatten());
        rules.flat_map(|r| r.networks.iter().copied()).collect()
    }

    /// Whether any admin policy is present.
    pub fn has_admin(&self) -> bool {
        !self.admins.is_empty() || self.baseline.is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::k8s::admin::{AdminKind, AdminPeer, AdminPort, AdminRule, Subject, decode_admin};
    use crate::k8s::cluster::Container;
    use crate::k8s::policy::NetworkPolicy;
    use crate::k8s::yaml::parse_documents;

    fn labels(pairs: &[(&str, &str)]) -> Labels {
        pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    }

    /// Tenants a and b; the ANP passes a's ingress from a and denies the rest, the BANP
    /// denies everything, a NetworkPolicy in a admits port 80 from a.
    #[test]
    fn each_layer_decides_and_is_named() {
        let admin: Vec<AdminPolicy> = parse_documents(
            "kind: AdminNetworkPolicy
metadata: {name: tenants}
spec:
  priority: 5
  subject: {namespaces: {matchLabels: {tenant: a}}}
  ingress:
  - {name: same-tenant, action: Pass, from: [{namespaces: {matchLabels: {tenant: a}}}]}
  - {name: other-tenants, action: Deny, from: [{namespaces: {}}]}
---
kind: BaselineAdminNetworkPolicy
metadata: {name: default}
spec:
  subject: {namespaces: {}}
  ingress: [{name: deny-all, action: Deny, from: [{namespaces: {}}]}]
",
        )
        .unwrap()
        .iter()
        .map(|v| decode_admin(v).unwrap().policy)
        .collect();
        let mut np = crate::k8s::decode::decode_policy(
            &parse_documents(
                "kind: NetworkPolicy
metadata: {name: web, namespace: a}
spec: {podSelector: {}, ingress: [{ports: [{port: 80}]}]}",
            )
            .unwrap()[0],
        )
        .unwrap()
        .policy;
        np.spec.apply_defaults();
        let (la, lb) = (labels(&[("tenant", "a")]), labels(&[("tenant", "b")]));
        let none = Labels::new();
        let containers: [Container; 0] = [];
        let pods = [
            PodRef { namespace: "a", labels: &none, ip: None, containers: &containers },
            PodRef { namespace: "a", labels: &none, ip: None, containers: &containers },
            PodRef { namespace: "b", labels: &none, ip: None, containers: &containers },
        ];
        let nss = [NsRef { name: "a", labels: &la }, NsRef { name: "b", labels: &lb }];
        let nps: [&NetworkPolicy; 1] = [&np];
        let admin: Vec<&AdminPolicy> = admin.iter().collect();
        let l = Layered::new(Compiled::new(&pods, &nss, &nps), vec!["a/web".into()], &nss, &admin);
        let ingress = |src, dst, port| {
            l.decide(Direction::Ingress, End::Pod(dst), End::Pod(src), End::Pod(dst), port, Protocol::Tcp)
        };
        let d = ingress(1, 0, 80);
        assert_eq!((d.allowed, d.layer, d.policy.as_str()), (true, Layer::NetworkPolicy, "a/web"));
        let d = ingress(1, 0, 81);
        assert_eq!((d.allowed, d.layer), (false, Layer::NetworkPolicy));
        let d = ingress(2, 0, 80);
        assert_eq!(
            (d.allowed, d.layer, d.rule.as_str()),
            (false, Layer::AdminNetworkPolicy, "other-tenants")
        );
        let d = ingress(0, 2, 80);
        assert_eq!(
            (d.allowed, d.layer, d.rule.as_str()),
            (false, Layer::BaselineAdminNetworkPolicy, "deny-all")
        );
        assert!(l.allowed(End::Pod(1), End::Pod(0), 80, Protocol::Tcp));
        let ports = l.allowed_ports(End::Pod(1), End::Pod(0));
        assert_eq!(ports.ranges(Protocol::Tcp), &[(80, 80)]);
        assert!(ports.ranges(Protocol::Udp).is_empty());
        assert!(l.allowed_ports(End::Pod(0), End::Pod(2)).is_empty());
    }

    fn arb_rule() -> impl proptest::strategy::Strategy<Value = AdminRule> {
        use crate::k8s::admin::NamespacedPod;
        use crate::k8s::policy::LabelSelector;
        use proptest::prelude::*;
        let action = prop_oneof![Just(Action::Allow), Just(Action::Deny), Just(Action::Pass)];
        let peer = prop_oneof![
            Just(AdminPeer::Namespaces(LabelSelector::default())),
            Just(AdminPeer::Namespaces(LabelSelector::labels(&[("tenant", "a")]))),
            Just(AdminPeer::Pods(NamespacedPod {
                namespace_selector: LabelSelector::default(),
                pod_selector: LabelSelector::app("x")
            })),
            Just(AdminPeer::Networks(vec!["10.0.0.0/31".into()])),
        ];
        let port = prop_oneof![
            (79u16..82).prop_map(|port| AdminPort::Number { protocol: Protocol::Tcp, port }),
            (79u16..81, 81u16..83).prop_map(|(start, end)| AdminPort::Range {
                protocol: Protocol::Udp,
                start,
                end
            }),
            Just(AdminPort::Named("http".into())),
        ];
        (
            action,
            proptest::collection::vec(peer, 1..3),
            proptest::option::of(proptest::collection::vec(port, 1..3)),
        )
            .prop_map(|(action, peers, ports)| AdminRule { name: "r".into(), action, peers, ports })
    }

    proptest::proptest! {
        /// The port-set walk and the per-port decision agree on random admin policies.
        #[test]
        fn set_walk_agrees_with_single_ports(
            rules in proptest::collection::vec((arb_rule(), proptest::bool::ANY, 0i32..3), 0..5),
        ) {
            use crate::k8s::cluster::ContainerPort;
            let mut admin = Vec::new();
            for (k, (rule, ingress, priority)) in rules.into_iter().enumerate() {
                let baseline = priority == 2 && rule.action != Action::Pass;
                let (ingress_rules, egress) = if ingress { (vec![rule], vec![]) } else { (vec![], vec![rule]) };
                admin.push(AdminPolicy {
                    kind: if baseline { AdminKind::Baseline } else { AdminKind::Admin },
                    name: format!("p{k}"),
                    priority,
                    subject: Subject::Namespaces(crate::k8s::policy::LabelSelector::default()),
                    ingress: ingress_rules,
                    egress,
                });
            }
            let (la, lb, lx) = (labels(&[("tenant", "a")]), labels(&[("tenant", "b")]), labels(&[("app", "x")]));
            let http = [Container { name: "c".into(), image: "i".into(), ports: vec![ContainerPort { name: Some("http".into()), port: 80, protocol: Protocol::Tcp }] }];
            let pods = [
                PodRef { namespace: "a", labels: &lx, ip: Some("10.0.0.1".parse().unwrap()), containers: &http },
                PodRef { namespace: "b", labels: &lb, ip: Some("10.0.0.2".parse().unwrap()), containers: &[] },
            ];
            let nss = [NsRef { name: "a", labels: &la }, NsRef { name: "b", labels: &lb }];
            let refs: Vec<&AdminPolicy> = admin.iter().collect();
            let l = Layered::new(Compiled::new(&pods, &nss, &[]), vec![], &nss, &refs);
            let ends = [End::Pod(0), End::Pod(1), End::Ip("10.0.0.0".parse().unwrap()), End::Ip("9.9.9.9".parse().unwrap())];
            for s in ends {
                for d in ends {
                    let set = l.allowed_ports(s, d);
                    for proto in Protocol::ALL {
                        for port in [1, 78, 79, 80, 81, 82, 83, 65535] {
                            proptest::prop_assert_eq!(set.contains(proto, port), l.allowed(s, d, port, proto), "{:?} -> {:?} {}", s, d, port);
                        }
                    }
                }
            }
        }
    }
}
