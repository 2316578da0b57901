"""Episodes per second of `netpress.ray.evaluate` against the number of actors (docs/env.md,
"Scale-out on Ray"), printed as a table and written as CSV.

    python python/bench/ray_scaling.py [--actors 1,2] [--tasks 2000] [--slow-tasks 64] [--csv FILE]
    python python/bench/ray_scaling.py --multi-node [--actors 1,2] ...

Each evaluate call starts its actors (a Python process each) and ends them, and that start is
in the figure; the first row of each agent is plain `netpress.evaluate` in this process (actors 0
in the CSV), the figure Ray's overhead is measured against. Two agents: the scripted baseline (CPU-bound: the episodes themselves are the work, so on this
machine's two cores two actors are the most that can help) and the baseline with 100 ms added to
every reply (the shape of an agent behind an LLM endpoint: actors wait, so more of them help
well past the core count). Run it with a release build of the extension. `--multi-node` first
starts a cluster the way a multi-node one starts (`ray start --head` on 127.0.0.1, then
`ray.init(address="auto")`) and stops it at the end (`ray stop`), bounded by a 120 s timeout on
each command. A benchmark, not a
test: nothing here asserts a time; every run has a fixed count of episodes.
"""

from __future__ import annotations

import argparse
import csv
import os
import subprocess
import sys
import time

import ray

import netpress
import netpress.ray


class SlowBaseline:
    """Route's baseline taking `delay` seconds a reply (picklable, so actors can run it)."""

    def __init__(self, delay: float):
        self.delay = delay

    def __call__(self, messages: list[dict]) -> str:
        time.sleep(self.delay)
        return netpress.agents.baseline("route")(messages)


def ids(app: str, tasks: int) -> list[str]:
    return [f"{app}-v1-L{i % 3 + 1}-s{i}-i0" for i in range(tasks)]


def rate(task_ids: list[str], agent, actors: int, chunk: int) -> float:
    t = time.perf_counter()
    netpress.ray.evaluate(task_ids, agent, num_actors=actors, chunk=chunk)
    return len(task_ids) / (time.perf_counter() - t)


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--actors", default="1,2")
    p.add_argument("--tasks", type=int, default=2000)
    p.add_argument("--slow-tasks", type=int, default=64)
    p.add_argument("--csv")
    p.add_argument("--multi-node", action="store_true")
    a = p.parse_args()
    counts = [int(n) for n in a.actors.split(",")]
    if a.multi_node:
        cli = os.path.join(os.path.dirname(sys.executable), "ray")  # the venv's, beside its python
        head = [cli, "start", "--head", f"--num-cpus={max(counts)}", "--node-ip-address=127.0.0.1"]
        subprocess.run([*head, "--include-dashboard=false", "--disable-usage-stats"], check=True, timeout=120)
        try:
            ray.init(address="auto", log_to_driver=False)
            return measure(a, counts)
        finally:
            ray.shutdown()
            subprocess.run([cli, "stop", "--force"], check=False, timeout=120)
    ray.init(num_cpus=max(counts), include_dashboard=False, log_to_driver=False)
    try:
        return measure(a, counts)
    finally:
        ray.shutdown()


def measure(a: argparse.Namespace, counts: list[int]) -> int:
    rows = []
    for agent, name, task_ids, chunk in (
        ("baseline", "baseline", ids("route", a.tasks // 2) + ids("k8s", a.tasks // 2), 64),
        (SlowBaseline(0.1), "baseline+100ms", ids("route", a.slow_tasks), 2),
    ):
        rate(task_ids[: 4 * chunk], agent, 1, chunk)  # warm-up: actor start and imports
        t = time.perf_counter()
        netpress.evaluate(task_ids, agent)
        local = len(task_ids) / (time.perf_counter() - t)
        print(f"{name:15} in process, no Ray: {local:8.1f} episodes/s", flush=True)
        rows.append({"agent": name, "actors": 0, "episodes": len(task_ids), "episodes_per_s": round(local, 1),
                     "speedup": "", "efficiency": ""})
        base = None
        for n in counts:
            r = rate(task_ids, agent, n, chunk)
            base = base or r
            rows.append({"agent": name, "actors": n, "episodes": len(task_ids), "episodes_per_s": round(r, 1),
                         "speedup": round(r / base, 2), "efficiency": round(r / base / n, 2)})
            print(f"{name:15} {n:3} actors: {r:8.1f} episodes/s  ({r / base:.2f}x, efficiency {r / base / n:.2f})",
                  flush=True)
    if a.csv:
        with open(a.csv, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(rows[0]))
            w.writeheader()
            w.writerows(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
