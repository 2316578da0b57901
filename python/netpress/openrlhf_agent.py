"""OpenRLHF's multi-turn agent file over NetPress sessions (docs/env.md, "Trainer adapters").

OpenRLHF loads this file by path (``--agent_func_path $(python -c 'import
netpress.openrlhf_agent as m; print(m.__file__)')``) and makes one ``AgentInstance`` per prompt
with no arguments. The dataset's label column must be the task id (``--label_key task_id`` on
``netpress.datasets`` rows). ``reset`` starts that task and keeps the prompt OpenRLHF already
formatted (the row's prompt is the task's, from the same reset); each ``step`` plays the
generated text as the turn's reply and answers the next observation as environment feedback,
framed by ``FEEDBACK`` (set ``NETPRESS_FEEDBACK``, a format string with ``{text}``, to match the
model's chat template). The reward options are environment variables, as the class is built
without arguments: ``NETPRESS_REWARD`` (a name or a JSON object) and ``NETPRESS_VARIANT``.

Needs OpenRLHF (its base classes); the package's tests use pinned stubs of them.
"""

from __future__ import annotations

import functools
import json
import os
from typing import Any

from openrlhf.utils.agent import AgentInstanceBase, MultiTurnAgentExecutor

import netpress

__all__ = ["AgentExecutor", "AgentInstance"]

FEEDBACK = "\n\nUser: {text}\n\nAssistant: "


def _reward() -> Any:
    value = os.environ.get("NETPRESS_REWARD", "correct")
    return json.loads(value) if value.lstrip().startswith("{") else value


@functools.cache
def _torch() -> Any:
    """torch, or None; looked for once (a failed import is not cached by Python)."""
    try:
        import torch
    except ImportError:
        return None
    return torch


def _number(value: float) -> Any:
    """A tensor when torch imports (OpenRLHF calls ``.item()`` on rewards), else the float."""
    torch = _torch()
    return value if torch is None else torch.tensor(value)


class AgentInstance(AgentInstanceBase):
    """One prompt's NetPress episode."""

    def __init__(self, *args: Any, **kwargs: Any):
        self.env = netpress.make(reward=_reward(), variant=os.environ.get("NETPRESS_VARIANT", "zeroshot_base"))
        self.feedback = os.environ.get("NETPRESS_FEEDBACK", FEEDBACK)
        self.total = 0.0

    async def reset(self, states: dict, **kwargs: Any) -> dict:
        """Starts the task of ``states["label"]``; the observation is the prompt as given, or
        the task's own when none is."""
        task_id = states.get("label")
        if not task_id:
            raise ValueError("no label: the dataset's label column must be the task id (--label_key task_id)")
        prompt, _ = self.env.reset(task_id=task_id)
        self.total = 0.0
        return {"observation": states.get("observation") or prompt}

    async def step(self, states: dict, **kwargs: Any) -> dict:
        """One turn with ``states["action_text"]``: the step's reward, the episode's summed
        reward as ``scores``, the next observation as feedback (none once done), ``done``."""
        text, reward, done, obs = self.env.step(states.get("action_text") or "")
        self.total += reward
        score = obs.get("score") or {}
        logs = {"turn": obs["turn"], "finished": float(done)}
        if score:
            logs.update(correct=float(bool(score.get("correct"))), safe=float(bool(score.get("safe"))))
        return {
            "rewards": _number(float(reward)),
            "scores": _number(self.total),
            "environment_feedback": "" if done else self.feedback.format(text=text),
            "done": done,
            "sampling_params": states.get("sampling_params"),
            "extra_logs": logs,
        }


class AgentExecutor(MultiTurnAgentExecutor):
    """OpenRLHF's multi-turn executor bound to ``AgentInstance`` (what the agent file offers
    besides the instance class)."""

    def __init__(self) -> None:
        super().__init__(AgentInstance)
