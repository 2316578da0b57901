//! `kubectl describe`: kubectl 1.34's describers for the kinds of this cluster.
//!
//! Each describer writes tab-separated lines exactly as kubectl's `PrefixWriter` does and
//! the page is laid out by Go's tabwriter (min width 0, padding 2), so alignment restarts
//! wherever kubectl's does. The NetworkPolicy describer is the one agents rely on; the
//! others cover what this cluster models (no volumes, resources or events).

use std::collections::BTreeMap;

use super::Env;
use super::args::Args;
use super::get::{namespace, no_resources, not_found, selector};
use super::tabwriter;
use super::target::resolve;
use crate::k8s::cluster::{
    Cluster, Container, Deployment, NODE_IP, NODE_NAME, Pod, ReplicaSet, Service, template_hash,
};
use crate::k8s::labels::{Labels, format_labels};
use crate::k8s::meta::{go_time, rfc1123z};
use crate::k8s::objects::{Kind, NODE_KERNEL, NODE_OS, NODE_RUNTIME, Obj, endpoint_subset, list};
use crate::k8s::output::Output;
use crate::k8s::policy::{NetworkPolicy, Peer, Rule, port_text};

const LAST_APPLIED: &str = "kubectl.kubernetes.io/last-applied-configuration";

/// `kubectl describe`, each object's page written as it is made (stopping once `o` is full).
pub fn command(a: &Args, env: &mut Env, o: &mut Output) {
    let targets = match resolve(&a.positional) {
        Ok(t) if t.is_empty() => {
            return o.fail(
                "You must specify the type of resource to describe. Use \"kubectl api-resources\" for a complete list of supported resources.\n\nerror: Required resource not specified.\nUse \"kubectl explain <resource>\" for a detailed description of that resource (e.g. kubectl explain pods).\nSee 'kubectl describe -h' for help and examples",
            );
        }
        Ok(t) => t,
        Err(e) => return o.fail(e),
    };
    let sel = match selector(a) {
        Ok(s) => s,
        Err(e) => return o.fail(e),
    };
    let ns = namespace(a);
    let all_ns = a.is_set("all-namespaces");
    let c = &env.cluster;
    let mut shown: Vec<Obj<'_>> = Vec::new();
    let mut errors = Vec::new();
    for t in &targets {
        let scope = if all_ns { None } else { Some(ns.as_str()) };
        let objs: Vec<Obj<'_>> =
            list(c, t.kind, scope).into_iter().filter(|x| sel.matches(&x.meta().labels)).collect();
        if t.names.is_empty() {
            shown.extend(&objs);
            continue;
        }
        for name in &t.names {
            let exact: Vec<&Obj<'_>> = objs.iter().filter(|x| x.name() == name).collect();
            let found: Vec<&Obj<'_>> = if exact.is_empty() {
                objs.iter().filter(|x| x.name().starts_with(name.as_str())).collect()
            } else {
                exact
            };
            if found.is_empty() {
                errors.push(not_found(t.kind, name));
            }
            shown.extend(found);
        }
    }
    if targets.iter().any(|t| t.kind == Kind::Endpoints) && !shown.is_empty() {
        o.err("Warning: v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice\n");
    }
    for (i, x) in shown.iter().enumerate() {
        if o.full() {
            break;
        }
        if i > 0 {
            o.out("\n\n");
        }
        o.out(describe(c, x));
    }
    if shown.is_empty() && errors.is_empty() {
        let kinds: Vec<Kind> = targets.iter().map(|t| t.kind).collect();
        o.err(no_resources(all_ns, &ns, &kinds));
    }
    for e in errors {
        o.fail(e);
    }
}

/// The description of one object.
pub fn describe(c: &Cluster, obj: &Obj<'_>) -> String {
    let text = match obj {
        Obj::NetworkPolicy(p) => policy(p),
        Obj::Pod(p) => pod(p),
        Obj::Service(s) => service(c, s),
        Obj::Endpoints(_, s) => endpoints(c, s),
        Obj::Deployment(d) => deployment(d),
        Obj::ReplicaSet(r) => replicaset(r),
        Obj::Namespace(n) => namespace_page(&n.meta.name, &n.meta.labels, &n.meta.annotations),
        Obj::Node(_) => node(c),
        Obj::Admin(a) => generic(&a.to_json(), &a.meta),
    };
    tabwriter::describe(&text)
}

/// `Labels:\tk=v` then `\tk2=v2` lines (kubectl's `printLabelsMultiline`).
fn labels_block(w: &mut String, indent: &str, title: &str, labels: &Labels) {
    w.push_str(&format!("{indent}{title}:\t"));
    if labels.is_empty() {
        w.push_str("<none>\n");
        return;
    }
    for (i, (k, v)) in labels.iter().enumerate() {
        if i > 0 {
            w.push_str(&format!("{indent}\t"));
        }
        w.push_str(&format!("{k}={v}\n"));
    }
}

/// `Annotations:` with the last-applied configuration hidden and long values cut.
fn annotations_block(w: &mut String, indent: &str, annotations: &BTreeMap<String, String>) {
    let shown: Vec<(&String, &String)> = annotations.iter().filter(|(k, _)| *k != LAST_APPLIED).collect();
    w.push_str(&format!("{indent}Annotations:\t"));
    if shown.is_empty() {
        w.push_str("<none>\n");
        return;
    }
    for (i, (k, v)) in shown.into_iter().enumerate() {
        if i > 0 {
            w.push_str(&format!("{indent}\t"));
        }
        let v = if v.chars().count() > 140 {
            format!("{}...", v.chars().take(140).collect::<String>())
        } else {
            v.clone()
        };
        w.push_str(&format!("{k}: {v}\n"));
    }
}

/// kubectl's describer for a custom resource (`genericDescriber`): name, namespace, labels
/// and annotations, then every other field of the object as nested `Label:\tvalue` lines.
fn generic(obj: &serde_json::Value, meta: &crate::k8s::meta::Meta) -> String {
    let mut w = format!("Name:\t{}\nNamespace:\t{}\n", meta.name, meta.namespace);
    labels_block(&mut w, "", "Labels", &meta.labels);
    annotations_block(&mut w, "", &meta.annotations);
    if let serde_json::Value::Object(m) = obj {
        const SKIP: [&str; 5] = [
            ".metadata.managedFields",
            ".metadata.name",
            ".metadata.namespace",
            ".metadata.labels",
            ".metadata.annotations",
        ];
        unstructured(&mut w, 0, m, "", &SKIP);
    }
    w.push_str("Events:\t<none>\n");
    w
}

/// `printUnstructuredContent`: keys in sorted order, maps and lists as indented blocks
/// (list items follow each other with no separator, as kubectl prints them).
fn unstructured(
    w: &mut String,
    level: usize,
    m: &serde_json::Map<String, serde_json::Value>,
    prefix: &str,
    skip: &[&str],
) {
    use serde_json::Value;
    let indent = |l: usize| "  ".repeat(l);
    let mut keys: Vec<&String> = m.keys().collect();
    keys.sort();
    for key in keys {
        let path = format!("{prefix}.{key}");
        if skip.contains(&path.as_str()) {
            continue;
        }
        match &m[key] {
            Value::Object(child) => {
                w.push_str(&format!("{}{}:\n", indent(level), smart_label(key)));
                unstructured(w, level + 1, child, &path, skip);
            }
            Value::Array(items) => {
                w.push_str(&format!("{}{}:\n", indent(level), smart_label(key)));
                for item in items {
                    match item {
                        Value::Object(child) => unstructured(w, level + 1, child, &path, skip),
                        other => w.push_str(&format!("{}{}\n", indent(level + 1), go_value(other))),
                    }
                }
            }
            other => w.push_str(&format!("{}{}:\t{}\n", indent(level), smart_label(key), go_value(other))),
        }
    }
}

/// A scalar as Go's `%v` prints the decoded JSON value.
fn go_value(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::String(s) => s.clone(),
        serde_json::Value::Null => "<nil>".into(),
        other => other.to_string(),
    }
}

/// kubectl's `smartLabelFor`: `creationTimestamp` → `Creation Timestamp`, `uid` → `UID`;
/// a key with characters other than letters and `-` is printed as it is.
fn smart_label(field: &str) -> String {
    if field.chars().any(|c| !c.is_alphabetic() && c != '-') {
        return field.to_string();
    }
    split_camel(field)
        .into_iter()
        .map(|part| {
            let upper = part.to_uppercase();
            if ["API", "URL", "UID", "OSB", "GUID"].contains(&upper.as_str()) {
                upper
            } else {
                let mut cs = part.chars();
                cs.next().map_or_else(String::new, |f| f.to_uppercase().chain(cs).collect())
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// Splits at changes between lower case, upper case and other characters; an upper-case
/// run followed by lower case gives its last letter to the next word (`HTTPServer` →
/// `HTTP`, `Server`), as the camelcase package Go's kubectl uses does.
fn split_camel(s: &str) -> Vec<String> {
    let class = |c: char| {
        if c.is_lowercase() {
            0
        } else if c.is_uppercase() {
            1
        } else {
            2
        }
    };
    let mut runs: Vec<Vec<char>> = Vec::new();
    for c in s.chars() {
        match runs.last_mut() {
            Some(r) if class(r[0]) == class(c) => r.push(c),
            _ => runs.push(vec![c]),
        }
    }
    for i in 0..runs.len().saturating_sub(1) {
        if class(runs[i][0]) == 1
            && class(runs[i + 1][0]) == 0
            && let Some(last) = runs[i].pop()
        {
            runs[i + 1].insert(0, last);
        }
    }
    runs.into_iter().filter(|r| !r.is_empty()).map(|r| r.into_iter().collect()).collect()
}

fn policy(p: &NetworkPolicy) -> String {
    let mut w = String::new();
    w.push_str(&format!("Name:\t{}\n", p.meta.name));
    w.push_str(&format!("Namespace:\t{}\n", p.meta.namespace));
    w.push_str(&format!("Created on:\t{}\n", go_time(p.meta.created)));
    labels_block(&mut w, "", "Labels", &p.meta.labels);
    annotations_block(&mut w, "", &p.meta.annotations);
    w.push_str("Spec:\n");
    let sel = &p.spec.pod_selector;
    if sel.is_empty() {
        w.push_str(
            "  PodSelector:     <none> (Allowing the specific traffic to all pods in this namespace)\n",
        );
    } else {
        w.push_str(&format!("  PodSelector:     {}\n", sel.format()));
    }
    let ingress = p.spec.policy_types.iter().any(|t| t == "Ingress");
    let egress = p.spec.policy_types.iter().any(|t| t == "Egress");
    if ingress {
        w.push_str("  Allowing ingress traffic:\n");
        rules(&mut w, &p.spec.ingress, "ingress", "From", "source");
    } else {
        w.push_str("  Not affecting ingress traffic\n");
    }
    if egress {
        w.push_str("  Allowing egress traffic:\n");
        rules(&mut w, &p.spec.egress, "egress", "To", "destination");
    } else {
        w.push_str("  Not affecting egress traffic\n");
    }
    w.push_str(&format!("  Policy Types: {}\n", p.spec.policy_types.join(", ")));
    w
}

fn rules(w: &mut String, rules: &[Rule], dir: &str, peer_word: &str, role: &str) {
    const I: &str = "    ";
    if rules.is_empty() {
        w.push_str(&format!("{I}<none> (Selected pods are isolated for {dir} connectivity)\n"));
        return;
    }
    for (i, r) in rules.iter().enumerate() {
        if r.ports.is_empty() {
            w.push_str(&format!("{I}To Port: <any> (traffic allowed to all ports)\n"));
        }
        for port in &r.ports {
            let label =
                if port.end_port.is_some() && port.port.is_some() { "To Port Range" } else { "To Port" };
            let text = match &port.port {
                None => format!("<nil>/{}", port.protocol.as_deref().unwrap_or("TCP")),
                Some(_) => port_text(port),
            };
            w.push_str(&format!("{I}{label}: {text}\n"));
        }
        if r.peers.is_empty() {
            w.push_str(&format!("{I}{peer_word}: <any> (traffic not restricted by {role})\n"));
        }
        for peer in &r.peers {
            w.push_str(&format!("{I}{peer_word}:\n"));
            peer_lines(w, peer);
        }
        if i + 1 != rules.len() {
            w.push_str(&format!("{I}----------\n"));
        }
    }
}

fn peer_lines(w: &mut String, peer: &Peer) {
    const I: &str = "      ";
    match (&peer.pod_selector, &peer.namespace_selector, &peer.ip_block) {
        (Some(ps), Some(ns), _) => {
            w.push_str(&format!("{I}NamespaceSelector: {}\n", ns.format()));
            w.push_str(&format!("{I}PodSelector: {}\n", ps.format()));
        }
        (Some(ps), None, _) => w.push_str(&format!("{I}PodSelector: {}\n", ps.format())),
        (None, Some(ns), _) => w.push_str(&format!("{I}NamespaceSelector: {}\n", ns.format())),
        (None, None, Some(b)) => {
            w.push_str(&format!("{I}IPBlock:\n"));
            w.push_str(&format!("{I}  CIDR: {}\n", b.cidr));
            w.push_str(&format!("{I}  Except: {}\n", b.except.join(", ")));
        }
        (None, None, None) => {}
    }
}

fn ports_line(c: &Container, host: bool) -> String {
    if c.ports.is_empty() {
        return "<none>".into();
    }
    let parts: Vec<String> = c
        .ports
        .iter()
        .map(|p| {
            if host {
                format!("0/{}", p.protocol.as_str())
            } else {
                format!("{}/{}", p.port, p.protocol.as_str())
            }
        })
        .collect();
    parts.join(", ")
}

/// The container section shared by pods and pod templates.
fn container_lines(w: &mut String, c: &Container, pod: Option<&Pod>) {
    let plural = if c.ports.len() > 1 { "s" } else { "" };
    let (name_indent, indent) = if pod.is_some() { ("  ", "    ") } else { ("   ", "    ") };
    w.push_str(&format!("{name_indent}{}:\n", c.name));
    if let Some(p) = pod {
        let id: String = crate::hash::sha256_hex(format!("{}/{}", p.meta.name, c.name).as_bytes());
        w.push_str(&format!("{indent}Container ID:\tcontainerd://{id}\n"));
    }
    w.push_str(&format!("{indent}Image:\t{}\n", c.image));
    if pod.is_some() {
        let repo = c.image.split(':').next().unwrap_or("");
        w.push_str(&format!(
            "{indent}Image ID:\t{repo}@sha256:{}\n",
            crate::hash::sha256_hex(c.image.as_bytes())
        ));
    }
    w.push_str(&format!("{indent}Port{plural}:\t{}\n", ports_line(c, false)));
    w.push_str(&format!("{indent}Host Port{plural}:\t{}\n", ports_line(c, true)));
    if let Some(p) = pod {
        w.push_str(&format!("{indent}State:\tRunning\n"));
        w.push_str(&format!("{indent}  Started:\t{}\n", rfc1123z(p.meta.created + 10)));
        w.push_str(&format!("{indent}Ready:\tTrue\n"));
        w.push_str(&format!("{indent}Restart Count:\t0\n"));
    }
    w.push_str(&format!("{indent}Environment:\t<none>\n"));
    w.push_str(&format!("{indent}Mounts:\t<none>\n"));
}

fn pod(p: &Pod) -> String {
    let mut w = String::new();
    w.push_str(&format!("Name:\t{}\n", p.meta.name));
    w.push_str(&format!("Namespace:\t{}\n", p.meta.namespace));
    w.push_str("Priority:\t0\n");
    w.push_str("Service Account:\tdefault\n");
    w.push_str(&format!("Node:\t{NODE_NAME}/{NODE_IP}\n"));
    w.push_str(&format!("Start Time:\t{}\n", rfc1123z(p.meta.created)));
    labels_block(&mut w, "", "Labels", &p.meta.labels);
    annotations_block(&mut w, "", &p.meta.annotations);
    w.push_str("Status:\tRunning\n");
    w.push_str(&format!("IP:\t{}\n", p.ip));
    w.push_str(&format!("IPs:\n  IP:\t{}\n", p.ip));
    if let Some(o) = &p.meta.owner {
        w.push_str(&format!("Controlled By:\t{}/{}\n", o.kind, o.name));
    }
    w.push_str("Containers:\n");
    for c in &p.containers {
        container_lines(&mut w, c, Some(p));
    }
    w.push_str("Conditions:\n  Type\tStatus\n");
    for cond in ["PodReadyToStartContainers", "Initialized", "Ready", "ContainersReady", "PodScheduled"] {
        w.push_str(&format!("  {cond} \tTrue \n"));
    }
    w.push_str("Volumes:\t<none>\n");
    w.push_str("QoS Class:\tBestEffort\n");
    w.push_str("Node-Selectors:\t<none>\n");
    w.push_str("Tolerations:\tnode.kubernetes.io/not-ready:NoExecute op=Exists for 300s\n");
    w.push_str("\tnode.kubernetes.io/unreachable:NoExecute op=Exists for 300s\n");
    w.push_str("Events:\t<none>\n");
    w
}

fn service(c: &Cluster, s: &Service) -> String {
    let mut w = String::new();
    w.push_str(&format!("Name:\t{}\n", s.meta.name));
    w.push_str(&format!("Namespace:\t{}\n", s.meta.namespace));
    labels_block(&mut w, "", "Labels", &s.meta.labels);
    annotations_block(&mut w, "", &s.meta.annotations);
    let sel = s.selector.as_ref().filter(|l| !l.is_empty()).map_or("<none>".to_string(), format_labels);
    w.push_str(&format!("Selector:\t{sel}\n"));
    w.push_str(&format!("Type:\t{}\n", if s.load_balancer { "LoadBalancer" } else { "ClusterIP" }));
    w.push_str("IP Family Policy:\tSingleStack\nIP Families:\tIPv4\n");
    w.push_str(&format!("IP:\t{}\nIPs:\t{}\n", s.cluster_ip, s.cluster_ip));
    let (addrs, eps) = endpoint_subset(c, s);
    for p in &s.ports {
        w.push_str(&format!("Port:\t{}  {}/{}\n", p.name, p.port, p.protocol.as_str()));
        w.push_str(&format!("TargetPort:\t{}/{}\n", p.target, p.protocol.as_str()));
        if let Some(np) = p.node_port {
            w.push_str(&format!("NodePort:\t{}  {np}/{}\n", p.name, p.protocol.as_str()));
        }
        let list: Vec<String> = eps
            .iter()
            .filter(|(name, _, _)| *name == p.name)
            .flat_map(|(_, port, _)| addrs.iter().map(move |(ip, _)| format!("{ip}:{port}")))
            .collect();
        let text = if list.is_empty() { "<none>".to_string() } else { list.join(",") };
        w.push_str(&format!("Endpoints:\t{text}\n"));
    }
    w.push_str("Session Affinity:\tNone\n");
    if s.load_balancer {
        w.push_str("External Traffic Policy:\tCluster\n");
    }
    w.push_str("Internal Traffic Policy:\tCluster\n");
    w.push_str("Events:\t<none>\n");
    w
}

fn endpoints(c: &Cluster, s: &Service) -> String {
    let mut w = String::new();
    w.push_str(&format!("Name:\t{}\n", s.meta.name));
    w.push_str(&format!("Namespace:\t{}\n", s.meta.namespace));
    labels_block(&mut w, "", "Labels", &s.meta.labels);
    annotations_block(&mut w, "", &s.meta.annotations);
    w.push_str("Subsets:\n");
    let (addrs, ports) = endpoint_subset(c, s);
    if !addrs.is_empty() {
        let ips: Vec<&str> = addrs.iter().map(|(ip, _)| ip.as_str()).collect();
        w.push_str(&format!("  Addresses:\t{}\n", ips.join(",")));
        w.push_str("  NotReadyAddresses:\t<none>\n");
        w.push_str("  Ports:\n    Name\tPort\tProtocol\n    ----\t----\t--------\n");
        for (name, port, proto) in &ports {
            w.push_str(&format!("    {name}\t{port}\t{proto}\n"));
        }
        w.push('\n');
    }
    w.push_str("Events:  <none>\n");
    w
}

fn template_lines(w: &mut String, labels: &Labels, containers: &[Container]) {
    w.push_str("Pod Template:\n");
    labels_block(w, "  ", "Labels", labels);
    w.push_str("  Containers:\n");
    for c in containers {
        container_lines(w, c, None);
    }
    w.push_str("  Volumes:\t<none>\n  Node-Selectors:\t<none>\n  Tolerations:\t<none>\n");
}

fn deployment(d: &Deployment) -> String {
    let mut w = String::new();
    let n = d.replicas;
    w.push_str(&format!("Name:\t{}\n", d.meta.name));
    w.push_str(&format!("Namespace:\t{}\n", d.meta.namespace));
    w.push_str(&format!("CreationTimestamp:\t{}\n", rfc1123z(d.meta.created)));
    labels_block(&mut w, "", "Labels", &d.meta.labels);
    annotations_block(&mut w, "", &d.meta.annotations);
    w.push_str(&format!("Selector:\t{}\n", format_labels(&d.selector)));
    w.push_str(&format!(
        "Replicas:\t{n} desired | {n} updated | {n} total | {n} available | 0 unavailable\n"
    ));
    w.push_str("StrategyType:\tRollingUpdate\nMinReadySeconds:\t0\n");
    w.push_str("RollingUpdateStrategy:\t25% max unavailable, 25% max surge\n");
    template_lines(&mut w, &d.template_labels, &d.containers);
    w.push_str("Conditions:\n  Type\tStatus\tReason\n  ----\t------\t------\n");
    w.push_str(
        "  Available \tTrue\tMinimumReplicasAvailable\n  Progressing \tTrue\tNewReplicaSetAvailable\n",
    );
    w.push_str("OldReplicaSets:\t<none>\n");
    w.push_str(&format!(
        "NewReplicaSet:\t{}-{} ({n}/{n} replicas created)\n",
        d.meta.name,
        template_hash(&d.meta.name)
    ));
    w.push_str("Events:\t<none>\n");
    w
}

fn replicaset(r: &ReplicaSet) -> String {
    let mut w = String::new();
    let n = r.replicas;
    w.push_str(&format!("Name:\t{}\n", r.meta.name));
    w.push_str(&format!("Namespace:\t{}\n", r.meta.namespace));
    w.push_str(&format!("Selector:\t{}\n", format_labels(&r.selector)));
    labels_block(&mut w, "", "Labels", &r.meta.labels);
    annotations_block(&mut w, "", &r.meta.annotations);
    if let Some(o) = &r.meta.owner {
        w.push_str(&format!("Controlled By:\t{}/{}\n", o.kind, o.name));
    }
    w.push_str(&format!("Replicas:\t{n} current / {n} desired\n"));
    w.push_str(&format!("Pods Status:\t{n} Running / 0 Waiting / 0 Succeeded / 0 Failed\n"));
    template_lines(&mut w, &r.selector, &r.containers);
    w.push_str("Events:\t<none>\n");
    w
}

fn namespace_page(name: &str, labels: &Labels, annotations: &BTreeMap<String, String>) -> String {
    let mut w = String::new();
    w.push_str(&format!("Name:\t{name}\n"));
    labels_block(&mut w, "", "Labels", labels);
    annotations_block(&mut w, "", annotations);
    w.push_str("Status:\tActive\n\nNo resource quota.\n\nNo LimitRange resource.\n");
    w
}

fn node(c: &Cluster) -> String {
    let m = &c.node.meta;
    let mut w = String::new();
    w.push_str(&format!("Name:\t{}\n", m.name));
    w.push_str("Roles:\tcontrol-plane\n");
    labels_block(&mut w, "", "Labels", &m.labels);
    annotations_block(&mut w, "", &m.annotations);
    w.push_str(&format!("CreationTimestamp:\t{}\n", rfc1123z(m.created)));
    w.push_str("Taints:\t<none>\nUnschedulable:\tfalse\n");
    w.push_str("Conditions:\n  Type\tStatus\tReason\tMessage\n  ----\t------\t------\t-------\n");
    for (t, s, r, msg) in [
        ("MemoryPressure", "False", "KubeletHasSufficientMemory", "kubelet has sufficient memory available"),
        ("DiskPressure", "False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
        ("PIDPressure", "False", "KubeletHasSufficientPID", "kubelet has sufficient PID available"),
        ("Ready", "True", "KubeletReady", "kubelet is posting ready status"),
    ] {
        w.push_str(&format!("  {t} \t{s} \t{r} \t{msg}\n"));
    }
    w.push_str(&format!("Addresses:\n  InternalIP:\t{NODE_IP}\n  Hostname:\t{NODE_NAME}\n"));
    w.push_str("System Info:\n");
    w.push_str(&format!(
        "  Kernel Version:\t{NODE_KERNEL}\n  OS Image:\t{NODE_OS}\n  Operating System:\tlinux\n"
    ));
    w.push_str(&format!("  Architecture:\tamd64\n  Container Runtime Version:\t{NODE_RUNTIME}\n"));
    w.push_str("  Kubelet Version:\tv1.34.0\n  Kube-Proxy Version:\t\n");
    w.push_str("PodCIDR:\t10.244.0.0/24\nPodCIDRs:\t10.244.0.0/24\n");
    w.push_str("ProviderID:\tkind://docker/kind/kind-control-plane\n");
    w.push_str(&format!("Non-terminated Pods:\t({} in total)\n", c.pods.len()));
    w.push_str("  Namespace\tName\tAge\n  ---------\t----\t---\n");
    for p in c.pods.iter() {
        let age = crate::k8s::meta::human_duration(c.now - p.meta.created);
        w.push_str(&format!("  {}\t{}\t{age}\n", p.meta.namespace, p.meta.name));
    }
    w.push_str("Events:\t<none>\n");
    w
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::k8s::meta::Meta;
    use crate::k8s::policy::{IpBlock, LabelSelector, PolicyPort, PolicySpec};

    #[test]
    fn describes_a_policy_like_kubectl() {
        let mut meta = Meta { name: "adservice".into(), namespace: "default".into(), ..Meta::default() };
        meta.created = crate::k8s::meta::POLICIES_AT;
        meta.annotations.insert(LAST_APPLIED.into(), "{}".into());
        let spec = PolicySpec {
            pod_selector: LabelSelector::app("adservice"),
            ingress: vec![
                Rule { peers: vec![Peer::app("frontend")], ports: vec![PolicyPort::tcp(9555)] },
                Rule {
                    peers: vec![Peer {
                        ip_block: Some(IpBlock {
                            cidr: "10.0.0.0/8".into(),
                            except: vec!["10.1.0.0/16".into()],
                        }),
                        ..Peer::default()
                    }],
                    ports: vec![PolicyPort { protocol: Some("UDP".into()), port: None, end_port: None }],
                },
            ],
            egress: vec![Rule::default()],
            policy_types: vec!["Ingress".into(), "Egress".into()],
        };
        let text = policy(&NetworkPolicy { meta, spec });
        let want = "\
Name:         adservice
Namespace:    default
Created on:   2025-01-01 01:00:00 +0000 UTC
Labels:       <none>
Annotations:  <none>
Spec:
  PodSelector:     app=adservice
  Allowing ingress traffic:
    To Port: 9555/TCP
    From:
      PodSelector: app=frontend
    ----------
    To Port: <nil>/UDP
    From:
      IPBlock:
        CIDR: 10.0.0.0/8
        Except: 10.1.0.0/16
  Allowing egress traffic:
    To Port: <any> (traffic allowed to all ports)
    To: <any> (traffic not restricted by destination)
  Policy Types: Ingress, Egress
";
        assert_eq!(tabwriter::describe(&text), want);
    }

    #[test]
    fn labels_fields_as_kubectl_does() {
        for (field, label) in [
            ("creationTimestamp", "Creation Timestamp"),
            ("uid", "UID"),
            ("apiVersion", "API Version"),
            ("HTTPServer", "HTTP Server"),
            ("conformance-house", "Conformance - House"),
            ("kubernetes.io/metadata.name", "kubernetes.io/metadata.name"),
            ("port2", "port2"),
            ("", ""),
        ] {
            assert_eq!(smart_label(field), label, "{field}");
        }
    }
}
