"""The same ids and replies give the same records and bytes from Python as from `netpress run`."""

from __future__ import annotations

import json

import pytest

import netpress

from conftest import run_records, without_latency

SEEDS = 100  # per level: every level of route and k8s (300 and 400 ids)


@pytest.fixture(scope="module", params=["route", "k8s"])
def native(request, netpress_bin, tmp_path_factory) -> tuple[str, list[dict]]:
    app = request.param
    records = run_records(netpress_bin, tmp_path_factory.mktemp(app), "--app", app, "--seeds", f"0..{SEEDS - 1}")
    levels = next(len(a["levels"]) for a in netpress.info()["apps"] if a["name"] == app)
    assert len(records) == levels * SEEDS
    return app, records


def test_baseline_records_equal_the_cli_records(native):
    app, records = native
    ids = [r["id"] for r in records]
    got = netpress.evaluate(ids, threads=2)
    assert [without_latency(r) for r in got] == [without_latency(r) for r in records]


def test_prompts_are_the_same_bytes(native):
    _, records = native
    env = netpress.make(records[0]["id"])
    for r in records:
        prompt, obs = env.reset(task_id=r["id"])
        assert prompt.encode() == r["prompt"].encode(), r["id"]
        assert obs["content_hash"] == r["content_hash"]


def test_stepping_the_env_gives_the_cli_record(native):
    """Replaying the CLI's replies through `Env.step` gives its record (the agent aside)."""
    _, records = native
    for want in records[::10]:
        env = netpress.make(want["id"], max_turns=want["max_turns"], record=True)
        env.reset()
        obs = None
        for turn in want["turns"]:
            _, _, _, obs = env.step(turn["reply"])
        got = obs["record"]
        assert got["agent"] == {"kind": "env", "name": netpress.PROTOCOL}
        got["agent"] = want["agent"]
        assert without_latency(got) == without_latency(want), want["id"]


def test_a_python_agent_gives_the_same_record_as_the_rust_one(native):
    app, records = native
    ids = [r["id"] for r in records[::10]]
    driven = netpress.evaluate(ids, agent=netpress.agents.baseline(app), threads=2)
    for got, want in zip(driven, records[::10]):
        got["agent"] = want["agent"]
        assert json.dumps(without_latency(got)) == json.dumps(without_latency(want))
