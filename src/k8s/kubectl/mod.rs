//! The emulated `kubectl`: verb policy, read verbs, writes limited as by RBAC, and kubectl
//! 1.34's output formats byte for byte (docs/k8s.md, "What the agent has", lists the verbs and
//! formats).
//!
//! [`run_into`] takes one command line (after the program name) and the shell's standard
//! input, acts on the [`Env`] (cluster state, verb policy, refusal log) and writes what
//! kubectl would print into an `Output`, which holds the shell's output limit as it is
//! written ([`run`] returns an unlimited one). Parsing, lookups and every error are pure functions of the state and the
//! arguments; nothing here can panic on agent input.

pub mod args;
pub mod describe;
pub mod explain;
pub mod get;
pub mod jsonpath;
pub mod patch;
pub mod printers;
pub mod stored;
pub mod tabwriter;
pub mod target;
pub mod write;

use serde::{Deserialize, Serialize};

use super::cluster::Cluster;
use super::output::Output;
use args::{edit_distance, find_verb};

/// Which of the optional verbs a task enables (`-v` knob letters `a`, `c`, `d`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct VerbPolicy {
    pub apply: bool,
    pub create: bool,
    pub delete: bool,
}

/// Verbs every task allows.
pub const ALWAYS: [&str; 6] = ["get", "describe", "explain", "patch", "label", "version"];
/// Verbs that never run.
pub const NEVER: [&str; 2] = ["edit", "exec"];

impl VerbPolicy {
    /// Parses knob letters such as `ad`; letters must be distinct and in `acd` order.
    pub fn parse(letters: &str) -> Option<VerbPolicy> {
        let mut p = VerbPolicy::default();
        let mut last = None;
        for c in letters.chars() {
            let pos = "acd".find(c)?;
            if last.is_some_and(|l| pos <= l) {
                return None;
            }
            last = Some(pos);
            match c {
                'a' => p.apply = true,
                'c' => p.create = true,
                _ => p.delete = true,
            }
        }
        (!letters.is_empty()).then_some(p)
    }

    /// The knob letters (empty for the default policy).
    pub fn letters(&self) -> String {
        [(self.apply, 'a'), (self.create, 'c'), (self.delete, 'd')]
            .iter()
            .filter(|(on, _)| *on)
            .map(|(_, c)| *c)
            .collect()
    }

    /// The allowed verbs in display order.
    pub fn allowed(&self) -> Vec<&'static str> {
        let mut v = ALWAYS.to_vec();
        for (on, verb) in [(self.apply, "apply"), (self.create, "create"), (self.delete, "delete")] {
            if on {
                v.push(verb);
            }
        }
        v
    }

    /// The refused verbs in display order.
    pub fn refused(&self) -> Vec<&'static str> {
        let mut v = Vec::new();
        for (on, verb) in [(self.apply, "apply"), (self.create, "create"), (self.delete, "delete")] {
            if !on {
                v.push(verb);
            }
        }
        v.extend(NEVER);
        v
    }
}

/// A refused command, recorded for the score card.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Refusal {
    pub turn: u32,
    pub verb: String,
    pub command: String,
}

/// What kubectl acts on.
#[derive(Debug, Clone)]
pub struct Env {
    pub cluster: Cluster,
    pub verbs: VerbPolicy,
    pub refusals: Vec<Refusal>,
    /// The turn being executed (for refusal records).
    pub turn: u32,
}

impl Env {
    pub fn new(cluster: Cluster, verbs: VerbPolicy) -> Self {
        Env { cluster, verbs, refusals: Vec::new(), turn: 0 }
    }
}

/// Runs `kubectl ARGV…` with `stdin` and returns all it prints.
pub fn run(argv: &[String], stdin: &str, env: &mut Env) -> Output {
    let mut o = Output::default();
    run_into(argv, stdin, env, &mut o);
    o
}

/// Runs `kubectl ARGV…` with `stdin`, writing into `o` as it prints; the listings that can be
/// long stop once `o` is full.
pub fn run_into(argv: &[String], stdin: &str, env: &mut Env, o: &mut Output) {
    let Some(verb) = find_verb(argv).map(str::to_string) else {
        if let Some(f) = argv.iter().find(|a| a.starts_with('-') && !matches!(a.as_str(), "-h" | "--help"))
            && args::parse(argv, "").is_err()
        {
            let flag = f.split('=').next().unwrap_or(f);
            return o.fail(format!("error: unknown flag: {flag}\nSee 'kubectl --help' for usage."));
        }
        return o.out(HELP);
    };
    if env.verbs.refused().contains(&verb.as_str()) {
        let command =
            std::iter::once("kubectl".to_string()).chain(argv.iter().cloned()).collect::<Vec<_>>().join(" ");
        env.refusals.push(Refusal { turn: env.turn, verb: verb.clone(), command });
        return o.fail(format!(
            "Error from server (Forbidden): kubectl {verb} is not allowed in this task (allowed: {})",
            env.verbs.allowed().join(", ")
        ));
    }
    if !env.verbs.allowed().contains(&verb.as_str()) {
        return o.append(unknown_command(&verb));
    }
    let parsed = match args::parse(argv, &verb) {
        Ok(a) => a,
        Err(e) => return o.fail(format!("error: {e}\nSee 'kubectl {verb} --help' for usage.")),
    };
    if parsed.is_set("help") {
        return o.out(verb_help(&verb));
    }
    // The read verbs write as they go; the others print a line or a few per object named.
    let done = match verb.as_str() {
        "get" => return get::get(&parsed, env, o),
        "describe" => return describe::command(&parsed, env, o),
        "explain" => explain::command(&parsed),
        "patch" => write::patch(&parsed, env),
        "label" => write::label(&parsed, env),
        "apply" => write::apply(&parsed, stdin, env, false),
        "create" => write::apply(&parsed, stdin, env, true),
        "delete" => write::delete(&parsed, stdin, env),
        _ => version(&parsed),
    };
    o.append(done);
}

/// cobra's error for an unknown subcommand, with its suggestions (distance ≤ 2 or prefix).
fn unknown_command(verb: &str) -> Output {
    let known = [
        "get", "describe", "explain", "patch", "label", "version", "apply", "create", "delete", "edit",
        "exec",
    ];
    let suggestions: Vec<&str> = known
        .iter()
        .copied()
        .filter(|k| {
            edit_distance(&verb.to_ascii_lowercase(), k) <= 2 || k.starts_with(&verb.to_ascii_lowercase())
        })
        .collect();
    let mut msg = format!("error: unknown command \"{verb}\" for \"kubectl\"");
    if !suggestions.is_empty() {
        msg.push_str("\n\nDid you mean this?\n");
        for s in suggestions {
            msg.push_str(&format!("\t{s}\n"));
        }
    }
    Output::error(msg)
}

fn version(a: &args::Args) -> Output {
    let mut o = Output::default();
    let client_only = a.is_set("client");
    match a.value("output") {
        None => {
            o.out("Client Version: v1.34.0\nKustomize Version: v5.7.1\n");
            if !client_only {
                o.out("Server Version: v1.34.0\n");
            }
        }
        Some("json") => {
            let server = if client_only {
                String::new()
            } else {
                format!(",\n  \"serverVersion\": {VERSION_INFO_JSON}")
            };
            o.out(format!("{{\n  \"clientVersion\": {VERSION_INFO_JSON},\n  \"kustomizeVersion\": \"v5.7.1\"{server}\n}}\n"));
        }
        Some("yaml") => {
            let server =
                if client_only { String::new() } else { format!("serverVersion:\n{VERSION_INFO_YAML}") };
            o.out(format!("clientVersion:\n{VERSION_INFO_YAML}kustomizeVersion: v5.7.1\n{server}"));
        }
        Some(other) => o.fail(format!("error: --output must be 'yaml' or 'json', not {other:?}")),
    }
    o
}

const VERSION_INFO_JSON: &str = "{\n    \"major\": \"1\",\n    \"minor\": \"34\",\n    \"gitVersion\": \"v1.34.0\",\n    \"gitCommit\": \"f28b4c9efbca5c5c0af716d9f2d5702667ee8a45\",\n    \"gitTreeState\": \"clean\",\n    \"buildDate\": \"2025-08-27T10:09:09Z\",\n    \"goVersion\": \"go1.24.6\",\n    \"compiler\": \"gc\",\n    \"platform\": \"linux/amd64\"\n  }";
const VERSION_INFO_YAML: &str = "  buildDate: \"2025-08-27T10:09:09Z\"\n  compiler: gc\n  gitCommit: f28b4c9efbca5c5c0af716d9f2d5702667ee8a45\n  gitTreeState: clean\n  gitVersion: v1.34.0\n  goVersion: go1.24.6\n  major: \"1\"\n  minor: \"34\"\n  platform: linux/amd64\n";

const HELP: &str = "kubectl controls the Kubernetes cluster manager.

 Find more information at: https://kubernetes.io/docs/reference/kubectl/

Basic Commands (Beginner):
  create          Create a resource from a file or from stdin
  explain         Get documentation for a resource
  get             Display one or many resources
  edit            Edit a resource on the server
  delete          Delete resources by file names, stdin, resources and names, or by resources and label selector

Troubleshooting and Debugging Commands:
  describe        Show details of a specific resource or group of resources
  exec            Execute a command in a container

Advanced Commands:
  apply           Apply a configuration to a resource by file name or stdin
  patch           Update fields of a resource

Settings Commands:
  label           Update the labels on a resource

Other Commands:
  version         Print the client and server version information

Usage:
  kubectl [flags] [options]

Use \"kubectl <command> --help\" for more information about a given command.
";

fn verb_help(verb: &str) -> String {
    let (summary, usage) = match verb {
        "get" => (
            "Display one or many resources.",
            "kubectl get [(-o|--output=)json|yaml|name|wide|jsonpath=...] (TYPE[.VERSION][.GROUP] [NAME | -l label] | TYPE[.VERSION][.GROUP]/NAME ...) [flags] [options]",
        ),
        "describe" => (
            "Show details of a specific resource or group of resources.",
            "kubectl describe (-f FILENAME | TYPE [NAME_PREFIX | -l label] | TYPE/NAME) [options]",
        ),
        "explain" => (
            "Describe fields and structure of various resources.",
            "kubectl explain TYPE [--recursive=FALSE|TRUE] [--api-version=api-version-group] [-o|--output=plaintext|plaintext-openapiv2] [options]",
        ),
        "patch" => (
            "Update fields of a resource using strategic merge patch, a JSON merge patch, or a JSON patch.",
            "kubectl patch (-f FILENAME | TYPE NAME) [-p PATCH|--patch-file FILE] [options]",
        ),
        "label" => (
            "Update the labels on a resource.",
            "kubectl label [--overwrite] (-f FILENAME | TYPE NAME) KEY_1=VAL_1 ... KEY_N=VAL_N [--resource-version=version] [options]",
        ),
        "apply" => (
            "Apply a configuration to a resource by file name or stdin.",
            "kubectl apply (-f FILENAME | -k DIRECTORY) [options]",
        ),
        "create" => ("Create a resource from a file or from stdin.", "kubectl create -f FILENAME [options]"),
        "delete" => (
            "Delete resources by file names, stdin, resources and names, or by resources and label selector.",
            "kubectl delete ([-f FILENAME] | TYPE [(NAME | -l label | --all)]) [options]",
        ),
        _ => (
            "Print the client and server version information for the current context.",
            "kubectl version [flags] [options]",
        ),
    };
    let flags: Vec<String> = args::verb_flags(verb)
        .iter()
        .map(|f| match f.short {
            Some(s) => format!("    -{s}, --{}", f.long),
            None => format!("    --{}", f.long),
        })
        .collect();
    format!(
        "{summary}\n\nOptions:\n{}\n\nUsage:\n  {usage}\n\nUse \"kubectl options\" for a list of global command-line options (applies to all commands).\n",
        flags.join("\n")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env() -> Env {
        Env::new(Cluster::pristine(), VerbPolicy::default())
    }

    fn kubectl(env: &mut Env, line: &str) -> Output {
        let argv: Vec<String> = line.split_whitespace().map(str::to_string).collect();
        run(&argv, "", env)
    }

    #[test]
    fn refuses_by_parsed_verb() {
        let mut e = env();
        let o = kubectl(&mut e, "-n  default delete netpol adservice");
        assert_eq!(
            o.text(),
            "Error from server (Forbidden): kubectl delete is not allowed in this task (allowed: get, describe, explain, patch, label, version)\n"
        );
        assert_eq!(o.status, 1);
        assert_eq!(e.refusals.len(), 1);
        assert_eq!(e.refusals[0].verb, "delete");
        kubectl(&mut e, "exec -it x -- sh");
        assert_eq!(e.refusals.len(), 2);
    }

    #[test]
    fn unknown_verbs_get_suggestions() {
        let mut e = env();
        assert_eq!(
            kubectl(&mut e, "gett pods").text(),
            "error: unknown command \"gett\" for \"kubectl\"\n\nDid you mean this?\n\tget\n"
        );
        assert_eq!(kubectl(&mut e, "logs x").text(), "error: unknown command \"logs\" for \"kubectl\"\n");
        assert!(e.refusals.is_empty());
    }

    #[test]
    fn verb_policy_letters() {
        let p = VerbPolicy::parse("ad").unwrap();
        assert!(p.apply && p.delete && !p.create);
        assert_eq!(p.letters(), "ad");
        assert!(VerbPolicy::parse("da").is_none());
        assert!(VerbPolicy::parse("x").is_none());
        assert_eq!(p.refused(), vec!["create", "edit", "exec"]);
    }

    #[test]
    fn version_and_flag_errors() {
        let mut e = env();
        assert_eq!(
            kubectl(&mut e, "version").text(),
            "Client Version: v1.34.0\nKustomize Version: v5.7.1\nServer Version: v1.34.0\n"
        );
        assert_eq!(
            kubectl(&mut e, "get pods --bogus").text(),
            "error: unknown flag: --bogus\nSee 'kubectl get --help' for usage.\n"
        );
    }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod proptests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]
        #[test]
        fn argv_never_panics(argv in prop::collection::vec(prop::sample::select(vec![
            "get", "describe", "patch", "label", "explain", "version", "delete", "apply", "netpol", "pods", "svc",
            "all", "adservice", "-n", "kube-system", "-A", "-o", "yaml", "json", "wide", "name", "jsonpath={.items[0]}",
            "-l", "app=x", "--type", "json", "merge", "-p", "{}", "[]", "--dry-run=server", "a=b", "a-", "--overwrite",
            "-f", "-", "--bogus", "ns/default", "netpol/frontend", "x,y", "", "anp", "banp", "anp/a", "banp/default",
            "adminnetworkpolicies", "default", "a",
        ]), 0..10), admin in any::<bool>()) {
            let mut env = Env::new(Cluster::pristine(), VerbPolicy::parse("acd").unwrap());
            let argv: Vec<String> = argv.iter().map(|s| s.to_string()).collect();
            let stdin = if admin {
                "apiVersion: policy.networking.k8s.io/v1alpha1\nkind: AdminNetworkPolicy\nmetadata: {name: a}\nspec: {priority: 1, subject: {namespaces: {}}}"
            } else {
                "kind: NetworkPolicy\nmetadata: {name: x}\nspec: {podSelector: {}}"
            };
            let _ = run(&argv, stdin, &mut env);
            let _ = run(&argv, stdin, &mut env);
        }

        /// Whatever a patch does to an admin policy, the stored object stays one that the
        /// server would admit again unchanged, and the matrix can be computed.
        #[test]
        fn admin_patches_keep_a_valid_state(
            path in prop::sample::select(vec!["/spec/priority", "/spec/ingress/0/action", "/spec/ingress/0/ports/0/portRange/end", "/spec/subject", "/metadata/name", "/spec/ingress/0/from/0"]),
            value in prop::sample::select(vec!["0", "1000", "1001", "-1", "\"Pass\"", "\"Deny\"", "65536", "{}", "{\"namespaces\":{}}", "null", "\"x\""]),
        ) {
            let mut env = Env::new(Cluster::pristine(), VerbPolicy::parse("acd").unwrap());
            let anp = "apiVersion: policy.networking.k8s.io/v1alpha1\nkind: AdminNetworkPolicy\nmetadata: {name: a}\nspec:\n  priority: 3\n  subject: {namespaces: {}}\n  ingress:\n  - {action: Allow, from: [{namespaces: {}}], ports: [{portRange: {start: 80, end: 90}}]}\n";
            let argv = |s: &str| s.split(' ').map(str::to_string).collect::<Vec<String>>();
            prop_assert!(run(&argv("apply -f -"), anp, &mut env).stdout().contains("created"));
            let patch = format!("[{{\"op\":\"replace\",\"path\":\"{path}\",\"value\":{value}}}]");
            let mut cmd = argv("patch anp a --type json -p");
            cmd.push(patch);
            let _ = run(&cmd, "", &mut env);
            let yaml = run(&argv("get anp a -o yaml"), "", &mut env).stdout();
            prop_assert!(run(&argv("apply -f -"), &yaml, &mut env).stdout().contains("unchanged"));
            let _ = crate::k8s::probe::evaluate_cluster(&env.cluster);
        }
    }
}
