"""The one tool each application offers a model that calls tools (TRL, verl): its name, its
OpenAI function schema and how a call's arguments become the episode's reply text.

The tool methods of ``netpress.trl`` are the source: their signatures and ``Args:`` docstrings
are what TRL shows a model, so verl's schema is read from them and the two trainers offer the
same tool (docs/env.md, "Trainer adapters").
"""

from __future__ import annotations

import inspect
import json
import re
from typing import Any, Callable


def method(app: str) -> Callable:
    """The TRL environment's tool method of ``app`` (unbound)."""
    from .trl import _CLASSES  # late: trl imports the package, which imports nothing of this

    if app not in _CLASSES:
        raise ValueError(f"no tool for {app!r} (one of {', '.join(_CLASSES)})")
    cls = _CLASSES[app]
    (name,) = [n for n, f in vars(cls).items() if callable(f) and not n.startswith("_")]
    return getattr(cls, name)


def name(app: str) -> str | None:
    """The tool's name, or None for an application without a tool."""
    from .trl import _CLASSES

    return method(app).__name__ if app in _CLASSES else None


def schema(app: str) -> dict:
    """The tool's OpenAI function schema (``{"type": "function", "function": {...}}``), as a
    trainer's tool config file holds it."""
    tool = method(app)
    doc = inspect.getdoc(tool) or ""
    summary, _, rest = doc.partition("\n\n")
    described = dict(re.findall(r"^\s*(\w+): (.+)$", rest.partition("Args:")[2], re.M))
    names = [p for p in inspect.signature(tool).parameters if p != "self"]
    properties = {n: {"type": "string", "description": described.get(n, "")} for n in names}
    function = {
        "name": tool.__name__,
        "description": " ".join(summary.split()),
        "parameters": {"type": "object", "properties": properties, "required": names},
    }
    return {"type": "function", "function": function}


def reply(app: str, arguments: dict[str, Any]) -> str:
    """A tool call's arguments as the reply text the episode reads: Route's JSON action
    ``{"machine", "command"}``, else the one argument's text. Missing or extra arguments are
    passed on as they are, so the episode answers them with its own parse error (a wasted turn,
    as any malformed reply)."""
    names = list(schema(app)["function"]["parameters"]["properties"])
    if len(names) > 1 or set(arguments) != set(names):
        return json.dumps(arguments)
    return str(arguments[names[0]])
