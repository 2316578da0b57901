"""The Gymnasium environment: the checker, the registered ids, terminated and truncated."""

from __future__ import annotations

import warnings

import gymnasium
import pytest
from gymnasium.utils.env_checker import check_env

import netpress
import netpress.gym
from netpress.gym import IDS, NetPressEnv, Utf8


@pytest.mark.parametrize("env_id", ["NetPress/Route-v1", "NetPress/K8s-v1"])
def test_the_checker_passes_without_warnings(env_id):
    env = gymnasium.make(env_id, render_mode="ansi")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_env(env.unwrapped)


def test_ids_are_registered_per_application():
    for env_id, app in IDS.items():
        assert gymnasium.spec(env_id).kwargs == {"app": app}


def test_every_registered_application_has_an_id_and_the_first_three_keep_theirs():
    apps = [a["name"] for a in netpress.info()["apps"]]
    assert sorted(IDS.values()) == sorted(apps)
    first = {"NetPress/Route-v1": "route", "NetPress/K8s-v1": "k8s", "NetPress/MALT-v1": "malt"}
    assert first.items() <= IDS.items()
    assert {"NetPress/BGP-v1", "NetPress/Traffic-v1", "NetPress/Microseg-v1"} <= IDS.keys()


def test_a_new_application_resets_and_steps():
    env = gymnasium.make("NetPress/BGP-v1")
    obs, info = env.reset(seed=4)
    assert info["task_id"].startswith("bgp-v") and "-L1-s4-i0" in info["task_id"] and obs
    obs, reward, terminated, truncated, info = env.step("nonsense")
    assert obs and info["turn"] == 1 and not terminated


def test_the_seed_is_the_task_seed_and_options_are_reset_parameters():
    env = gymnasium.make("NetPress/K8s-v1", level=2)
    obs, info = env.reset(seed=7)
    assert info["task_id"] == "k8s-v1-L2-s7-i0" and obs.startswith("You are")
    assert env.reset()[1]["task_id"] == "k8s-v1-L2-s8-i0"
    _, info = env.reset(options={"task_id": "route-v1-L1-s3-i0", "max_turns": 2})
    assert (info["task_id"], info["max_turns"]) == ("route-v1-L1-s3-i0", 2)


def test_solved_terminates_and_the_turn_limit_truncates():
    env = NetPressEnv(app="route")
    env.reset(options={"task_id": "route-v1-L2-s42-i7"})
    agent = netpress.agents.baseline("route")
    terminated = truncated = False
    while not (terminated or truncated):
        _, reward, terminated, truncated, info = env.step(agent(env.env.messages()))
    assert (terminated, truncated, reward, info["finish"]) == (True, False, 1.0, "solved")
    env.reset(options={"task_id": "route-v1-L2-s42-i7", "max_turns": 1})
    _, reward, terminated, truncated, info = env.step("ip route")
    assert (terminated, truncated, reward, info["finish"]) == (False, True, 0.0, "turn_limit")


def test_utf8_holds_any_text_up_to_its_length():
    space = Utf8(8)
    assert space.contains("é∀ ✓\n{}") and space.contains("")
    assert not space.contains("x" * 9) and not space.contains(b"bytes")
    assert space.contains(space.sample())


def test_render_shows_the_task_and_turn():
    env = NetPressEnv(app="k8s", render_mode="ansi")
    env.reset(seed=0)
    assert env.render().startswith("k8s-v1-L1-s0-i0  turn 0/")
