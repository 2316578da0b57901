//! The column printers of `kubectl get` (kubectl's `printers/internalversion`), per kind.

use crate::k8s::admin::AdminKind;
use crate::k8s::cluster::{Cluster, Service};
use crate::k8s::labels::format_labels;
use crate::k8s::meta::human_duration;
use crate::k8s::objects::{Kind, NODE_KERNEL, NODE_OS, NODE_RUNTIME, Obj, endpoint_subset};

/// The column headers of a kind (`wide` adds the extra columns).
pub fn headers(kind: Kind, wide: bool) -> Vec<&'static str> {
    let (base, extra): (&[&str], &[&str]) = match kind {
        Kind::Pod => (
            &["NAME", "READY", "STATUS", "RESTARTS", "AGE"],
            &["IP", "NODE", "NOMINATED NODE", "READINESS GATES"],
        ),
        Kind::Service => (&["NAME", "TYPE", "CLUSTER-IP", "EXTERNAL-IP", "PORT(S)", "AGE"], &["SELECTOR"]),
        Kind::Endpoints => (&["NAME", "ENDPOINTS", "AGE"], &[]),
        Kind::Deployment => {
            (&["NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE"], &["CONTAINERS", "IMAGES", "SELECTOR"])
        }
        Kind::ReplicaSet => {
            (&["NAME", "DESIRED", "CURRENT", "READY", "AGE"], &["CONTAINERS", "IMAGES", "SELECTOR"])
        }
        Kind::Namespace => (&["NAME", "STATUS", "AGE"], &[]),
        Kind::Node => (
            &["NAME", "STATUS", "ROLES", "AGE", "VERSION"],
            &["INTERNAL-IP", "EXTERNAL-IP", "OS-IMAGE", "KERNEL-VERSION", "CONTAINER-RUNTIME"],
        ),
        Kind::NetworkPolicy => (&["NAME", "POD-SELECTOR", "AGE"], &[]),
        // The CRDs' additionalPrinterColumns.
        Kind::AdminNetworkPolicy => (&["NAME", "PRIORITY", "AGE"], &[]),
        Kind::BaselineAdminNetworkPolicy => (&["NAME", "AGE"], &[]),
    };
    let mut h = base.to_vec();
    if wide {
        h.extend_from_slice(extra);
    }
    h
}

/// One row's cells (the NAME cell holds the bare name).
pub fn row(obj: &Obj<'_>, c: &Cluster, wide: bool) -> Vec<String> {
    let age = human_duration(c.now - obj.meta().created);
    let name = obj.name().to_string();
    match obj {
        Obj::Pod(p) => {
            let n = p.containers.len();
            let mut r = vec![name, format!("{n}/{n}"), "Running".into(), "0".into(), age];
            if wide {
                r.extend([
                    p.ip.to_string(),
                    crate::k8s::cluster::NODE_NAME.into(),
                    "<none>".into(),
                    "<none>".into(),
                ]);
            }
            r
        }
        Obj::Service(s) => {
            let ty = if s.load_balancer { "LoadBalancer" } else { "ClusterIP" };
            let external = if s.load_balancer { "<pending>" } else { "<none>" };
            let mut r =
                vec![name, ty.into(), s.cluster_ip.to_string(), external.into(), service_ports(s), age];
            if wide {
                r.push(s.selector.as_ref().map_or("<none>".into(), |l| {
                    if l.is_empty() { "<none>".into() } else { format_labels(l) }
                }));
            }
            r
        }
        Obj::Endpoints(_, s) => vec![name, endpoints_text(c, s), age],
        Obj::Deployment(d) => {
            let n = d.replicas;
            let mut r = vec![name, format!("{n}/{n}"), n.to_string(), n.to_string(), age];
            if wide {
                r.extend(containers_images(&d.containers));
                r.push(format_labels(&d.selector));
            }
            r
        }
        Obj::ReplicaSet(rs) => {
            let n = rs.replicas.to_string();
            let mut r = vec![name, n.clone(), n.clone(), n, age];
            if wide {
                r.extend(containers_images(&rs.containers));
                r.push(format_labels(&rs.selector));
            }
            r
        }
        Obj::Namespace(_) => vec![name, "Active".into(), age],
        Obj::Node(m) => {
            let roles: Vec<&str> =
                m.labels.keys().filter_map(|k| k.strip_prefix("node-role.kubernetes.io/")).collect();
            let roles = if roles.is_empty() { "<none>".to_string() } else { roles.join(",") };
            let mut r = vec![name, "Ready".into(), roles, age, "v1.34.0".into()];
            if wide {
                r.extend([
                    crate::k8s::cluster::NODE_IP.to_string(),
                    "<none>".into(),
                    NODE_OS.into(),
                    NODE_KERNEL.into(),
                    NODE_RUNTIME.into(),
                ]);
            }
            r
        }
        Obj::NetworkPolicy(p) => vec![name, p.spec.pod_selector.format(), age],
        Obj::Admin(a) => match a.policy.kind {
            AdminKind::Admin => vec![name, a.policy.priority.to_string(), age],
            AdminKind::Baseline => vec![name, age],
        },
    }
}

fn containers_images(containers: &[crate::k8s::cluster::Container]) -> [String; 2] {
    let names: Vec<&str> = containers.iter().map(|c| c.name.as_str()).collect();
    let images: Vec<&str> = containers.iter().map(|c| c.image.as_str()).collect();
    [names.join(","), images.join(",")]
}

/// `9555/TCP`, `80:30867/TCP`, comma-separated.
pub fn service_ports(s: &Service) -> String {
    if s.ports.is_empty() {
        return "<none>".into();
    }
    s.ports
        .iter()
        .map(|p| match p.node_port {
            Some(np) => format!("{}:{np}/{}", p.port, p.protocol.as_str()),
            None => format!("{}/{}", p.port, p.protocol.as_str()),
        })
        .collect::<Vec<_>>()
        .join(",")
}

/// kubectl's `formatEndpoints`: at most three `ip:port`, then ` + N more...`.
pub fn endpoints_text(c: &Cluster, s: &Service) -> String {
    let (addrs, ports) = endpoint_subset(c, s);
    if addrs.is_empty() {
        return "<none>".into();
    }
    let mut list = Vec::new();
    let mut count = 0;
    for (_, port, _) in &ports {
        count += addrs.len();
        for (ip, _) in &addrs {
            if list.len() < 3 {
                list.push(format!("{ip}:{port}"));
            }
        }
    }
    let text = list.join(",");
    if count > 3 { format!("{text} + {} more...", count - 3) } else { text }
}

/// A table of objects of one kind. `with_kind` writes NAME as `kind/name`; `namespaces`
/// adds the NAMESPACE column; `labels` adds LABELS.
pub struct TableOpts {
    pub wide: bool,
    pub with_kind: bool,
    pub namespaces: bool,
    pub labels: bool,
    pub headers: bool,
}

/// The tab-separated lines of one table (not yet laid out).
pub fn table_lines(objs: &[Obj<'_>], c: &Cluster, o: &TableOpts) -> String {
    let Some(first) = objs.first() else { return String::new() };
    let kind = first.kind();
    let ns_col = o.namespaces && kind.namespaced();
    let mut text = String::new();
    if o.headers {
        let mut h: Vec<&str> = Vec::new();
        if ns_col {
            h.push("NAMESPACE");
        }
        h.extend(headers(kind, o.wide));
        if o.labels {
            h.push("LABELS");
        }
        text.push_str(&h.join("\t"));
        text.push('\n');
    }
    for obj in objs {
        let mut cells = Vec::new();
        if ns_col {
            cells.push(obj.meta().namespace.clone());
        }
        let mut r = row(obj, c, o.wide);
        if o.with_kind {
            r[0] = format!("{}/{}", kind.prefix(), r[0]);
        }
        cells.extend(r);
        if o.labels {
            let l = &obj.meta().labels;
            cells.push(if l.is_empty() { "<none>".into() } else { format_labels(l) });
        }
        text.push_str(&cells.join("\t"));
        text.push('\n');
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::k8s::objects::{get, list};

    #[test]
    fn endpoints_and_ports_text() {
        let c = Cluster::pristine();
        let dns = c.service("kube-system", "kube-dns").unwrap();
        assert_eq!(endpoints_text(&c, dns), "10.244.0.2:53,10.244.0.3:53,10.244.0.2:53 + 3 more...");
        assert_eq!(service_ports(dns), "53/UDP,53/TCP,9153/TCP");
        let fe = c.service("default", "frontend-external").unwrap();
        assert_eq!(service_ports(fe), "80:30867/TCP");
        assert_eq!(endpoints_text(&c, c.service("default", "emailservice").unwrap()), "10.244.0.9:8080");
        assert_eq!(endpoints_text(&c, c.service("default", "kubernetes").unwrap()), "172.18.0.2:6443");
    }

    #[test]
    fn node_row() {
        let mut c = Cluster::pristine();
        c.now += 3600;
        let node = get(&c, Kind::Node, "", "kind-control-plane").unwrap();
        assert_eq!(
            row(&node, &c, false),
            vec!["kind-control-plane", "Ready", "control-plane", "60m", "v1.34.0"]
        );
        assert_eq!(list(&c, Kind::Node, None).len(), 1);
    }
}
