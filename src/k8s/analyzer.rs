//! `netpress k8s connectivity`: a stand-alone NetworkPolicy analyzer.
//!
//! It reads any multi-document YAML (or JSON) of Namespaces, Pods, workloads with a pod
//! template (Deployments, ReplicaSets, StatefulSets, DaemonSets, Jobs; each stands for one
//! pod of its template), Services and NetworkPolicies, single or in lists, and prints, for
//! every ordered pair of workloads and for the address ranges outside the cluster, the
//! protocols and ports the policies allow, using the same evaluator as the benchmark.
//! Services are read but do not change the pairs: policies act on pods and container ports
//! after DNAT. Pairs with nothing allowed are not printed. Reading is [`input`], the pairs
//! [`matrix`], the formats [`render`].

mod explain;
mod input;
mod matrix;
mod render;

use std::io::{Read, Write};

use crate::app::Tool;
use crate::tool_args;
pub use input::Input;
pub use render::Format;

pub const TOOL: Tool = Tool {
    name: "connectivity",
    about: "print the connections the policies allow between workloads (-f FILE…, -o txt|json|csv|md|dot, --explain SRC DST)",
    usage: USAGE,
    run,
};

const USAGE: &str =
    "usage: netpress k8s connectivity -f FILE [-f FILE]... [-o txt|json|csv|md|dot] [--strict]
                                 [--explain SRC DST]

Reads Kubernetes manifests (multi-document YAML or JSON; `-f -` reads standard input), single
objects or lists (`List`, `PodList`, `NamespaceList`, ...): Namespaces, Pods,
Deployments/ReplicaSets/StatefulSets/DaemonSets/Jobs (each expanded to one pod of its
template), Services, NetworkPolicies, AdminNetworkPolicies and the
BaselineAdminNetworkPolicy. Pods with a controlling owner are reported as the
owner. Prints the connections the policies allow between every ordered pair of workloads, and
between workloads and address ranges outside the cluster, one line per pair with at least one
allowed port:

  default/frontend[Deployment] => default/adservice[Deployment] : TCP 9555
  0.0.0.0-255.255.255.255[External] => default/redis-cart[Deployment] : All Connections

`All Connections` means every port of TCP, UDP and SCTP; otherwise protocols are listed as
`TCP 1-79,81-65535,UDP 53`. Pairs with nothing allowed are omitted. `-o json` prints a JSON
array of {src, dst, conn, ports}; `csv`, `md` and `dot` print the same as a table or a graph.
A policy whose metadata the API server would reject (a name with `_`) is a warning and is
evaluated as written; `--strict` makes it an error.

`--explain SRC DST` prints, instead, for every port from SRC to DST (a workload as printed,
`namespace/name`, or an IPv4 address), which policy layer and which rule decided each
direction: AdminNetworkPolicies by priority (Pass goes on to NetworkPolicies), then
NetworkPolicies, then the BaselineAdminNetworkPolicy, then allow.
";

struct Opts {
    files: Vec<String>,
    format: Format,
    strict: bool,
    explain: Option<(String, String)>,
}

fn parse_args(args: &[String]) -> Result<Opts, String> {
    use lexopt::Arg::{Long, Short};
    let mut o = Opts { files: Vec::new(), format: Format::Txt, strict: false, explain: None };
    let mut p = tool_args::parser(args);
    while let Some(arg) = tool_args::next(&mut p)? {
        let flag = tool_args::shown(&arg);
        match arg {
            Short('f') | Long("filename") => o.files.push(tool_args::value(&mut p, &flag)?),
            Short('o') | Long("output") => o.format = Format::parse(&tool_args::value(&mut p, &flag)?)?,
            Long("strict") => o.strict = true,
            Long("explain") => {
                let src = tool_args::value(&mut p, &flag)?;
                let dst = tool_args::value(&mut p, &flag)?;
                o.explain = Some((src, dst));
            }
            _ => return Err(format!("unexpected argument {flag:?}")),
        }
    }
    if o.files.is_empty() {
        return Err("no input: give at least one -f FILE (or -f - for standard input)".into());
    }
    Ok(o)
}

fn run(args: &[String], stdin: &mut dyn Read, out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    let opts = match parse_args(args) {
        Ok(o) => o,
        Err(e) => {
            let _ = writeln!(err, "netpress k8s connectivity: {e}\n{USAGE}");
            return 2;
        }
    };
    let mut input = Input { strict: opts.strict, ..Input::default() };
    for f in &opts.files {
        let text = crate::tool_args::read_input(f, stdin);
        if let Err(e) = text.and_then(|t| input.add(if f == "-" { "STDIN" } else { f }, &t)) {
            let _ = writeln!(err, "netpress k8s connectivity: {e}");
            return 1;
        }
    }
    for w in &input.warnings {
        let _ = writeln!(err, "netpress k8s connectivity: {w}");
    }
    let text = match &opts.explain {
        Some((src, dst)) => match input.explain(src, dst) {
            Ok(t) => t,
            Err(e) => {
                let _ = writeln!(err, "netpress k8s connectivity: {e}");
                return 1;
            }
        },
        None => opts.format.render(&input.connections()),
    };
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

    const ALL: &str = "0.0.0.0-255.255.255.255[External]";

    fn report(text: &str) -> String {
        let mut input = Input::default();
        input.add("x.yaml", text).unwrap();
        Format::Txt.render(&input.connections())
    }

    #[test]
    fn analyzes_pairs() {
        assert_eq!(
            report(MANIFESTS),
            format!(
                "{ALL} => default/frontend[Deployment] : All Connections\n\
                 default/adservice[Deployment] => {ALL} : All Connections\n\
                 default/adservice[Deployment] => default/frontend[Deployment] : All Connections\n\
                 default/frontend[Deployment] => {ALL} : All Connections\n\
                 default/frontend[Deployment] => default/adservice[Deployment] : TCP 9555,UDP 1-79\n"
            )
        );
    }

    /// Pods are reported as their controlling owner unless the owner's pods differ in labels;
    /// an owner never appears connected to itself.
    #[test]
    fn pods_grouped_by_owner() {
        let pod = |name: &str, owner: &str, app: &str| {
            format!(
                "---\nkind: Pod\nmetadata:\n  name: {name}\n  labels: {{app: {app}}}\n  ownerReferences: \
                 [{{kind: ReplicaSet, name: {owner}, controller: true}}]\n"
            )
        };
        let deny = "---\nkind: NetworkPolicy\nmetadata: {name: deny}\nspec:\n  podSelector: {}\n  \
                    ingress: [{from: [{podSelector: {matchLabels: {app: web}}}]}]\n  egress: [{to: [{podSelector: {}}]}]\n";
        let text = [
            pod("web-1", "web-7f", "web"),
            pod("web-2", "web-7f", "web"),
            pod("db-1", "db-5c", "db"),
            pod("db-2", "db-5c", "db2"),
        ]
        .concat()
            + deny;
        assert_eq!(
            report(&text),
            "default/web-7f[ReplicaSet] => default/db-1[Pod] : All Connections\n\
             default/web-7f[ReplicaSet] => default/db-2[Pod] : All Connections\n"
        );
    }

    #[test]
    fn ip_blocks_split_exactly_by_except() {
        let text = "kind: Pod\nmetadata: {name: p, labels: {app: p}}\n---\nkind: NetworkPolicy
metadata: {name: only-ten}
spec:
  podSelector: {}
  policyTypes: [Ingress, Egress]
  ingress: [{from: [{ipBlock: {cidr: 10.0.0.0/8, except: [10.1.0.0/16]}}], ports: [{port: 443}]}]
";
        assert_eq!(
            report(text),
            "10.0.0.0-10.0.255.255,10.2.0.0-10.255.255.255[External] => default/p[Pod] : TCP 443\n"
        );
    }

    #[test]
    fn cli_arguments_and_errors() {
        let mut out = Vec::new();
        let mut err = Vec::new();
        let code = run(&["-f".into(), "-".into()], &mut MANIFESTS.as_bytes(), &mut out, &mut err);
        assert_eq!(code, 0);
        assert_eq!(String::from_utf8(out).unwrap().lines().count(), 5);
        let mut err = Vec::new();
        assert_eq!(run(&[], &mut "".as_bytes(), &mut Vec::new(), &mut err), 2);
        let bad = "kind: NetworkPolicy\nmetadata: {name: x}\nspec: {podSelector: {}, ingress: [{ports: [{port: 70000}]}]}";
        let mut err = Vec::new();
        assert_eq!(run(&["-f".into(), "-".into()], &mut bad.as_bytes(), &mut Vec::new(), &mut err), 1);
        assert!(String::from_utf8(err).unwrap().contains("must be between 1 and 65535"));
        let bad_name = "kind: NetworkPolicy\nmetadata: {name: deny_all}\nspec: {podSelector: {}}";
        let mut err = Vec::new();
        assert_eq!(run(&["-f".into(), "-".into()], &mut bad_name.as_bytes(), &mut Vec::new(), &mut err), 0);
        assert!(String::from_utf8(err).unwrap().contains("evaluated as written"));
        let mut err = Vec::new();
        let strict = ["-f".into(), "-".into(), "--strict".into()];
        assert_eq!(run(&strict, &mut bad_name.as_bytes(), &mut Vec::new(), &mut err), 1);
        assert!(String::from_utf8(err).unwrap().contains("is invalid"));
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
            (&["-f", "-", "-o", "yaml"], "unknown output format \"yaml\" (txt, json, csv, md, dot)"),
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

    /// The worked example of docs/k8s.md ("Admin network policies").
    const LAYERS: &str = "
kind: NamespaceList
items:
- metadata: {name: shop, labels: {tenant: shop}}
- metadata: {name: ads, labels: {tenant: ads}}
- metadata: {name: other}
---
kind: PodList
items:
- metadata: {name: frontend, namespace: shop}
- metadata: {name: adservice, namespace: ads}
- metadata: {name: intruder, namespace: other}
---
kind: AdminNetworkPolicy
metadata: {name: tenant-isolation}
spec:
  priority: 10
  subject: {namespaces: {matchLabels: {tenant: ads}}}
  ingress:
  - {name: pass-from-shop, action: Pass, from: [{namespaces: {matchLabels: {tenant: shop}}}]}
  - {name: deny-other-tenants, action: Deny, from: [{namespaces: {}}]}
---
kind: NetworkPolicy
metadata: {name: adservice, namespace: ads}
spec:
  podSelector: {}
  ingress: [{ports: [{port: 9555}]}]
---
kind: BaselineAdminNetworkPolicy
metadata: {name: default}
spec:
  subject: {namespaces: {}}
  ingress: [{name: default-deny, action: Deny, from: [{namespaces: {}}]}]
";

    #[test]
    fn admin_layers_in_the_report_and_explained() {
        let mut input = Input::default();
        input.add("x", LAYERS).unwrap();
        let report = Format::Txt.render(&input.connections());
        assert!(report.contains("shop/frontend[Pod] => ads/adservice[Pod] : TCP 9555\n"), "{report}");
        assert!(!report.contains("other/intruder[Pod] => ads/adservice"), "{report}");
        assert!(!report.contains("[Pod] => shop/frontend"), "the BANP denies ingress from pods: {report}");
        assert!(
            report.contains("[External] => shop/frontend[Pod] : All Connections"),
            "but not from outside"
        );
        assert_eq!(
            input.explain("shop/frontend", "ads/adservice[Pod]").unwrap(),
            "shop/frontend[Pod] => ads/adservice[Pod]
TCP 1-9554,9556-65535,UDP 1-65535,SCTP 1-65535: denied
  egress at shop/frontend[Pod]: no policy applies: Allow
  ingress at ads/adservice[Pod]: NetworkPolicy layer: isolated for ingress, no rule admits it: Deny
TCP 9555: allowed
  egress at shop/frontend[Pod]: no policy applies: Allow
  ingress at ads/adservice[Pod]: NetworkPolicy ads/adservice admits it
"
        );
        let intruder = input.explain("other/intruder", "ads/adservice").unwrap();
        assert!(
            intruder.contains("AdminNetworkPolicy tenant-isolation, rule \"deny-other-tenants\": Deny"),
            "{intruder}"
        );
        let to_shop = input.explain("ads/adservice", "shop/frontend").unwrap();
        assert!(
            to_shop.contains("BaselineAdminNetworkPolicy default, rule \"default-deny\": Deny"),
            "{to_shop}"
        );
        assert!(
            input
                .explain("nobody", "shop/frontend")
                .unwrap_err()
                .contains("no workload or address \"nobody\"")
        );
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let args: Vec<String> =
            ["-f", "-", "--explain", "1.2.3.4", "shop/frontend"].iter().map(|s| s.to_string()).collect();
        assert_eq!(run(&args, &mut LAYERS.as_bytes(), &mut out, &mut err), 0);
        let out = String::from_utf8(out).unwrap();
        assert!(
            out.starts_with("1.2.3.4[External] => shop/frontend[Pod]\nAll Connections: allowed\n"),
            "{out}"
        );
    }
}
