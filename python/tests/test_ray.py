"""Ray scale-out on a local cluster (docs/env.md, "Scale-out on Ray"): the records of
`netpress.ray.evaluate` equal `netpress.evaluate`'s and `netpress run`'s, an actor that dies
mid-chunk is restarted and its chunk re-run to the same records, and a mixture file feeds it.

CI-sized: Ray's start costs seconds, so one cluster serves the module and the samples are small
(`python/bench/ray_scaling.py` measures the scaling)."""

from __future__ import annotations

import os

import pytest

ray = pytest.importorskip("ray")

import netpress  # noqa: E402
import netpress.ray  # noqa: E402

from conftest import run_records, without_latency  # noqa: E402

SEEDS = 20  # per level: 60 route and 80 k8s ids


@pytest.fixture(scope="module", autouse=True)
def cluster():
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


@pytest.mark.parametrize("app", ["route", "k8s"])
def test_ray_records_equal_the_cli_and_in_process_records(app, netpress_bin, tmp_path):
    native = run_records(netpress_bin, tmp_path, "--app", app, "--seeds", f"0..{SEEDS - 1}")
    ids = [r["id"] for r in native]
    out = tmp_path / "ray.jsonl"
    got = netpress.ray.evaluate(ids, "baseline", num_actors=2, chunk=8, output=str(out))
    assert [without_latency(r) for r in got] == [without_latency(r) for r in native]
    assert [without_latency(r) for r in got] == [without_latency(r) for r in netpress.evaluate(ids)]
    assert len(out.read_text().splitlines()) == len(ids)


class DiesOnce:
    """The route baseline, except that the first call in any process after `marker` is made
    ends that process (an actor crash mid-chunk)."""

    def __init__(self, marker: str):
        self.marker = marker

    def __call__(self, messages: list[dict]) -> str:
        if not os.path.exists(self.marker):
            open(self.marker, "w").close()
            os._exit(1)
        return netpress.agents.baseline("route")(messages)


def test_a_crashed_actor_is_restarted_and_its_chunk_rerun(tmp_path):
    ids = [f"route-v1-L{lv}-s{s}-i0" for s in range(6) for lv in (1, 2)]
    got = netpress.ray.evaluate(ids, DiesOnce(str(tmp_path / "died")), num_actors=2, chunk=3)
    assert (tmp_path / "died").exists()
    want = netpress.evaluate(ids, netpress.agents.baseline("route"))
    assert [without_latency(r) for r in got] == [without_latency(r) for r in want]


def test_a_mixture_file_feeds_ray(mixture):
    path, want = mixture
    assert netpress.mixture_ids(str(path), 24) == want
    got = netpress.ray.evaluate(mixture=str(path), count=24, num_actors=2, chunk=6)
    assert [r["id"] for r in got] == want
    env = netpress.make(mixture=str(path))
    assert [env.reset()[1]["task_id"] for _ in range(3)] == want[:3]


def test_bad_arguments_are_refused():
    with pytest.raises(ValueError, match="exactly one"):
        netpress.ray.evaluate()
    with pytest.raises(ValueError, match="count"):
        netpress.ray.evaluate(mixture="m.json")
    with pytest.raises(ValueError, match="callable"):
        netpress.ray.evaluate(["route-v1-L1-s0-i0"], agent="gpt")
