//! The probe matrix, the benchmark's oracle, and its mismatch report (docs/k8s.md describes
//! the probes; docs/scoring.md how the matrix is scored).
//!
//! Sources are the 12 workload pods, targets the 11 Online Boutique Services (no workload
//! probes its own). Name probes go through DNS and the Service (all endpoints must admit
//! the connection on the targetPort); pod probes hit the target pod directly with traffic
//! the intent denies (UDP, an off port, the Service port where it differs). Expected values
//! are the evaluator's verdicts on the pristine cluster, never a stored table.

use std::borrow::Cow;
use std::sync::{Arc, OnceLock};

use super::admin::AdminPolicy;
use super::cluster::{Cluster, Protocol, WORKLOADS, pod_name};
use super::eval::{Compiled, CompiledPolicy, End, NsRef, PodRef, namespace_labels};
use super::labels::Labels;
use super::policy::{IntOrString, NetworkPolicy};
use super::tiers::Layered;

/// What a probe exercises.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ProbeKind {
    /// TCP to `<svc>:<Service port>` by DNS name.
    Name,
    /// UDP to the pod's targetPort.
    Udp,
    /// TCP to targetPort + 1.
    OffPort,
    /// TCP to the Service port on the pod (only where it differs from the targetPort).
    ServicePort,
}

/// One probe.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Probe {
    pub src: &'static str,
    pub dst: &'static str,
    /// Positions of `src` and `dst` in [`WORKLOADS`].
    pub src_i: usize,
    pub dst_i: usize,
    pub kind: ProbeKind,
    pub port: u16,
    pub proto: Protocol,
}

impl Probe {
    /// The probe's target as report lines show it: `adservice:9555` or
    /// `pod/adservice-<h>-<s>:9555/UDP`.
    pub fn target(&self) -> String {
        match self.kind {
            ProbeKind::Name => format!("{}:{}", self.dst, self.port),
            _ => format!("pod/{}:{}/{}", pod_name(self.dst, 0), self.port, self.proto.as_str()),
        }
    }
}

/// A probe's outcome.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Verdict {
    False,
    True,
    /// Some endpoints of a Service admit the connection and others do not.
    Partial,
}

impl Verdict {
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::False => "False",
            Verdict::True => "True",
            Verdict::Partial => "Partial",
        }
    }

    fn of(b: bool) -> Verdict {
        if b { Verdict::True } else { Verdict::False }
    }
}

/// Verdicts in [`probes`] order.
pub type Matrix = Vec<Verdict>;

/// Every probe, ordered by source, target, then kind (name, UDP, off-port, Service port).
pub fn probes() -> &'static [Probe] {
    static PROBES: OnceLock<Vec<Probe>> = OnceLock::new();
    PROBES.get_or_init(|| {
        let mut out = Vec::new();
        for (src_i, src) in WORKLOADS.iter().enumerate() {
            for (dst_i, dst) in WORKLOADS.iter().enumerate().filter(|(_, w)| w.name != src.name) {
                let (Some((_, svc_port)), Some(tp)) = (dst.service, dst.port) else { continue };
                let probe = |kind, port, proto| Probe {
                    src: src.name,
                    dst: dst.name,
                    src_i,
                    dst_i,
                    kind,
                    port,
                    proto,
                };
                out.push(probe(ProbeKind::Name, svc_port, Protocol::Tcp));
                out.push(probe(ProbeKind::Udp, tp, Protocol::Udp));
                out.push(probe(ProbeKind::OffPort, tp + 1, Protocol::Tcp));
                if svc_port != tp {
                    out.push(probe(ProbeKind::ServicePort, svc_port, Protocol::Tcp));
                }
            }
        }
        out
    })
}

/// The cluster's pods and namespaces in the evaluator's form.
pub fn pod_refs(c: &Cluster) -> (Vec<PodRef<'_>>, Vec<NsRef<'_>>) {
    let pods = c
        .pods
        .iter()
        .map(|p| PodRef {
            namespace: &p.meta.namespace,
            labels: &p.meta.labels,
            ip: Some(p.ip),
            containers: &p.containers,
        })
        .collect();
    let nss = c.namespaces.iter().map(|n| NsRef { name: &n.meta.name, labels: &n.meta.labels }).collect();
    (pods, nss)
}

/// The matrix of `c` with its own policies: its NetworkPolicies and, when it has any, its
/// admin policies around them.
pub fn evaluate_cluster(c: &Cluster) -> Matrix {
    let policies: Vec<&NetworkPolicy> = c.policies.values().collect();
    Prepared::new(c).matrix_with(&policies, &c.admin_policies())
}

/// The matrix of `c`'s pods and Services under `policies`.
pub fn evaluate(c: &Cluster, policies: &[&NetworkPolicy]) -> Matrix {
    Prepared::new(c).matrix(policies)
}

/// Everything about a cluster that a probe needs apart from the policies, looked up once:
/// the pods in the evaluator's form, each workload's pod, each Service's endpoints with
/// their resolved targetPorts, and kube-dns's endpoints. The generator keeps one for the
/// pristine cluster and evaluates many policy sets against it.
pub struct Prepared<'a> {
    pods: Vec<PodRef<'a>>,
    namespaces: Vec<NsRef<'a>>,
    ns_labels: Vec<Option<&'a Labels>>,
    workload_pod: Vec<Option<usize>>,
    endpoints: Vec<Vec<(usize, Option<u16>)>>,
    dns: Vec<(usize, Option<u16>)>,
    /// Policies compiled once, lent to every matrix that is given the same allocation: the
    /// generator's sets share the intended policies, and compiling them was a third of a
    /// matrix.
    known: Vec<(Arc<NetworkPolicy>, CompiledPolicy)>,
}

impl<'a> Prepared<'a> {
    pub fn new(c: &'a Cluster) -> Self {
        let (pods, namespaces) = pod_refs(c);
        let workload_pod = WORKLOADS
            .iter()
            .map(|w| c.pods.iter().position(|p| p.meta.namespace == "default" && p.deployment == w.name))
            .collect();
        let endpoints = WORKLOADS
            .iter()
            .map(|w| {
                c.service("default", w.name).map_or_else(Vec::new, |s| service_endpoints(c, s, Protocol::Tcp))
            })
            .collect();
        let dns = c
            .service("kube-system", "kube-dns")
            .map_or_else(Vec::new, |s| service_endpoints(c, s, Protocol::Udp));
        let ns_labels = namespace_labels(&pods, &namespaces);
        Prepared { pods, namespaces, ns_labels, workload_pod, endpoints, dns, known: Vec::new() }
    }

    /// Compiles `policies` now; [`Prepared::matrix`] reuses them when handed these same ones.
    pub fn knowing(mut self, policies: impl IntoIterator<Item = Arc<NetworkPolicy>>) -> Self {
        for p in policies {
            let compiled = CompiledPolicy::new(&p, &self.pods, &self.ns_labels);
            self.known.push((p, compiled));
        }
        self
    }

    fn compile(&self, policy: &NetworkPolicy) -> Cow<'_, CompiledPolicy> {
        match self.known.iter().find(|(p, _)| std::ptr::eq(Arc::as_ptr(p), policy)) {
            Some((_, compiled)) => Cow::Borrowed(compiled),
            None => Cow::Owned(CompiledPolicy::new(policy, &self.pods, &self.ns_labels)),
        }
    }

    /// The matrix under `policies`.
    pub fn matrix(&self, policies: &[&NetworkPolicy]) -> Matrix {
        self.matrix_with(policies, &[])
    }

    /// The matrix under `policies` and the admin policies `admin` (ANPs before them, the
    /// BANP after; see [`Layered`]).
    pub fn matrix_with(&self, policies: &[&NetworkPolicy], admin: &[&AdminPolicy]) -> Matrix {
        let compiled = Compiled::assemble(&self.pods, policies.iter().map(|p| self.compile(p)).collect());
        if admin.is_empty() {
            return self.probe_all(|s, d, port, proto| compiled.allowed(s, d, port, proto));
        }
        let names = policies.iter().map(|p| format!("{}/{}", p.meta.namespace, p.meta.name)).collect();
        let layered = Layered::new(compiled, names, &self.namespaces, admin);
        self.probe_all(|s, d, port, proto| layered.allowed(s, d, port, proto))
    }

    /// Every probe's verdict, with `allowed` deciding each connection.
    fn probe_all(&self, allowed: impl Fn(End, End, u16, Protocol) -> bool) -> Matrix {
        let reaches = |src: usize, ep: &(usize, Option<u16>), proto| {
            ep.1.is_some_and(|tp| allowed(End::Pod(src), End::Pod(ep.0), tp, proto))
        };
        let dns_ok: Vec<bool> = self
            .workload_pod
            .iter()
            .map(|src| {
                src.is_some_and(|s| {
                    !self.dns.is_empty() && self.dns.iter().all(|ep| reaches(s, ep, Protocol::Udp))
                })
            })
            .collect();
        probes()
            .iter()
            .map(|p| {
                let Some(src) = self.workload_pod[p.src_i] else { return Verdict::False };
                match p.kind {
                    ProbeKind::Name if !dns_ok[p.src_i] => Verdict::False,
                    ProbeKind::Name => {
                        let eps = &self.endpoints[p.dst_i];
                        match eps.iter().filter(|ep| reaches(src, ep, Protocol::Tcp)).count() {
                            0 => Verdict::False,
                            n if n == eps.len() => Verdict::True,
                            _ => Verdict::Partial,
                        }
                    }
                    _ => Verdict::of(
                        self.workload_pod[p.dst_i]
                            .is_some_and(|d| allowed(End::Pod(src), End::Pod(d), p.port, p.proto)),
                    ),
                }
            })
            .collect()
    }
}

/// The endpoints of a Service's first port of `proto`: pod indexes with the targetPort
/// resolved on each pod (`None` when a named targetPort is missing on that pod).
fn service_endpoints(
    c: &Cluster,
    svc: &super::cluster::Service,
    proto: Protocol,
) -> Vec<(usize, Option<u16>)> {
    let Some(port) = svc.ports.iter().find(|p| p.protocol == proto) else { return Vec::new() };
    let Some(sel) = svc.selector.as_ref().filter(|s| !s.is_empty()) else { return Vec::new() };
    c.pods
        .iter()
        .enumerate()
        .filter(|(_, p)| {
            p.meta.namespace == svc.meta.namespace && sel.iter().all(|(k, v)| p.meta.labels.get(k) == Some(v))
        })
        .map(|(i, p)| (i, resolve_target(&port.target, p, proto)))
        .collect()
}

/// A Service targetPort on one endpoint pod (a named targetPort resolves per pod).
fn resolve_target(target: &IntOrString, pod: &super::cluster::Pod, proto: Protocol) -> Option<u16> {
    match target {
        IntOrString::Int(n) => u16::try_from(*n).ok(),
        IntOrString::Str(name) => pod
            .ports()
            .find(|p| p.protocol == proto && p.name.as_deref() == Some(name.as_str()))
            .map(|p| p.port),
    }
}

/// The probes whose actual verdict differs from the expected one, as indexes.
pub fn mismatches(expected: &[Verdict], actual: &[Verdict]) -> Vec<usize> {
    expected.iter().zip(actual).enumerate().filter(|(_, (e, a))| e != a).map(|(i, _)| i).collect()
}

/// One report line.
pub fn mismatch_line(i: usize, expected: Verdict, actual: Verdict) -> String {
    // Every task's report starts from the same probes; their halves are written once.
    static HEADS: OnceLock<Vec<String>> = OnceLock::new();
    let heads = HEADS.get_or_init(|| {
        probes().iter().map(|p| format!("Mismatch: {} \u{2192} {}", p.src, p.target())).collect()
    });
    format!("{} (Expected: {}, Actual: {})", heads[i], expected.as_str(), actual.as_str())
}

/// One line per mismatch.
pub fn mismatch_lines(expected: &[Verdict], actual: &[Verdict]) -> Vec<String> {
    mismatches(expected, actual).into_iter().map(|i| mismatch_line(i, expected[i], actual[i])).collect()
}

/// The connectivity report: one line per mismatch, or `No mismatches found.`.
pub fn report(expected: &[Verdict], actual: &[Verdict]) -> String {
    report_text(&mismatch_lines(expected, actual))
}

/// The report of some mismatch lines.
pub fn report_text(lines: &[String]) -> String {
    if lines.is_empty() { "No mismatches found.".to_string() } else { lines.join("\n") }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn probe_counts() {
        let name = probes().iter().filter(|p| p.kind == ProbeKind::Name).count();
        assert_eq!(name, 121);
        assert_eq!(probes().len() - name, 264);
    }

    #[test]
    fn without_policies_everything_is_true() {
        let c = Cluster::pristine();
        assert!(evaluate(&c, &[]).iter().all(|v| *v == Verdict::True));
    }
}
