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


class _Endpoint:
    """An endpoint agent of the core as a callable ``messages -> reply``. Credentials are read
    from an environment variable of the process that makes the first call, never stored in the
    object's pickled state: a Ray actor reads its own node's environment. After a fatal failure
    every later call of the same process fails at once, as the rest of a ``netpress run`` does."""

    _core: _core.EndpointAgent | None = None

    def _make(self, secret: str | None) -> _core.EndpointAgent:
        raise NotImplementedError

    def _secret_env(self) -> str | None:
        raise NotImplementedError

    def _agent(self) -> _core.EndpointAgent:
        if self._core is None:
            env = self._secret_env()
            self._core = self._make(os.environ.get(env) if env else None)
        return self._core

    def __call__(self, messages: list[dict]) -> str:
        try:
            return self._agent()([(m["role"], m["content"]) for m in messages])
        except _core.EndpointError as e:
            raise EndpointError(*e.args) from None

    def info(self) -> dict:
        """The agent as result records describe it (model or card name, endpoint without
        credentials). An A2A agent's card is fetched first."""
        try:
            return json.loads(self._agent().info())
        except _core.EndpointError as e:
            raise EndpointError(*e.args) from None

    def __getstate__(self) -> dict:
        return {k: v for k, v in self.__dict__.items() if k != "_core"}


class OpenAI(_Endpoint):
    """An OpenAI-compatible chat endpoint (what ``agents.openai`` returns); the key comes from
    the variable ``api_key_env``."""

    def __init__(self, base_url: str, model: str, api_key_env: str = "OPENAI_API_KEY", *,
                 temperature: float | None = None, max_tokens: int | None = None,
                 timeout_s: float | None = None):
        self.base_url, self.model, self.api_key_env = base_url, model, api_key_env
        self.settings = {"temperature": temperature, "max_tokens": max_tokens,
                         "timeout_ms": None if timeout_s is None else int(timeout_s * 1000)}

    def _secret_env(self) -> str | None:
        return self.api_key_env

    def _make(self, secret: str | None) -> _core.EndpointAgent:
        return _core.EndpointAgent.openai(self.base_url, self.model, secret, **self.settings)


def openai(base_url: str, model: str, api_key_env: str = "OPENAI_API_KEY", **settings) -> OpenAI:
    """The crate's OpenAI-compatible endpoint agent (the one of ``netpress run --agent openai``:
    its request, retries and failure rules) as a callable ``messages -> reply``; the GIL is
    released while the endpoint answers. ``settings``: ``temperature``, ``max_tokens``,
    ``timeout_s``. The key comes from the caller's environment variable ``api_key_env`` (none
    sent when it is unset or ``api_key_env`` is empty)."""
    return OpenAI(base_url, model, api_key_env, **settings)


class A2A(_Endpoint):
    """An A2A 0.3 agent (what ``agents.a2a`` returns); the bearer token, if any, comes from the
    variable ``token_env``."""

    def __init__(self, url: str, token_env: str | None = None, *, timeout_s: float | None = None,
                 poll_s: float | None = None):
        self.url, self.token_env = url, token_env
        self.settings = {"timeout_ms": None if timeout_s is None else int(timeout_s * 1000),
                         "poll_ms": None if poll_s is None else int(poll_s * 1000)}

    def _secret_env(self) -> str | None:
        return self.token_env

    def _make(self, secret: str | None) -> _core.EndpointAgent:
        return _core.EndpointAgent.a2a(self.url, secret, **self.settings)


def a2a(url: str, token_env: str | None = None, **settings) -> A2A:
    """The crate's A2A client (the one of ``netpress run --agent a2a``, NetArena's purple-agent
    protocol) as a callable ``messages -> reply``: the agent card is fetched on the first call,
    then each turn is one ``message/send`` carrying the whole transcript as one text part, an
    unfinished task polled with ``tasks/get``. ``url`` is the agent's base URL or its card's URL;
    ``token_env`` names a variable holding a bearer token; ``settings``: ``timeout_s`` (one
    turn, default 300), ``poll_s`` (default 1). The GIL is released while the agent answers."""
    return A2A(url, token_env, **settings)
