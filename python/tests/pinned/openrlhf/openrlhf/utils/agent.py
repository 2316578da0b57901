"""Pinned interface stub of OpenRLHF's agent classes (python/tests/pinned/README.md).

Upstream: https://github.com/OpenRLHF/OpenRLHF, file openrlhf/utils/agent.py, at commit
04655bc3f38cd33109101fb948673aef3db37a9c. Licence of the upstream file: Apache-2.0.
Signatures as upstream; docstrings are our summary of the contract the multi-turn executor
holds an instance to; no upstream bodies.
"""

from abc import ABC, abstractmethod


class AgentExecutorBase(ABC):
    """Runs one prompt's rollout against the inference engine."""

    @abstractmethod
    async def execute(self, prompt, label, sampling_params, max_length: int, hf_tokenizer, llm_engine):
        """One rollout of ``prompt`` (its dataset ``label`` beside it)."""


class AgentInstanceBase(ABC):
    """One rollout's environment: built with no arguments, reset with ``{"observation": prompt,
    "label": label}``, stepped with ``{"observation_text", "action_text", "label",
    "sampling_params"}``. A step answers ``rewards`` (the executor calls ``.item()`` on it),
    ``scores``, ``environment_feedback`` (text appended after the action), ``done``, and
    optionally ``sampling_params`` and ``extra_logs``."""

    @abstractmethod
    def __init__(self, *args, **kwargs):
        """Built with no arguments, one per rollout."""

    async def reset(self, states: dict, **kwargs):
        """Starts the rollout; returns a dict with the ``observation`` text to generate from."""

    @abstractmethod
    async def step(self, state_dict: dict, **kwargs):
        """One turn: the action text in, the environment's answer out."""


class MultiTurnAgentExecutor(AgentExecutorBase):
    """The executor that drives an ``AgentInstanceBase`` subclass turn by turn."""

    def __init__(self, agent_instance_cls):
        """``agent_instance_cls`` must subclass ``AgentInstanceBase``."""

    async def execute(self, prompt, label, sampling_params, max_length: int, hf_tokenizer, llm_engine):
        """Alternates generation and ``step`` until done or out of length."""
