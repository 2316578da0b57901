"""Pinned interface stub of verl's tool base class (python/tests/pinned/README.md).

Upstream: https://github.com/volcengine/verl, file verl/tools/base_tool.py, at commit
76f000fc433e394d936808fef81d5e0d9d1e4c39. Licence of the upstream file: Apache-2.0.
Signatures as upstream; docstrings are our summary of the contract; no upstream bodies.
"""

from typing import Any, Optional, Tuple

from .schemas import OpenAIFunctionToolSchema


class BaseTool:
    """A tool the model calls during a rollout; one instance per trajectory, by id."""

    def __init__(self, config: dict, tool_schema: OpenAIFunctionToolSchema):
        """``config`` is the tool's section of the tool config file; ``tool_schema`` its OpenAI
        function schema (upstream takes the tool's ``name`` from it)."""

    def get_openai_tool_schema(self) -> OpenAIFunctionToolSchema:
        """The tool's schema in OpenAI's function-calling format."""

    async def create(self, instance_id: Optional[str] = None, **kwargs) -> str:
        """Makes the instance of one trajectory; ``kwargs`` are the row's ``create_kwargs``.
        Returns the instance id (a fresh one when none is given)."""

    async def execute(self, instance_id: str, parameters: dict[str, Any], **kwargs) -> Tuple[str, float, dict]:
        """Runs one call with the model's arguments; returns ``(response text, step reward,
        metrics)``."""

    async def calc_reward(self, instance_id: str, **kwargs) -> float:
        """The instance's reward so far."""

    async def release(self, instance_id: str, **kwargs) -> None:
        """Frees the instance."""
