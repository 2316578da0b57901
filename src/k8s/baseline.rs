//! The deterministic baseline operator (docs/k8s.md, "Baseline operator").
//!
//! It reads only the conversation: the intent and the verb policy from the prompt, the
//! latest report, and the outputs of its own earlier commands. It never sees the fault
//! list. Each reply is derived from the whole transcript, so the agent keeps no state of
//! its own. Priorities: (1) every intended name probe fails → neutralise kube-system
//! policies (DNS); (2) every intended name probe *from* a source fails → restore that
//! source's egress; (3) otherwise rebuild the policy of the target with the most mismatch
//! lines from the intent. Rule (2) skips a source whose failing targets fail for every one of
//! their callers (then the targets are at fault, e.g. frontend without an ingress rule).

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Value, json};

use crate::conversation::{Agent, AgentError, AgentInfo, AgentReply, Message, Role};
use crate::reply::fenced_blocks;

use super::yaml::to_json_compact;

/// The scripted operator.
#[derive(Debug, Clone, Copy, Default)]
pub struct ScriptedOperator;

impl Agent for ScriptedOperator {
    fn info(&self) -> AgentInfo {
        AgentInfo::new("baseline", "k8s-scripted-operator")
    }

    fn reply(&mut self, messages: &[Message]) -> Result<AgentReply, AgentError> {
        let cmd = decide(messages);
        Ok(AgentReply { text: format!("```bash\n{cmd}\n```"), latency_ms: None, tokens: None })
    }
}

/// The intent as the prompt states it.
#[derive(Debug, Default)]
struct Intent {
    /// callee → callers.
    callers: BTreeMap<String, Vec<String>>,
    /// Service name → Service port.
    ports: BTreeMap<String, u16>,
    /// Every workload the prompt names.
    workloads: BTreeSet<String>,
    /// Workloads that accept anything from anywhere.
    open: BTreeSet<String>,
    delete_allowed: bool,
    /// Level 4: the intended admin policies, `(resource, name)` → spec.
    admin: BTreeMap<(String, String), Value>,
}

impl Intent {
    fn parse(prompt: &str) -> Intent {
        let mut it = Intent { admin: admin_intent(prompt), ..Intent::default() };
        for line in prompt.lines() {
            if let Some(verbs) = line.strip_prefix("- Allowed kubectl verbs: ") {
                let list = verbs.split(". Refused").next().unwrap_or("");
                it.delete_allowed = list.split(", ").any(|v| v.trim_end_matches('.') == "delete");
            }
            let Some(rest) = line.strip_prefix("- ") else { continue };
            if let Some(name) = rest.strip_suffix(" accepts any traffic from anywhere.") {
                it.open.insert(name.to_string());
                continue;
            }
            let Some((src, targets)) = rest.split_once(" \u{2192} ") else { continue };
            if src.contains(' ') {
                continue;
            }
            it.workloads.insert(src.to_string());
            for t in targets.split(", ") {
                let Some((svc, port)) = t.split_once(':') else { continue };
                let Ok(port) = port.trim().parse::<u16>() else { continue };
                it.workloads.insert(svc.to_string());
                it.ports.insert(svc.to_string(), port);
                it.callers.entry(svc.to_string()).or_default().push(src.to_string());
            }
        }
        it
    }

    /// The intended True name probes: the call graph plus every workload → frontend.
    fn true_name_probes(&self) -> BTreeSet<(String, String)> {
        let mut set = BTreeSet::new();
        for (callee, callers) in &self.callers {
            for c in callers {
                set.insert((c.clone(), callee.clone()));
            }
        }
        for w in &self.workloads {
            if w != "frontend" {
                set.insert((w.clone(), "frontend".to_string()));
            }
        }
        set
    }
}

/// The intended admin policies of a level-4 prompt: the YAML block after the sentence that
/// introduces them.
fn admin_intent(prompt: &str) -> BTreeMap<(String, String), Value> {
    let Some((_, rest)) =
        prompt.split_once("The intended admin policies (kubectl get anp,banp) are exactly:\n```yaml\n")
    else {
        return BTreeMap::new();
    };
    let text = rest.split("```").next().unwrap_or("");
    let docs = crate::k8s::yaml::parse_documents(text).unwrap_or_default();
    docs.into_iter()
        .filter_map(|d| {
            let resource = match d.get("kind").and_then(Value::as_str)? {
                "AdminNetworkPolicy" => "adminnetworkpolicy",
                _ => "baselineadminnetworkpolicy",
            };
            Some(((resource.to_string(), name_of(&d).to_string()), d.get("spec")?.clone()))
        })
        .collect()
}

/// One report line.
#[derive(Debug, Clone)]
struct Line {
    src: String,
    /// The target workload (Service name, or the pod's deployment).
    target: String,
    name_probe: bool,
    expected: String,
    actual: String,
}

fn parse_report(text: &str) -> Vec<Line> {
    text.lines()
        .filter_map(|l| {
            let rest = l.strip_prefix("Mismatch: ")?;
            let (src, rest) = rest.split_once(" \u{2192} ")?;
            let (target, verdicts) = rest.split_once(" (Expected: ")?;
            let (expected, actual) = verdicts.trim_end_matches(')').split_once(", Actual: ")?;
            let (name_probe, target) = match target.strip_prefix("pod/") {
                Some(pod) => {
                    let name = pod.split(':').next()?;
                    let parts: Vec<&str> = name.rsplitn(3, '-').collect();
                    (false, parts.last()?.to_string())
                }
                None => (true, target.split(':').next()?.to_string()),
            };
            Some(Line {
                src: src.into(),
                target,
                name_probe,
                expected: expected.into(),
                actual: actual.into(),
            })
        })
        .collect()
}

/// The commands this agent ran, each with the output it got.
fn history(messages: &[Message]) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for pair in messages.windows(2) {
        if pair[0].role != Role::Assistant {
            continue;
        }
        let cmd =
            fenced_blocks(&pair[0].content).first().map(|f| f.body.trim().to_string()).unwrap_or_default();
        let obs = &pair[1].content;
        let output = obs
            .strip_prefix("Command output:\n")
            .and_then(|o| o.split("\n\nConnectivity report:").next())
            .unwrap_or("")
            .to_string();
        out.push((cmd, output));
    }
    out
}

/// The newest report: after the last observation's `Connectivity report:`, or the prompt's
/// `Current connectivity report:` before the first turn.
fn latest_report(messages: &[Message]) -> &str {
    let last = messages.last().map_or("", |m| m.content.as_str());
    last.rsplit_once("onnectivity report:\n").map_or("", |(_, r)| r)
}

fn json_of(hist: &[(String, String)], cmd: &str) -> Option<Value> {
    hist.iter().rev().find(|(c, _)| c == cmd).and_then(|(_, out)| serde_json::from_str(out).ok())
}

fn issued(hist: &[(String, String)], cmd: &str) -> bool {
    hist.iter().any(|(c, _)| c == cmd)
}

const LIST_SYSTEM: &str = "kubectl get networkpolicies -n kube-system -o json";
const LIST_POLICIES: &str = "kubectl get networkpolicies -o json";
const LIST_SERVICES: &str = "kubectl get services -o json";
const LIST_ADMIN: &str = "kubectl get adminnetworkpolicies,baselineadminnetworkpolicies -o json";

fn items(v: &Value) -> Vec<&Value> {
    v.get("items").and_then(Value::as_array).map(|a| a.iter().collect()).unwrap_or_default()
}

fn name_of(v: &Value) -> &str {
    v.pointer("/metadata/name").and_then(Value::as_str).unwrap_or("")
}

/// The next command.
fn decide(messages: &[Message]) -> String {
    let intent = Intent::parse(messages.first().map_or("", |m| m.content.as_str()));
    let hist = history(messages);
    let lines = parse_report(latest_report(messages));
    let failing: BTreeSet<(String, String)> = lines
        .iter()
        .filter(|l| l.name_probe && l.expected == "True" && l.actual != "True")
        .map(|l| (l.src.clone(), l.target.clone()))
        .collect();
    let wanted = intent.true_name_probes();
    if !intent.admin.is_empty()
        && !lines.is_empty()
        && let Some(cmd) = admin_step(&hist, &intent)
    {
        return cmd;
    }
    if !wanted.is_empty()
        && wanted.is_subset(&failing)
        && let Some(cmd) = dns_step(&hist, intent.delete_allowed)
    {
        return cmd;
    }
    if let Some(cmd) = egress_step(&hist, &lines, &wanted, &failing, !intent.admin.is_empty()) {
        return cmd;
    }
    target_step(&hist, &lines, &intent).unwrap_or_else(|| "kubectl get networkpolicies".to_string())
}

/// (0, level 4): list the admin policies, then put back the spec of each one that differs
/// from the intent.
fn admin_step(hist: &[(String, String)], intent: &Intent) -> Option<String> {
    let Some(list) = json_of(hist, LIST_ADMIN) else { return Some(LIST_ADMIN.into()) };
    items(&list).into_iter().find_map(|item| {
        let resource = match item.get("kind").and_then(Value::as_str)? {
            "AdminNetworkPolicy" => "adminnetworkpolicy",
            _ => "baselineadminnetworkpolicy",
        };
        let want = intent.admin.get(&(resource.to_string(), name_of(item).to_string()))?;
        if item.get("spec") == Some(want) {
            return None;
        }
        let ops = json!([{"op": "replace", "path": "/spec", "value": want}]);
        let cmd =
            format!("kubectl patch {resource} {} --type=json -p '{}'", name_of(item), to_json_compact(&ops));
        (!issued(hist, &cmd)).then_some(cmd)
    })
}

/// (1): list kube-system policies, then neutralise each one not yet handled.
fn dns_step(hist: &[(String, String)], delete: bool) -> Option<String> {
    let Some(list) = json_of(hist, LIST_SYSTEM) else { return Some(LIST_SYSTEM.into()) };
    items(&list).into_iter().map(name_of).find_map(|name| {
        let cmd = if delete {
            format!("kubectl delete networkpolicy {name} -n kube-system")
        } else {
            format!("kubectl patch networkpolicy {name} -n kube-system --type=merge -p '{{\"spec\":{{\"ingress\":[{{}}]}}}}'")
        };
        (!issued(hist, &cmd)).then_some(cmd)
    })
}

/// (2): a source whose every intended name probe fails has lost its egress (DNS).
fn egress_step(
    hist: &[(String, String)],
    lines: &[Line],
    wanted: &BTreeSet<(String, String)>,
    failing: &BTreeSet<(String, String)>,
    layered: bool,
) -> Option<String> {
    let mut seen = BTreeSet::new();
    for l in lines {
        let s = &l.src;
        if !seen.insert(s.clone()) {
            continue;
        }
        let own: Vec<&(String, String)> = wanted.iter().filter(|(src, _)| src == s).collect();
        // A failure shared by every caller of a target is the target's, not the source's.
        let shared_by_callers =
            |t: &String| wanted.iter().filter(|(_, dst)| dst == t).all(|probe| failing.contains(probe));
        if layered {
            // Under the admin layer DNS still works when a pod's egress is cut, so any of the
            // pod's calls may be the ones failing, as long as not every one of them is a
            // failure its target's other callers share.
            let own_failing: Vec<&&(String, String)> = own.iter().filter(|p| failing.contains(**p)).collect();
            if own_failing.is_empty() || own_failing.iter().all(|(_, t)| shared_by_callers(t)) {
                continue;
            }
        } else {
            if own.is_empty() || !own.iter().all(|p| failing.contains(*p)) {
                continue;
            }
            if own.iter().all(|(_, t)| shared_by_callers(t)) {
                continue;
            }
        }
        let read = format!("kubectl get networkpolicy {s} -o json");
        if !issued(hist, &read) {
            return Some(read);
        }
        let patch = if layered {
            format!(
                "kubectl patch networkpolicy {s} --type=merge -p '{{\"spec\":{{\"policyTypes\":[\"Ingress\",\"Egress\"],\"egress\":[{{}}]}}}}'"
            )
        } else {
            format!("kubectl patch networkpolicy {s} --type=merge -p '{{\"spec\":{{\"egress\":[{{}}]}}}}'")
        };
        if !issued(hist, &patch) {
            return Some(patch);
        }
    }
    None
}

/// (3): rebuild the policy of the target with the most lines from the intent.
fn target_step(hist: &[(String, String)], lines: &[Line], intent: &Intent) -> Option<String> {
    let mut counts: Vec<(String, usize)> = Vec::new();
    for l in lines {
        match counts.iter_mut().find(|(t, _)| *t == l.target) {
            Some((_, n)) => *n += 1,
            None => counts.push((l.target.clone(), 1)),
        }
    }
    let Some(policies) = json_of(hist, LIST_POLICIES) else {
        return (!counts.is_empty()).then(|| LIST_POLICIES.to_string());
    };
    let Some(services) = json_of(hist, LIST_SERVICES) else {
        return (!counts.is_empty()).then(|| LIST_SERVICES.to_string());
    };
    let mut order: Vec<usize> = (0..counts.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(counts[i].1));
    order.into_iter().find_map(|i| {
        let t = &counts[i].0;
        let cmd = canonical_patch(t, &policies, &services, intent)?;
        (!issued(hist, &cmd)).then_some(cmd)
    })
}

fn canonical_patch(t: &str, policies: &Value, services: &Value, intent: &Intent) -> Option<String> {
    let selects =
        |p: &&&Value| p.pointer("/spec/podSelector/matchLabels/app").and_then(Value::as_str) == Some(t);
    let all = items(policies);
    let policy = all.iter().find(|p| name_of(p) == t).or_else(|| all.iter().find(selects))?;
    let svc = items(services).into_iter().find(|s| name_of(s) == t)?;
    let tp = svc.pointer("/spec/ports/0/targetPort").cloned().unwrap_or(Value::Null);
    let callers = intent.callers.get(t).cloned().unwrap_or_default();
    let ingress = if callers.is_empty() || intent.open.contains(t) {
        json!([{}])
    } else {
        let from: Vec<Value> =
            callers.iter().map(|c| json!({"podSelector": {"matchLabels": {"app": c}}})).collect();
        json!([{"from": from, "ports": [{"port": tp, "protocol": "TCP"}]}])
    };
    let patch = json!({"spec": {
        "podSelector": {"matchLabels": {"app": t}},
        "policyTypes": ["Ingress", "Egress"],
        "ingress": ingress,
        "egress": [{}],
    }});
    Some(format!(
        "kubectl patch networkpolicy {} --type=merge -p '{}'",
        name_of(policy),
        to_json_compact(&patch)
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_prompt_intent_and_report() {
        let prompt = crate::k8s::prompt::render(
            crate::app::PromptVariant::ZeroshotBase,
            crate::k8s::kubectl::VerbPolicy::default(),
            10,
            "No mismatches found.",
        );
        let it = Intent::parse(&prompt);
        assert_eq!(it.workloads.len(), 12);
        assert_eq!(it.true_name_probes().len(), 26);
        assert_eq!(it.callers["productcatalogservice"].len(), 3);
        assert!(it.open.contains("frontend"));
        assert!(!it.delete_allowed);
        let lines = parse_report(
            "Mismatch: frontend \u{2192} adservice:9555 (Expected: True, Actual: False)\nMismatch: cartservice \u{2192} pod/redis-cart-abcdefghij-klmno:6379/UDP (Expected: False, Actual: True)",
        );
        assert_eq!(lines[1].target, "redis-cart");
        assert!(lines[0].name_probe && !lines[1].name_probe);
    }
}
