//! Writing a neutral policy in a provider's form (docs/microseg-render.md, "Writing"): how the
//! oracle renders P\* and the baselines render theirs, with the same allow set on the hidden
//! window.
//!
//! - NSG: an ASG per group; per rule an Outbound rule (when its source may be a tenant VM) and
//!   an Inbound rule (when its destination may be), then Deny-all at 4096 in both directions.
//! - SG: a group per neutral group, plus one per CIDR or `any` a rule applies at (listing the
//!   visible VMs inside); per rule egress at the source's group and ingress at the
//!   destination's.
//! - k8s: a default-deny policy, then per (side, selector) a policy with the rules applying
//!   there; a group selects its listed VMs (`vm In [...]`) or, for VMs new after the visible
//!   windows, its plurality role (`role=R` and no `vm` label), which is the replay rule.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use crate::flows::tenant::{ADMINS, STORAGE, dotted};

use super::allow::plurality;
use super::forms::Form;
use super::policy::{Peer, Policy, Proto, Reserved, Rule};
use super::world::World;

/// A neutral policy in `form` (the neutral JSON itself for `np`).
pub fn write(form: Form, p: &Policy, w: &World) -> Value {
    match form {
        Form::Np => p.to_json(),
        Form::Nsg => nsg(p),
        Form::Sg => sg(p, w),
        Form::K8s => k8s(p, w),
    }
}

/// The CIDRs of a reserved group (`any`: 0.0.0.0/0).
fn cidrs(r: Reserved) -> Vec<String> {
    let hosts = |a: &[u32]| a.iter().map(|&x| format!("{}/32", dotted(x))).collect();
    match r {
        Reserved::Internet => vec!["198.18.0.0/15".into(), "203.0.113.0/24".into()],
        Reserved::Admin => hosts(&ADMINS),
        Reserved::Lb => hosts(&[crate::flows::tenant::LB]),
        Reserved::Storage => hosts(&STORAGE),
        Reserved::Telemetry => hosts(&[crate::flows::tenant::TELEMETRY]),
        Reserved::Any => vec!["0.0.0.0/0".into()],
    }
}

/// Whether a peer may hold a tenant VM (so the rule applies at that VM's NIC).
fn tenant_side(p: &Peer) -> bool {
    match p {
        Peer::Group(_) | Peer::Reserved(Reserved::Any) => true,
        Peer::Reserved(_) => false,
        Peer::Cidr(net, len) => {
            let l = (*len).min(8);
            let mask = if l == 0 { 0 } else { u32::MAX << (32 - l) };
            net & mask == (10 << 24) & mask
        }
    }
}

fn port_text(&(a, b): &(u16, u16)) -> String {
    if a == b { a.to_string() } else { format!("{a}-{b}") }
}

fn nsg_side(p: &Peer, side: &str) -> (String, Value) {
    match p {
        Peer::Group(g) => (format!("{side}ApplicationSecurityGroups"), json!([{ "id": g }])),
        Peer::Reserved(Reserved::Any) => (format!("{side}AddressPrefix"), json!("*")),
        Peer::Reserved(r) => (format!("{side}AddressPrefixes"), json!(cidrs(*r))),
        Peer::Cidr(..) => (format!("{side}AddressPrefix"), json!(p.text())),
    }
}

fn nsg_rule(name: String, priority: usize, inbound: bool, r: Option<&Rule>) -> Value {
    let mut props = json!({
        "priority": priority, "direction": if inbound { "Inbound" } else { "Outbound" },
        "access": if r.is_some() { "Allow" } else { "Deny" }, "sourcePortRange": "*",
    });
    let m = props.as_object_mut().expect("an object");
    let any = Peer::Reserved(Reserved::Any);
    let (src, dst) = r.map_or((&any, &any), |r| (&r.src, &r.dst));
    let proto = r.map_or(Proto::Any, |r| r.proto);
    m.insert("protocol".into(), json!(["Tcp", "Udp", "*"][proto as usize]));
    match r.map_or(&[][..], |r| &r.ports[..]) {
        [] => m.insert("destinationPortRange".into(), json!("*")),
        ports => {
            m.insert("destinationPortRanges".into(), json!(ports.iter().map(port_text).collect::<Vec<_>>()))
        }
    };
    for (peer, side) in [(src, "source"), (dst, "destination")] {
        let (k, v) = nsg_side(peer, side);
        m.insert(k, v);
    }
    json!({"name": name, "properties": props})
}

fn nsg(p: &Policy) -> Value {
    let asgs: Vec<Value> = p
        .groups
        .iter()
        .map(|(g, m)| json!({"name": g, "members": m.iter().map(|&a| dotted(a)).collect::<Vec<_>>()}))
        .collect();
    let (mut rules, mut prio) = (Vec::new(), [100usize, 100]);
    for (i, r) in p.rules.iter().enumerate() {
        for (inbound, on) in [(false, tenant_side(&r.src)), (true, tenant_side(&r.dst))] {
            if on {
                let dir = if inbound { "in" } else { "out" };
                rules.push(nsg_rule(
                    format!("r{}-{dir}", i + 1),
                    prio[usize::from(inbound)],
                    inbound,
                    Some(r),
                ));
                prio[usize::from(inbound)] += 1;
            }
        }
    }
    rules.push(nsg_rule("deny-all-in".into(), 4096, true, None));
    rules.push(nsg_rule("deny-all-out".into(), 4096, false, None));
    json!({"applicationSecurityGroups": asgs, "securityRules": rules})
}

/// The visible VMs' addresses (held at the end of the visible windows) inside a CIDR or `any`.
fn inside(p: &Peer, w: &World) -> Vec<u32> {
    let mut ips: Vec<u32> = w
        .visible
        .iter()
        .map(|&v| w.trace.vms[v as usize].ip)
        .filter(|&ip| match p {
            Peer::Cidr(net, len) => *len == 0 || ip >> (32 - len) == net >> (32 - len),
            _ => true,
        })
        .filter(|&ip| w.holder(ip).is_some())
        .collect();
    ips.sort_unstable();
    ips.dedup();
    ips
}

/// The SG group a rule applies at for a tenant side.
fn sg_subject(p: &Peer) -> String {
    match p {
        Peer::Group(g) => g.clone(),
        _ => format!("cidr-{}", p.text().replace(['.', '/'], "-")).replace("cidr-any", "cidr-0-0-0-0-0"),
    }
}

fn sg_permissions(r: &Rule, peer: &Peer) -> Vec<Value> {
    let mut to = json!({});
    match peer {
        Peer::Group(g) => to["UserIdGroupPairs"] = json!([{ "GroupName": g }]),
        Peer::Reserved(x) => {
            to["IpRanges"] = json!(cidrs(*x).iter().map(|c| json!({"CidrIp": c})).collect::<Vec<_>>())
        }
        Peer::Cidr(..) => to["IpRanges"] = json!([{ "CidrIp": peer.text() }]),
    }
    let protos: &[&str] = match r.proto {
        Proto::Any if r.ports.is_empty() => &["-1"],
        Proto::Any => &["tcp", "udp"],
        Proto::Tcp => &["tcp"],
        Proto::Udp => &["udp"],
    };
    let ranges = if r.ports.is_empty() { vec![(0, u16::MAX)] } else { r.ports.clone() };
    let mut out = Vec::new();
    for &proto in protos {
        for &(a, b) in &ranges {
            let mut perm = to.clone();
            perm["IpProtocol"] = json!(proto);
            if proto != "-1" {
                perm["FromPort"] = json!(a);
                perm["ToPort"] = json!(b);
            }
            out.push(perm);
        }
    }
    out
}

/// A security group being written: members, ingress and egress permissions.
type SgGroup = (Vec<u32>, Vec<Value>, Vec<Value>);

fn sg(p: &Policy, w: &World) -> Value {
    let mut groups: BTreeMap<String, SgGroup> =
        p.groups.iter().map(|(g, m)| (g.clone(), (m.clone(), Vec::new(), Vec::new()))).collect();
    for r in &p.rules {
        for (egress, subject, peer) in [(true, &r.src, &r.dst), (false, &r.dst, &r.src)] {
            if !tenant_side(subject) {
                continue;
            }
            let g = groups
                .entry(sg_subject(subject))
                .or_insert_with(|| (inside(subject, w), Vec::new(), Vec::new()));
            let list = if egress { &mut g.2 } else { &mut g.1 };
            list.extend(sg_permissions(r, peer));
        }
    }
    let groups: Vec<Value> = groups
        .into_iter()
        .map(|(name, (m, ing, eg))| {
            json!({"GroupName": name, "Members": m.iter().map(|&a| dotted(a)).collect::<Vec<_>>(),
                   "IpPermissions": ing, "IpPermissionsEgress": eg})
        })
        .collect();
    json!({ "SecurityGroups": groups })
}

/// The pod selectors a peer's tenant VMs are chosen by (one per alternative).
fn k8s_selectors(p: &Peer, pol: &Policy, w: &World) -> Vec<Value> {
    let vm_in = |ips: &[u32]| {
        let v: Vec<String> = ips.iter().map(|&a| dotted(a).replace('.', "-")).collect();
        (!v.is_empty()).then(|| json!({"matchExpressions": [{"key": "vm", "operator": "In", "values": v}]}))
    };
    match p {
        Peer::Group(g) => {
            let members = pol.groups.get(g).map_or(&[][..], Vec::as_slice);
            let holders: Vec<u32> = members.iter().filter_map(|&ip| w.holder(ip)).collect();
            let listed: Vec<u32> = members.iter().copied().filter(|&ip| w.holder(ip).is_some()).collect();
            let new = plurality(w, &holders).map(|r| {
                json!({"matchLabels": {"role": r}, "matchExpressions": [{"key": "vm", "operator": "DoesNotExist"}]})
            });
            vm_in(&listed).into_iter().chain(new).collect()
        }
        Peer::Reserved(Reserved::Any) => vec![json!({})],
        _ => vm_in(&inside(p, w)).into_iter().collect(),
    }
}

fn k8s_peers(p: &Peer, pol: &Policy, w: &World) -> Vec<Value> {
    let block = |c: String| json!({"ipBlock": {"cidr": c}});
    match p {
        Peer::Group(_) => k8s_selectors(p, pol, w).into_iter().map(|s| json!({ "podSelector": s })).collect(),
        Peer::Reserved(r) => cidrs(*r).into_iter().map(block).collect(),
        Peer::Cidr(..) => vec![block(p.text())],
    }
}

fn k8s_ports(r: &Rule) -> Option<Vec<Value>> {
    let protos: &[&str] = match r.proto {
        Proto::Any if r.ports.is_empty() => return None,
        Proto::Any => &["TCP", "UDP"],
        Proto::Tcp => &["TCP"],
        Proto::Udp => &["UDP"],
    };
    let mut out = Vec::new();
    for &proto in protos {
        if r.ports.is_empty() {
            out.push(json!({ "protocol": proto }));
        }
        for &(a, b) in &r.ports {
            let mut port = json!({"protocol": proto, "port": a});
            if b > a {
                port["endPort"] = json!(b);
            }
            out.push(port);
        }
    }
    Some(out)
}

fn k8s(p: &Policy, w: &World) -> Value {
    let mut by: BTreeMap<(bool, String), (Value, Vec<Value>)> = BTreeMap::new();
    for r in &p.rules {
        for (egress, subject, peer) in [(true, &r.src, &r.dst), (false, &r.dst, &r.src)] {
            if !tenant_side(subject) {
                continue;
            }
            let mut rule = json!({});
            if peer != &Peer::Reserved(Reserved::Any) {
                rule[if egress { "to" } else { "from" }] = json!(k8s_peers(peer, p, w));
            }
            if let Some(ports) = k8s_ports(r) {
                rule["ports"] = json!(ports);
            }
            for sel in k8s_selectors(subject, p, w) {
                by.entry((egress, sel.to_string())).or_insert_with(|| (sel, Vec::new())).1.push(rule.clone());
            }
        }
    }
    let meta = |name: String| json!({"name": name, "namespace": "tenant"});
    let mut out = vec![json!({
        "apiVersion": "networking.k8s.io/v1", "kind": "NetworkPolicy", "metadata": meta("default-deny".into()),
        "spec": {"podSelector": {}, "policyTypes": ["Ingress", "Egress"]},
    })];
    for (i, ((egress, _), (sel, rules))) in by.into_iter().enumerate() {
        let (ty, key) = if egress { ("Egress", "egress") } else { ("Ingress", "ingress") };
        out.push(json!({
            "apiVersion": "networking.k8s.io/v1", "kind": "NetworkPolicy", "metadata": meta(format!("p{}", i + 1)),
            "spec": {"podSelector": sel, "policyTypes": [ty], key: rules},
        }));
    }
    Value::Array(out)
}
