"""A Gymnasium environment over NetPress tasks, registered when this module is imported as
``NetPress/<Name>-v1`` for every application of the library's registry (:data:`IDS`):
``NetPress/Route-v1``, ``NetPress/K8s-v1``, ``NetPress/MALT-v1``, ``NetPress/BGP-v1``,
``NetPress/Traffic-v1`` and ``NetPress/Microseg-v1``.

Observations and actions are text: the prompt or the next observation, and the agent's reply.
Their space is :class:`Utf8`, a ``spaces.Text`` that holds any string up to its length (Text's
own ``contains`` allows only its sample alphabet, and replies are arbitrary UTF-8).
"""

from __future__ import annotations

import json
from typing import Any

import gymnasium
from gymnasium import spaces

from . import TERMINAL, Env, TaskStream, _core

#: The longest observation (the protocol's message limit) and reply (its reply limit).
MAX_OBSERVATION = 2**20
MAX_REPLY = 256 * 1024


class Utf8(spaces.Text):
    """Any ``str`` of at most ``max_length`` characters (samples still use Text's alphabet)."""

    def __init__(self, max_length: int = MAX_OBSERVATION, **kwargs: Any):
        kwargs.setdefault("min_length", 0)
        super().__init__(max_length, **kwargs)

    def contains(self, x: Any) -> bool:
        return isinstance(x, str) and self.min_length <= len(x) <= self.max_length

    def __repr__(self) -> str:
        return f"Utf8({self.min_length}, {self.max_length})"


class NetPressEnv(gymnasium.Env):
    """One NetPress session as a Gymnasium environment.

    ``reset(seed=S)`` starts the application's task of seed ``S`` (at the constructor's level);
    ``reset(options={...})`` takes reset parameters (docs/env.md); with neither, the next task
    of the environment's :class:`~netpress.TaskStream` (seeds from 0, or from the last seed
    given plus one). ``step(reply)`` returns
    ``terminated`` when the episode finished ``solved`` or ``answered`` and ``truncated`` when
    it hit the turn limit or was stopped; ``info`` is the observation's other fields.
    """

    # render_fps: only so that the checker has a rate; text frames have none of their own.
    metadata = {"render_modes": ["ansi"], "render_fps": 1}

    def __init__(
        self,
        app: str = "route",
        level: int | None = None,
        render_mode: str | None = None,
        **params: Any,
    ):
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode {render_mode!r}: only 'ansi' is supported")
        self.render_mode = render_mode
        self.app = app
        self.level = level
        self.stream = TaskStream(app, [level] if level is not None else None)
        self.level_default = self.stream.levels[0]
        self.params = params
        self.env = Env(**params)
        self.observation_space = Utf8(MAX_OBSERVATION)
        self.action_space = Utf8(MAX_REPLY)

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[str, dict]:
        super().reset(seed=seed)
        if seed is not None:
            # Reset without a seed continues from this one, so a seeded sequence repeats.
            self.stream = TaskStream(self.app, self.stream.levels, start=seed + 1)
        if options:
            task = dict(options)
            if seed is not None and "task_id" not in task:
                task["seed"] = seed
        elif seed is not None:
            task = {"app": self.app, "level": self.level_default, "seed": seed}
        else:
            task = next(self.stream)
        if "task_id" not in task:
            task.setdefault("app", self.app)
            task.setdefault("level", self.level_default)
        obs, info = self.env.reset(**task)
        return obs, _info(info)

    def step(self, action: str) -> tuple[str, float, bool, bool, dict]:
        obs, reward, _done, info = self.env.step(action)
        finish = info.get("finish")
        truncated = finish is not None and finish not in TERMINAL
        return obs, float(reward), finish in TERMINAL, truncated, _info(info)

    def render(self) -> str | None:
        if self.render_mode != "ansi" or self.env.last is None:
            return None
        o = self.env.last
        head = f"{o['task_id']}  turn {o['turn']}/{o['max_turns']}  finish: {o['finish'] or '-'}"
        return f"{head}\n{'-' * len(head)}\n{o['text']}\n"

    def close(self) -> None:
        self.env.close()


def _info(observation: dict) -> dict:
    """The observation's fields less ``text`` (the observation itself) and ``episode_id`` (a
    random session key: a seeded reset must give equal infos)."""
    return {k: v for k, v in observation.items() if k not in ("text", "episode_id")}


def _id_name(app: dict) -> str:
    """The application's name in its id: spelt as its title starts (``MALT``, ``K8s``, ``BGP``),
    else capitalised (``Microseg``, whose title is "Micro-segmentation")."""
    name, title = app["name"], app["title"]
    return title[: len(name)] if title.lower().startswith(name) else name.capitalize()


#: Registered ids and their applications, one for each application of the library's registry,
#: so a new application gets one with no change here. The suffix is this environment's version,
#: v1 for every application, not the generator's: tasks are drawn at the generator's current
#: version whatever the id says (MALT's are v2), and an id must not change when one is added.
IDS = {f"NetPress/{_id_name(a)}-v1": a["name"] for a in json.loads(_core.apps())}


def _register() -> None:
    for env_id, app in IDS.items():
        if env_id not in gymnasium.registry:
            gymnasium.register(id=env_id, entry_point="netpress.gym:NetPressEnv", kwargs={"app": app})


_register()

