"""Episodes spread over Ray actors: ``netpress.ray.evaluate(task_ids, agent, num_actors)``.

Only task ids travel to the actors: a task regenerates from its id and an episode is a function
of the id and the replies, so a chunk re-run after an actor crash gives the same records, and a
Ray run's records equal ``netpress.evaluate``'s and ``netpress run``'s (latency aside). Each actor
runs its chunk with ``netpress.evaluate`` in process (the core releases the GIL). docs/env.md
("Scale-out on Ray") shows the multi-node form.

Needs ``ray`` (the package's ``ray`` extra); importing this module imports it.
"""

from __future__ import annotations

import json
from typing import Any, Callable, Iterable

import ray
from ray.util import ActorPool

import netpress

__all__ = ["evaluate", "versions"]


def versions() -> dict:
    """The package's version and every application's generator version: what an actor must
    share with the driver for its records to be the driver's."""
    return {
        "netpress": netpress.__version__,
        "generators": {a["name"]: a["version"] for a in netpress.info()["apps"]},
    }


@ray.remote(max_restarts=1, max_task_retries=1)
class _Evaluator:
    """One actor: checks it runs the driver's versions, then plays the chunks it is given."""

    def __init__(self, driver: dict):
        mine = versions()
        if mine != driver:
            raise RuntimeError(f"netpress on this node is {mine}, the driver's is {driver}: install the same wheel")

    def play(self, chunk: list[str], agent: Any, max_turns: int | None, variant: str) -> list[dict]:
        return netpress.evaluate(chunk, agent, threads=1, max_turns=max_turns, variant=variant)


def evaluate(
    task_ids: Iterable[str] | None = None,
    agent: str | Callable[[list[dict]], str] = "baseline",
    num_actors: int = 2,
    *,
    chunk: int = 16,
    variant: str = "zeroshot_base",
    max_turns: int | None = None,
    num_cpus_per_actor: float = 1,
    output: str | None = None,
    mixture: str | None = None,
    count: int | None = None,
) -> list[dict]:
    """Result records (``netpress.result.v1`` dicts) of ``agent`` on ``task_ids``, in their
    order, played by ``num_actors`` Ray actors in chunks of ``chunk`` ids.

    ``agent`` is ``"baseline"`` (each application's scripted baseline, run wholly in Rust) or a
    picklable callable ``messages -> reply``; an exception it raises is a failed turn, never a
    lost record. Instead of ``task_ids``, ``mixture=FILE, count=N`` plays the first ``N`` tasks
    of an adaptive curriculum (``netpress adapt export STATE --format mixture``). ``output``
    also writes the records as JSON lines (for ``netpress stats``). Starts a local Ray when none
    is initialised; on a cluster call ``ray.init(address="auto")`` first.
    """
    ids = _task_ids(task_ids, mixture, count)
    if num_actors < 1 or chunk < 1:
        raise ValueError(f"num_actors and chunk must be at least 1, not {num_actors} and {chunk}")
    if agent != "baseline" and not callable(agent):
        raise ValueError(f"agent must be 'baseline' or a callable, not {agent!r}")
    if not ray.is_initialized():
        ray.init(include_dashboard=False)
    driver = versions()
    actors = [
        _Evaluator.options(num_cpus=num_cpus_per_actor, scheduling_strategy="SPREAD").remote(driver)
        for _ in range(min(num_actors, max(1, len(ids))))
    ]
    chunks = [ids[i : i + chunk] for i in range(0, len(ids), chunk)]
    try:
        pool = ActorPool(actors)
        parts = pool.map(lambda a, c: a.play.remote(c, agent, max_turns, variant), chunks)
        records = [r for part in parts for r in part]
    finally:
        for a in actors:
            ray.kill(a)
    if output is not None:
        with open(output, "w", encoding="utf-8") as f:
            f.writelines(json.dumps(r, separators=(",", ":")) + "\n" for r in records)
    return records


def _task_ids(task_ids: Iterable[str] | None, mixture: str | None, count: int | None) -> list[str]:
    if (task_ids is None) == (mixture is None):
        raise ValueError("give task_ids or mixture=FILE (with count), exactly one")
    if mixture is not None:
        if count is None or count < 0:
            raise ValueError("mixture=FILE needs count=N, the number of curriculum tasks to play")
        return netpress.mixture_ids(mixture, count)
    return list(task_ids)
