"""SkyRL's text environment (``skyrl_gym``'s ``BaseTextEnv``) over a NetPress session, registered
as ``netpress`` (docs/env.md, "Trainer adapters").

SkyRL's generator makes an environment per trajectory from the dataset row's ``env_class``
(``netpress``) with ``extras`` = the row (``netpress.datasets`` format ``skyrl`` puts the id in
``extra_info.task_id``), calls ``init(prompt)``, then ``step(model output)`` until ``done``, and
``close()``. Options come from ``env_config`` (SkyRL's ``environment.skyrl_gym.netpress``
section): ``reward`` and ``variant``, as reset parameters.

Needs ``skyrl-gym`` (the package's ``skyrl`` extra).
"""

from __future__ import annotations

from typing import Any

from skyrl_gym.envs import register
from skyrl_gym.envs.base_text_env import BaseTextEnv, BaseTextEnvStepOutput

import netpress

__all__ = ["NetPressEnv"]


class NetPressEnv(BaseTextEnv):
    """One NetPress episode as a SkyRL multi-turn text environment."""

    def __init__(self, env_config: Any = None, extras: dict[str, Any] | None = None):
        super().__init__()
        extras = extras or {}
        task_id = (extras.get("extra_info") or {}).get("task_id") or extras.get("task_id")
        if not task_id:
            raise ValueError("extras have no extra_info.task_id (build the data with netpress.datasets, format='skyrl')")
        config = dict(env_config or {})
        params = {k: config[k] for k in ("reward", "variant", "max_turns") if k in config}
        self.env = netpress.make(task_id, **params)
        self.task_id = task_id

    def init(self, prompt: list[dict]) -> tuple[list[dict], dict[str, Any]]:
        """Starts the episode; the conversation starts from its prompt (the row's, when the row
        was made with the same variant)."""
        text, obs = self.env.reset()
        self.max_turns = obs["max_turns"]
        self.turns = 0
        return [{"role": "user", "content": text}], {"task_id": self.task_id}

    def step(self, action: str) -> BaseTextEnvStepOutput:
        """One turn: the model's output is the reply; the next observation comes back as a user
        message, none once the episode is done."""
        self.turns += 1
        text, reward, done, obs = self.env.step(action)
        return BaseTextEnvStepOutput(
            observations=[] if done else [{"role": "user", "content": text}],
            reward=float(reward),
            done=done,
            metadata={"score": obs.get("score"), "finish": obs["finish"]},
            postprocessed_action=action,
        )

    def get_metrics(self) -> dict[str, Any]:
        score = self.env.state().get("score") or {}
        return {"turns": self.turns, "correct": float(bool(score.get("correct"))), "safe": float(bool(score.get("safe")))}

    def close(self) -> None:
        self.env.close()


register(id="netpress", entry_point="netpress.skyrl:NetPressEnv")
