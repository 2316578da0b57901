"""Pinned interface stub of verl's interaction base class (python/tests/pinned/README.md).

Upstream: https://github.com/volcengine/verl, file verl/interactions/base.py, at commit
10a6180e1d0078b2d2454369db83482d4de8ac60. Licence of the upstream file: Apache-2.0.
Signatures as upstream at that commit, where ``calculate_score`` and ``finalize_interaction``
take no instance id; verl's own ``Gsm8kInteraction`` (verl/interactions/gsm8k_interaction.py
at commit 022d9062459c69142f7671e1794f5ced17d391b6) and the rollouts that call it pass
``instance_id`` to both, which is how they are called, so the stub lists it as an optional
keyword. Docstrings are our summary; no upstream bodies.
"""

from typing import Any, Optional


class BaseInteraction:
    """The simulated user of a multi-turn rollout: answers each assistant turn."""

    def __init__(self, config: dict[str, Any]):
        """``config`` is the interaction's section of the interaction config file (its ``name``
        selects it from a row's ``interaction_kwargs``)."""

    async def start_interaction(self, instance_id: Optional[str] = None, **kwargs) -> str:
        """Starts the interaction of one trajectory; ``kwargs`` are the row's
        ``interaction_kwargs``. Returns the instance id."""

    async def generate_response(
        self, instance_id: str, messages: list[dict[str, Any]], **kwargs
    ) -> tuple[bool, str, float, dict[str, Any]]:
        """Answers the conversation so far: ``(should terminate, response text, this turn's
        score, extra data)``."""

    async def calculate_score(self, instance_id: Optional[str] = None, **kwargs) -> float:
        """The interaction's score."""

    async def finalize_interaction(self, instance_id: Optional[str] = None, **kwargs) -> None:
        """Ends the interaction and frees its state."""
