"""Trainer adapters checked against pinned interface stubs (python/tests/pinned/README.md):
verl's tool and interaction, rLLM's environment and OpenRLHF's agent instance. Their frameworks
pull torch, vLLM or DeepSpeed, or have no PyPI release, so each stub stands in for the one base
class, under the real module name. Each test plays the scripted baseline through the adapter
the way the framework's rollout calls it and gets the rewards `netpress.evaluate` scores, as
test_adapters.py does for TRL and SkyRL."""

from __future__ import annotations

import asyncio
import importlib
import json
import sys
from pathlib import Path

import pytest

import netpress
import netpress.datasets as nd

PINNED = Path(__file__).resolve().parent / "pinned"
SPLIT = {"train": (2_000_000_000, 4)}

for framework in ("verl", "rllm", "openrlhf"):
    sys.path.insert(0, str(PINNED / framework))


def records(ids: list[str]) -> list[dict]:
    return netpress.evaluate(ids)


def correct(ids: list[str]) -> list[float]:
    return [float(r["score"]["correct"]) for r in records(ids)]


def as_call(app: str, reply: str) -> dict:
    """The baseline's reply as the arguments of the application's tool call."""
    return json.loads(reply) if app == "route" else {"command": reply}


@pytest.mark.parametrize("app", ["route", "k8s"])
def test_verl_tool_plays_the_baseline(app):
    import netpress.verl as nv
    from verl.tools.base_tool import BaseTool
    from verl.tools.schemas import OpenAIFunctionToolSchema

    config = nv.tool_config(app)
    schema = OpenAIFunctionToolSchema.model_validate(config["tool_schema"])
    tool = nv.NetPressTool({**config["config"], "reward": "correct"}, schema)
    assert isinstance(tool, BaseTool) and tool.name == "run" and tool.get_openai_tool_schema() is schema
    rows = nd.rows(app, [1, 2], splits=SPLIT, format="verl")["train"]

    async def rollout(row: dict) -> float:
        create_kwargs = row["extra_info"]["tools_kwargs"]["run"]["create_kwargs"]
        instance = await tool.create(f"req-{row['task_id']}", **create_kwargs)
        conversation, agent, metrics = list(row["prompt"]), netpress.agents.baseline(app), {"finish": None}
        steps = 0.0
        while metrics["finish"] is None:
            reply = agent(conversation)
            text, reward, metrics = await tool.execute(instance, as_call(app, reply))
            # The tool's answer as the baseline (standing in for the model) reads it: a user turn.
            conversation += [{"role": "assistant", "content": reply}, {"role": "user", "content": text}]
            steps += reward
        assert metrics["correct"] == await tool.calc_reward(instance) == steps
        text, reward, after = await tool.execute(instance, as_call(app, reply))
        assert reward == 0.0 and after["turn"] == metrics["turn"]
        await tool.release(instance)
        with pytest.raises(KeyError):
            await tool.calc_reward(instance)
        return steps

    assert [asyncio.run(rollout(r)) for r in rows] == correct([r["task_id"] for r in rows])


@pytest.mark.parametrize("app", ["route", "k8s", "malt"])
def test_verl_tool_schema_is_what_trl_shows_a_model(app):
    import netpress.trl
    import netpress.verl as nv

    transformers_utils = pytest.importorskip("transformers.utils")
    cls = netpress.trl.environment_factory(app)
    (name,) = [n for n, f in vars(cls.__mro__[1]).items() if callable(f) and not n.startswith("_")]
    want = transformers_utils.get_json_schema(getattr(cls(), name))["function"]
    want.pop("return")  # transformers adds the return type; OpenAI's function schema has none
    got = nv.tool_config(app)["tool_schema"]
    assert got["type"] == "function" and got["function"] == want


def test_verl_interaction_plays_the_baseline():
    import netpress.verl as nv
    from verl.interactions.base import BaseInteraction

    interaction = nv.NetPressInteraction({"name": "netpress", "reward": "correct"})
    assert isinstance(interaction, BaseInteraction) and interaction.name == "netpress"
    rows = nd.rows("k8s", [1, 3], splits=SPLIT, format="verl")["train"]

    async def rollout(row: dict) -> float:
        kwargs = row["extra_info"]["interaction_kwargs"]
        assert kwargs["name"] == interaction.name
        instance = await interaction.start_interaction(None, **kwargs)
        messages, agent, done, total = list(row["prompt"]), netpress.agents.baseline("k8s"), False, 0.0
        while not done:
            messages.append({"role": "assistant", "content": agent(messages)})
            done, text, score, extra = await interaction.generate_response(instance, messages, **kwargs)
            messages.append({"role": "user", "content": text})
            total += score
        assert extra["correct"] == await interaction.calculate_score(instance) == total
        assert await interaction.calculate_score() == total  # the only open instance
        await interaction.finalize_interaction(instance)
        return total

    assert [asyncio.run(rollout(r)) for r in rows] == correct([r["task_id"] for r in rows])
    with pytest.raises(ValueError, match="task_id"):
        asyncio.run(interaction.start_interaction("x"))


def test_rllm_environment_plays_the_baseline():
    from rllm.environments.base.base_env import BaseEnv

    from netpress.rllm import NetPressEnv

    assert NetPressEnv.is_multithread_safe() is True
    rows = nd.rows("route", [1, 2], splits=SPLIT)["train"]
    rewards = []
    for row in rows:
        env = NetPressEnv.from_dict({**row, "reward": "correct"})
        assert isinstance(env, BaseEnv)
        observation, info = env.reset()
        assert observation == row["prompt_text"] and info["task_id"] == row["task_id"]
        conversation, done, total = [{"role": "user", "content": observation}], False, 0.0
        agent = netpress.agents.baseline("route")
        while not done:
            reply = agent(conversation)
            observation, reward, done, info = env.step(reply)
            conversation += [{"role": "assistant", "content": reply}, {"role": "user", "content": observation}]
            total += reward
        assert float(info["score"]["correct"]) == total
        env.close()
        rewards.append(total)
    assert rewards == correct([r["task_id"] for r in rows])
    with pytest.raises(TypeError, match="temperature"):
        NetPressEnv(temperature=1.0)
    with pytest.raises(ValueError, match="task_id"):
        NetPressEnv().reset({"prompt": "no id"})


def test_openrlhf_agent_instance_plays_the_baseline(monkeypatch):
    monkeypatch.setenv("NETPRESS_REWARD", "leaderboard")
    monkeypatch.setenv("NETPRESS_FEEDBACK", "{text}")  # the observation alone, to read it back
    from openrlhf.utils.agent import AgentInstanceBase, MultiTurnAgentExecutor

    agent_file = importlib.import_module("netpress.openrlhf_agent")
    assert issubclass(agent_file.AgentExecutor, MultiTurnAgentExecutor)
    rows = nd.rows("k8s", [1, 2], splits=SPLIT)["train"]

    async def rollout(row: dict) -> float:
        instance = agent_file.AgentInstance()
        assert isinstance(instance, AgentInstanceBase)
        start = await instance.reset({"observation": row["prompt_text"], "label": row["task_id"]})
        assert start == {"observation": row["prompt_text"]}
        conversation, total = [{"role": "user", "content": row["prompt_text"]}], 0.0
        agent = netpress.agents.baseline("k8s")
        while True:
            reply = agent(conversation)
            states = {"observation_text": "", "action_text": reply, "label": row["task_id"], "sampling_params": None}
            out = await instance.step(states)
            total += out["rewards"]
            if out["done"]:
                assert out["environment_feedback"] == "" and out["scores"] == total
                return total
            feedback = out["environment_feedback"]
            conversation += [{"role": "assistant", "content": reply}, {"role": "user", "content": feedback}]

    want = [0.5 * r["score"]["correct"] + 0.5 * r["score"]["safe"] for r in records([r["task_id"] for r in rows])]
    assert [asyncio.run(rollout(r)) for r in rows] == want
    with pytest.raises(ValueError, match="label"):
        asyncio.run(agent_file.AgentInstance().reset({"observation": "p"}))
