"""The `netpress.Env` session: reset, step, state, record, errors and rewards."""

from __future__ import annotations

import json

import pytest

import netpress

ROUTE = "route-v1-L2-s42-i7"


def play_baseline(env: netpress.Env) -> tuple[float, dict]:
    agent = netpress.agents.baseline(env.last["app"])
    done, reward, obs = False, None, None
    while not done:
        _, reward, done, obs = env.step(agent(env.messages()))
    return reward, obs


def test_an_id_and_its_parts_name_the_same_task():
    by_id = netpress.make("route-v1-L2-s42-i7-n6")
    by_parts = netpress.make(app="route", level=2, seed=42, index=7, knobs={"subnets": 6})
    a, b = by_id.reset(), by_parts.reset()
    assert a[0] == b[0]
    assert a[1]["task_id"] == b[1]["task_id"] == "route-v1-L2-s42-i7-n6"
    assert a[1]["content_hash"] == b[1]["content_hash"]


def test_an_episode_runs_to_its_reward_and_record():
    env = netpress.make(ROUTE, record=True)
    prompt, obs = env.reset()
    assert prompt.startswith("You are a network engineer")
    assert obs["turn"] == 0 and obs["finish"] is None and "expected" not in json.dumps(obs)
    reward, last = play_baseline(env)
    assert (reward, last["finish"], last["score"]["correct"]) == (1.0, "solved", True)
    assert last["record"] == env.record()
    state = env.state()
    assert state["step_count"] == last["turn"] and state["finish"] == "solved"
    # A step after the end changes nothing and says so.
    text, reward, done, obs = env.step("ip route")
    assert (reward, done) == (0.0, True) and "changed nothing" in text
    assert env.state() == state


def test_a_reset_replaces_the_episode():
    env = netpress.make(ROUTE)
    env.reset()
    env.step("not json at all")
    _, obs = env.reset(task_id="k8s-v1-L1-s0-i0")
    assert (obs["task_id"], obs["turn"]) == ("k8s-v1-L1-s0-i0", 0)


def test_an_unparseable_reply_uses_a_turn():
    env = netpress.make(ROUTE)
    env.reset()
    text, reward, done, obs = env.step("please fix it")
    assert (obs["turn"], reward, done) == (1, 0.0, False)
    assert text


def test_failed_agent_calls_stop_the_episode_under_the_runner_rules():
    env = netpress.make(ROUTE)
    env.reset()
    _, reward, done, obs = env.step({"error": "endpoint down", "fatal": True})
    assert done and obs["finish"] == "stopped" and reward == 0.0


@pytest.mark.parametrize(
    "params, code, reason",
    [
        ({"task_id": "nonsense"}, "VALIDATION_ERROR", "BAD_ID"),
        ({"app": "nope", "level": 1}, "VALIDATION_ERROR", "UNKNOWN_APP"),
        ({"app": "route", "level": 9}, "VALIDATION_ERROR", "BAD_LEVEL"),
        ({"task_id": ROUTE, "colour": 1}, "VALIDATION_ERROR", "UNKNOWN_FIELD"),
        ({"task_id": ROUTE, "max_turns": 51}, "VALIDATION_ERROR", "BAD_VALUE"),
        ({"task_id": ROUTE, "app": "route"}, "VALIDATION_ERROR", "TASK_AND_APP"),
    ],
)
def test_refused_resets_raise_the_protocol_error(params, code, reason):
    with pytest.raises(netpress.EnvError) as e:
        netpress.make(**params).reset()
    assert e.value.args[:2] == (code, reason)
    assert e.value.args[2]


def test_refused_steps_raise_the_protocol_error():
    env = netpress.make(ROUTE)
    with pytest.raises(netpress.EnvError) as e:
        env.step("ip route")
    assert e.value.args[:2] == ("SESSION_ERROR", "UNKNOWN_SESSION")
    env.reset()
    with pytest.raises(netpress.EnvError) as e:
        env.step("x" * (256 * 1024 + 1))
    assert e.value.args[:2] == ("VALIDATION_ERROR", "REPLY_TOO_LARGE")
    with pytest.raises(netpress.EnvError) as e:
        env.step({"reply": "a", "error": "b"})
    assert e.value.args[1] == "BAD_VALUE"
    env.close()
    with pytest.raises(netpress.EnvError) as e:
        env.state()
    assert e.value.args[1] == "UNKNOWN_SESSION"


def test_reward_formulas():
    """correct is 1/0; leaderboard is 0.5·correct + 0.5·safe; weights subtract γ·turns/max."""
    cases = [
        ("correct", lambda s, t, m: float(s["correct"])),
        ("leaderboard", lambda s, t, m: 0.5 * s["correct"] + 0.5 * s["safe"]),
        (
            {"alpha": 2.0, "beta": 0.5, "gamma": 1.0},
            lambda s, t, m: 2.0 * s["correct"] + 0.5 * s["safe"] - 1.0 * t / m,
        ),
    ]
    for task in (ROUTE, "k8s-v1-L2-s3-i0"):
        for spec, formula in cases:
            env = netpress.make(task, reward=spec)
            env.reset()
            reward, last = play_baseline(env)
            want = formula(last["score"], last["turn"], last["max_turns"])
            assert reward == pytest.approx(want), (task, spec)


def test_dense_rewards_add_up_to_progress_plus_the_final_reward():
    env = netpress.make("k8s-v1-L3-s1-i0", reward={"dense": True})
    env.reset()
    agent = netpress.agents.baseline("k8s")
    total, done, obs = 0.0, False, None
    while not done:
        _, reward, done, obs = env.step(agent(env.messages()))
        total += reward
    start = netpress.make("k8s-v1-L3-s1-i0").reset()[1]
    assert start["finish"] is None
    # Potential-based shaping telescopes: the sum is the progress gained plus the final reward.
    final = float(obs["score"]["correct"])
    assert 0.0 < total - final <= 1.0 + 1e-9


def test_step_many_steps_every_env():
    envs = [netpress.make(f"k8s-v1-L1-s{s}-i0") for s in range(4)]
    for e in envs:
        e.reset()
    results = netpress.step_many(envs, ["kubectl get pods -A"] * 4)
    assert [r[3]["turn"] for r in results] == [1, 1, 1, 1]
    assert [e.state()["step_count"] for e in envs] == [1, 1, 1, 1]
    with pytest.raises(netpress.EnvError):
        netpress.step_many(envs, ["x" * (256 * 1024 + 1)] * 4)


def test_task_streams_are_deterministic():
    a = netpress.TaskStream("k8s", levels=[1, 2])
    b = netpress.TaskStream("k8s", levels=[1, 2])
    first = [next(a) for _ in range(5)]
    assert first == [next(b) for _ in range(5)]
    assert [(t["level"], t["seed"]) for t in first] == [(1, 0), (2, 0), (1, 1), (2, 1), (1, 2)]
    env = netpress.make(stream=netpress.TaskStream("route", levels=[3]), reward="leaderboard")
    assert env.reset()[1]["task_id"] == "route-v1-L3-s0-i0"
    assert env.reset()[1]["task_id"] == "route-v1-L3-s1-i0"


def test_info_lists_the_applications():
    info = netpress.info()
    assert info["protocol"] == netpress.PROTOCOL == "netpress.env.v1"
    assert {"route", "k8s", "malt"} <= {a["name"] for a in info["apps"]}
