//! The API objects kubectl can see: resource kinds, lookups and the JSON each object serves.
//!
//! The cluster model is typed; this module is the one place that turns it into the API
//! server's JSON (what `-o yaml`, `-o json` and jsonpath read), with the defaulted fields a
//! real server adds so that agents find what they expect where they expect it.

use serde_json::{Map, Value, json};

use super::admin::{AdminKind, AdminObject};
use super::cluster::{Cluster, Container, Deployment, Namespace, Pod, ReplicaSet, Service};
use super::meta::{Meta, rfc3339};
use super::policy::{IntOrString, NetworkPolicy};

/// A resource type kubectl knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Kind {
    Pod,
    Service,
    Endpoints,
    Deployment,
    ReplicaSet,
    Namespace,
    Node,
    NetworkPolicy,
    AdminNetworkPolicy,
    BaselineAdminNetworkPolicy,
}

impl Kind {
    pub const ALL: [Kind; 10] = [
        Kind::Pod,
        Kind::Service,
        Kind::Endpoints,
        Kind::Deployment,
        Kind::ReplicaSet,
        Kind::Namespace,
        Kind::Node,
        Kind::NetworkPolicy,
        Kind::AdminNetworkPolicy,
        Kind::BaselineAdminNetworkPolicy,
    ];

    /// The `Kind` field.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Pod => "Pod",
            Kind::Service => "Service",
            Kind::Endpoints => "Endpoints",
            Kind::Deployment => "Deployment",
            Kind::ReplicaSet => "ReplicaSet",
            Kind::Namespace => "Namespace",
            Kind::Node => "Node",
            Kind::NetworkPolicy => "NetworkPolicy",
            Kind::AdminNetworkPolicy => "AdminNetworkPolicy",
            Kind::BaselineAdminNetworkPolicy => "BaselineAdminNetworkPolicy",
        }
    }

    pub fn plural(self) -> &'static str {
        match self {
            Kind::Pod => "pods",
            Kind::Service => "services",
            Kind::Endpoints => "endpoints",
            Kind::Deployment => "deployments",
            Kind::ReplicaSet => "replicasets",
            Kind::Namespace => "namespaces",
            Kind::Node => "nodes",
            Kind::NetworkPolicy => "networkpolicies",
            Kind::AdminNetworkPolicy => "adminnetworkpolicies",
            Kind::BaselineAdminNetworkPolicy => "baselineadminnetworkpolicies",
        }
    }

    pub fn group(self) -> &'static str {
        match self {
            Kind::Deployment | Kind::ReplicaSet => "apps",
            Kind::NetworkPolicy => "networking.k8s.io",
            Kind::AdminNetworkPolicy | Kind::BaselineAdminNetworkPolicy => "policy.networking.k8s.io",
            _ => "",
        }
    }

    pub fn api_version(self) -> &'static str {
        match self {
            Kind::Deployment | Kind::ReplicaSet => "apps/v1",
            Kind::NetworkPolicy => "networking.k8s.io/v1",
            Kind::AdminNetworkPolicy | Kind::BaselineAdminNetworkPolicy => super::admin::API_VERSION,
            _ => "v1",
        }
    }

    /// `pods`, `deployments.apps`, `networkpolicies.networking.k8s.io` (error messages).
    pub fn resource(self) -> String {
        match self.group() {
            "" => self.plural().to_string(),
            g => format!("{}.{g}", self.plural()),
        }
    }

    /// `pod`, `deployment.apps`, `networkpolicy.networking.k8s.io` (`-o name`, kind/name rows).
    pub fn prefix(self) -> String {
        let singular = match self {
            Kind::Endpoints => "endpoints".to_string(),
            other => other.name().to_ascii_lowercase(),
        };
        match self.group() {
            "" => singular,
            g => format!("{singular}.{g}"),
        }
    }

    pub fn namespaced(self) -> bool {
        !matches!(
            self,
            Kind::Namespace | Kind::Node | Kind::AdminNetworkPolicy | Kind::BaselineAdminNetworkPolicy
        )
    }

    /// The admin-policy kind this resource stores, if it is one.
    pub fn admin(self) -> Option<AdminKind> {
        match self {
            Kind::AdminNetworkPolicy => Some(AdminKind::Admin),
            Kind::BaselineAdminNetworkPolicy => Some(AdminKind::Baseline),
            _ => None,
        }
    }

    /// Resolves a resource type as typed on the command line (case-insensitive).
    pub fn parse(s: &str) -> Option<Kind> {
        let s = s.to_ascii_lowercase();
        let (base, group) = match s.split_once('.') {
            Some((b, g)) => (b.to_string(), Some(g.to_string())),
            None => (s.clone(), None),
        };
        let kind = match base.as_str() {
            "pods" | "pod" | "po" => Kind::Pod,
            "services" | "service" | "svc" => Kind::Service,
            "endpoints" | "ep" => Kind::Endpoints,
            "deployments" | "deployment" | "deploy" => Kind::Deployment,
            "replicasets" | "replicaset" | "rs" => Kind::ReplicaSet,
            "namespaces" | "namespace" | "ns" => Kind::Namespace,
            "nodes" | "node" | "no" => Kind::Node,
            "networkpolicies" | "networkpolicy" | "netpol" => Kind::NetworkPolicy,
            "adminnetworkpolicies" | "adminnetworkpolicy" | "anp" => Kind::AdminNetworkPolicy,
            "baselineadminnetworkpolicies" | "baselineadminnetworkpolicy" | "banp" => {
                Kind::BaselineAdminNetworkPolicy
            }
            _ => return None,
        };
        match group.as_deref() {
            None => Some(kind),
            Some(g) if g == kind.group() || (kind.group().is_empty() && g == "v1") => Some(kind),
            Some(g) if kind.group() == "apps" && g == "v1.apps" => Some(kind),
            Some(g) if kind == Kind::NetworkPolicy && g == "v1.networking.k8s.io" => Some(kind),
            Some(g) if kind.admin().is_some() && g == "v1alpha1.policy.networking.k8s.io" => Some(kind),
            _ => None,
        }
    }
}

/// A borrowed object of any kind.
#[derive(Debug, Clone, Copy)]
pub enum Obj<'a> {
    Pod(&'a Pod),
    Service(&'a Service),
    Endpoints(&'a Meta, &'a Service),
    Deployment(&'a Deployment),
    ReplicaSet(&'a ReplicaSet),
    Namespace(&'a Namespace),
    Node(&'a Meta),
    NetworkPolicy(&'a NetworkPolicy),
    Admin(&'a AdminObject),
}

impl<'a> Obj<'a> {
    pub fn kind(&self) -> Kind {
        match self {
            Obj::Pod(_) => Kind::Pod,
            Obj::Service(_) => Kind::Service,
            Obj::Endpoints(..) => Kind::Endpoints,
            Obj::Deployment(_) => Kind::Deployment,
            Obj::ReplicaSet(_) => Kind::ReplicaSet,
            Obj::Namespace(_) => Kind::Namespace,
            Obj::Node(_) => Kind::Node,
            Obj::NetworkPolicy(_) => Kind::NetworkPolicy,
            Obj::Admin(a) => match a.policy.kind {
                AdminKind::Admin => Kind::AdminNetworkPolicy,
                AdminKind::Baseline => Kind::BaselineAdminNetworkPolicy,
            },
        }
    }

    pub fn meta(&self) -> &'a Meta {
        match self {
            Obj::Pod(p) => &p.meta,
            Obj::Service(s) => &s.meta,
            Obj::Endpoints(m, _) => m,
            Obj::Deployment(d) => &d.meta,
            Obj::ReplicaSet(r) => &r.meta,
            Obj::Namespace(n) => &n.meta,
            Obj::Node(m) => m,
            Obj::NetworkPolicy(p) => &p.meta,
            Obj::Admin(a) => &a.meta,
        }
    }

    pub fn name(&self) -> &'a str {
        &self.meta().name
    }

    /// The full API object.
    pub fn to_json(self, c: &Cluster) -> Value {
        let mut v = match self {
            Obj::Pod(p) => pod_json(p),
            Obj::Service(s) => service_json(s),
            Obj::Endpoints(_, s) => endpoints_json(c, s),
            Obj::Deployment(d) => deployment_json(d),
            Obj::ReplicaSet(r) => replicaset_json(r),
            Obj::Namespace(_) => json!({
                "spec": {"finalizers": ["kubernetes"]},
                "status": {"phase": "Active"},
            }),
            Obj::Node(m) => node_json(m),
            Obj::NetworkPolicy(p) => return p.to_json(),
            Obj::Admin(a) => return a.to_json(),
        };
        if let Value::Object(o) = &mut v {
            o.insert("apiVersion".into(), json!(self.kind().api_version()));
            o.insert("kind".into(), json!(self.kind().name()));
            o.insert("metadata".into(), self.meta().to_json());
        }
        v
    }
}

/// Every object of a kind, in API order (namespace, name); `ns = None` for all namespaces.
pub fn list<'a>(c: &'a Cluster, kind: Kind, ns: Option<&str>) -> Vec<Obj<'a>> {
    let in_ns = |m: &Meta| !kind.namespaced() || ns.is_none_or(|n| m.namespace == n);
    let all: Vec<Obj<'a>> = match kind {
        Kind::Pod => c.pods.iter().map(Obj::Pod).collect(),
        Kind::Service => c.services.iter().map(Obj::Service).collect(),
        Kind::Endpoints => c
            .endpoint_meta
            .iter()
            .filter_map(|m| c.service(&m.namespace, &m.name).map(|s| Obj::Endpoints(m, s)))
            .collect(),
        Kind::Deployment => c.deployments.iter().map(Obj::Deployment).collect(),
        Kind::ReplicaSet => c.replicasets.iter().map(Obj::ReplicaSet).collect(),
        Kind::Namespace => c.namespaces.iter().map(Obj::Namespace).collect(),
        Kind::Node => vec![Obj::Node(&c.node.meta)],
        Kind::NetworkPolicy => c.policies.values().map(Obj::NetworkPolicy).collect(),
        Kind::AdminNetworkPolicy | Kind::BaselineAdminNetworkPolicy => {
            c.admin.values().map(Obj::Admin).filter(|o| o.kind() == kind).collect()
        }
    };
    all.into_iter().filter(|o| in_ns(o.meta())).collect()
}

/// One object by name.
pub fn get<'a>(c: &'a Cluster, kind: Kind, ns: &str, name: &str) -> Option<Obj<'a>> {
    list(c, kind, Some(ns)).into_iter().find(|o| o.name() == name)
}

/// A stable 64-hex-digit id (container ids, image digests).
fn hex_id(s: &str) -> String {
    crate::hash::sha256_hex(s.as_bytes())
}

fn container_json(c: &Container) -> Value {
    let mut o = Map::new();
    o.insert("image".into(), json!(c.image));
    o.insert("imagePullPolicy".into(), json!("IfNotPresent"));
    o.insert("name".into(), json!(c.name));
    if !c.ports.is_empty() {
        let ports: Vec<Value> = c
            .ports
            .iter()
            .map(|p| {
                let mut m = Map::new();
                m.insert("containerPort".into(), json!(p.port));
                if let Some(n) = &p.name {
                    m.insert("name".into(), json!(n));
                }
                m.insert("protocol".into(), json!(p.protocol.as_str()));
                Value::Object(m)
            })
            .collect();
        o.insert("ports".into(), Value::Array(ports));
    }
    o.insert("resources".into(), json!({}));
    o.insert("terminationMessagePath".into(), json!("/dev/termination-log"));
    o.insert("terminationMessagePolicy".into(), json!("File"));
    Value::Object(o)
}

fn pod_template_spec(containers: &[Container]) -> Value {
    json!({
        "containers": containers.iter().map(container_json).collect::<Vec<_>>(),
        "dnsPolicy": "ClusterFirst",
        "restartPolicy": "Always",
        "schedulerName": "default-scheduler",
        "securityContext": {},
        "terminationGracePeriodSeconds": 30,
    })
}

fn condition(kind: &str, at: i64) -> Value {
    json!({"lastProbeTime": null, "lastTransitionTime": rfc3339(at), "status": "True", "type": kind})
}

fn pod_json(p: &Pod) -> Value {
    let mut spec = pod_template_spec(&p.containers);
    if let Value::Object(s) = &mut spec {
        s.insert("enableServiceLinks".into(), json!(true));
        s.insert("nodeName".into(), json!(super::cluster::NODE_NAME));
        s.insert("preemptionPolicy".into(), json!("PreemptLowerPriority"));
        s.insert("priority".into(), json!(0));
        s.insert("serviceAccount".into(), json!("default"));
        s.insert("serviceAccountName".into(), json!("default"));
        s.insert(
            "tolerations".into(),
            json!([
                {"effect": "NoExecute", "key": "node.kubernetes.io/not-ready", "operator": "Exists", "tolerationSeconds": 300},
                {"effect": "NoExecute", "key": "node.kubernetes.io/unreachable", "operator": "Exists", "tolerationSeconds": 300},
            ]),
        );
    }
    let at = p.meta.created;
    let statuses: Vec<Value> = p
        .containers
        .iter()
        .map(|c| {
            json!({
                "containerID": format!("containerd://{}", hex_id(&format!("{}/{}", p.meta.name, c.name))),
                "image": c.image,
                "imageID": format!("{}@sha256:{}", c.image.split(':').next().unwrap_or(""), hex_id(&c.image)),
                "lastState": {},
                "name": c.name,
                "ready": true,
                "restartCount": 0,
                "started": true,
                "state": {"running": {"startedAt": rfc3339(at + 10)}},
            })
        })
        .collect();
    let conditions: Vec<Value> =
        ["PodReadyToStartContainers", "Initialized", "Ready", "ContainersReady", "PodScheduled"]
            .iter()
            .map(|k| condition(k, at))
            .collect();
    json!({
        "spec": spec,
        "status": {
            "conditions": conditions,
            "containerStatuses": statuses,
            "hostIP": super::cluster::NODE_IP.to_string(),
            "hostIPs": [{"ip": super::cluster::NODE_IP.to_string()}],
            "phase": "Running",
            "podIP": p.ip.to_string(),
            "podIPs": [{"ip": p.ip.to_string()}],
            "qosClass": "BestEffort",
            "startTime": rfc3339(at),
        }
    })
}

fn service_json(s: &Service) -> Value {
    let ports: Vec<Value> = s
        .ports
        .iter()
        .map(|p| {
            let mut m = Map::new();
            m.insert("name".into(), json!(p.name));
            if let Some(n) = p.node_port {
                m.insert("nodePort".into(), json!(n));
            }
            m.insert("port".into(), json!(p.port));
            m.insert("protocol".into(), json!(p.protocol.as_str()));
            m.insert("targetPort".into(), p.target.to_json());
            Value::Object(m)
        })
        .collect();
    let mut spec = Map::new();
    spec.insert("clusterIP".into(), json!(s.cluster_ip.to_string()));
    spec.insert("clusterIPs".into(), json!([s.cluster_ip.to_string()]));
    spec.insert("internalTrafficPolicy".into(), json!("Cluster"));
    spec.insert("ipFamilies".into(), json!(["IPv4"]));
    spec.insert("ipFamilyPolicy".into(), json!("SingleStack"));
    spec.insert("ports".into(), Value::Array(ports));
    if let Some(sel) = &s.selector {
        spec.insert("selector".into(), json!(sel));
    }
    spec.insert("sessionAffinity".into(), json!("None"));
    spec.insert("type".into(), json!(if s.load_balancer { "LoadBalancer" } else { "ClusterIP" }));
    if s.load_balancer {
        spec.insert("allocateLoadBalancerNodePorts".into(), json!(true));
        spec.insert("externalTrafficPolicy".into(), json!("Cluster"));
    }
    json!({"spec": spec, "status": {"loadBalancer": {}}})
}

/// An endpoint address: the IP and the pod behind it (none for the API server).
pub type Address<'a> = (String, Option<&'a Pod>);
/// An endpoint port: name, number, protocol.
pub type EndpointPort = (String, u16, &'static str);

/// The addresses and ports of a Service's Endpoints: `(ip, pod)` pairs and `(name, port,
/// protocol)` triples (targetPorts resolved on the first endpoint).
pub fn endpoint_subset<'a>(c: &'a Cluster, s: &Service) -> (Vec<Address<'a>>, Vec<EndpointPort>) {
    if s.meta.name == "kubernetes" && s.meta.namespace == "default" {
        let addrs = vec![(super::cluster::NODE_IP.to_string(), None)];
        return (addrs, vec![("https".into(), 6443, "TCP")]);
    }
    let pods = c.endpoints(s);
    let Some(first) = pods.first() else { return (Vec::new(), Vec::new()) };
    let ports = s
        .ports
        .iter()
        .filter_map(|p| {
            let n = match &p.target {
                IntOrString::Int(n) => u16::try_from(*n).ok(),
                IntOrString::Str(name) => first
                    .ports()
                    .find(|cp| cp.name.as_deref() == Some(name) && cp.protocol == p.protocol)
                    .map(|cp| cp.port),
            }?;
            Some((p.name.clone(), n, p.protocol.as_str()))
        })
        .collect();
    let mut addrs: Vec<Address<'a>> = pods.into_iter().map(|p| (p.ip.to_string(), Some(p))).collect();
    addrs.sort_by_key(|(ip, _)| ip.parse::<std::net::Ipv4Addr>().ok());
    (addrs, ports)
}

fn endpoints_json(c: &Cluster, s: &Service) -> Value {
    let (addrs, ports) = endpoint_subset(c, s);
    if addrs.is_empty() {
        return json!({});
    }
    let addresses: Vec<Value> = addrs
        .iter()
        .map(|(ip, pod)| match pod {
            Some(p) => json!({
                "ip": ip,
                "nodeName": super::cluster::NODE_NAME,
                "targetRef": {"kind": "Pod", "name": p.meta.name, "namespace": p.meta.namespace, "uid": p.meta.uid},
            }),
            None => json!({"ip": ip}),
        })
        .collect();
    let ports: Vec<Value> = ports
        .iter()
        .map(|(name, port, proto)| json!({"name": name, "port": port, "protocol": proto}))
        .collect();
    json!({"subsets": [{"addresses": addresses, "ports": ports}]})
}

fn deployment_json(d: &Deployment) -> Value {
    let at = rfc3339(d.meta.created);
    json!({
        "spec": {
            "progressDeadlineSeconds": 600,
            "replicas": d.replicas,
            "revisionHistoryLimit": 10,
            "selector": {"matchLabels": d.selector},
            "strategy": {"rollingUpdate": {"maxSurge": "25%", "maxUnavailable": "25%"}, "type": "RollingUpdate"},
            "template": {
                "metadata": {"creationTimestamp": null, "labels": d.template_labels},
                "spec": pod_template_spec(&d.containers),
            },
        },
        "status": {
            "availableReplicas": d.replicas,
            "conditions": [
                {"lastTransitionTime": at, "lastUpdateTime": at, "message": "Deployment has minimum availability.", "reason": "MinimumReplicasAvailable", "status": "True", "type": "Available"},
                {"lastTransitionTime": at, "lastUpdateTime": at, "message": format!("ReplicaSet \"{}-{}\" has successfully progressed.", d.meta.name, super::cluster::template_hash(&d.meta.name)), "reason": "NewReplicaSetAvailable", "status": "True", "type": "Progressing"},
            ],
            "observedGeneration": 1,
            "readyReplicas": d.replicas,
            "replicas": d.replicas,
            "updatedReplicas": d.replicas,
        }
    })
}

fn replicaset_json(r: &ReplicaSet) -> Value {
    json!({
        "spec": {
            "replicas": r.replicas,
            "selector": {"matchLabels": r.selector},
            "template": {
                "metadata": {"creationTimestamp": null, "labels": r.selector},
                "spec": pod_template_spec(&r.containers),
            },
        },
        "status": {
            "availableReplicas": r.replicas,
            "fullyLabeledReplicas": r.replicas,
            "observedGeneration": 1,
            "readyReplicas": r.replicas,
            "replicas": r.replicas,
        }
    })
}

fn node_json(m: &Meta) -> Value {
    let at = rfc3339(m.created);
    let ip = super::cluster::NODE_IP.to_string();
    let cond = |kind: &str, status: &str, reason: &str, message: &str| json!({"lastHeartbeatTime": at, "lastTransitionTime": at, "message": message, "reason": reason, "status": status, "type": kind});
    json!({
        "spec": {"podCIDR": "10.244.0.0/24", "podCIDRs": ["10.244.0.0/24"], "providerID": "kind://docker/kind/kind-control-plane"},
        "status": {
            "addresses": [{"address": ip, "type": "InternalIP"}, {"address": super::cluster::NODE_NAME, "type": "Hostname"}],
            "conditions": [
                cond("MemoryPressure", "False", "KubeletHasSufficientMemory", "kubelet has sufficient memory available"),
                cond("DiskPressure", "False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
                cond("PIDPressure", "False", "KubeletHasSufficientPID", "kubelet has sufficient PID available"),
                cond("Ready", "True", "KubeletReady", "kubelet is posting ready status"),
            ],
            "nodeInfo": {
                "architecture": "amd64",
                "containerRuntimeVersion": NODE_RUNTIME,
                "kernelVersion": NODE_KERNEL,
                "kubeProxyVersion": "",
                "kubeletVersion": "v1.34.0",
                "operatingSystem": "linux",
                "osImage": NODE_OS,
            },
        }
    })
}

pub const NODE_OS: &str = "Debian GNU/Linux 12 (bookworm)";
pub const NODE_KERNEL: &str = "6.8.0-generic";
pub const NODE_RUNTIME: &str = "containerd://2.1.3";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_resource_types() {
        assert_eq!(Kind::parse("netpol"), Some(Kind::NetworkPolicy));
        assert_eq!(Kind::parse("NetworkPolicies.networking.k8s.io"), Some(Kind::NetworkPolicy));
        assert_eq!(Kind::parse("deploy.apps"), Some(Kind::Deployment));
        assert_eq!(Kind::parse("po"), Some(Kind::Pod));
        assert_eq!(Kind::parse("pods.apps"), None);
        assert_eq!(Kind::parse("secrets"), None);
        assert_eq!(Kind::NetworkPolicy.prefix(), "networkpolicy.networking.k8s.io");
        assert_eq!(Kind::Deployment.resource(), "deployments.apps");
    }

    #[test]
    fn lists_and_renders() {
        let c = Cluster::pristine();
        assert_eq!(list(&c, Kind::Pod, Some("default")).len(), 12);
        assert_eq!(list(&c, Kind::Pod, None).len(), 14);
        assert_eq!(list(&c, Kind::Namespace, Some("default")).len(), 2);
        let dns = get(&c, Kind::Endpoints, "kube-system", "kube-dns").unwrap().to_json(&c);
        assert_eq!(dns["subsets"][0]["addresses"].as_array().unwrap().len(), 2);
        let pod = get(&c, Kind::Service, "default", "emailservice").unwrap().to_json(&c);
        assert_eq!(pod["spec"]["ports"][0]["targetPort"], 8080);
        assert_eq!(pod["kind"], "Service");
    }
}
