"""TRL's environment protocol (``GRPOTrainer(environment_factory=...)``) over a NetPress session
(docs/env.md, "Trainer adapters").

TRL makes one environment per rollout with a no-argument constructor, calls ``reset(**row)``
with the dataset row, offers the model the environment's public methods other than ``reset`` as
tools (their schema read from type hints and the ``Args:`` docstring by
``transformers.utils.get_json_schema``), calls them as the model asks, feeds an exception's text
back to the model, and hands the environments to the reward functions. So the class here has
one tool, a turn of the episode each, named and typed as the application's reply.

Needs nothing but the package (TRL itself is not imported).
"""

from __future__ import annotations

import json
from typing import Any

import netpress

__all__ = ["EpisodeOver", "environment_factory", "reward"]


class EpisodeOver(Exception):
    """A tool call after the episode ended (TRL shows the model this message)."""


class _Base:
    """A NetPress session as a TRL environment; subclasses add the application's tool."""

    app = ""
    variant = "zeroshot_base"
    reward_spec: Any = "correct"

    def __init__(self) -> None:
        self.env = netpress.make(variant=self.variant, reward=self.reward_spec)
        self.reward = 0.0
        self.done = False

    def reset(self, **row: Any) -> str:
        """Starts the row's task (``row["task_id"]``); returns its prompt."""
        if "task_id" not in row:
            raise ValueError("the row has no task_id (build it with netpress.datasets)")
        prompt, _ = self.env.reset(task_id=row["task_id"])
        self.reward, self.done = 0.0, False
        return prompt

    def _turn(self, reply: str) -> str:
        if self.done:
            raise EpisodeOver("The episode is over; no more tool calls.")
        text, reward, self.done, _ = self.env.step(reply)
        self.reward += reward
        return text


class _MachineCommands:
    """Route's kind of answer: one command a turn, on a named machine."""

    def run(self, machine: str, command: str) -> str:
        """Runs one shell command on one machine of the network.

        Args:
            machine: The machine's name, e.g. a router or a host of the topology.
            command: The command line, e.g. `ip route`.
        """
        return self._turn(json.dumps({"machine": machine, "command": command}))


class _Commands:
    """K8s's kind of answer: one command a turn."""

    def run(self, command: str) -> str:
        """Runs one kubectl (or shell) command against the cluster.

        Args:
            command: The command line, e.g. `kubectl get networkpolicy -A`.
        """
        return self._turn(command)


class _Python:
    """MALT's, traffic's and microseg's kind of answer: one program."""

    def submit(self, program: str) -> str:
        """Submits the Python program that answers the query.

        Args:
            program: The program's source text.
        """
        return self._turn(program)


class _Investigation:
    """BGP's kind of answer: tool calls, then a final answer."""

    def call(self, line: str) -> str:
        """Sends one line of the investigation: a tool call, or the final answer as one JSON line.

        Args:
            line: A tool call as the prompt describes them, or the final answer as the prompt asks.
        """
        return self._turn(line)


#: The tools of each answer kind (``AnswerKind`` in the library, serialised), as methods over
#: ``_Base``'s ``_turn``.
_KINDS = {
    "machine_commands": _MachineCommands,
    "commands": _Commands,
    "python": _Python,
    "investigation": _Investigation,
}


def _kind(answer: str | dict) -> str:
    """An answer kind's name: the string, or the one key of a kind with fields."""
    return answer if isinstance(answer, str) else next(iter(answer))


def _classes() -> dict[str, type]:
    """Each registered application's class, in the registry's order, so a new application gets
    its adapter with no change here: the environment with its answer kind's tool (a copy of
    the kind's public methods, so the tool is the class's own, where ``_tools`` reads it) and
    its ``app``. An application of a kind this module has no tool for is left out (its factory
    call says so) rather than breaking the import."""
    classes = {}
    for a in json.loads(netpress._core.apps()):
        kind = _KINDS.get(_kind(a["answer"]))
        if kind is None:
            continue
        tools = {n: f for n, f in vars(kind).items() if not n.startswith("_")}
        classes[a["name"]] = type(f"_{a['name'].capitalize()}", (_Base,), {**tools, "app": a["name"]})
    return classes


_CLASSES = _classes()


def environment_factory(app: str, variant: str = "zeroshot_base", reward: Any = "correct") -> type:
    """The class to pass as ``environment_factory``: no-argument construction, ``reset(**row)``
    and the application's tool, by its answer kind (route ``run(machine, command)``, k8s
    ``run(command)``, malt, traffic and microseg ``submit(program)``, bgp ``call(line)``). The
    kind is the application's usual one: a task answered otherwise (microseg's repair family,
    command by command) takes its replies through the same one text argument."""
    if app not in _CLASSES:
        raise ValueError(f"no TRL adapter for {app!r} (one of {', '.join(_CLASSES)})")
    name = f"NetPress{_CLASSES[app].__name__[1:]}Env"
    return type(name, (_CLASSES[app],), {"variant": variant, "reward_spec": reward, "__module__": __name__})


def reward(environments: list, **kwargs: Any) -> list[float]:
    """A TRL reward function: each rollout's environment's summed reward (the episode's final
    reward under the factory's ``reward``, plus any dense shaping)."""
    return [float(e.reward) for e in environments]
