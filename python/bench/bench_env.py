"""Figures of the Python binding (docs/env.md, "Python package"), printed as a table.

    python python/bench/bench_env.py [TASKS]        # with a release build of the extension

- overhead: a step on a finished episode (the core only says "over"), 200,000 calls: the
  extension call alone (`Session.step`: action JSON in, observation JSON out, the GIL released
  and retaken), and `Env.step` (the reply text through `Session.step_reply`, its answer built
  as a dict by the extension, then unpacked). The two take different paths in the extension:
  in a dev build the JSON one is the slower.
- step: the mean time of `Env.step` driven by the application's baseline over TASKS tasks
  (levels 1-3 in turn), the agent's own time excluded; compare `netpress bench --json`'s
  native step mean.
- threads: baseline episodes per second through `netpress.evaluate` on 1 and 2 threads (the
  core releases the GIL), and their ratio.
- python/native: episodes per second of the same scripted agent driven turn by turn from Python
  (`evaluate(ids, netpress.agents.baseline(app))`: `Env.messages`, the agent, `Env.step` each
  turn) against the whole episode in Rust (`evaluate(ids, "baseline")`, what `netpress run
  --agent baseline` does), same build, one thread.

A benchmark, not a test: nothing here asserts a time. Bounded: every loop has a count.
"""

from __future__ import annotations

import sys
import time

import netpress


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


def step_mean(app: str, tasks: int) -> tuple[float, int]:
    agent = netpress.agents.baseline(app)
    spent, steps = 0.0, 0
    for i in range(tasks):
        env = netpress.make(f"{app}-v1-L{i % 3 + 1}-s{i}-i0")
        env.reset()
        done = False
        while not done:
            reply = agent(env.messages())
            t = time.perf_counter()
            _, _, done, _ = env.step(reply)
            spent += time.perf_counter() - t
            steps += 1
    return spent / steps * 1e6, steps


def episodes_per_s(app: str, tasks: int, threads: int) -> float:
    ids = [f"{app}-v1-L{i % 3 + 1}-s{i}-i0" for i in range(tasks)]
    t = time.perf_counter()
    netpress.evaluate(ids, threads=threads)
    return tasks / (time.perf_counter() - t)


def python_vs_native(app: str, tasks: int) -> tuple[float, float]:
    ids = [f"{app}-v1-L{i % 3 + 1}-s{i}-i0" for i in range(tasks)]
    t = time.perf_counter()
    netpress.evaluate(ids, netpress.agents.baseline(app))
    py = tasks / (time.perf_counter() - t)
    return py, episodes_per_s(app, tasks, 1)


def main() -> None:
    tasks = int(sys.argv[1]) if len(sys.argv) > 1 else 300
    core, full = overhead()
    print(f"binding overhead (step on a finished episode): {core:.2f} us the extension call, {full:.2f} us Env.step")
    for app in ("route", "k8s"):
        mean, steps = step_mean(app, tasks)
        one = episodes_per_s(app, tasks, 1)
        two = episodes_per_s(app, tasks, 2)
        print(
            f"{app:5}: Env.step mean {mean:.1f} us ({steps} steps, {1e6 / mean:.0f} steps/s); "
            f"evaluate {one:.0f} episodes/s on 1 thread, {two:.0f} on 2 ({two / one:.2f}x)"
        )
        py, native = python_vs_native(app, tasks)
        print(f"{app:5}: driven from Python {py:.0f} episodes/s, native {native:.0f} ({py / native:.1%} of native)")


if __name__ == "__main__":
    main()
