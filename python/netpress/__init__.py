"""NetPress tasks as environments: reset, step, reward, record.

Every episode runs in process in the Rust core (``netpress._core``), the same session core as
``netpress env --stdio`` and ``netpress serve``; observations, states, records and errors are the
protocol's JSON (``netpress.env.v1``) read into dicts. docs/env.md describes the protocol.
Sandboxed applications' answers (MALT, traffic, microseg) run in child processes of this
interpreter (``python -m netpress._sandbox_worker``), never in this one.
"""

from __future__ import annotations

import json
import sys
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable, Iterable, Iterator, Sequence

from . import _core
from ._core import PROTOCOL, EnvError, __version__

# The sandbox processes run this interpreter; without one (an embedded interpreter with no
# executable) sandboxed applications' resets are refused.
if sys.executable:
    _core.configure_sandbox(sys.executable)

__all__ = [
    "PROTOCOL",
    "Env",
    "EnvError",
    "MixtureStream",
    "TaskStream",
    "__version__",
    "agents",
    "evaluate",
    "info",
    "make",
    "mixture_ids",
    "step_many",
]

# Finishes that end an episode by the agent's doing (gymnasium's `terminated`); the others
# (`turn_limit`, `stopped`) cut it short (`truncated`).
TERMINAL = ("solved", "answered")


def info() -> dict:
    """The protocol's ``info``: applications with their levels and knobs, and the limits."""
    return json.loads(_core.info())


def _action(reply: str | dict) -> str:
    if isinstance(reply, str):
        return '{"reply":' + json.dumps(reply) + "}"  # a quarter of dumps({...})'s time
    return json.dumps(reply)


class TaskStream:
    """An endless, deterministic sequence of task ids of one application.

    Seeds count up from ``start``; each seed gives one task per level of ``levels`` (every level
    of the application when ``None``), at index 0.
    """

    def __init__(self, app: str, levels: Sequence[int] | None = None, start: int = 0):
        apps = {a["name"]: a for a in info()["apps"]}
        if app not in apps:
            raise EnvError("VALIDATION_ERROR", "UNKNOWN_APP", f"unknown application {app!r}")
        self.app = app
        self.levels = list(levels) if levels else [lv["level"] for lv in apps[app]["levels"]]
        self.seed = start
        self._pending: list[dict] = []

    def __iter__(self) -> Iterator[dict]:
        return self

    def __next__(self) -> dict:
        """The next task's reset parameters."""
        if not self._pending:
            self._pending = [{"app": self.app, "level": lv, "seed": self.seed} for lv in self.levels]
            self.seed += 1
        return self._pending.pop(0)


def mixture_ids(path: str, count: int, start: int = 0) -> list[str]:
    """Task ids ``start..start + count`` of the curriculum stream of the adaptive mode's mixture
    file (``netpress adapt export STATE --format mixture``): the same ids ``netpress adapt export
    STATE --format ids`` lists, from the file alone."""
    with open(path, encoding="utf-8") as f:
        return _core.mixture_ids(f.read(), start, count)


class MixtureStream:
    """The curriculum stream of a mixture file as reset parameters (``{"task_id": ...}``), endless
    and deterministic, from task ``start`` on."""

    BLOCK = 256

    def __init__(self, path: str, start: int = 0):
        with open(path, encoding="utf-8") as f:
            self._file = f.read()
        _core.mixture_ids(self._file, 0, 0)  # refuses a bad file now, not at the first reset
        self.position = start
        self._pending: list[str] = []

    def __iter__(self) -> Iterator[dict]:
        return self

    def __next__(self) -> dict:
        if not self._pending:
            self._pending = _core.mixture_ids(self._file, self.position, self.BLOCK)
        self.position += 1
        return {"task_id": self._pending.pop(0)}


class Env:
    """One environment session. ``reset`` starts an episode, ``step`` plays one turn.

    The constructor's parameters are the reset parameters every ``reset`` starts from (docs/env.md,
    "Reset parameters"); a ``stream`` supplies the task of each reset that names none.
    """

    def __init__(
        self,
        task_id: str | None = None,
        *,
        stream: Iterator[dict] | None = None,
        mixture: str | None = None,
        **params: Any,
    ):
        if mixture is not None:
            if stream is not None:
                raise ValueError("give a stream or a mixture file, not both")
            stream = MixtureStream(mixture)
        if task_id is not None:
            params["task_id"] = task_id
        self._params = params
        self._stream = stream
        self._session = _core.Session()
        self.last: dict | None = None
        self._messages: list[dict] = []  # the episode's messages fetched so far

    def _names_task(self, params: dict) -> bool:
        return any(k in params for k in ("task_id", "app", "seed"))

    def reset(self, **overrides: Any) -> tuple[str, dict]:
        """Starts an episode; returns the prompt and the observation's fields."""
        params = {**self._params, **overrides}
        if self._stream is not None and not self._names_task(overrides):
            params = {**{k: v for k, v in params.items() if k != "task_id"}, **next(self._stream)}
        result = json.loads(self._session.reset(json.dumps(params)))
        self._messages = []
        self.last = result["observation"]
        return self.last["text"], self.last

    def step(self, reply: str | dict) -> tuple[str, float, bool, dict]:
        """One turn: a reply text (or an action dict, e.g. ``{"error": "timeout"}``)."""
        if isinstance(reply, str):
            return self._unpack(self._session.step_reply(reply))
        return self._unpack(self._session.step_dict(_action(reply)))

    def _unpack(self, result: dict) -> tuple[str, float, bool, dict]:
        if "error" in result:
            e = result["error"]
            raise EnvError(e["code"], e["reason"], e["message"])
        self.last = result["observation"]
        return self.last["text"], result["reward"], result["done"], self.last

    def state(self) -> dict:
        """``episode_id``, ``step_count``, the task, ``finish`` and, once done, ``score``."""
        return json.loads(self._session.state())

    def record(self) -> dict:
        """The episode's result record (``netpress.result.v1``) as it stands."""
        return self._session.record_dict()

    def messages(self) -> list[dict]:
        """The conversation so far, as chat messages (what an agent replies to). The messages of
        earlier calls in the same episode are the same objects: only new ones cross from the
        core."""
        known = self._messages
        known.extend({"role": r, "content": c} for r, c in self._session.messages(len(known)))
        return [dict(m) for m in known]

    def close(self) -> None:
        self._session.close()
        self._messages = []

    def __enter__(self) -> "Env":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def make(task_id: str | None = None, **params: Any) -> Env:
    """An environment for one task (``make("route-v1-L2-s42-i7")``), for an application's
    parts (``make(app="k8s", level=3, seed=7)``), for a ``stream=TaskStream(...)`` or for the
    curriculum of an adaptive mixture file (``mixture="mixture.json"``)."""
    return Env(task_id, **params)


def step_many(envs: Sequence[Env], replies: Sequence[str | dict]) -> list[tuple[str, float, bool, dict]]:
    """Steps ``envs[i]`` with ``replies[i]`` in one call, without the GIL."""
    answers = _core.step_many([e._session for e in envs], [_action(r) for r in replies])
    return [env._unpack(json.loads(a)) for env, a in zip(envs, answers)]


def _play(task_id: str, agent: Callable[[list[dict]], str], max_turns: int | None, variant: str) -> dict:
    params: dict[str, Any] = {"task_id": task_id, "variant": variant}
    if max_turns is not None:
        params["max_turns"] = max_turns
    with make(**params) as env:
        env.reset()
        done = False
        while not done:
            try:
                action: str | dict = agent(env.messages())
            except Exception as e:  # the agent's failure is a failed turn, as in `netpress run`
                action = {"error": f"{type(e).__name__}: {e}", "fatal": bool(getattr(e, "fatal", False))}
            _, _, done, _ = env.step(action)
        return env.record()


def evaluate(
    task_ids: Iterable[str],
    agent: str | Callable[[list[dict]], str] = "baseline",
    threads: int = 1,
    max_turns: int | None = None,
    variant: str = "zeroshot_base",
) -> list[dict]:
    """Result records of ``agent`` on ``task_ids``, in their order.

    ``"baseline"`` runs each application's scripted baseline wholly in Rust (the records equal
    ``netpress run --agent baseline``'s); a callable ``messages -> reply`` is driven turn by turn.
    ``threads`` episodes run at once (the core releases the GIL).
    """
    ids = list(task_ids)
    if agent == "baseline":
        def work(chunk: list[str]) -> list[dict]:
            return _core.run_baseline_dicts(chunk, max_turns, variant)

        # Small chunks, each turned into dicts by the thread that played it: building the
        # records (the part that holds the GIL) then overlaps the other threads' episodes
        # instead of waiting for all of them at the end.
        size = max(1, min(16, -(-len(ids) // max(1, threads))))
        chunks = [ids[i : i + size] for i in range(0, len(ids), size)]
        with ThreadPoolExecutor(max_workers=max(1, threads)) as pool:
            return [r for part in pool.map(work, chunks) for r in part]
    if not callable(agent):
        raise ValueError(f"agent must be 'baseline' or a callable, not {agent!r}")
    with ThreadPoolExecutor(max_workers=max(1, threads)) as pool:
        return list(pool.map(lambda i: _play(i, agent, max_turns, variant), ids))


from . import agents  # noqa: E402  (after Env: agents may use it)
