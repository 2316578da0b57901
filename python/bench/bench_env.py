"""Figures of the Python binding (docs/env.md, "Python package"), printed as a table.

    python python/bench/bench_env.py [TASKS]        # with a release build of the extension

- overhead: a step on a finished episode (the core only says "over"), 200,000 calls: the
  extension call alone (`Session.step`: action JSON in, observation JSON out, the GIL released
  and retaken), and `Env.step` (the reply text through `Session.step_reply`, its answer built
  as a dict by the extension, then unpacked). The two take different paths in the extension:
  in a dev build the JSON one is the slower.
- steps: the mean time of `Env.step` driven by the application's baseline over the workload of
  `netpress bench --tasks TASKS` (ids `(level, seed, 0)` for seeds 0..TASKS, levels 1-3 in
  turn), the agent's own time excluded, against the native step mean of that same workload
  timed in this process by the library's benchmark (`_core.bench`, the figures `netpress bench
  --app APP --tasks TASKS --json` prints), same build, its score stage spread over the steps
  (the step that ends an episode scores it): Python steps per second as a share of native
  ones.
- threads: episodes per second of the scripted agent driven turn by turn from Python
  (`evaluate(ids, netpress.agents.baseline(app), threads=N)`), and of whole baseline episodes
  in Rust (`evaluate(ids, threads=N)`), on 1 and 2 threads (the core releases the GIL), and
  their ratios.
- python/native episodes: episodes per second of the scripted agent driven from Python against
  the whole episode in Rust (what `netpress run --agent baseline` does), one thread: a stricter
  figure than the steps' one, since it also counts the agent's calls, the messages crossing
  each turn and the result record built as a dict.

A benchmark, not a test: nothing here asserts a time. Bounded: every loop has a count.
"""

from __future__ import annotations

import json
import sys
import time

import netpress
from netpress import _core


def overhead(calls: int = 200_000) -> tuple[float, float]:
    """(the extension call alone, `Env.step`) in µs on a finished episode."""
    env = netpress.make("k8s-v1-L1-s0-i0", max_turns=1)
    env.reset()
    env.step("kubectl get pods -A")
    session, action = env._session, '{"reply":"x"}'
    t = time.perf_counter()
    for _ in range(calls):
        session.step(action)
    core = (time.perf_counter() - t) / calls * 1e6
    t = time.perf_counter()
    for _ in range(calls):
        env.step("x")
    return core, (time.perf_counter() - t) / calls * 1e6


def workload(app: str, tasks: int) -> list[str]:
    """The ids `netpress bench --tasks TASKS` runs for `app` (levels 1-3 in turn)."""
    return [f"{app}-v1-L{i % 3 + 1}-s{i}-i0" for i in range(tasks)]


def step_mean(app: str, tasks: int) -> tuple[float, int]:
    """`Env.step`'s mean in µs over the workload driven by the baseline, and the steps."""
    agent = netpress.agents.baseline(app)
    spent, steps = 0.0, 0
    for task_id in workload(app, tasks):
        env = netpress.make(task_id)
        env.reset()
        done = False
        while not done:
            reply = agent(env.messages())
            t = time.perf_counter()
            _, _, done, _ = env.step(reply)
            spent += time.perf_counter() - t
            steps += 1
    return spent / steps * 1e6, steps


def native_step_mean(app: str, tasks: int) -> float:
    """The native equivalent of `Env.step`'s mean in µs over the same workload: the library
    benchmark's step and score stages, their total over its steps. The step that ends an
    episode scores it (its reward is the score), which the benchmark times as a stage of its
    own; leaving it out would compare Route's scoring step (a reachability check of every
    probe, about a third of a step) with a step that does not score."""
    report = json.loads(_core.bench(app, tasks))
    stages = {s["stage"]: s for s in report["stages"]}
    total = sum(stages[k]["mean_ms"] * stages[k]["samples"] for k in ("step", "score"))
    return total / stages["step"]["samples"] * 1000


def episodes_per_s(app: str, tasks: int, threads: int, agent=None) -> float:
    ids = workload(app, tasks)
    t = time.perf_counter()
    if agent is None:
        netpress.evaluate(ids, threads=threads)
    else:
        netpress.evaluate(ids, agent, threads=threads)
    return tasks / (time.perf_counter() - t)


def main() -> None:
    tasks = int(sys.argv[1]) if len(sys.argv) > 1 else 300
    core, full = overhead()
    print(f"binding overhead (step on a finished episode): {core:.2f} us the extension call, {full:.2f} us Env.step")
    for app in ("route", "k8s"):
        agent = netpress.agents.baseline(app)
        episodes_per_s(app, min(tasks, 30), 1, agent)  # warm up the allocator and caches
        mean, steps = step_mean(app, tasks)
        native = native_step_mean(app, tasks)
        print(
            f"{app:5}: Env.step mean {mean:.1f} us ({steps} steps, {1e6 / mean:.0f} steps/s); native step mean "
            f"{native:.1f} us ({1e6 / native:.0f} steps/s): Python steps at {native / mean:.1%} of native"
        )
        py1, py2 = episodes_per_s(app, tasks, 1, agent), episodes_per_s(app, tasks, 2, agent)
        rs1, rs2 = episodes_per_s(app, tasks, 1), episodes_per_s(app, tasks, 2)
        print(
            f"{app:5}: episodes/s driven from Python {py1:.0f} on 1 thread, {py2:.0f} on 2 ({py2 / py1:.2f}x); "
            f"whole in Rust {rs1:.0f} on 1, {rs2:.0f} on 2 ({rs2 / rs1:.2f}x); "
            f"Python-driven at {py1 / rs1:.1%} of Rust's on 1 thread"
        )


if __name__ == "__main__":
    main()
