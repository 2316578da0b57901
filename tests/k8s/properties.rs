//! Property tests of the NetworkPolicy evaluator (docs/k8s.md, "Tests") on random worlds of up to
//! three namespaces × four pods and random policies.
#![cfg(not(target_arch = "wasm32"))]

use std::net::Ipv4Addr;

use netpress::k8s::cluster::{Container, ContainerPort, Protocol};
use netpress::k8s::decode::decode_policy;
use netpress::k8s::eval::{Compiled, End, NsRef, PodRef};
use netpress::k8s::labels::Labels;
use netpress::k8s::meta::Meta;
use netpress::k8s::policy::{
    Direction, Expression, IntOrString, IpBlock, LabelSelector, NetworkPolicy, Peer, PolicyPort, PolicySpec,
    Rule,
};
use netpress::k8s::yaml::{parse_documents, to_json_pretty, to_yaml};
use proptest::prelude::*;

const NAMESPACES: [&str; 3] = ["ns0", "ns1", "ns2"];

#[derive(Debug, Clone)]
struct Pod {
    ns: usize,
    labels: Labels,
    extra_port: bool,
}

#[derive(Debug, Clone)]
struct World {
    ns_team: Vec<String>,
    pods: Vec<Pod>,
}

fn labels(pairs: &[(&str, &str)]) -> Labels {
    pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
}

fn pod_strategy(ns_count: usize) -> impl Strategy<Value = Pod> {
    (
        0..ns_count,
        prop::sample::select(vec!["x", "y", "z"]),
        prop::option::of(prop::sample::select(vec!["fe", "be"])),
        any::<bool>(),
    )
        .prop_map(|(ns, app, tier, extra_port)| {
            let mut l = labels(&[("app", app)]);
            if let Some(t) = tier {
                l.insert("tier".into(), t.into());
            }
            Pod { ns, labels: l, extra_port }
        })
}

fn world_strategy() -> impl Strategy<Value = World> {
    (1usize..=3).prop_flat_map(|n| {
        (
            prop::collection::vec(prop::sample::select(vec!["a".to_string(), "b".to_string()]), n),
            prop::collection::vec(pod_strategy(n), 1..=4 * n),
        )
            .prop_map(|(ns_team, pods)| World { ns_team, pods })
    })
}

fn selector_strategy() -> impl Strategy<Value = LabelSelector> {
    let label = prop::option::of(prop::sample::select(vec!["x", "y", "z"]));
    let expr = prop::option::of((
        prop::sample::select(vec!["app", "tier", "team"]),
        prop::sample::select(vec!["In", "NotIn", "Exists", "DoesNotExist"]),
        prop::sample::subsequence(vec!["x", "y", "fe", "a"], 1..=2),
    ));
    (label, expr).prop_map(|(app, e)| {
        let mut s = LabelSelector::default();
        if let Some(a) = app {
            s.match_labels.insert("app".into(), a.into());
        }
        if let Some((key, op, values)) = e {
            let values = if op == "In" || op == "NotIn" {
                values.iter().map(|v| v.to_string()).collect()
            } else {
                vec![]
            };
            s.match_expressions.push(Expression { key: key.into(), operator: op.into(), values });
        }
        s
    })
}

fn peer_strategy() -> impl Strategy<Value = Peer> {
    prop_oneof![
        selector_strategy().prop_map(|s| Peer { pod_selector: Some(s), ..Peer::default() }),
        selector_strategy().prop_map(|s| Peer { namespace_selector: Some(s), ..Peer::default() }),
        (selector_strategy(), selector_strategy()).prop_map(|(p, n)| Peer {
            pod_selector: Some(p),
            namespace_selector: Some(n),
            ip_block: None
        }),
        (0u8..3, any::<bool>()).prop_map(|(third, except)| Peer {
            ip_block: Some(IpBlock {
                cidr: format!("10.0.{third}.0/24"),
                except: if except { vec![format!("10.0.{third}.0/30")] } else { vec![] },
            }),
            ..Peer::default()
        }),
    ]
}

fn port_strategy() -> impl Strategy<Value = PolicyPort> {
    let proto = prop::option::of(prop::sample::select(vec!["TCP", "UDP"]));
    let port = prop_oneof![
        Just((None, None)),
        Just((Some(IntOrString::Int(80)), None)),
        Just((Some(IntOrString::Int(81)), None)),
        Just((Some(IntOrString::Int(79)), Some(81))),
        Just((Some(IntOrString::Str("http".into())), None)),
        Just((Some(IntOrString::Str("extra".into())), None)),
    ];
    (proto, port).prop_map(|(protocol, (port, end_port))| PolicyPort {
        protocol: protocol.map(str::to_string),
        port,
        end_port,
    })
}

fn rule_strategy() -> impl Strategy<Value = Rule> {
    (prop::collection::vec(peer_strategy(), 0..3), prop::collection::vec(port_strategy(), 0..3))
        .prop_map(|(peers, ports)| Rule { peers, ports })
}

fn policy_strategy(ns_count: usize) -> impl Strategy<Value = NetworkPolicy> {
    (
        0..ns_count,
        selector_strategy(),
        prop::collection::vec(rule_strategy(), 0..3),
        prop::collection::vec(rule_strategy(), 0..3),
        prop::sample::select(vec![vec![], vec!["Ingress"], vec!["Egress"], vec!["Ingress", "Egress"]]),
        0u32..1000,
    )
        .prop_map(|(ns, pod_selector, ingress, egress, types, id)| {
            let mut spec = PolicySpec {
                pod_selector,
                ingress,
                egress,
                policy_types: types.iter().map(|t| t.to_string()).collect(),
            };
            spec.apply_defaults();
            NetworkPolicy {
                meta: Meta { name: format!("p{id}"), namespace: NAMESPACES[ns].into(), ..Meta::default() },
                spec,
            }
        })
}

fn case_strategy() -> impl Strategy<Value = (World, Vec<NetworkPolicy>)> {
    world_strategy().prop_flat_map(|w| {
        let n = w.ns_team.len();
        (Just(w), prop::collection::vec(policy_strategy(n), 0..5))
    })
}

struct Built {
    ns_labels: Vec<Labels>,
    containers: Vec<Vec<Container>>,
    ips: Vec<Ipv4Addr>,
}

fn build(w: &World) -> Built {
    let ns_labels = w
        .ns_team
        .iter()
        .enumerate()
        .map(|(i, t)| labels(&[("kubernetes.io/metadata.name", NAMESPACES[i]), ("team", t)]))
        .collect();
    let containers = w
        .pods
        .iter()
        .map(|p| {
            let mut ports =
                vec![ContainerPort { name: Some("http".into()), port: 80, protocol: Protocol::Tcp }];
            if p.extra_port {
                ports.push(ContainerPort { name: Some("extra".into()), port: 81, protocol: Protocol::Udp });
            }
            vec![Container { name: "c".into(), image: "i".into(), ports }]
        })
        .collect();
    let ips = (0..w.pods.len()).map(|i| Ipv4Addr::new(10, 0, (w.pods[i].ns) as u8, i as u8 + 1)).collect();
    Built { ns_labels, containers, ips }
}

const PROBES: [(u16, Protocol); 4] =
    [(80, Protocol::Tcp), (81, Protocol::Tcp), (80, Protocol::Udp), (81, Protocol::Udp)];

/// Which side to judge.
#[derive(Clone, Copy, PartialEq)]
enum Side {
    Both,
    /// Both directions, pod to pod only (named ports never match bare IPs).
    PodsOnly,
    Ingress,
    Egress,
}

fn matrix(w: &World, policies: &[NetworkPolicy], side: Side) -> Vec<bool> {
    let b = build(w);
    let pods: Vec<PodRef<'_>> = w
        .pods
        .iter()
        .enumerate()
        .map(|(i, p)| PodRef {
            namespace: NAMESPACES[p.ns],
            labels: &p.labels,
            ip: Some(b.ips[i]),
            containers: &b.containers[i],
        })
        .collect();
    let nss: Vec<NsRef<'_>> =
        b.ns_labels.iter().enumerate().map(|(i, l)| NsRef { name: NAMESPACES[i], labels: l }).collect();
    let refs: Vec<&NetworkPolicy> = policies.iter().collect();
    let c = Compiled::new(&pods, &nss, &refs);
    let judge = |src: End, dst: End, port: u16, proto: Protocol| match side {
        Side::Both | Side::PodsOnly => c.allowed(src, dst, port, proto),
        Side::Ingress => c.ingress_ok(src, dst, port, proto),
        Side::Egress => c.egress_ok(src, dst, port, proto),
    };
    let outsider = End::Ip(Ipv4Addr::new(10, 0, 1, 200));
    let mut out = Vec::new();
    for s in 0..pods.len() {
        for d in 0..pods.len() {
            for (port, proto) in PROBES {
                out.push(judge(End::Pod(s), End::Pod(d), port, proto));
            }
        }
        if side != Side::PodsOnly {
            out.push(judge(outsider, End::Pod(s), 80, Protocol::Tcp));
            out.push(judge(End::Pod(s), outsider, 80, Protocol::Tcp));
        }
    }
    out
}

fn superset(bigger: &[bool], smaller: &[bool]) -> bool {
    bigger.iter().zip(smaller).all(|(b, s)| *b || !*s)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn adding_a_rule_peer_or_port_never_removes_a_connection(
        (w, ps) in case_strategy(), extra in rule_strategy(), peer in peer_strategy(), port in port_strategy(),
        pick in any::<prop::sample::Index>(), dir_ingress in any::<bool>(),
    ) {
        prop_assume!(!ps.is_empty());
        let before = matrix(&w, &ps, Side::Both);
        let i = pick.index(ps.len());
        let dir = if dir_ingress { Direction::Ingress } else { Direction::Egress };
        let mut with_rule = ps.clone();
        let mut r = extra.clone();
        for p in &mut r.ports { p.protocol.get_or_insert_with(|| "TCP".into()); }
        with_rule[i].spec.rules_mut(dir).push(r);
        prop_assert!(superset(&matrix(&w, &with_rule, Side::Both), &before));
        if let Some(rule) = ps[i].spec.rules(dir).first() {
            if !rule.peers.is_empty() {
                let mut with_peer = ps.clone();
                with_peer[i].spec.rules_mut(dir)[0].peers.push(peer);
                prop_assert!(superset(&matrix(&w, &with_peer, Side::Both), &before));
            }
            if !rule.ports.is_empty() {
                let mut with_port = ps.clone();
                let mut port = port;
                port.protocol.get_or_insert_with(|| "TCP".into());
                with_port[i].spec.rules_mut(dir)[0].ports.push(port);
                prop_assert!(superset(&matrix(&w, &with_port, Side::Both), &before));
            }
        }
    }

    #[test]
    fn without_policies_everything_is_allowed(w in world_strategy()) {
        prop_assert!(matrix(&w, &[], Side::Both).iter().all(|a| *a));
    }

    #[test]
    fn a_no_rule_policy_for_a_listed_type_adds_nothing((w, ps) in case_strategy(), pick in any::<prop::sample::Index>()) {
        prop_assume!(!ps.is_empty());
        let p = &ps[pick.index(ps.len())];
        let mut copy = p.clone();
        copy.meta.name = "copy".into();
        copy.spec.ingress.clear();
        copy.spec.egress.clear();
        let mut with = ps.clone();
        with.push(copy);
        prop_assert_eq!(matrix(&w, &with, Side::Both), matrix(&w, &ps, Side::Both));
    }

    #[test]
    fn order_of_policies_rules_and_peers_is_irrelevant((w, ps) in case_strategy()) {
        let mut reordered: Vec<NetworkPolicy> = ps.iter().rev().cloned().collect();
        for p in &mut reordered {
            p.spec.ingress.reverse();
            p.spec.egress.reverse();
            for r in p.spec.ingress.iter_mut().chain(p.spec.egress.iter_mut()) {
                r.peers.reverse();
                r.ports.reverse();
            }
        }
        prop_assert_eq!(matrix(&w, &reordered, Side::Both), matrix(&w, &ps, Side::Both));
    }

    #[test]
    fn a_named_port_equals_its_number_where_every_pod_defines_it((w, ps) in case_strategy()) {
        // Every pod defines http = 80/TCP.
        let mut numbered = ps.clone();
        for p in &mut numbered {
            for r in p.spec.ingress.iter_mut().chain(p.spec.egress.iter_mut()) {
                for port in &mut r.ports {
                    if port.port == Some(IntOrString::Str("http".into())) && port.protocol.as_deref() == Some("TCP") {
                        port.port = Some(IntOrString::Int(80));
                    }
                }
            }
        }
        prop_assert_eq!(matrix(&w, &numbered, Side::PodsOnly), matrix(&w, &ps, Side::PodsOnly));
    }

    #[test]
    fn an_empty_port_entry_is_all_tcp((w, ps) in case_strategy()) {
        let mut explicit = ps.clone();
        for p in &mut explicit {
            for r in p.spec.ingress.iter_mut().chain(p.spec.egress.iter_mut()) {
                for port in &mut r.ports {
                    if port.port.is_none() && port.protocol.as_deref() == Some("TCP") {
                        port.port = Some(IntOrString::Int(1));
                        port.end_port = Some(65535);
                    }
                }
            }
        }
        prop_assert_eq!(matrix(&w, &explicit, Side::Both), matrix(&w, &ps, Side::Both));
    }

    #[test]
    fn each_direction_ignores_the_other_directions_policies((w, ps) in case_strategy()) {
        let lists = |p: &NetworkPolicy, t: &str| p.spec.policy_types.iter().any(|x| x == t);
        let no_egress_only: Vec<NetworkPolicy> = ps.iter().filter(|p| lists(p, "Ingress")).cloned().collect();
        prop_assert_eq!(matrix(&w, &no_egress_only, Side::Ingress), matrix(&w, &ps, Side::Ingress));
        let no_ingress_only: Vec<NetworkPolicy> = ps.iter().filter(|p| lists(p, "Egress")).cloned().collect();
        prop_assert_eq!(matrix(&w, &no_ingress_only, Side::Egress), matrix(&w, &ps, Side::Egress));
    }

    #[test]
    fn print_then_parse_is_the_identity((_, ps) in case_strategy()) {
        for p in &ps {
            for text in [to_yaml(&p.to_json()), to_json_pretty(&p.to_json())] {
                let doc = parse_documents(&text).unwrap().remove(0);
                let back = decode_policy(&doc).unwrap();
                prop_assert!(back.unknown.is_empty());
                prop_assert_eq!(&back.policy.spec, &p.spec);
                prop_assert_eq!(&back.policy.meta.name, &p.meta.name);
            }
        }
    }
}
