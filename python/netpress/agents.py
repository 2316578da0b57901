"""Agents as callables ``messages -> reply``, where ``messages`` are chat messages
(``[{"role": "user", "content": ...}, ...]``) and the reply is the next action's text."""

from __future__ import annotations

import json
import os
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


class EndpointError(RuntimeError):
    """An endpoint agent's failed call. ``fatal`` means no later call can succeed (a refused key,
    an unknown model); ``netpress.evaluate`` then stops the episode, as ``netpress run`` does."""

    def __init__(self, message: str, fatal: bool):
        super().__init__(message)
        self.fatal = fatal


class OpenAI:
    """An OpenAI-compatible chat endpoint as a callable ``messages -> reply`` (what
    ``agents.openai`` returns).

    The key is read from the environment variable ``api_key_env`` of the process that makes the
    first call, never stored in the object's pickled state: a Ray actor reads its own node's
    environment. After a fatal failure every later call of the same process fails at once,
    as the rest of a ``netpress run`` does.
    """

    def __init__(self, base_url: str, model: str, api_key_env: str = "OPENAI_API_KEY", *,
                 temperature: float | None = None, max_tokens: int | None = None,
                 timeout_s: float | None = None):
        self.base_url, self.model, self.api_key_env = base_url, model, api_key_env
        self.settings = {"temperature": temperature, "max_tokens": max_tokens,
                         "timeout_ms": None if timeout_s is None else int(timeout_s * 1000)}
        self._core: _core.OpenAiAgent | None = None

    def _agent(self) -> _core.OpenAiAgent:
        if self._core is None:
            key = os.environ.get(self.api_key_env) if self.api_key_env else None
            self._core = _core.OpenAiAgent(self.base_url, self.model, key, **self.settings)
        return self._core

    def __call__(self, messages: list[dict]) -> str:
        try:
            return self._agent()([(m["role"], m["content"]) for m in messages])
        except _core.EndpointError as e:
            raise EndpointError(*e.args) from None

    def info(self) -> dict:
        """The agent as result records describe it (model, endpoint without credentials)."""
        return json.loads(self._agent().info())

    def __getstate__(self) -> dict:
        return {k: v for k, v in self.__dict__.items() if k != "_core"} | {"_core": None}


def openai(base_url: str, model: str, api_key_env: str = "OPENAI_API_KEY", **settings) -> OpenAI:
    """The crate's OpenAI-compatible endpoint agent (the one of ``netpress run --agent openai``:
    its request, retries and failure rules) as a callable ``messages -> reply``; the GIL is
    released while the endpoint answers. ``settings``: ``temperature``, ``max_tokens``,
    ``timeout_s``. The key comes from the caller's environment variable ``api_key_env`` (none
    sent when it is unset or ``api_key_env`` is empty)."""
    return OpenAI(base_url, model, api_key_env, **settings)
