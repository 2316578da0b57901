"""verl's multi-turn hooks over NetPress sessions (docs/env.md, "Trainer adapters"): a tool
(``NetPressTool(BaseTool)``) for rollouts in which the model calls a tool each turn, and an
interaction (``NetPressInteraction(BaseInteraction)``) for rollouts in which a simulated user
answers each assistant turn.

verl builds both from its config files (``class_name: netpress.verl.NetPressTool`` with the
``tool_schema`` of ``tool_config(app)``; ``class_name: netpress.verl.NetPressInteraction``,
``name: netpress``) and reaches one trajectory's episode by an instance id: the tool's
``create(instance_id, task_id=...)`` gets the row's ``tools_kwargs[tool]["create_kwargs"]``,
the interaction's ``start_interaction(instance_id, task_id=...)`` the row's
``interaction_kwargs``; ``netpress.datasets`` format ``verl`` writes both. Options come from
the config section: ``reward``, ``variant``, ``max_turns`` (reset parameters).

Needs verl (its base classes); the package's tests use pinned stubs of them.
"""

from __future__ import annotations

from typing import Any, Optional
from uuid import uuid4

from verl.interactions.base import BaseInteraction
from verl.tools.base_tool import BaseTool

import netpress

from . import _tools

__all__ = ["NetPressInteraction", "NetPressTool", "tool_config"]

OPTIONS = ("reward", "variant", "max_turns")


def tool_config(app: str) -> dict:
    """The tool config file's entry for ``app`` (write it as YAML under ``tools:``)."""
    return {
        "class_name": "netpress.verl.NetPressTool",
        "config": {"type": "native", "app": app},
        "tool_schema": _tools.schema(app),
    }


class _Episodes:
    """The episodes of one tool or interaction object, by instance id, with each one's summed
    reward (the episode's final reward, plus dense shaping when asked)."""

    def __init__(self, config: dict | None):
        config = dict(config or {})
        self.params = {k: config[k] for k in OPTIONS if k in config}
        self.envs: dict[str, netpress.Env] = {}
        self.totals: dict[str, float] = {}

    def start(self, instance_id: Optional[str], task_id: Optional[str]) -> str:
        if not task_id:
            raise ValueError("no task_id (build the rows with netpress.datasets, format='verl')")
        instance_id = instance_id or str(uuid4())
        env = netpress.make(task_id, **self.params)
        env.reset()
        self.close(instance_id)
        self.envs[instance_id], self.totals[instance_id] = env, 0.0
        return instance_id

    def step(self, instance_id: str, reply: str) -> tuple[str, float, bool, dict]:
        text, reward, done, obs = self._env(instance_id).step(reply)
        self.totals[instance_id] += reward
        return text, float(reward), done, obs

    def _env(self, instance_id: str) -> netpress.Env:
        if instance_id not in self.envs:
            raise KeyError(f"no NetPress episode {instance_id!r}: create or start it first")
        return self.envs[instance_id]

    def app(self, instance_id: str) -> str:
        return self._env(instance_id).last["app"]

    def total(self, instance_id: str) -> float:
        self._env(instance_id)
        return self.totals[instance_id]

    def close(self, instance_id: str) -> None:
        env = self.envs.pop(instance_id, None)
        self.totals.pop(instance_id, None)
        if env is not None:
            env.close()


def _metrics(obs: dict) -> dict:
    """What a step reports beside its reward: the turn, the finish and, at the end, the card's
    correctness and safety."""
    score = obs.get("score") or {}
    out = {"turn": obs["turn"], "finish": obs["finish"]}
    if score:
        out.update(correct=float(bool(score.get("correct"))), safe=float(bool(score.get("safe"))))
    return out


class NetPressTool(BaseTool):
    """The application's tool (``_tools.schema``) as a verl tool: each call is a turn of the
    trajectory's episode."""

    def __init__(self, config: dict, tool_schema: Any):
        super().__init__(config, tool_schema)
        # Set here too: what the base class does with its arguments is verl's, not ours to count on.
        self.config, self.tool_schema = config, tool_schema
        self.name = tool_schema.function.name
        self._episodes = _Episodes(config)

    def get_openai_tool_schema(self) -> Any:
        return self.tool_schema

    async def create(self, instance_id: Optional[str] = None, task_id: Optional[str] = None, **kwargs: Any) -> str:
        """Starts the task ``task_id`` (the row's ``create_kwargs``) for one trajectory."""
        task_id = task_id or (kwargs.get("create_kwargs") or {}).get("task_id")
        return self._episodes.start(instance_id, task_id)

    async def execute(self, instance_id: str, parameters: dict[str, Any], **kwargs: Any) -> tuple[str, float, dict]:
        """One turn with the call's arguments: ``(the next observation's text, the step's
        reward, {turn, finish, and correct, safe once done})``. A call after the end changes
        nothing and gets 0.0."""
        reply = _tools.reply(self._episodes.app(instance_id), parameters)
        text, reward, _, obs = self._episodes.step(instance_id, reply)
        return text, reward, _metrics(obs)

    async def calc_reward(self, instance_id: str, **kwargs: Any) -> float:
        """The trajectory's summed reward."""
        return self._episodes.total(instance_id)

    async def release(self, instance_id: str, **kwargs: Any) -> None:
        self._episodes.close(instance_id)


def _last_assistant(messages: list[dict[str, Any]]) -> str:
    for m in reversed(messages):
        if m.get("role") == "assistant":
            content = m.get("content")
            if isinstance(content, list):  # multimodal parts
                return "".join(p.get("text", "") for p in content if isinstance(p, dict))
            return content or ""
    return ""


class NetPressInteraction(BaseInteraction):
    """The episode as verl's simulated user: each assistant message is the reply of a turn, the
    next observation is the user's answer, and the rollout ends with the episode."""

    def __init__(self, config: dict[str, Any]):
        super().__init__(config)
        self.config = config
        self.name = config.get("name", "netpress")
        self._episodes = _Episodes(config)

    async def start_interaction(
        self, instance_id: Optional[str] = None, task_id: Optional[str] = None, **kwargs: Any
    ) -> str:
        """Starts the task ``task_id`` (the row's ``interaction_kwargs``)."""
        return self._episodes.start(instance_id, task_id)

    async def generate_response(
        self, instance_id: str, messages: list[dict[str, Any]], **kwargs: Any
    ) -> tuple[bool, str, float, dict[str, Any]]:
        """The last assistant message is the turn's reply: ``(done, the next observation's text,
        the step's reward, {turn, finish, and correct, safe once done})``."""
        text, reward, done, obs = self._episodes.step(instance_id, _last_assistant(messages))
        return done, text, reward, _metrics(obs)

    async def calculate_score(self, instance_id: Optional[str] = None, **kwargs: Any) -> float:
        """The trajectory's summed reward."""
        return self._episodes.total(self._only(instance_id))

    async def finalize_interaction(self, instance_id: Optional[str] = None, **kwargs: Any) -> None:
        self._episodes.close(self._only(instance_id))

    def _only(self, instance_id: Optional[str]) -> str:
        """The instance meant: the one given, else the only one open (verl's base class at some
        commits calls these hooks without an id)."""
        if instance_id is not None:
            return instance_id
        if len(self._episodes.envs) != 1:
            raise ValueError(f"{len(self._episodes.envs)} episodes open: name the instance_id")
        return next(iter(self._episodes.envs))
