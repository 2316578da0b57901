"""Pinned interface stub of rLLM's environment base class (python/tests/pinned/README.md).

Upstream: rLLM (https://github.com/rllm-org/rllm), file rllm/environments/base/base_env.py,
read in the fork https://github.com/jacklanda/rllm at commit
479e010815fd7633e82818583deddcf4424fae42 (the index held no copy from rllm-org/rllm itself;
rllm-org/rllm's multi_turn_env.py at 3709f160cc61ccccb694028c9006d03646ca62ac subclasses the
same interface). Licence of the upstream file: Apache-2.0. Signatures as upstream; docstrings
are our summary; no upstream bodies.
"""

from abc import ABC, abstractmethod
from typing import Any


class BaseEnv(ABC):
    """An environment an rLLM agent execution engine resets and steps."""

    @property
    def idx(self) -> Any:
        """The environment's index in its batch, or None."""

    @idx.setter
    def idx(self, value: Any):
        """Sets the environment's index in its batch."""

    @abstractmethod
    def reset(self) -> tuple[dict, dict]:
        """Starts an episode: ``(observation, info)``."""

    @abstractmethod
    def step(self, action: Any) -> tuple[Any, float, bool, dict]:
        """One action: ``(observation, reward, done, info)``."""

    def close(self):
        """Frees what the environment holds."""

    @staticmethod
    @abstractmethod
    def from_dict(info: dict) -> "BaseEnv":
        """Builds the environment from a dataset row's (or config's) dictionary."""

    @property
    def supports_parallel_step(self) -> bool:
        """Whether steps of one trajectory may run concurrently."""

    @staticmethod
    def is_multithread_safe() -> bool:
        """Whether environments may be stepped from several threads at once."""
