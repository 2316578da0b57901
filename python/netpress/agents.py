"""Agents as callables ``messages -> reply``, where ``messages`` are chat messages
(``[{"role": "user", "content": ...}, ...]``) and the reply is the next action's text."""

from __future__ import annotations

from typing import Callable

from . import _core


def baseline(app: str) -> Callable[[list[dict]], str]:
    """The application's scripted baseline (the same agent as ``netpress run --agent baseline``).

    A fresh callable per episode is not needed: the baseline reads the whole conversation.
    """
    agent = _core.Baseline(app)

    def reply(messages: list[dict]) -> str:
        return agent([(m["role"], m["content"]) for m in messages])

    reply.__name__ = f"{app}_baseline"
    return reply
