"""Trainer adapters (docs/env.md, "Trainer adapters"): SkyRL's against the real `skyrl-gym`
base class and registry; TRL's against a driver written from TRL's `environment_factory`
contract (TRL pulls torch, so it is not installed) and the real
`transformers.utils.get_json_schema` on each tool. Each plays the scripted baseline and gets the
rewards `netpress.evaluate` scores."""

from __future__ import annotations

import inspect
import json

import pytest

import netpress
import netpress.datasets as nd

SPLIT = {"train": (2_000_000_000, 4)}


def correct(ids: list[str]) -> list[float]:
    return [float(r["score"]["correct"]) for r in netpress.evaluate(ids)]


def trl_rollout(cls: type, row: dict, app: str) -> object:
    """TRL's loop for one rollout: construct with no arguments, reset with the row, call the
    tool the model asks for (here the baseline's reply as the tool's arguments), show an
    exception's text as the tool's answer, until the episode ends."""
    env = cls()
    messages = [{"role": "user", "content": env.reset(**row)}]
    agent = netpress.agents.baseline(app)
    (name,) = [n for n, _ in inspect.getmembers(env, inspect.ismethod) if not n.startswith("_") and n != "reset"]
    tool = getattr(env, name)
    for _ in range(100):
        reply = agent(env.env.messages())
        args = json.loads(reply) if app == "route" else {"command": reply}
        try:
            answer = tool(**args)
        except netpress.trl.EpisodeOver as e:
            answer = str(e)
        messages.append({"role": "tool", "content": answer})
        if env.done:
            break
    return env


@pytest.mark.parametrize("app", ["route", "k8s"])
def test_trl_environment_plays_the_baseline(app):
    import netpress.trl

    transformers_utils = pytest.importorskip("transformers.utils")
    cls = netpress.trl.environment_factory(app)
    tool = {"route": "run", "k8s": "run"}[app]
    schema = transformers_utils.get_json_schema(getattr(cls(), tool))
    params = schema["function"]["parameters"]
    assert schema["function"]["name"] == tool
    assert params["required"] == (["machine", "command"] if app == "route" else ["command"])
    assert all(p["type"] == "string" and p["description"] for p in params["properties"].values())
    rows = nd.rows(app, [1, 2], splits=SPLIT, format="trl")["train"]
    envs = [trl_rollout(cls, row, app) for row in rows]
    assert netpress.trl.reward(envs) == correct([r["task_id"] for r in rows])
    with pytest.raises(netpress.trl.EpisodeOver):
        getattr(envs[0], tool)(**({"machine": "r0", "command": "ip r"} if app == "route" else {"command": "ls"}))


def test_trl_factory_refuses_an_unknown_app():
    import netpress.trl

    with pytest.raises(ValueError, match="nonsense.*bgp"):
        netpress.trl.environment_factory("nonsense")


def test_trl_has_a_tool_for_every_registered_app():
    import netpress._tools
    import netpress.trl

    versions = {a["name"]: a["version"] for a in netpress.info()["apps"]}
    tools = {app: netpress._tools.name(app) for app in versions}
    submit = {"malt": "submit", "traffic": "submit", "microseg": "submit"}
    assert tools == {"route": "run", "k8s": "run", "bgp": "call", **submit}
    env = netpress.trl.environment_factory("bgp")()
    assert type(env).__name__ == "NetPressBgpEnv" and env.reset(task_id=f"bgp-v{versions['bgp']}-L1-s0-i0")
    assert env.call("nonsense") and env.reward == 0.0


def test_skyrl_environment_is_registered_and_plays_the_baseline():
    skyrl_gym = pytest.importorskip("skyrl_gym")
    import netpress.skyrl
    from skyrl_gym.envs.base_text_env import BaseTextEnv

    rows = nd.rows("k8s", [1, 3], splits=SPLIT, format="skyrl")["train"]
    rewards = []
    for row in rows:
        extras = {k: v for k, v in row.items() if k != "prompt"}
        env = skyrl_gym.make(row["env_class"], env_config={"reward": "correct"}, extras=extras)
        assert isinstance(env, BaseTextEnv) and isinstance(env, netpress.skyrl.NetPressEnv)
        conversation, meta = env.init(row["prompt"])
        assert conversation == row["prompt"] and meta == {"task_id": row["task_id"]}
        agent, total, done = netpress.agents.baseline("k8s"), 0.0, False
        while not done:
            action = agent(conversation)
            out = env.step(action)
            conversation = conversation + [{"role": "assistant", "content": action}] + out["observations"]
            total, done = total + out["reward"], out["done"]
        assert out["observations"] == [] and out["metadata"]["score"]["turns"] == env.turns
        assert env.get_metrics()["correct"] == total
        env.close()
        rewards.append(total)
    assert rewards == correct([r["task_id"] for r in rows])
