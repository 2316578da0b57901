//! `netpress k8s connectivity`: a stand-alone NetworkPolicy analyzer.
//!
//! It reads any multi-document YAML (or JSON) of Namespaces, Pods, workloads with a pod
//! template (Deployments, ReplicaSets, StatefulSets, DaemonSets, Jobs; each stands for one
//! pod of its template), Services and NetworkPolicies, and prints, for every ordered pair of
//! workloads, the protocols and ports the policies allow, using the same evaluator as the
//! benchmark. Services are read but do not change the pairs: policies act on pods and
//! container ports after DNAT. Pairs with nothing allowed are not printed.

use std::collections::BTreeMap;
use std::io::{Read, Write};

use serde_json::{Value, json};

use super::cluster::{Container, ContainerPort, Protocol};
use super::decode::decode_policy;
use super::eval::{Compiled, End, NsRef, PodRef, PortSet};
use super::labels::Labels;
use super::policy::NetworkPolicy;
use super::validate::{invalid_message, validate_policy};
use super::yaml::{parse_documents, to_json_pretty};
use crate::app::Tool;
use crate::tool_args;

pub const TOOL: Tool = Tool {
    name: "connectivity",
    about: "print the connections NetworkPolicies allow between workloads (-f FILE…, -o json)",
    usage: USAGE,
    run,
};

const USAGE: &str = "usage: netpress k8s connectivity -f FILE [-f FILE]... [-o text|json]

Reads Kubernetes manifests (multi-document YAML or JSON; `-f -` reads standard input):
Namespaces, Pods, Deployments/ReplicaSets/StatefulSets/DaemonSets/Jobs (each expanded to one
pod of its template), Services and NetworkPolicies. Prints the connections the policies allow
between every ordered pair of workloads, one line per pair with at least one allowed port:

  default/frontend[Deployment] => default/adservice[Deployment] : TCP 9555

`All Connections` means every port of TCP, UDP and SCTP; otherwise protocols are listed as
`TCP 1-79,81-65535; UDP 53`. Pairs with nothing allowed are omitted. `-o json` prints the same
as a JSON array of {src, dst, conn, ports}.
";

/// A workload as the analyzer sees it.
#[derive(Debug, Clone)]
pub struct Workload {
    pub namespace: String,
    pub name: String,
    pub kind: String,
    pub labels: Labels,
    pub ip: Option<std::net::Ipv4Addr>,
    pub containers: Vec<Container>,
}

impl Workload {
    /// `namespace/name[Kind]`.
    pub fn key(&self) -> String {
        format!("{}/{}[{}]", self.namespace, self.name, self.kind)
    }
}

/// The parsed input.
#[derive(Debug, Clone, Default)]
pub struct Input {
    pub namespaces: BTreeMap<String, Labels>,
    pub workloads: Vec<Workload>,
    pub policies: Vec<NetworkPolicy>,
    /// Notes for standard error (ignored kinds, dropped unknown fields).
    pub warnings: Vec<String>,
}

/// One allowed pair.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Connection {
    pub src: String,
    pub dst: String,
    pub ports: PortSet,
}

const TEMPLATED: [&str; 5] = ["Deployment", "ReplicaSet", "StatefulSet", "DaemonSet", "Job"];

fn str_at<'a>(v: &'a Value, ptr: &str) -> Option<&'a str> {
    v.pointer(ptr).and_then(Value::as_str)
}

fn labels_at(v: &Value, ptr: &str) -> Labels {
    v.pointer(ptr)
        .and_then(Value::as_object)
        .map(|m| m.iter().filter_map(|(k, x)| x.as_str().map(|s| (k.clone(), s.to_string()))).collect())
        .unwrap_or_default()
}

fn containers_at(v: &Value, ptr: &str) -> Vec<Container> {
    let list = v.pointer(ptr).and_then(Value::as_array).cloned().unwrap_or_default();
    list.iter()
        .map(|c| Container {
            name: str_at(c, "/name").unwrap_or("").to_string(),
            image: str_at(c, "/image").unwrap_or("").to_string(),
            ports: c
                .get("ports")
                .and_then(Value::as_array)
                .map(|ps| {
                    ps.iter()
                        .filter_map(|p| {
                            let port =
                                p.get("containerPort")?.as_u64().and_then(|n| u16::try_from(n).ok())?;
                            let protocol = Protocol::parse(str_at(p, "/protocol").unwrap_or("TCP"))?;
                            Some(ContainerPort {
                                name: str_at(p, "/name").map(str::to_string),
                                port,
                                protocol,
                            })
                        })
                        .collect()
                })
                .unwrap_or_default(),
        })
        .collect()
}

impl Input {
    /// Reads the objects of one source (`origin` names it in messages).
    pub fn add(&mut self, origin: &str, text: &str) -> Result<(), String> {
        let docs = parse_documents(text).map_err(|e| format!("{origin}: {e}"))?;
        let mut objects = Vec::new();
        for d in docs {
            match (str_at(&d, "/kind"), d.get("items").and_then(Value::as_array)) {
                (Some(k), Some(items)) if k.ends_with("List") => objects.extend(items.iter().cloned()),
                _ => objects.push(d),
            }
        }
        for obj in objects {
            self.add_object(origin, &obj)?;
        }
        Ok(())
    }

    fn add_object(&mut self, origin: &str, obj: &Value) -> Result<(), String> {
        let kind = str_at(obj, "/kind").unwrap_or("");
        let name = str_at(obj, "/metadata/name").unwrap_or("").to_string();
        let ns = str_at(obj, "/metadata/namespace").unwrap_or("default").to_string();
        match kind {
            "Namespace" => {
                let mut l = labels_at(obj, "/metadata/labels");
                l.insert("kubernetes.io/metadata.name".into(), name.clone());
                self.namespaces.insert(name, l);
            }
            "Pod" => self.workloads.push(Workload {
                namespace: ns,
                name,
                kind: "Pod".into(),
                labels: labels_at(obj, "/metadata/labels"),
                ip: str_at(obj, "/status/podIP").and_then(|s| s.parse().ok()),
                containers: containers_at(obj, "/spec/containers"),
            }),
            k if TEMPLATED.contains(&k) => self.workloads.push(Workload {
                namespace: ns,
                name,
                kind: k.to_string(),
                labels: labels_at(obj, "/spec/template/metadata/labels"),
                ip: None,
                containers: containers_at(obj, "/spec/template/spec/containers"),
            }),
            "Service" => {}
            "NetworkPolicy" => {
                let d = decode_policy(obj)
                    .map_err(|e| format!("{origin}: NetworkPolicy {ns}/{name}: {}", e.0))?;
                for u in &d.unknown {
                    self.warnings
                        .push(format!("{origin}: NetworkPolicy {ns}/{name}: unknown field \"{u}\" ignored"));
                }
                let mut p = d.policy;
                p.meta.namespace = ns;
                p.spec.apply_defaults();
                let errors = validate_policy(&p, obj.pointer("/spec/podSelector").is_some());
                if !errors.is_empty() {
                    return Err(format!(
                        "{origin}: {}",
                        invalid_message("NetworkPolicy", &p.meta.name, &errors)
                    ));
                }
                self.policies.push(p);
            }
            other => self.warnings.push(format!(
                "{origin}: ignoring {} {ns}/{name}",
                if other.is_empty() { "an object without kind" } else { other }
            )),
        }
        Ok(())
    }

    /// Every allowed pair, sorted by source then destination.
    pub fn connections(&self) -> Vec<Connection> {
        let mut namespaces = self.namespaces.clone();
        for w in &self.workloads {
            namespaces.entry(w.namespace.clone()).or_insert_with(|| {
                [("kubernetes.io/metadata.name".to_string(), w.namespace.clone())].into_iter().collect()
            });
        }
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
        let compiled = Compiled::new(&pods, &nss, &policies);
        let mut out = Vec::new();
        for (i, a) in self.workloads.iter().enumerate() {
            for (j, b) in self.workloads.iter().enumerate() {
                if i == j {
                    continue;
                }
                let ports = compiled.allowed_ports(End::Pod(i), End::Pod(j));
                if !ports.is_empty() {
                    out.push(Connection { src: a.key(), dst: b.key(), ports });
                }
            }
        }
        out.sort_by(|x, y| (&x.src, &x.dst).cmp(&(&y.src, &y.dst)));
        out
    }
}

/// `All Connections`, or `TCP 80,8080-8090; UDP 53`.
pub fn conn_text(p: &PortSet) -> String {
    if p.is_all() {
        return "All Connections".into();
    }
    Protocol::ALL
        .iter()
        .filter(|proto| !p.ranges(**proto).is_empty())
        .map(|proto| {
            let ranges: Vec<String> = p
                .ranges(*proto)
                .iter()
                .map(|(a, b)| if a == b { a.to_string() } else { format!("{a}-{b}") })
                .collect();
            format!("{} {}", proto.as_str(), ranges.join(","))
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// The text report.
pub fn render_text(conns: &[Connection]) -> String {
    conns.iter().map(|c| format!("{} => {} : {}\n", c.src, c.dst, conn_text(&c.ports))).collect()
}

/// The JSON report.
pub fn render_json(conns: &[Connection]) -> String {
    let items: Vec<Value> = conns
        .iter()
        .map(|c| {
            let ports: serde_json::Map<String, Value> = Protocol::ALL
                .iter()
                .filter(|p| !c.ports.ranges(**p).is_empty())
                .map(|p| (p.as_str().to_string(), json!(c.ports.ranges(*p))))
                .collect();
            json!({"src": c.src, "dst": c.dst, "conn": conn_text(&c.ports), "ports": ports})
        })
        .collect();
    format!("{}\n", to_json_pretty(&Value::Array(items)))
}

struct Opts {
    files: Vec<String>,
    json: bool,
}

fn parse_args(args: &[String]) -> Result<Opts, String> {
    use lexopt::Arg::{Long, Short};
    let mut o = Opts { files: Vec::new(), json: false };
    let mut p = tool_args::parser(args);
    while let Some(arg) = tool_args::next(&mut p)? {
        let flag = tool_args::shown(&arg);
        match arg {
            Short('f') | Long("filename") => o.files.push(tool_args::value(&mut p, &flag)?),
            Short('o') | Long("output") => o.json = parse_output(&tool_args::value(&mut p, &flag)?)?,
            _ => return Err(format!("unexpected argument {flag:?}")),
        }
    }
    if o.files.is_empty() {
        return Err("no input: give at least one -f FILE (or -f - for standard input)".into());
    }
    Ok(o)
}

fn parse_output(v: &str) -> Result<bool, String> {
    match v {
        "json" => Ok(true),
        "text" => Ok(false),
        other => Err(format!("unknown output format {other:?} (text, json)")),
    }
}

fn run(args: &[String], stdin: &mut dyn Read, out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    let opts = match parse_args(args) {
        Ok(o) => o,
        Err(e) => {
            let _ = writeln!(err, "netpress k8s connectivity: {e}\n{USAGE}");
            return 2;
        }
    };
    let mut input = Input::default();
    for f in &opts.files {
        let text = if f == "-" {
            let mut s = String::new();
            stdin.read_to_string(&mut s).map(|_| s).map_err(|e| format!("cannot read standard input: {e}"))
        } else {
            std::fs::read_to_string(f).map_err(|e| format!("cannot read {f}: {e}"))
        };
        if let Err(e) = text.and_then(|t| input.add(if f == "-" { "STDIN" } else { f }, &t)) {
            let _ = writeln!(err, "netpress k8s connectivity: {e}");
            return 1;
        }
    }
    for w in &input.warnings {
        let _ = writeln!(err, "netpress k8s connectivity: {w}");
    }
    let conns = input.connections();
    let text = if opts.json { render_json(&conns) } else { render_text(&conns) };
    match out.write_all(text.as_bytes()) {
        Ok(()) => 0,
        Err(_) => 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MANIFESTS: &str = "
apiVersion: apps/v1
kind: Deployment
metadata: {name: frontend}
spec:
  template:
    metadata: {labels: {app: frontend}}
    spec: {containers: [{name: server, ports: [{containerPort: 8080}]}]}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: adservice}
spec:
  template:
    metadata: {labels: {app: adservice}}
    spec: {containers: [{name: server, ports: [{containerPort: 9555, name: grpc}]}]}
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: adservice}
spec:
  podSelector: {matchLabels: {app: adservice}}
  ingress:
  - from: [{podSelector: {matchLabels: {app: frontend}}}]
    ports: [{port: grpc}, {port: 1, endPort: 79, protocol: UDP}]
";

    #[test]
    fn analyzes_pairs() {
        let mut input = Input::default();
        input.add("x.yaml", MANIFESTS).unwrap();
        let text = render_text(&input.connections());
        assert_eq!(
            text,
            "default/adservice[Deployment] => default/frontend[Deployment] : All Connections\n\
             default/frontend[Deployment] => default/adservice[Deployment] : TCP 9555; UDP 1-79\n"
        );
        let json: Value = serde_json::from_str(&render_json(&input.connections())).unwrap();
        assert_eq!(json[1]["ports"]["TCP"], json!([[9555, 9555]]));
    }

    #[test]
    fn cli_arguments_and_errors() {
        let mut out = Vec::new();
        let mut err = Vec::new();
        let code = run(&["-f".into(), "-".into()], &mut MANIFESTS.as_bytes(), &mut out, &mut err);
        assert_eq!(code, 0);
        assert_eq!(String::from_utf8(out).unwrap().lines().count(), 2);
        let mut err = Vec::new();
        assert_eq!(run(&[], &mut "".as_bytes(), &mut Vec::new(), &mut err), 2);
        let bad = "kind: NetworkPolicy\nmetadata: {name: x}\nspec: {podSelector: {}, ingress: [{ports: [{port: 70000}]}]}";
        let mut err = Vec::new();
        assert_eq!(run(&["-f".into(), "-".into()], &mut bad.as_bytes(), &mut Vec::new(), &mut err), 1);
        assert!(String::from_utf8(err).unwrap().contains("must be between 1 and 65535"));
    }

    /// Bad arguments exit 2 with one line naming the argument as typed, then the usage;
    /// every spelling of `-f` and `-o` reads the same.
    #[test]
    fn bad_arguments_exit_2_with_the_usage() {
        let run_args = |a: &[&str]| {
            let (mut out, mut err) = (Vec::new(), Vec::new());
            let args: Vec<String> = a.iter().map(|s| s.to_string()).collect();
            let code = run(&args, &mut MANIFESTS.as_bytes(), &mut out, &mut err);
            (code, String::from_utf8(out).unwrap(), String::from_utf8(err).unwrap())
        };
        for (args, message) in [
            (&["-f", "-", "--yaml"][..], "unexpected argument \"--yaml\""),
            (&["-f", "-", "extra"], "unexpected argument \"extra\""),
            (&["-f"], "-f needs a value"),
            (&["-f", "-", "--output"], "--output needs a value"),
            (&["-f", "-", "-o", "yaml"], "unknown output format \"yaml\" (text, json)"),
            (&["-o", "json"], "no input: give at least one -f FILE"),
        ] {
            let (code, out, err) = run_args(args);
            assert_eq!((code, out.as_str()), (2, ""), "{args:?}");
            assert!(err.starts_with(&format!("netpress k8s connectivity: {message}")), "{args:?}: {err}");
            assert!(err.contains(USAGE), "{args:?}");
        }
        let json = run_args(&["-f", "-", "-o", "json"]).1;
        for args in
            [&["-f-", "-ojson"][..], &["--filename", "-", "--output=json"], &["--filename=-", "-o", "json"]]
        {
            assert_eq!(run_args(args), (0, json.clone(), String::new()), "{args:?}");
        }
    }

    #[test]
    fn conn_text_ranges() {
        let mut p = PortSet::default();
        p.add(Protocol::Tcp, 1, 79);
        p.add(Protocol::Tcp, 81, 65535);
        assert_eq!(conn_text(&p), "TCP 1-79,81-65535");
        assert_eq!(conn_text(&PortSet::all()), "All Connections");
    }
}
