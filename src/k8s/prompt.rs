//! The prompt (docs/k8s.md, "What the agent has"), our wording, versioned with the generator (v1).
//!
//! It states the role, the goal, the intended connectivity with Service ports, the
//! container-port caveat, how probes work with both report line formats, the rules (one
//! fenced command or short script per turn, the task's verb policy, no file system, the
//! turn limit) and ends with the post-injection report, so the agent sees the report before
//! its first command. Few-shot variants add worked examples on a fictional application;
//! chain-of-thought variants ask for reasoning with the command last.

use crate::app::PromptVariant;

use super::kubectl::VerbPolicy;

const INTENT: &str = "\
Intended connectivity (source → Service:port, by DNS name over TCP):
- loadgenerator → frontend:80
- frontend → adservice:9555, cartservice:7070, checkoutservice:5050, currencyservice:7000, productcatalogservice:3550, recommendationservice:8080, shippingservice:50051
- checkoutservice → cartservice:7070, currencyservice:7000, emailservice:5000, paymentservice:50051, productcatalogservice:3550, shippingservice:50051
- recommendationservice → productcatalogservice:3550
- cartservice → redis-cart:6379
- frontend accepts any traffic from anywhere.
- Every pod may send any traffic anywhere (DNS to kube-dns in namespace kube-system included).
- Every other flow into the backend services (other sources, other ports, other protocols) is denied.
";

const PORTS: &str = "\
NetworkPolicies select pods, not Services, and match the pod's container port (the Service's targetPort), which may differ from the Service port: emailservice's pod listens on 8080 behind Service port 5000 and frontend's on 8080 behind Service port 80. currencyservice's container port 7000 is named `grpc`; no other container port has a name.
";

const PROBES: &str = "\
How connectivity is checked: after every command, each of the 12 workload pods probes the other Services by DNS name on their Service port over TCP (a name probe needs DNS, i.e. UDP port 53 to kube-dns, and succeeds only if every endpoint of the Service accepts the connection). Each pod also probes the other pods directly, by IP, with traffic the intent denies: UDP to the container port, TCP to the container port + 1, and TCP to the Service port where it differs from the container port. The report lists every probe whose result differs from the intent, for example:
Mismatch: frontend → adservice:9555 (Expected: True, Actual: False)
Mismatch: cartservice → pod/adservice-<hash>:9555/UDP (Expected: False, Actual: True)
Actual is Partial when only some endpoints of a Service accept the connection. When everything is as intended the report is exactly: No mismatches found.
";

const ADMIN: &str = "\
The cluster administrators' policies (cluster-scoped, policy.networking.k8s.io/v1alpha1) are part of the intent too. They are evaluated around the NetworkPolicies: AdminNetworkPolicies first, by ascending priority, where the first matching rule decides (Pass hands the connection to the NetworkPolicies); then the NetworkPolicies; then the BaselineAdminNetworkPolicy for what no NetworkPolicy decides. The intended admin policies (kubectl get anp,banp) are exactly:
";

fn rules(verbs: VerbPolicy, max_turns: u32, layered: bool) -> String {
    let stdin_hint = if verbs.apply || verbs.create {
        "There is no file system: give manifests on standard input (kubectl apply -f - <<'EOF' … EOF) and patches with -p."
    } else {
        "There is no file system: give patches with -p (a heredoc via \"$(cat <<'EOF' … EOF)\" also works)."
    };
    let writes = if layered {
        "You may change NetworkPolicies, AdminNetworkPolicies and the BaselineAdminNetworkPolicy (kubectl patch, and any write verb the task allows) and the labels of pods, namespaces, Services, deployments and NetworkPolicies; nothing else."
    } else if verbs.apply || verbs.create || verbs.delete {
        "You may write NetworkPolicies and the labels of pods, namespaces, Services, deployments and NetworkPolicies; nothing else."
    } else {
        "You may change NetworkPolicies (kubectl patch) and the labels of pods, namespaces, Services, deployments and NetworkPolicies (kubectl label); nothing else."
    };
    format!(
        "Rules:
- Reply with one command or a short script in a fenced code block (```bash … ```). Only the first block runs.
- The shell has kubectl and cat, echo, grep, head, tail, wc; pipes, &&, ||, ; and heredocs work. {stdin_hint}
- Allowed kubectl verbs: {}. Refused: {} (a refused command does not run and is recorded).
- {writes}
- You have at most {max_turns} turns. The task ends as soon as the report shows no mismatch.
",
        verbs.allowed().join(", "),
        verbs.refused().join(", ")
    )
}

const FEW_SHOT: &str = "\
Examples (a different, fictional application `petshop` in namespace `shop`; not this cluster):

Report:
Mismatch: web → catalog:8000 (Expected: True, Actual: False)
A good reply, after `kubectl get networkpolicy catalog -n shop -o yaml` showed `port: 8001`:
```bash
kubectl patch networkpolicy catalog -n shop --type=json -p '[{\"op\":\"replace\",\"path\":\"/spec/ingress/0/ports/0/port\",\"value\":8000}]'
```

Report:
Mismatch: web → catalog:8000 (Expected: True, Actual: False)
Mismatch: web → orders:9000 (Expected: True, Actual: False)
A good reply, after the web policy turned out to allow egress only to one pod (so DNS fails):
```bash
kubectl patch networkpolicy web -n shop --type=merge -p '{\"spec\":{\"egress\":[{}]}}'
```
";

const COT: &str = "Think step by step: read the report, inspect the policies involved, find the cause, then fix it without breaking anything that works. Write your reasoning first and put the command last, in one fenced code block.\n";

/// The prompt in a variant, ending with the post-injection report (levels 1–3).
#[cfg(test)]
pub fn render(variant: PromptVariant, verbs: VerbPolicy, max_turns: u32, report: &str) -> String {
    render_with(variant, verbs, max_turns, report, false)
}

/// [`render`]; `layered` (level 4) adds the intended admin policies.
pub fn render_with(
    variant: PromptVariant,
    verbs: VerbPolicy,
    max_turns: u32,
    report: &str,
    layered: bool,
) -> String {
    let what = if layered {
        "Some NetworkPolicies or admin network policies in the cluster are misconfigured."
    } else {
        "Some NetworkPolicies in the cluster are misconfigured."
    };
    let mut p = format!(
        "You are the operator of a Kubernetes 1.34 cluster running the Online Boutique demo in namespace `default`. {what} Your goal is to restore the intended connectivity below without breaking any connection that currently works as intended.\n\n",
    );
    p.push_str(INTENT);
    p.push('\n');
    if layered {
        p.push_str(ADMIN);
        p.push_str("```yaml\n");
        p.push_str(super::tenancy::intended_yaml());
        p.push_str("```\n\n");
    }
    p.push_str(PORTS);
    p.push('\n');
    p.push_str(PROBES);
    p.push('\n');
    p.push_str(&rules(verbs, max_turns, layered));
    p.push('\n');
    if variant.few_shot() {
        p.push_str(FEW_SHOT);
        p.push('\n');
    }
    if variant.chain_of_thought() {
        p.push_str(COT);
        p.push('\n');
    }
    p.push_str("Current connectivity report:\n");
    p.push_str(report);
    p.push('\n');
    p
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variants_differ_and_end_with_the_report() {
        let texts: Vec<String> = PromptVariant::ALL
            .iter()
            .map(|v| render(*v, VerbPolicy::default(), 10, "No mismatches found."))
            .collect();
        for t in &texts {
            assert!(t.ends_with("Current connectivity report:\nNo mismatches found.\n"));
            assert!(t.contains("Refused: apply, create, delete, edit, exec"));
        }
        assert!(texts[2].contains("petshop") && !texts[0].contains("petshop"));
        assert!(texts[1].contains("step by step") && !texts[0].contains("step by step"));
        let with_delete = render(PromptVariant::ZeroshotBase, VerbPolicy::parse("d").unwrap(), 5, "x");
        assert!(
            with_delete
                .contains("Allowed kubectl verbs: get, describe, explain, patch, label, version, delete.")
        );
        assert!(with_delete.contains("at most 5 turns"));
    }
}
