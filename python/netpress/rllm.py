"""rLLM's environment interface (``rllm.environments.base.base_env.BaseEnv``) over a NetPress
session (docs/env.md, "Trainer adapters").

rLLM's execution engine builds an environment per task with ``from_dict(env_args)`` (the
dataset row, with the engine's environment options merged in), calls ``reset()``, then
``step(model output)`` until ``done``, and ``close()``. ``netpress.datasets`` rows carry
``task_id``; ``reward``, ``variant`` and ``max_turns`` are reset parameters.

Needs rLLM (its base class); the package's tests use a pinned stub of it.
"""

from __future__ import annotations

from typing import Any

from rllm.environments.base.base_env import BaseEnv

import netpress

__all__ = ["NetPressEnv"]

OPTIONS = ("reward", "variant", "max_turns")


def _task_id(task: dict | None) -> str | None:
    task = task or {}
    return task.get("task_id") or (task.get("extra_info") or {}).get("task_id")


class NetPressEnv(BaseEnv):
    """One NetPress episode at a time as an rLLM environment."""

    def __init__(self, task: dict | None = None, **options: Any):
        unknown = sorted(set(options) - set(OPTIONS))
        if unknown:
            raise TypeError(f"unknown option(s) {', '.join(unknown)} (one of {', '.join(OPTIONS)})")
        self.task = task
        self.env = netpress.make(**options)

    def reset(self, task: dict | None = None) -> tuple[str, dict]:
        """Starts the task (``task`` or the one given at construction; a dict with
        ``task_id``); returns its prompt and the observation's other fields."""
        if task is not None:
            self.task = task
        task_id = _task_id(self.task)
        if not task_id:
            raise ValueError("the task has no task_id (build the rows with netpress.datasets)")
        text, obs = self.env.reset(task_id=task_id)
        return text, _info(obs)

    def step(self, action: Any) -> tuple[str, float, bool, dict]:
        """One turn: ``(the next observation's text, reward, done, info)``; ``info`` carries
        ``finish``, ``turn`` and, once done, ``score``."""
        text, reward, done, obs = self.env.step(action if isinstance(action, str) else str(action))
        return text, float(reward), done, _info(obs)

    def close(self) -> None:
        self.env.close()

    @staticmethod
    def from_dict(env_args: dict) -> "NetPressEnv":
        """From a row (``task_id``, or ``extra_info.task_id``) plus options; other row fields
        (prompt, split, ...) are the row's own and are ignored."""
        options = {k: env_args[k] for k in OPTIONS if k in env_args}
        return NetPressEnv(task=dict(env_args), **options)

    @staticmethod
    def is_multithread_safe() -> bool:
        """True: each environment has its own session, and the core steps without the GIL."""
        return True


def _info(obs: dict) -> dict:
    """The observation's fields less its text (that is the observation) and the random key."""
    return {k: v for k, v in obs.items() if k not in ("text", "episode_id")}
