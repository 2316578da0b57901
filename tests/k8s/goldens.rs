//! kubectl goldens (docs/k8s.md, "Tests"): the expected output of about a hundred commands, in
//! every output format, run in order through the emulated shell on one cluster.
//!
//! The cluster is the intended one with one fault shape on each policy (so `describe` covers
//! all 12 policies and every fault shape) plus the kube-system deny-all; its policies are
//! committed as `goldens/cluster-policies.yaml`, which `scripts/capture-k8s-goldens.sh` applies
//! to a real kind cluster to re-capture the same commands.
//!
//! File format: a command starts with `$ ` (continuation lines with `> `, as a terminal shows
//! them); its output follows up to the next command. `NETPRESS_BLESS=1 cargo test --test
//! k8s goldens::` rewrites the file from the emulator (then review the diff by hand).

use crate::bless::golden;
use netpress::k8s::cluster::Cluster;
use netpress::k8s::fault::{Fault, NpVariant, PolicySet, RiScope, WnsVariant, WpsSite, intended_set};
use netpress::k8s::kubectl::{Env, VerbPolicy};
use netpress::k8s::shell;
use netpress::k8s::task::inject_cluster;
use netpress::k8s::yaml::to_yaml;
use serde_json::Value;

const GOLDENS: &str = "tests/data/k8s/goldens/kubectl.txt";
const POLICIES: &str = "tests/data/k8s/goldens/cluster-policies.yaml";

/// One fault shape per policy.
fn shapes() -> Vec<Fault> {
    let s = |x: &str| x.to_string();
    vec![
        Fault::AddIngress { policy: s("adservice"), sources: [s("loadgenerator"), s("emailservice")] },
        Fault::RemoveIngress { policy: s("cartservice"), scope: RiScope::Peer { caller: s("frontend") } },
        Fault::ChangePort { policy: s("checkoutservice"), port: 5051 },
        Fault::ChangeProtocol { policy: s("currencyservice"), protocol: s("SCTP") },
        Fault::NamedPort { policy: s("emailservice"), variant: NpVariant::SvcPortNumber, port: s("5000") },
        Fault::RemoveIngress { policy: s("frontend"), scope: RiScope::Rule },
        Fault::AddEgress { policy: s("loadgenerator"), destinations: [s("frontend"), s("adservice")] },
        Fault::WrongPodSelector {
            policy: s("paymentservice"),
            site: WpsSite::Spec,
            typo: s("paymentservcie"),
        },
        Fault::WrongNamespaceSelector {
            policy: s("productcatalogservice"),
            caller: s("recommendationservice"),
            variant: WnsVariant::SplitOr,
        },
        Fault::EgressNoDns { policy: s("recommendationservice") },
        Fault::PolicyTypes { policy: s("redis-cart") },
        Fault::WrongNamespaceSelector {
            policy: s("shippingservice"),
            caller: s("checkoutservice"),
            variant: WnsVariant::WrongValue { value: s("prod") },
        },
        Fault::DenyAllKubeSystem { name: s("default-deny-all"), egress: true },
    ]
}

fn golden_set() -> PolicySet {
    let mut set = intended_set();
    for f in shapes() {
        f.apply(&mut set).unwrap_or_else(|e| panic!("{f:?}: {e:?}"));
    }
    set
}

pub(super) fn golden_env() -> Env {
    Env::new(inject_cluster(&golden_set()), VerbPolicy::parse("acd").unwrap())
}

fn policies_yaml() -> String {
    let docs: Vec<String> = golden_set().values().map(|p| to_yaml(&p.manifest())).collect();
    format!(
        "# The policies of the golden cluster (generated from tests/k8s_goldens.rs).\n---\n{}",
        docs.join("---\n")
    )
}

/// `(command, expected output)` pairs.
fn parse(text: &str) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    let mut in_command = false;
    for line in text.split_inclusive('\n') {
        if let Some(cmd) = line.strip_prefix("$ ") {
            out.push((cmd.trim_end_matches('\n').to_string(), String::new()));
            in_command = true;
        } else if let (Some(cont), true) = (line.strip_prefix("> "), in_command) {
            let last = out.last_mut().expect("a command");
            last.0.push('\n');
            last.0.push_str(cont.trim_end_matches('\n'));
        } else if let Some(last) = out.last_mut() {
            in_command = false;
            last.1.push_str(line);
        }
    }
    out
}

fn render(pairs: &[(String, String)]) -> String {
    let mut s = String::new();
    for (cmd, out) in pairs {
        let mut lines = cmd.lines();
        s.push_str(&format!("$ {}\n", lines.next().unwrap_or("")));
        for l in lines {
            s.push_str(&format!("> {l}\n"));
        }
        s.push_str(out);
    }
    s
}

#[test]
fn kubectl_goldens() {
    check_goldens(GOLDENS, 60);
}

/// Runs the commands of the golden file at `path` in order on the golden cluster (+20 s each)
/// and compares every output; at least `min` commands.
pub(super) fn check_goldens(path: &str, min: usize) {
    let text = std::fs::read_to_string(path).expect("goldens file");
    let pairs = parse(&text);
    assert!(pairs.len() >= min, "expected at least {min} golden commands, found {}", pairs.len());
    let mut env = golden_env();
    let mut actual = Vec::new();
    for (cmd, _) in &pairs {
        let run = shell::run(cmd, &mut env);
        env.cluster.now += 20;
        actual.push((cmd.clone(), run.output));
    }
    let pairs = parse(&golden(path, || render(&actual)));
    assert_eq!(pairs.len(), actual.len());
    for ((cmd, want), (_, got)) in pairs.iter().zip(&actual) {
        assert_eq!(got, want, "output of `{cmd}` differs from the golden");
    }
}

#[test]
fn committed_policies_match_the_golden_cluster() {
    assert_eq!(golden(POLICIES, policies_yaml), policies_yaml());
}

#[test]
fn every_describe_shape_is_covered() {
    let text = std::fs::read_to_string(GOLDENS).expect("goldens file");
    for name in netpress::k8s::intent::policy_names() {
        assert!(text.contains(&format!("$ kubectl describe networkpolicy {name}\n")), "describe {name}");
    }
    assert!(text.contains("$ kubectl describe networkpolicy default-deny-all -n kube-system\n"));
}

#[test]
fn round_trips() {
    let mut env = golden_env();
    let sh = |env: &mut Env, c: &str| shell::run(c, env).output;
    assert_eq!(
        sh(&mut env, "kubectl get netpol adservice -o yaml | kubectl apply -f -"),
        "networkpolicy.networking.k8s.io/adservice unchanged\n"
    );
    assert_eq!(
        sh(&mut env, "kubectl get netpol cartservice -o json | kubectl apply -f -"),
        "networkpolicy.networking.k8s.io/cartservice unchanged\n"
    );
    let rv =
        |env: &mut Env| sh(env, "kubectl get netpol checkoutservice -o jsonpath={.metadata.resourceVersion}");
    let before = rv(&mut env);
    let noop = r#"kubectl patch netpol checkoutservice --type=merge -p '{"spec":{"podSelector":{"matchLabels":{"app":"checkoutservice"}}}}'"#;
    assert_eq!(sh(&mut env, noop), "networkpolicy.networking.k8s.io/checkoutservice patched (no change)\n");
    assert_eq!(rv(&mut env), before);
    let json = sh(&mut env, "kubectl get netpol -A -o json");
    let v: Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["kind"], "List");
    assert_eq!(v["items"].as_array().unwrap().len(), 13);
    let _: Cluster = env.cluster;
}
