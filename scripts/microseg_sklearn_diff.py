"""Differential check of the partition-agreement scores (docs/microseg-partition.md).

Draws random pairs of label vectors and, with --baseline-seeds A..B, adds the partitions the
observed and portsig baselines give on the role-cluster tasks of levels 1-3 for those seeds
against the true roles (`netpress microseg baselines --partitions`; two per seed and level);
has `netpress partition-scores` (a hidden command) score every pair, and compares ARI, AMI and pairwise precision, recall and F1 with scikit-learn's
adjusted_rand_score, adjusted_mutual_info_score (default arithmetic normalisation) and
precision_recall_fscore_support over the "same cluster" indicator of every unordered pair
(zero_division=1). Every value must agree within 1e-12. Prints one JSON summary line; exits 1
on any disagreement.

One deviation, measured: at a few hundred clusters scikit-learn's AMI is itself off by up to
2e-12, because it adds tens of thousands of expected-mutual-information terms in plain floating
point, while ours is within a few 1e-15 of exact (compensated sums). Where the two differ by more
than 1e-12 the script evaluates the same formula in 50-digit arithmetic (mpmath) and requires
ours within 1e-12 of that and closer than scikit-learn's; such cases are counted as "exact_ami".

    python scripts/microseg_sklearn_diff.py [--count 1000] [--seed 0] [--baseline-seeds 0..167] [--netpress PATH]

Without --netpress it runs the dev build through `cargo run`. Needs scikit-learn (.venv-sk,
made by `bash scripts/setup.sh --test`).
"""

import argparse
import itertools
import json
import random
import subprocess
import sys

import mpmath
import sklearn
from sklearn.metrics.cluster import contingency_matrix
from sklearn.metrics import (
    adjusted_mutual_info_score,
    adjusted_rand_score,
    precision_recall_fscore_support,
)

TOLERANCE = 1e-12


def draw(rng):
    """A pair of label vectors: sizes and cluster counts from tiny (degenerate) to moderate."""
    n = rng.choice([0, 1, 2, 3, rng.randint(4, 20), rng.randint(20, 120), rng.randint(120, 400)])
    kt = rng.choice([1, 2, rng.randint(2, 8), rng.randint(1, max(1, n))])
    kp = rng.choice([1, 2, rng.randint(2, 8), rng.randint(1, max(1, n)), n or 1])
    truth = [rng.randrange(kt) for _ in range(n)]
    if rng.random() < 0.1:
        # The `observed` baseline's answer: every item its own cluster.
        pred = list(range(n))
    elif rng.random() < 0.3:
        # A noisy copy: a few items moved, labels renamed.
        perm = list(range(max(kt, 1) + 5))
        rng.shuffle(perm)
        pred = [perm[t] if rng.random() > 0.1 else rng.randrange(kt + 5) for t in truth]
    else:
        pred = [rng.randrange(kp) * 7 - 3 for _ in range(n)]
    return truth, pred


def pairwise(truth, pred):
    same_t, same_p = [], []
    for i, j in itertools.combinations(range(len(truth)), 2):
        same_t.append(int(truth[i] == truth[j]))
        same_p.append(int(pred[i] == pred[j]))
    if not same_t:
        return 1.0, 1.0, 1.0
    p, r, f, _ = precision_recall_fscore_support(
        same_t, same_p, average="binary", pos_label=1, zero_division=1.0
    )
    return float(p), float(r), float(f)


def reference(truth, pred):
    p, r, f = pairwise(truth, pred)
    return {
        "ari": float(adjusted_rand_score(truth, pred)),
        "ami": float(adjusted_mutual_info_score(truth, pred)),
        "precision": p,
        "recall": r,
        "f1": f,
    }


def exact_ami(truth, pred):
    """AMI (arithmetic normalisation) in 50-digit arithmetic, scikit-learn's formula."""
    mpmath.mp.dps = 50
    c = contingency_matrix(truth, pred)
    a, b, n = [int(x) for x in c.sum(axis=1)], [int(x) for x in c.sum(axis=0)], len(truth)
    if len(a) == len(b) and len(a) <= 1:
        return 1.0
    if len(a) == 1 or len(b) == 1:
        return 0.0
    N = mpmath.mpf(n)
    lf = [mpmath.loggamma(k + 1) for k in range(n + 1)]
    mi = mpmath.fsum(
        mpmath.mpf(int(c[i, j])) / N * mpmath.log(N * int(c[i, j]) / (a[i] * b[j]))
        for i in range(len(a)) for j in range(len(b)) if c[i, j]
    )
    emi = mpmath.fsum(
        k / N * mpmath.log(N * k / (x * y))
        * mpmath.exp(lf[x] + lf[y] + lf[n - x] + lf[n - y] - lf[n] - lf[k] - lf[x - k] - lf[y - k] - lf[n - x - y + k])
        for x in a for y in b for k in range(max(1, x + y - n), min(x, y) + 1)
    )
    h = (sum(-s / N * mpmath.log(s / N) for s in a) + sum(-s / N * mpmath.log(s / N) for s in b)) / 2
    return float((mi - emi) / (h - emi))


def netpress_cmd(netpress):
    return [netpress] if netpress else ["cargo", "run", "--quiet", "--bin", "netpress", "--"]


def baseline_cases(seeds, netpress):
    """The baselines' role-cluster partitions and the true roles, as (truth, pred) pairs."""
    args = ["microseg", "baselines", "--family", "role-cluster", "--levels", "1,2,3", "--seeds", seeds, "--partitions"]
    out = subprocess.run(netpress_cmd(netpress) + args, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"netpress microseg baselines --partitions failed: {out.stderr}")
    return [(c["truth"], c["pred"]) for c in map(json.loads, out.stdout.splitlines())]


def rust_scores(cases, netpress):
    cmd = netpress_cmd(netpress)
    lines = "".join(json.dumps({"truth": t, "pred": p}) + "\n" for t, p in cases)
    out = subprocess.run(cmd + ["partition-scores"], input=lines, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"netpress partition-scores failed: {out.stderr}")
    return [json.loads(l) for l in out.stdout.splitlines()]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--count", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--baseline-seeds", help="A..B: add the baselines' partitions of these seeds")
    ap.add_argument("--netpress", help="the netpress binary (default: cargo run)")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    cases = [draw(rng) for _ in range(args.count)]
    baselines = baseline_cases(args.baseline_seeds, args.netpress) if args.baseline_seeds else []
    cases += baselines
    got = rust_scores(cases, args.netpress)
    if len(got) != len(cases):
        sys.exit(f"{len(got)} results for {len(cases)} cases")
    worst, bad, exact = 0.0, [], 0
    for k, ((t, p), g) in enumerate(zip(cases, got)):
        want = reference(t, p)
        for name, w in want.items():
            d = abs(g[name] - w)
            if name == "ami" and not d <= TOLERANCE:
                e = exact_ami(t, p)
                if abs(g[name] - e) <= TOLERANCE and abs(g[name] - e) < abs(w - e):
                    exact += 1
                    continue
            worst = max(worst, d)
            if not d <= TOLERANCE:
                bad.append({"case": k, "metric": name, "rust": g[name], "sklearn": w, "truth": t, "pred": p})
    summary = {
        "sklearn": sklearn.__version__,
        "checked": len(cases),
        "baseline_partitions": len(baselines),
        "disagree": len(bad),
        "exact_ami": exact,
        "max_abs_diff": worst,
    }
    print(json.dumps(summary))
    for b in bad[:5]:
        print(json.dumps(b), file=sys.stderr)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
