//! From the model to connections: which workloads the report names, and which address
//! ranges outside the cluster it names.
//!
//! Pods with a controlling owner are reported as the owner (`default/cart-69c8[ReplicaSet]`),
//! as other connectivity listers do, unless the owner's pods differ in something the policies
//! can see (labels, container ports, or which IP blocks hold their address): then each pod
//! is reported by itself, since one line could not be true for all of them. A workload's
//! connections to itself are never printed.
//!
//! Addresses outside the cluster are cut into ranges at every boundary of every `ipBlock`
//! (its CIDR and each `except`), so all addresses of one range are treated alike by every
//! rule; ranges with the same connections to one workload are printed together.

use std::collections::BTreeMap;
use std::net::Ipv4Addr;

use ipnet::IpNet;

use super::input::{Input, Workload};
use crate::k8s::admin::AdminPolicy;
use crate::k8s::eval::{Compiled, End, NsRef, PodRef, PortSet};
use crate::k8s::policy::NetworkPolicy;
use crate::k8s::tiers::Layered;
use crate::k8s::validate::parse_cidr;

/// One allowed pair.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Connection {
    pub src: String,
    pub dst: String,
    pub ports: PortSet,
}

/// A reported workload: its name and the pod that stands for it.
pub(super) struct Node {
    key: String,
    rep: usize,
}

/// Every CIDR and `except` block the policies name (IPv4 only: pods here have IPv4 addresses).
fn policy_blocks(policies: &[NetworkPolicy]) -> Vec<ipnet::Ipv4Net> {
    let texts = policies
        .iter()
        .flat_map(|p| p.spec.ingress.iter().chain(&p.spec.egress))
        .flat_map(|r| &r.peers)
        .filter_map(|peer| peer.ip_block.as_ref())
        .flat_map(|b| std::iter::once(&b.cidr).chain(&b.except));
    texts
        .filter_map(|t| match parse_cidr(t) {
            Some(IpNet::V4(n)) => Some(n),
            _ => None,
        })
        .collect()
}

/// The address space cut at every block boundary: the first address of each range, sorted
/// (the range ends just before the next one, the last at 255.255.255.255).
fn range_starts(blocks: &[ipnet::Ipv4Net]) -> Vec<u32> {
    let mut starts = vec![0u32];
    for b in blocks {
        starts.push(u32::from(b.network()));
        if let Some(next) = u32::from(b.broadcast()).checked_add(1) {
            starts.push(next);
        }
    }
    starts.sort_unstable();
    starts.dedup();
    starts
}

fn range_of(starts: &[u32], ip: Ipv4Addr) -> usize {
    starts.partition_point(|&s| s <= u32::from(ip)) - 1
}

fn range_end(starts: &[u32], k: usize) -> u32 {
    starts.get(k + 1).map_or(u32::MAX, |s| s - 1)
}

/// Groups pods by controlling owner where their pods look alike to the policies.
fn nodes(workloads: &[Workload], starts: &[u32]) -> Vec<Node> {
    let mut owners: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    let mut out = Vec::new();
    for (i, w) in workloads.iter().enumerate() {
        if w.owner.is_some() {
            owners.entry(w.owner_key()).or_default().push(i);
        } else {
            out.push(Node { key: w.key(), rep: i });
        }
    }
    let signature =
        |w: &Workload| (w.labels.clone(), w.containers.clone(), w.ip.map(|ip| range_of(starts, ip)));
    for (key, pods) in owners {
        let first = signature(&workloads[pods[0]]);
        if pods.iter().all(|&i| signature(&workloads[i]) == first) {
            out.push(Node { key, rep: pods[0] });
        } else {
            out.extend(pods.iter().map(|&i| Node { key: workloads[i].key(), rep: i }));
        }
    }
    out
}

/// `a.b.c.d-e.f.g.h` for each run of adjacent ranges, comma-separated, then `[External]`.
fn external_key(starts: &[u32], ranges: &[usize]) -> String {
    let mut runs: Vec<(u32, u32)> = Vec::new();
    for &k in ranges {
        let (lo, hi) = (starts[k], range_end(starts, k));
        match runs.last_mut() {
            Some(last) if last.1.checked_add(1) == Some(lo) => last.1 = hi,
            _ => runs.push((lo, hi)),
        }
    }
    let texts: Vec<String> =
        runs.iter().map(|&(lo, hi)| format!("{}-{}", Ipv4Addr::from(lo), Ipv4Addr::from(hi))).collect();
    format!("{}[External]", texts.join(","))
}

/// Connections between `node` and every range outside the cluster, both ways.
fn external(c: &Layered<'_>, starts: &[u32], node: &Node, out: &mut Vec<Connection>) {
    for inbound in [true, false] {
        // Distinct port sets in the order first seen, each with the ranges that have it.
        let mut groups: Vec<(PortSet, Vec<usize>)> = Vec::new();
        for (k, &start) in starts.iter().enumerate() {
            let ip = End::Ip(Ipv4Addr::from(start));
            let pod = End::Pod(node.rep);
            let ports = if inbound { c.allowed_ports(ip, pod) } else { c.allowed_ports(pod, ip) };
            if ports.is_empty() {
                continue;
            }
            match groups.iter_mut().find(|(p, _)| *p == ports) {
                Some((_, ranges)) => ranges.push(k),
                None => groups.push((ports, vec![k])),
            }
        }
        for (ports, ranges) in groups {
            let ext = external_key(starts, &ranges);
            let (src, dst) = if inbound { (ext, node.key.clone()) } else { (node.key.clone(), ext) };
            out.push(Connection { src, dst, ports });
        }
    }
}

impl Input {
    /// Compiles every layer for the input and hands `f` the evaluator, the reported
    /// workloads and the outside ranges.
    fn analyze<R>(&self, f: impl FnOnce(&Layered<'_>, &[Node], &[u32]) -> R) -> R {
        let namespaces = self.all_namespaces();
        let pods: Vec<PodRef<'_>> = self
            .workloads
            .iter()
            .map(|w| PodRef {
                namespace: &w.namespace,
                labels: &w.labels,
                ip: w.ip,
                containers: &w.containers,
            })
            .collect();
        let nss: Vec<NsRef<'_>> = namespaces.iter().map(|(n, l)| NsRef { name: n, labels: l }).collect();
        let policies: Vec<&NetworkPolicy> = self.policies.iter().collect();
        let names = self.policies.iter().map(|p| format!("{}/{}", p.meta.namespace, p.meta.name)).collect();
        let admin: Vec<&AdminPolicy> = self.admin.iter().collect();
        let layered = Layered::new(Compiled::new(&pods, &nss, &policies), names, &nss, &admin);
        let mut blocks = policy_blocks(&self.policies);
        blocks.extend(layered.networks());
        let starts = range_starts(&blocks);
        let nodes = nodes(&self.workloads, &starts);
        f(&layered, &nodes, &starts)
    }

    /// Every allowed pair, between workloads and between a workload and the address ranges
    /// outside the cluster, sorted by source then destination.
    pub fn connections(&self) -> Vec<Connection> {
        self.analyze(|layered, nodes, starts| {
            let mut out = Vec::new();
            for a in nodes {
                for b in nodes.iter().filter(|b| b.key != a.key) {
                    let ports = layered.allowed_ports(End::Pod(a.rep), End::Pod(b.rep));
                    if !ports.is_empty() {
                        out.push(Connection { src: a.key.clone(), dst: b.key.clone(), ports });
                    }
                }
                external(layered, starts, a, &mut out);
            }
            out.sort_by(|x, y| (&x.src, &x.dst).cmp(&(&y.src, &y.dst)));
            out
        })
    }

    /// Which layer and rule decide each port from `src` to `dst` (each a reported name as
    /// printed, `ns/name` without the kind, or an IPv4 address).
    pub fn explain(&self, src: &str, dst: &str) -> Result<String, String> {
        self.analyze(|layered, nodes, _| {
            let (s, s_key) = resolve(nodes, &self.workloads, src)?;
            let (d, d_key) = resolve(nodes, &self.workloads, dst)?;
            Ok(super::explain::explain(layered, (s, &s_key), (d, &d_key)))
        })
    }
}

/// An end named on the command line: a reported workload (with or without its `[Kind]`), a
/// pod of a reported owner, or an address.
fn resolve(nodes: &[Node], workloads: &[Workload], name: &str) -> Result<(End, String), String> {
    let bare = |key: &str| key.split_once('[').map_or(key.to_string(), |(k, _)| k.to_string());
    if let Some(n) = nodes.iter().find(|n| n.key == name || bare(&n.key) == name) {
        return Ok((End::Pod(n.rep), n.key.clone()));
    }
    if let Some(i) = workloads.iter().position(|w| w.key() == name || bare(&w.key()) == name) {
        return Ok((End::Pod(i), workloads[i].key()));
    }
    match name.parse::<Ipv4Addr>() {
        Ok(ip) => Ok((End::Ip(ip), format!("{ip}[External]"))),
        Err(_) => Err(format!("--explain: no workload or address {name:?}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_split_exactly_at_block_edges() {
        let blocks: Vec<ipnet::Ipv4Net> =
            ["10.0.0.0/8", "10.1.0.0/16"].iter().map(|s| s.parse().unwrap()).collect();
        let starts = range_starts(&blocks);
        let texts: Vec<String> = (0..starts.len()).map(|k| external_key(&starts, &[k])).collect();
        assert_eq!(
            texts,
            [
                "0.0.0.0-9.255.255.255[External]",
                "10.0.0.0-10.0.255.255[External]",
                "10.1.0.0-10.1.255.255[External]",
                "10.2.0.0-10.255.255.255[External]",
                "11.0.0.0-255.255.255.255[External]",
            ]
        );
        assert_eq!(
            external_key(&starts, &[0, 1, 3, 4]),
            "0.0.0.0-10.0.255.255[External],10.2.0.0-255.255.255.255[External]".replace("[External],", ",")
        );
        assert_eq!(range_of(&starts, Ipv4Addr::new(10, 1, 2, 3)), 2);
        assert_eq!(range_starts(&[]), [0]);
        assert_eq!(external_key(&[0], &[0]), "0.0.0.0-255.255.255.255[External]");
    }
}
