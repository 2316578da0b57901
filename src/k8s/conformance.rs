//! Conformance suites that run natively and in the browser alike.
//!
//! The data live under `tests/data/k8s/` and are passed in as text (tests `include_str!`
//! them), so the same checks run in `cargo test` and in a `wasm-bindgen-test` in headless
//! Chrome:
//! - [`e2e_scenarios`]: the upstream e2e network-policy scenarios (docs/k8s.md, "Tests");
//! - [`knp_cases`]: the kube-network-policies unit cases;
//! - [`admin_cases`]: the network-policy-api conformance scenarios for AdminNetworkPolicy
//!   and BaselineAdminNetworkPolicy;
//!
//! Each returns the number of checks that passed, or the first failure as text.

use std::collections::BTreeMap;
use std::net::Ipv4Addr;

use serde_json::Value;

use super::admin::{AdminPolicy, decode_admin};
use super::cluster::{Container, ContainerPort, Protocol};
use super::decode::decode_policy;
use super::eval::{Compiled, End, NsRef, PodRef};
use super::labels::Labels;
use super::policy::NetworkPolicy;
use super::tiers::Layered;
use super::validate::validate_policy;
use super::yaml::parse_documents;

struct Pod {
    ns: String,
    name: String,
    labels: Labels,
    ip: Ipv4Addr,
    containers: Vec<Container>,
}

/// A small world of namespaces, pods and policies.
struct World {
    namespaces: BTreeMap<String, Labels>,
    pods: Vec<Pod>,
    policies: BTreeMap<(String, String), NetworkPolicy>,
}

fn labels(pairs: &[(&str, &str)]) -> Labels {
    pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
}

fn text<'a>(v: &'a Value, what: &str) -> Result<&'a str, String> {
    v.as_str().ok_or_else(|| format!("{what} is not a string: {v}"))
}

fn protocol(v: &Value) -> Result<Protocol, String> {
    Protocol::parse(text(v, "protocol")?).ok_or_else(|| format!("unknown protocol {v}"))
}

fn policy(v: &Value) -> Result<NetworkPolicy, String> {
    let d = decode_policy(v).map_err(|e| format!("{v}: {}", e.0))?;
    if !d.unknown.is_empty() {
        return Err(format!("unknown fields {:?} in {v}", d.unknown));
    }
    let mut p = d.policy;
    p.spec.apply_defaults();
    let errors = validate_policy(&p, true);
    if !errors.is_empty() {
        return Err(format!("{v}: {errors:?}"));
    }
    Ok(p)
}

impl World {
    fn end(&self, s: &str) -> Result<End, String> {
        match self.pods.iter().position(|p| p.name == s || format!("{}/{}", p.ns, p.name) == s) {
            Some(i) => Ok(End::Pod(i)),
            None => s.parse().map(End::Ip).map_err(|_| format!("unknown end {s}")),
        }
    }

    /// The pods and namespaces as the evaluator sees them.
    fn refs(&self) -> (Vec<PodRef<'_>>, Vec<NsRef<'_>>) {
        let refs = self
            .pods
            .iter()
            .map(|p| PodRef {
                namespace: &p.ns,
                labels: &p.labels,
                ip: Some(p.ip),
                containers: &p.containers,
            })
            .collect();
        (refs, self.namespaces.iter().map(|(n, l)| NsRef { name: n, labels: l }).collect())
    }

    fn allowed(&self, src: &str, dst: &str, port: u16, proto: Protocol) -> Result<bool, String> {
        let (refs, nss) = self.refs();
        let policies: Vec<&NetworkPolicy> = self.policies.values().collect();
        let c = Compiled::new(&refs, &nss, &policies);
        Ok(c.allowed(self.end(src)?, self.end(dst)?, port, proto))
    }

    /// Like [`World::allowed`], with the admin layers around the NetworkPolicies; also
    /// checks that the port-set walk agrees with the single-port decision.
    fn layered_allowed(
        &self,
        admin: &[AdminPolicy],
        src: &str,
        dst: &str,
        port: u16,
        proto: Protocol,
    ) -> Result<bool, String> {
        let (refs, nss) = self.refs();
        let policies: Vec<&NetworkPolicy> = self.policies.values().collect();
        let names = policies.iter().map(|p| format!("{}/{}", p.meta.namespace, p.meta.name)).collect();
        let admin: Vec<&AdminPolicy> = admin.iter().collect();
        let layered = Layered::new(Compiled::new(&refs, &nss, &policies), names, &nss, &admin);
        let (s, d) = (self.end(src)?, self.end(dst)?);
        let one = layered.allowed(s, d, port, proto);
        if one != layered.allowed_ports(s, d).contains(proto, port) {
            return Err(format!("{src} -> {dst} {port}/{}: the port-set walk disagrees", proto.as_str()));
        }
        Ok(one)
    }

    fn apply(&mut self, v: &Value) -> Result<(), String> {
        let p = policy(v)?;
        self.policies.insert((p.meta.namespace.clone(), p.meta.name.clone()), p);
        Ok(())
    }
}

/// Namespaces x, y, z; pods a, b, c each, ports 80/81 over TCP, UDP and SCTP.
fn e2e_world() -> World {
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
    let mut namespaces = BTreeMap::new();
    let mut pods = Vec::new();
    for (n, ns) in ["x", "y", "z"].into_iter().enumerate() {
        namespaces.insert(ns.to_string(), labels(&[("kubernetes.io/metadata.name", ns), ("ns", ns)]));
        for (k, p) in ["a", "b", "c"].into_iter().enumerate() {
            pods.push(Pod {
                ns: ns.into(),
                name: p.into(),
                labels: labels(&[("pod", p)]),
                ip: Ipv4Addr::new(10, 0, 0, (3 * n + k + 1) as u8),
                containers: vec![Container {
                    name: "c".into(),
                    image: "agnhost".into(),
                    ports: ports.clone(),
                }],
            });
        }
    }
    World { namespaces, pods, policies: BTreeMap::new() }
}

fn merge_labels(target: &mut Labels, v: &Value) -> Result<(), String> {
    for (k, val) in v.as_object().ok_or("labels must be a map")? {
        target.insert(k.clone(), text(val, "label value")?.to_string());
    }
    Ok(())
}

fn list<'a>(v: &'a Value, key: &str) -> &'a [Value] {
    v.get(key).and_then(Value::as_array).map_or(&[], Vec::as_slice)
}

fn run_step(w: &mut World, step: &Value, case: &str, n: usize) -> Result<usize, String> {
    for p in list(step, "apply") {
        w.apply(p)?;
    }
    for d in list(step, "delete") {
        let (ns, name) = text(d, "delete")?.split_once('/').ok_or("delete wants namespace/name")?;
        w.policies
            .remove(&(ns.into(), name.into()))
            .ok_or_else(|| format!("{case}: no policy {ns}/{name}"))?;
    }
    for (ns, l) in step.get("labelNamespace").and_then(Value::as_object).into_iter().flatten() {
        merge_labels(w.namespaces.get_mut(ns).ok_or("unknown namespace")?, l)?;
    }
    for (pod, l) in step.get("labelPod").and_then(Value::as_object).into_iter().flatten() {
        let p = w.pods.iter_mut().find(|p| format!("{}/{}", p.ns, p.name) == *pod).ok_or("unknown pod")?;
        merge_labels(&mut p.labels, l)?;
    }
    let names: Vec<String> = w.pods.iter().map(|p| format!("{}/{}", p.ns, p.name)).collect();
    let mut checked = 0;
    for table in list(step, "expect") {
        let port = table["port"].as_u64().ok_or("port")? as u16;
        let proto = protocol(&table["protocol"])?;
        for (r, row) in list(table, "rows").iter().enumerate() {
            for (c, want) in text(row, "row")?.chars().enumerate() {
                if r == c {
                    continue;
                }
                if w.allowed(&names[r], &names[c], port, proto)? != (want == '.') {
                    return Err(format!(
                        "{case} step {n} {port}/{}: {} -> {} should be {want}",
                        proto.as_str(),
                        names[r],
                        names[c]
                    ));
                }
                checked += 1;
            }
        }
    }
    Ok(checked)
}

fn cases(data: &str) -> Result<Vec<Value>, String> {
    let doc = parse_documents(data)?.into_iter().next().ok_or("no cases")?;
    doc.as_array().cloned().ok_or_else(|| "cases must be a list".to_string())
}

/// Runs `tests/data/k8s/e2e_netpol.yaml`; returns the number of probes checked.
pub fn e2e_scenarios(data: &str) -> Result<usize, String> {
    let mut checked = 0;
    for case in cases(data)? {
        let name = text(&case["name"], "name")?;
        let mut w = e2e_world();
        for (n, step) in list(&case, "steps").iter().enumerate() {
            checked += run_step(&mut w, step, name, n)?;
        }
    }
    Ok(checked)
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

/// Runs `tests/data/k8s/knp_cases.yaml`; returns the number of checks.
pub fn knp_cases(data: &str) -> Result<usize, String> {
    let mut checked = 0;
    for case in cases(data)? {
        let name = text(&case["name"], "name")?;
        let mut w = knp_world();
        for p in list(&case, "policies") {
            w.apply(p)?;
        }
        for check in list(&case, "checks") {
            let c = check.as_array().ok_or("a check is a list")?;
            let [src, dst, port, proto, want] = c.as_slice() else {
                return Err(format!("{name}: bad check {check}"));
            };
            let port = port.as_u64().ok_or("port")? as u16;
            let got = w.allowed(text(src, "src")?, text(dst, "dst")?, port, protocol(proto)?)?;
            if Some(got) != want.as_bool() {
                return Err(format!("{name}: {check} gave {got}"));
            }
            checked += 1;
        }
    }
    Ok(checked)
}

/// The network-policy-api world: four houses, two pods each.
fn houses_world() -> World {
    let ports: Vec<ContainerPort> = [
        (80, Protocol::Tcp),
        (8080, Protocol::Tcp),
        (53, Protocol::Udp),
        (5353, Protocol::Udp),
        (9003, Protocol::Sctp),
        (9005, Protocol::Sctp),
    ]
    .into_iter()
    .map(|(port, protocol)| ContainerPort { name: None, port, protocol })
    .collect();
    let mut namespaces = BTreeMap::new();
    let mut pods = Vec::new();
    for (n, (house, set)) in [
        ("gryffindor", "harry-potter"),
        ("slytherin", "draco-malfoy"),
        ("hufflepuff", "cedric-diggory"),
        ("ravenclaw", "luna-lovegood"),
    ]
    .into_iter()
    .enumerate()
    {
        let ns = format!("network-policy-conformance-{house}");
        namespaces.insert(
            ns.clone(),
            labels(&[("kubernetes.io/metadata.name", &ns), ("conformance-house", house)]),
        );
        for k in 0..2u8 {
            pods.push(Pod {
                ns: ns.clone(),
                name: format!("{set}-{k}"),
                labels: labels(&[("conformance-house", house)]),
                ip: Ipv4Addr::new(10, 244, n as u8, k + 2),
                containers: vec![Container {
                    name: set.into(),
                    image: "agnhost".into(),
                    ports: ports.clone(),
                }],
            });
        }
    }
    World { namespaces, pods, policies: BTreeMap::new() }
}

/// The key of an object in an admin case: `ns/name` for a NetworkPolicy, else its name.
fn object_key(v: &Value) -> String {
    let name = v.pointer("/metadata/name").and_then(Value::as_str).unwrap_or("");
    match (v.get("kind").and_then(Value::as_str), v.pointer("/metadata/namespace").and_then(Value::as_str)) {
        (Some("NetworkPolicy"), Some(ns)) => format!("{ns}/{name}"),
        _ => name.to_string(),
    }
}

fn admin_step(objects: &mut Vec<(String, Value)>, step: &Value) -> Result<(), String> {
    for o in list(step, "apply") {
        let key = object_key(o);
        objects.retain(|(k, _)| *k != key);
        objects.push((key, o.clone()));
    }
    let find = |objects: &mut Vec<(String, Value)>, name: &Value| -> Result<usize, String> {
        let name = text(name, "policy")?;
        objects.iter().position(|(k, _)| k == name).ok_or_else(|| format!("no policy {name}"))
    };
    if let Some([name, dir, i, j]) = step.get("swap").and_then(Value::as_array).map(Vec::as_slice) {
        let at = find(objects, name)?;
        let rules = objects[at]
            .1
            .pointer_mut(&format!("/spec/{}", text(dir, "direction")?))
            .and_then(Value::as_array_mut);
        let (i, j) = (i.as_u64().ok_or("index")? as usize, j.as_u64().ok_or("index")? as usize);
        rules.filter(|r| i.max(j) < r.len()).ok_or("swap: no such rules")?.swap(i, j);
    }
    if let Some([name, ptr, value]) = step.get("set").and_then(Value::as_array).map(Vec::as_slice) {
        let at = find(objects, name)?;
        *objects[at].1.pointer_mut(text(ptr, "pointer")?).ok_or("set: no such field")? = value.clone();
    }
    for d in list(step, "delete") {
        let at = find(objects, d)?;
        objects.remove(at);
    }
    Ok(())
}

/// Runs `tests/data/k8s/anp_cases.yaml`; returns the number of checks.
pub fn admin_cases(data: &str) -> Result<usize, String> {
    let mut checked = 0;
    for case in cases(data)? {
        let name = text(&case["name"], "name")?;
        let mut w = houses_world();
        let mut objects: Vec<(String, Value)> = Vec::new();
        for (n, step) in list(&case, "steps").iter().enumerate() {
            admin_step(&mut objects, step).map_err(|e| format!("{name} step {n}: {e}"))?;
            w.policies.clear();
            let mut admin: Vec<AdminPolicy> = Vec::new();
            for (_, o) in &objects {
                if o.get("kind").and_then(Value::as_str) == Some("NetworkPolicy") {
                    w.apply(o)?;
                } else {
                    admin.push(decode_admin(o).map_err(|e| format!("{name} step {n}: {e}"))?.policy);
                }
            }
            for check in list(step, "check") {
                let c = check.as_array().ok_or("a check is a list")?;
                let [src, dst, port, proto, want] = c.as_slice() else {
                    return Err(format!("{name}: bad check {check}"));
                };
                let port = port.as_u64().ok_or("port")? as u16;
                let got =
                    w.layered_allowed(&admin, text(src, "src")?, text(dst, "dst")?, port, protocol(proto)?)?;
                if Some(got) != want.as_bool() {
                    return Err(format!("{name} step {n}: {check} gave {got}"));
                }
                checked += 1;
            }
        }
    }
    Ok(checked)
}
