//! Table-driven evaluator tests (k8s.md §10.1, §10.2): the upstream e2e network-policy
//! scenarios and the kube-network-policies unit cases, stored as data under
//! `tests/data/k8s/`, run through the evaluator. Every policy in the data also passes the
//! API server's validation.

use std::collections::BTreeMap;
use std::net::Ipv4Addr;

use netpress::k8s::cluster::{Container, ContainerPort, Protocol};
use netpress::k8s::decode::decode_policy;
use netpress::k8s::eval::{Compiled, End, NsRef, PodRef};
use netpress::k8s::labels::Labels;
use netpress::k8s::policy::NetworkPolicy;
use netpress::k8s::validate::validate_policy;
use netpress::k8s::yaml::parse_documents;
use serde_json::Value;

const E2E: &str = include_str!("data/k8s/e2e_netpol.yaml");
const KNP: &str = include_str!("data/k8s/knp_cases.yaml");

struct Pod {
    ns: String,
    name: String,
    labels: Labels,
    ip: Ipv4Addr,
    containers: Vec<Container>,
}

struct World {
    namespaces: BTreeMap<String, Labels>,
    pods: Vec<Pod>,
    policies: BTreeMap<(String, String), NetworkPolicy>,
}

fn labels(pairs: &[(&str, &str)]) -> Labels {
    pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
}

fn policy(v: &Value) -> NetworkPolicy {
    let d = decode_policy(v).unwrap_or_else(|e| panic!("{v}: {}", e.0));
    assert!(d.unknown.is_empty(), "unknown fields {:?} in {v}", d.unknown);
    let mut p = d.policy;
    p.spec.apply_defaults();
    let errors = validate_policy(&p, true);
    assert!(errors.is_empty(), "{v}: {errors:?}");
    p
}

impl World {
    fn allowed(&self, src: &str, dst: &str, port: u16, proto: Protocol) -> bool {
        let refs: Vec<PodRef<'_>> = self
            .pods
            .iter()
            .map(|p| PodRef { namespace: &p.ns, labels: &p.labels, ip: Some(p.ip), containers: &p.containers })
            .collect();
        let nss: Vec<NsRef<'_>> = self.namespaces.iter().map(|(n, l)| NsRef { name: n, labels: l }).collect();
        let policies: Vec<&NetworkPolicy> = self.policies.values().collect();
        let c = Compiled::new(&refs, &nss, &policies);
        let end = |s: &str| match self.pods.iter().position(|p| p.name == s || format!("{}/{}", p.ns, p.name) == s) {
            Some(i) => End::Pod(i),
            None => End::Ip(s.parse().unwrap_or_else(|_| panic!("unknown end {s}"))),
        };
        c.allowed(end(src), end(dst), port, proto)
    }

    fn apply(&mut self, v: &Value) {
        let p = policy(v);
        self.policies.insert((p.meta.namespace.clone(), p.meta.name.clone()), p);
    }
}

/// Namespaces x, y, z; pods a, b, c with ports 80/81 over TCP, UDP and SCTP.
fn e2e_world() -> World {
    let mut namespaces = BTreeMap::new();
    let mut pods = Vec::new();
    let ports: Vec<ContainerPort> = [80u16, 81]
        .iter()
        .flat_map(|&port| {
            Protocol::ALL.into_iter().map(move |protocol| ContainerPort {
                name: Some(format!("serve-{port}-{}", protocol.as_str().to_ascii_lowercase())),
                port,
                protocol,
            })
        })
        .collect();
    let mut ip = 1;
    for ns in ["x", "y", "z"] {
        namespaces.insert(ns.to_string(), labels(&[("kubernetes.io/metadata.name", ns), ("ns", ns)]));
        for p in ["a", "b", "c"] {
            pods.push(Pod {
                ns: ns.into(),
                name: p.into(),
                labels: labels(&[("pod", p)]),
                ip: Ipv4Addr::new(10, 0, 0, ip),
                containers: vec![Container { name: "c".into(), image: "agnhost".into(), ports: ports.clone() }],
            });
            ip += 1;
        }
    }
    World { namespaces, pods, policies: BTreeMap::new() }
}

fn protocol(v: &Value) -> Protocol {
    Protocol::parse(v.as_str().unwrap()).unwrap()
}

fn merge_labels(target: &mut Labels, v: &Value) {
    for (k, val) in v.as_object().unwrap() {
        target.insert(k.clone(), val.as_str().unwrap().to_string());
    }
}

fn run_step(w: &mut World, step: &Value, case: &str, n: usize) {
    for p in step.get("apply").and_then(Value::as_array).into_iter().flatten() {
        w.apply(p);
    }
    for d in step.get("delete").and_then(Value::as_array).into_iter().flatten() {
        let (ns, name) = d.as_str().unwrap().split_once('/').unwrap();
        assert!(w.policies.remove(&(ns.into(), name.into())).is_some(), "{case}: no policy {ns}/{name}");
    }
    for (ns, l) in step.get("labelNamespace").and_then(Value::as_object).into_iter().flatten() {
        merge_labels(w.namespaces.get_mut(ns).unwrap(), l);
    }
    for (pod, l) in step.get("labelPod").and_then(Value::as_object).into_iter().flatten() {
        let p = w.pods.iter_mut().find(|p| format!("{}/{}", p.ns, p.name) == *pod).unwrap();
        merge_labels(&mut p.labels, l);
    }
    let names: Vec<String> = w.pods.iter().map(|p| format!("{}/{}", p.ns, p.name)).collect();
    for table in step["expect"].as_array().unwrap() {
        let port = table["port"].as_u64().unwrap() as u16;
        let proto = protocol(&table["protocol"]);
        let mut wrong = Vec::new();
        for (r, row) in table["rows"].as_array().unwrap().iter().enumerate() {
            for (c, want) in row.as_str().unwrap().chars().enumerate() {
                if r == c {
                    continue;
                }
                let got = w.allowed(&names[r], &names[c], port, proto);
                if got != (want == '.') {
                    wrong.push(format!("{} -> {} want {want}", names[r], names[c]));
                }
            }
        }
        assert!(wrong.is_empty(), "{case} step {n} {port}/{}: {wrong:?}", proto.as_str());
    }
}

#[test]
fn upstream_e2e_scenarios() {
    let cases = parse_documents(E2E).unwrap().remove(0);
    let cases = cases.as_array().unwrap();
    assert!(cases.len() >= 40, "k8s.md §10.1 asks for at least 40 cases");
    for proto in ["UDP", "SCTP"] {
        assert!(E2E.contains(&format!("protocol: {proto}")), "cases for {proto}");
    }
    for case in cases {
        let name = case["name"].as_str().unwrap();
        let mut w = e2e_world();
        for (n, step) in case["steps"].as_array().unwrap().iter().enumerate() {
            run_step(&mut w, step, name, n);
        }
    }
}

fn knp_world() -> World {
    let mut namespaces = BTreeMap::new();
    for (ns, extra) in [("foo", true), ("bar", true), ("blocked", false)] {
        let mut l = labels(&[("kubernetes.io/metadata.name", ns)]);
        if extra {
            l.insert("a".into(), "b".into());
        }
        namespaces.insert(ns.to_string(), l);
    }
    let http = vec![Container {
        name: "c".into(),
        image: "i".into(),
        ports: vec![ContainerPort { name: Some("http".into()), port: 80, protocol: Protocol::Tcp }],
    }];
    let pod = |name: &str, ns: &str, ip: [u8; 4], l: (&str, &str)| Pod {
        ns: ns.into(),
        name: name.into(),
        labels: labels(&[l]),
        ip: Ipv4Addr::from(ip),
        containers: http.clone(),
    };
    let pods = vec![
        pod("a", "foo", [192, 168, 1, 11], ("a", "b")),
        pod("b", "bar", [192, 168, 2, 22], ("a", "b")),
        pod("c", "blocked", [192, 168, 3, 33], ("c", "d")),
        pod("d", "bar", [192, 168, 4, 44], ("c", "d")),
    ];
    World { namespaces, pods, policies: BTreeMap::new() }
}

#[test]
fn kube_network_policies_cases() {
    let cases = parse_documents(KNP).unwrap().remove(0);
    for case in cases.as_array().unwrap() {
        let name = case["name"].as_str().unwrap();
        let mut w = knp_world();
        for p in case["policies"].as_array().unwrap() {
            w.apply(p);
        }
        for check in case["checks"].as_array().unwrap() {
            let c = check.as_array().unwrap();
            let (src, dst) = (c[0].as_str().unwrap(), c[1].as_str().unwrap());
            let port = c[2].as_u64().unwrap() as u16;
            let want = c[4].as_bool().unwrap();
            assert_eq!(w.allowed(src, dst, port, protocol(&c[3])), want, "{name}: {check}");
        }
    }
}
