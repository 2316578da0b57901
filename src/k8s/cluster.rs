//! The emulated cluster: one kind node running Online Boutique v0.10.4 (docs/k8s.md).
//!
//! The model is typed and holds only what the benchmark observes: namespaces and their
//! labels, deployments, replica sets and pods with their labels, IPs and container ports,
//! Services with selectors and port mappings (endpoints are derived from them), and the
//! NetworkPolicies. Every task starts from the same pristine cluster; only policies (the
//! faults) and, through `kubectl label`, labels change.

use std::collections::BTreeMap;
use std::net::Ipv4Addr;
use std::sync::Arc;

use super::admin::{AdminKind, AdminObject, AdminPolicy};
use super::labels::Labels;
use super::meta::{self, CLUSTER_EPOCH, FIRST_RESOURCE_VERSION, Meta, OwnerRef, WORKLOADS_AT};
use super::policy::{IntOrString, NetworkPolicy};

/// A transport protocol of ports and probes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Protocol {
    Tcp,
    Udp,
    Sctp,
}

impl Protocol {
    pub const ALL: [Protocol; 3] = [Protocol::Tcp, Protocol::Udp, Protocol::Sctp];

    pub fn as_str(self) -> &'static str {
        match self {
            Protocol::Tcp => "TCP",
            Protocol::Udp => "UDP",
            Protocol::Sctp => "SCTP",
        }
    }

    pub fn parse(s: &str) -> Option<Protocol> {
        Protocol::ALL.into_iter().find(|p| p.as_str() == s)
    }
}

/// One Online Boutique workload (one row of the table below).
#[derive(Debug, Clone, Copy)]
pub struct Workload {
    pub name: &'static str,
    pub container: &'static str,
    /// Container port (= the Service's targetPort); loadgenerator has none.
    pub port: Option<u16>,
    /// The container port's name (currencyservice only).
    pub port_name: Option<&'static str>,
    /// The Service port's name and number; `None` for loadgenerator (no Service).
    pub service: Option<(&'static str, u16)>,
}

const fn wl(
    name: &'static str,
    container: &'static str,
    port: Option<u16>,
    port_name: Option<&'static str>,
    service: Option<(&'static str, u16)>,
) -> Workload {
    Workload { name, container, port, port_name, service }
}

/// The 12 workloads in table order (which is alphabetical).
pub const WORKLOADS: [Workload; 12] = [
    wl("adservice", "server", Some(9555), None, Some(("grpc", 9555))),
    wl("cartservice", "server", Some(7070), None, Some(("grpc", 7070))),
    wl("checkoutservice", "server", Some(5050), None, Some(("grpc", 5050))),
    wl("currencyservice", "server", Some(7000), Some("grpc"), Some(("grpc", 7000))),
    wl("emailservice", "server", Some(8080), None, Some(("grpc", 5000))),
    wl("frontend", "server", Some(8080), None, Some(("http", 80))),
    wl("loadgenerator", "main", None, None, None),
    wl("paymentservice", "server", Some(50051), None, Some(("grpc", 50051))),
    wl("productcatalogservice", "server", Some(3550), None, Some(("grpc", 3550))),
    wl("recommendationservice", "server", Some(8080), None, Some(("grpc", 8080))),
    wl("redis-cart", "redis", Some(6379), None, Some(("tcp-redis", 6379))),
    wl("shippingservice", "server", Some(50051), None, Some(("grpc", 50051))),
];

/// The workload called `name`.
pub fn workload(name: &str) -> Option<&'static Workload> {
    WORKLOADS.iter().find(|w| w.name == name)
}

pub const NODE_NAME: &str = "kind-control-plane";
pub const NODE_IP: Ipv4Addr = Ipv4Addr::new(172, 18, 0, 2);
pub const KUBE_DNS_IP: Ipv4Addr = Ipv4Addr::new(10, 96, 0, 10);
pub const COREDNS_IMAGE: &str = "registry.k8s.io/coredns/coredns:v1.12.1";
const FRONTEND_NODE_PORT: u16 = 30867;

/// A container port.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContainerPort {
    pub name: Option<String>,
    pub port: u16,
    pub protocol: Protocol,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Container {
    pub name: String,
    pub image: String,
    pub ports: Vec<ContainerPort>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pod {
    pub meta: Meta,
    pub ip: Ipv4Addr,
    pub containers: Vec<Container>,
    /// The owning deployment's name.
    pub deployment: String,
}

impl Pod {
    /// Every container port of the pod.
    pub fn ports(&self) -> impl Iterator<Item = &ContainerPort> {
        self.containers.iter().flat_map(|c| c.ports.iter())
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Deployment {
    pub meta: Meta,
    pub replicas: u32,
    pub selector: Labels,
    pub template_labels: Labels,
    pub containers: Vec<Container>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReplicaSet {
    pub meta: Meta,
    pub replicas: u32,
    pub selector: Labels,
    pub containers: Vec<Container>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServicePort {
    pub name: String,
    pub protocol: Protocol,
    pub port: u16,
    pub target: IntOrString,
    pub node_port: Option<u16>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Service {
    pub meta: Meta,
    pub load_balancer: bool,
    pub cluster_ip: Ipv4Addr,
    /// `None` for selector-less Services (`kubernetes`).
    pub selector: Option<Labels>,
    pub ports: Vec<ServicePort>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Namespace {
    pub meta: Meta,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Node {
    pub meta: Meta,
}

/// The whole cluster state. Lists are kept sorted by (namespace, name), the API's order.
#[derive(Debug, Clone, PartialEq)]
pub struct Cluster {
    /// The virtual clock, seconds since the Unix epoch.
    pub now: i64,
    last_rv: u64,
    /// Creations per `kind/namespace/name`, for uids.
    creations: BTreeMap<String, u32>,
    pub node: Node,
    // The object lists are shared between clones (every task and episode starts from the same
    // pristine cluster) and copied on the first write (`Arc::make_mut`), so starting an
    // episode does not copy every pod.
    pub namespaces: Arc<Vec<Namespace>>,
    pub deployments: Arc<Vec<Deployment>>,
    pub replicasets: Arc<Vec<ReplicaSet>>,
    pub pods: Arc<Vec<Pod>>,
    pub services: Arc<Vec<Service>>,
    /// Metadata of the Endpoints objects (one per Service); their addresses are derived.
    pub endpoint_meta: Arc<Vec<Meta>>,
    pub policies: BTreeMap<(String, String), NetworkPolicy>,
    /// The cluster-scoped AdminNetworkPolicies and the BaselineAdminNetworkPolicy, by kind
    /// and name (so ANPs come first, in name order).
    pub admin: BTreeMap<(AdminKind, String), AdminObject>,
}

/// FNV-1a, 64 bit.
fn fnv1a(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3))
}

/// `len` base-27 digits of FNV-1a(`s`), low digit first, over kube's safe alphabet.
pub fn name_hash(s: &str, len: usize) -> String {
    const ALPHABET: &[u8; 27] = b"bcdfghjklmnpqrstvwxz2456789";
    let mut n = fnv1a(s);
    (0..len)
        .map(|_| {
            let c = ALPHABET[(n % 27) as usize] as char;
            n /= 27;
            c
        })
        .collect()
}

/// The ReplicaSet name suffix (`pod-template-hash`) of a deployment.
pub fn template_hash(deploy: &str) -> String {
    name_hash(deploy, 10)
}

/// The name of the `i`-th pod of a deployment: `<deploy>-<h>-<s>`, where `s` hashes
/// `<deploy>/pod` for the first pod and `<deploy>/pod/<i>` for later ones.
pub fn pod_name(deploy: &str, i: usize) -> String {
    let key = if i == 0 { format!("{deploy}/pod") } else { format!("{deploy}/pod/{i}") };
    format!("{deploy}-{}-{}", template_hash(deploy), name_hash(&key, 5))
}

fn labels(pairs: &[(&str, &str)]) -> Labels {
    pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
}

fn workload_containers(w: &Workload) -> Vec<Container> {
    let image = if w.name == "redis-cart" {
        "redis:alpine".to_string()
    } else {
        format!("us-central1-docker.pkg.dev/google-samples/microservices-demo/{}:v0.10.4", w.name)
    };
    let ports = w
        .port
        .map(|p| ContainerPort { name: w.port_name.map(str::to_string), port: p, protocol: Protocol::Tcp })
        .into_iter()
        .collect();
    vec![Container { name: w.container.to_string(), image, ports }]
}

fn coredns_containers() -> Vec<Container> {
    let port = |name: &str, port, protocol| ContainerPort { name: Some(name.to_string()), port, protocol };
    vec![Container {
        name: "coredns".into(),
        image: COREDNS_IMAGE.into(),
        ports: vec![
            port("dns", 53, Protocol::Udp),
            port("dns-tcp", 53, Protocol::Tcp),
            port("metrics", 9153, Protocol::Tcp),
        ],
    }]
}

impl Cluster {
    /// The healthy cluster before any policy exists.
    pub fn pristine() -> Cluster {
        let mut c = Cluster {
            now: CLUSTER_EPOCH,
            last_rv: FIRST_RESOURCE_VERSION - 1,
            creations: BTreeMap::new(),
            node: Node { meta: Meta::default() },
            namespaces: Arc::default(),
            deployments: Arc::default(),
            replicasets: Arc::default(),
            pods: Arc::default(),
            services: Arc::default(),
            endpoint_meta: Arc::default(),
            policies: BTreeMap::new(),
            admin: BTreeMap::new(),
        };
        c.node.meta = c.new_meta("Node", "", NODE_NAME, CLUSTER_EPOCH, node_labels());
        for ns in ["default", "kube-system"] {
            let meta = c.new_meta("Namespace", "", ns, CLUSTER_EPOCH, Labels::new());
            Arc::make_mut(&mut c.namespaces).push(Namespace { meta });
        }
        c.impose_namespace_labels();
        c.add_system_services();
        let dns = labels(&[("k8s-app", "kube-dns")]);
        c.add_workload("kube-system", "coredns", 2, &dns, coredns_containers(), CLUSTER_EPOCH, &[2, 3]);
        for (i, w) in WORKLOADS.iter().enumerate() {
            let app = labels(&[("app", w.name)]);
            c.add_workload("default", w.name, 1, &app, workload_containers(w), WORKLOADS_AT, &[5 + i as u8]);
            c.add_workload_service(w, &app);
        }
        c.add_endpoint_meta();
        c.sort();
        c
    }

    /// The Endpoints objects are created with their Services.
    fn add_endpoint_meta(&mut self) {
        let services: Vec<(String, String, i64, Labels)> = self
            .services
            .iter()
            .map(|s| (s.meta.namespace.clone(), s.meta.name.clone(), s.meta.created, s.meta.labels.clone()))
            .collect();
        for (ns, name, at, labels) in services {
            let meta = self.new_meta("Endpoints", &ns, &name, at, labels);
            Arc::make_mut(&mut self.endpoint_meta).push(meta);
        }
    }

    fn add_system_services(&mut self) {
        let meta = self.new_meta(
            "Service",
            "default",
            "kubernetes",
            CLUSTER_EPOCH,
            labels(&[("component", "apiserver"), ("provider", "kubernetes")]),
        );
        let https = ServicePort {
            name: "https".into(),
            protocol: Protocol::Tcp,
            port: 443,
            target: IntOrString::Int(6443),
            node_port: None,
        };
        Arc::make_mut(&mut self.services).push(Service {
            meta,
            load_balancer: false,
            cluster_ip: Ipv4Addr::new(10, 96, 0, 1),
            selector: None,
            ports: vec![https],
        });
        let dns_labels = labels(&[
            ("k8s-app", "kube-dns"),
            ("kubernetes.io/cluster-service", "true"),
            ("kubernetes.io/name", "CoreDNS"),
        ]);
        let meta = self.new_meta("Service", "kube-system", "kube-dns", CLUSTER_EPOCH, dns_labels);
        let port = |name: &str, protocol, port: u16| ServicePort {
            name: name.into(),
            protocol,
            port,
            target: IntOrString::Int(i32::from(port)),
            node_port: None,
        };
        Arc::make_mut(&mut self.services).push(Service {
            meta,
            load_balancer: false,
            cluster_ip: KUBE_DNS_IP,
            selector: Some(labels(&[("k8s-app", "kube-dns")])),
            ports: vec![
                port("dns", Protocol::Udp, 53),
                port("dns-tcp", Protocol::Tcp, 53),
                port("metrics", Protocol::Tcp, 9153),
            ],
        });
    }

    #[allow(clippy::too_many_arguments)]
    fn add_workload(
        &mut self,
        ns: &str,
        name: &str,
        replicas: u32,
        selector: &Labels,
        containers: Vec<Container>,
        at: i64,
        ip_last: &[u8],
    ) {
        let hash = template_hash(name);
        let mut meta = self.new_meta("Deployment", ns, name, at, selector.clone());
        meta.generation = Some(1);
        meta.annotations.insert("deployment.kubernetes.io/revision".into(), "1".into());
        let deploy_uid = meta.uid.clone();
        Arc::make_mut(&mut self.deployments).push(Deployment {
            meta,
            replicas,
            selector: selector.clone(),
            template_labels: selector.clone(),
            containers: containers.clone(),
        });
        let mut pod_labels = selector.clone();
        pod_labels.insert("pod-template-hash".into(), hash.clone());
        let rs_name = format!("{name}-{hash}");
        let mut meta = self.new_meta("ReplicaSet", ns, &rs_name, at, pod_labels.clone());
        meta.generation = Some(1);
        for (k, v) in [
            ("deployment.kubernetes.io/desired-replicas", replicas.to_string()),
            ("deployment.kubernetes.io/max-replicas", (replicas + 1).to_string()),
            ("deployment.kubernetes.io/revision", "1".to_string()),
        ] {
            meta.annotations.insert(k.into(), v);
        }
        meta.owner =
            Some(OwnerRef { api_version: "apps/v1", kind: "Deployment", name: name.into(), uid: deploy_uid });
        let rs_uid = meta.uid.clone();
        Arc::make_mut(&mut self.replicasets).push(ReplicaSet {
            meta,
            replicas,
            selector: pod_labels.clone(),
            containers: containers.clone(),
        });
        for (i, last) in ip_last.iter().enumerate() {
            let mut meta = self.new_meta("Pod", ns, &pod_name(name, i), at, pod_labels.clone());
            meta.generate_name = Some(format!("{rs_name}-"));
            meta.owner = Some(OwnerRef {
                api_version: "apps/v1",
                kind: "ReplicaSet",
                name: rs_name.clone(),
                uid: rs_uid.clone(),
            });
            let ip = Ipv4Addr::new(10, 244, 0, *last);
            Arc::make_mut(&mut self.pods).push(Pod {
                meta,
                ip,
                containers: containers.clone(),
                deployment: name.into(),
            });
        }
    }

    fn add_workload_service(&mut self, w: &Workload, app: &Labels) {
        let (Some((port_name, port)), Some(target)) = (w.service, w.port) else { return };
        // ClusterIPs 10.96.1.1… in alphabetical Service order (frontend-external sorts after frontend).
        let alpha_index = |name: &str| {
            let mut names: Vec<&str> =
                WORKLOADS.iter().filter(|w| w.service.is_some()).map(|w| w.name).collect();
            names.push("frontend-external");
            names.sort();
            names.iter().position(|n| *n == name).unwrap_or(0) as u8 + 1
        };
        let mut add = |svc_name: &str, load_balancer: bool| {
            let meta = self.new_meta("Service", "default", svc_name, WORKLOADS_AT, app.clone());
            let sp = ServicePort {
                name: port_name.into(),
                protocol: Protocol::Tcp,
                port,
                target: IntOrString::Int(i32::from(target)),
                node_port: load_balancer.then_some(FRONTEND_NODE_PORT),
            };
            Arc::make_mut(&mut self.services).push(Service {
                meta,
                load_balancer,
                cluster_ip: Ipv4Addr::new(10, 96, 1, alpha_index(svc_name)),
                selector: Some(app.clone()),
                ports: vec![sp],
            });
        };
        add(w.name, false);
        if w.name == "frontend" {
            add("frontend-external", true);
        }
    }

    fn sort(&mut self) {
        Arc::make_mut(&mut self.namespaces).sort_by(|a, b| a.meta.name.cmp(&b.meta.name));
        Arc::make_mut(&mut self.deployments).sort_by(|a, b| key(&a.meta).cmp(&key(&b.meta)));
        Arc::make_mut(&mut self.replicasets).sort_by(|a, b| key(&a.meta).cmp(&key(&b.meta)));
        Arc::make_mut(&mut self.pods).sort_by(|a, b| key(&a.meta).cmp(&key(&b.meta)));
        Arc::make_mut(&mut self.services).sort_by(|a, b| key(&a.meta).cmp(&key(&b.meta)));
        Arc::make_mut(&mut self.endpoint_meta).sort_by(|a, b| key(a).cmp(&key(b)));
    }

    /// Fresh metadata with the next resourceVersion and a uid for this creation.
    pub fn new_meta(&mut self, kind: &str, ns: &str, name: &str, at: i64, labels: Labels) -> Meta {
        let count = self.creations.entry(format!("{kind}/{ns}/{name}")).or_insert(0);
        *count += 1;
        let uid = meta::uid(kind, ns, name, *count);
        Meta {
            name: name.to_string(),
            namespace: ns.to_string(),
            uid,
            resource_version: self.next_rv(),
            created: at,
            labels,
            ..Meta::default()
        }
    }

    /// The next resourceVersion (every write takes one).
    pub fn next_rv(&mut self) -> u64 {
        self.last_rv += 1;
        self.last_rv
    }

    /// The server re-imposes `kubernetes.io/metadata.name` on every namespace write.
    pub fn impose_namespace_labels(&mut self) {
        for ns in Arc::make_mut(&mut self.namespaces) {
            ns.meta.labels.insert("kubernetes.io/metadata.name".into(), ns.meta.name.clone());
        }
    }

    pub fn namespace(&self, name: &str) -> Option<&Namespace> {
        self.namespaces.iter().find(|n| n.meta.name == name)
    }

    pub fn service(&self, ns: &str, name: &str) -> Option<&Service> {
        self.services.iter().find(|s| s.meta.namespace == ns && s.meta.name == name)
    }

    pub fn policy(&self, ns: &str, name: &str) -> Option<&NetworkPolicy> {
        self.policies.get(&(ns.to_string(), name.to_string()))
    }

    /// The pods a Service selects (its endpoints), in name order.
    pub fn endpoints(&self, svc: &Service) -> Vec<&Pod> {
        match &svc.selector {
            Some(sel) if !sel.is_empty() => self
                .pods
                .iter()
                .filter(|p| {
                    p.meta.namespace == svc.meta.namespace
                        && sel.iter().all(|(k, v)| p.meta.labels.get(k) == Some(v))
                })
                .collect(),
            _ => Vec::new(),
        }
    }

    /// The first pod of a workload deployment in `default`.
    pub fn workload_pod(&self, deploy: &str) -> Option<&Pod> {
        self.pods.iter().find(|p| p.meta.namespace == "default" && p.deployment == deploy)
    }

    /// The stored admin policy of `kind` called `name`.
    pub fn admin_object(&self, kind: AdminKind, name: &str) -> Option<&AdminObject> {
        self.admin.get(&(kind, name.to_string()))
    }

    /// Every admin policy (ANPs in name order, then the BANP).
    pub fn admin_policies(&self) -> Vec<&AdminPolicy> {
        self.admin.values().map(|o| &o.policy).collect()
    }

    /// Inserts or replaces an admin policy.
    pub fn put_admin(&mut self, o: AdminObject) {
        self.admin.insert((o.policy.kind, o.meta.name.clone()), o);
    }

    /// Inserts or replaces a policy.
    pub fn put_policy(&mut self, p: NetworkPolicy) {
        self.policies.insert((p.meta.namespace.clone(), p.meta.name.clone()), p);
    }
}

fn key(m: &Meta) -> (&str, &str) {
    (&m.namespace, &m.name)
}

fn node_labels() -> Labels {
    labels(&[
        ("beta.kubernetes.io/arch", "amd64"),
        ("beta.kubernetes.io/os", "linux"),
        ("kubernetes.io/arch", "amd64"),
        ("kubernetes.io/hostname", NODE_NAME),
        ("kubernetes.io/os", "linux"),
        ("node-role.kubernetes.io/control-plane", ""),
        ("node.kubernetes.io/exclude-from-external-load-balancers", ""),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pristine_matches_the_spec_table() {
        let c = Cluster::pristine();
        assert_eq!(c.pods.len(), 14);
        assert_eq!(c.services.len(), 14);
        let ad = c.workload_pod("adservice").unwrap();
        assert_eq!(ad.ip, Ipv4Addr::new(10, 244, 0, 5));
        assert_eq!(c.workload_pod("shippingservice").unwrap().ip, Ipv4Addr::new(10, 244, 0, 16));
        assert_eq!(
            c.service("default", "frontend-external").unwrap().cluster_ip,
            Ipv4Addr::new(10, 96, 1, 7)
        );
        assert_eq!(c.service("default", "adservice").unwrap().cluster_ip, Ipv4Addr::new(10, 96, 1, 1));
        assert_eq!(c.service("default", "shippingservice").unwrap().cluster_ip, Ipv4Addr::new(10, 96, 1, 12));
        let dns = c.service("kube-system", "kube-dns").unwrap();
        assert_eq!(c.endpoints(dns).len(), 2);
        assert_eq!(c.namespace("default").unwrap().meta.labels["kubernetes.io/metadata.name"], "default");
        assert!(ad.meta.name.starts_with("adservice-"));
        assert_eq!(ad.meta.name.len(), "adservice".len() + 1 + 10 + 1 + 5);
    }

    #[test]
    fn hashes_are_stable() {
        assert_eq!(fnv1a(""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a("a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(template_hash("adservice"), template_hash("adservice"));
        assert_ne!(pod_name("coredns", 0), pod_name("coredns", 1));
    }
}
