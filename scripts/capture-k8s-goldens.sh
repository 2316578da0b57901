#!/usr/bin/env bash
# Re-captures the kubectl goldens of the K8s app on a real cluster and compares them with the
# committed ones (docs/k8s.md). Needs docker, kind and kubectl 1.34 and network access to
# pull images; it cannot run on the project's machines (no cluster there).
#
#   scripts/capture-k8s-goldens.sh [OUT]     # OUT defaults to target/k8s-goldens-captured.txt
#
# It creates a kind cluster (Kubernetes v1.34.0), deploys Online Boutique v0.10.4, applies the
# golden cluster's policies (tests/data/k8s/goldens/cluster-policies.yaml), grants the user
# `netpress-agent` the agent's RBAC role, runs every command of
# tests/data/k8s/goldens/kubectl.txt in order as that user, and diffs both transcripts after
# normalising what a real cluster cannot reproduce: uids, resourceVersions, timestamps, ages,
# IPs, pod-template hashes, container and image ids, and column widths. The emulator's own
# verb-policy refusals (`kubectl exec is not allowed in this task`) are skipped.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
GOLDENS=$ROOT/tests/data/k8s/goldens/kubectl.txt
POLICIES=$ROOT/tests/data/k8s/goldens/cluster-policies.yaml
OUT=${1:-$ROOT/target/k8s-goldens-captured.txt}
CLUSTER=netpress-goldens
BOUTIQUE=https://raw.githubusercontent.com/GoogleCloudPlatform/microservices-demo/v0.10.4/release/kubernetes-manifests.yaml

for tool in docker kind kubectl python3; do
    command -v "$tool" >/dev/null || { echo "capture-k8s-goldens: $tool is required" >&2; exit 1; }
done
kubectl version --client | grep -q 'v1\.34\.' || { echo "capture-k8s-goldens: kubectl 1.34 is required" >&2; exit 1; }

kind get clusters | grep -qx "$CLUSTER" || kind create cluster --name "$CLUSTER" --image kindest/node:v1.34.0
kubectl config use-context "kind-$CLUSTER" >/dev/null
kubectl apply -f "$BOUTIQUE"
kubectl wait --for=condition=available deployment --all --timeout=900s
# The emulator pins frontend-external's node port.
kubectl patch service frontend-external --type=json \
    -p '[{"op":"replace","path":"/spec/ports/0/nodePort","value":30867}]'
kubectl apply -f "$POLICIES"

# The agent's role: read everything; write NetworkPolicies; patch labels of a few kinds.
kubectl apply -f - <<'RBAC'
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: netpress-agent}
rules:
- apiGroups: ["", "apps", "networking.k8s.io"]
  resources: ["*"]
  verbs: ["get", "list", "watch"]
- apiGroups: ["networking.k8s.io"]
  resources: ["networkpolicies"]
  verbs: ["patch", "update", "create", "delete"]
- apiGroups: [""]
  resources: ["pods", "namespaces", "services"]
  verbs: ["patch"]
- apiGroups: ["apps"]
  resources: ["deployments"]
  verbs: ["patch"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: netpress-agent}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: netpress-agent}
subjects:
- {apiGroup: rbac.authorization.k8s.io, kind: User, name: netpress-agent}
RBAC

mkdir -p "$(dirname "$OUT")"
python3 - "$GOLDENS" "$OUT" <<'PY'
import subprocess, sys
golden, out = sys.argv[1], sys.argv[2]
commands, cur = [], None
for line in open(golden, encoding="utf-8").read().split("\n"):
    if line.startswith("$ "):
        cur = [line[2:]]
        commands.append(cur)
    elif line.startswith("> ") and cur is not None:
        cur.append(line[2:])
    else:
        cur = None
prelude = 'kubectl() { command kubectl --as=netpress-agent "$@"; }\n'
with open(out, "w", encoding="utf-8") as f:
    for cmd in commands:
        text = "\n".join(cmd)
        run = subprocess.run(["bash", "-c", prelude + text], capture_output=True, text=True)
        f.write("$ " + cmd[0] + "\n" + "".join("> " + c + "\n" for c in cmd[1:]))
        f.write(run.stderr + run.stdout)
PY

normalise() {
    sed -E \
        -e 's/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/UID/g' \
        -e 's/resourceVersion: "[0-9]+"/resourceVersion: "RV"/g; s/"resourceVersion": "[0-9]+"/"resourceVersion": "RV"/g' \
        -e 's/[0-9]{4}-[0-9]{2}-[0-9]{2}[T ][0-9]{2}:[0-9]{2}:[0-9]{2}(Z| \+0000 UTC)?/TIME/g' \
        -e 's/[A-Z][a-z]{2}, [0-9]{2} [A-Z][a-z]{2} [0-9]{4} [0-9:]{8} \+0000/TIME/g' \
        -e 's/(containerd|sha256)[:\/]+[0-9a-f]{64}/\1:ID/g' \
        -e 's/10\.244\.[0-9]+\.[0-9]+/POD_IP/g; s/10\.96\.[0-9]+\.[0-9]+/CLUSTER_IP/g; s/172\.18\.0\.[0-9]+/NODE_IP/g' \
        -e 's/-[bcdfghjklmnpqrstvwxz2456789]{9,10}-[bcdfghjklmnpqrstvwxz2456789]{5}\b/-POD/g' \
        -e 's/-[bcdfghjklmnpqrstvwxz2456789]{9,10}\b/-RS/g' \
        -e 's/\b[0-9]+[smhdy]([0-9]+[smh])?$/AGE/; s/\b[0-9]+[smhdy]([0-9]+[smh])?(\s{2,})/AGE\2/g' \
        -e 's/[[:space:]]+/ /g; s/ $//' "$1"
}

if diff -u <(normalise "$GOLDENS" | grep -v 'is not allowed in this task') \
           <(normalise "$OUT" | grep -v 'is not allowed in this task') > "$OUT.diff"; then
    echo "capture-k8s-goldens: the emulator matches the cluster (normalised); transcript in $OUT"
else
    echo "capture-k8s-goldens: differences in $OUT.diff (review them; some are expected, see docs/k8s.md)" >&2
    exit 1
fi
