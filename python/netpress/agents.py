"""Agents as callables ``messages -> reply``, where ``messages`` are chat messages
(``[{"role": "user", "content": ...}, ...]``) and the reply is the next action's text."""

from __future__ import annotations

import threading
from typing import Callable

from . import _core


def baseline(app: str) -> Callable[[list[dict]], str]:
    """The application's scripted baseline (the same agent as ``netpress run --agent baseline``).

    One callable serves any number of episodes and threads. Each thread keeps the conversation
    it last sent to the core and, when the next call's messages start with the same message
    objects (``Env.messages`` returns the ones it returned before, plus the new), sends only the
    new ones: the prompt and long outputs cross into the core once, not every turn.
    """
    local = threading.local()

    def reply(messages: list[dict]) -> str:
        if not hasattr(local, "agent"):
            local.agent, local.sent = _core.Baseline(app), []
        sent = local.sent
        k = len(sent)
        if len(messages) < k or any(messages[i]["content"] is not sent[i] for i in range(k)):
            local.agent.clear()
            sent.clear()
            k = 0
        new = messages[k:]
        local.agent.extend([(m["role"], m["content"]) for m in new])
        sent.extend(m["content"] for m in new)
        return local.agent.reply()

    reply.__name__ = f"{app}_baseline"
    return reply
