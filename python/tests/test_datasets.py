"""Task datasets (docs/env.md, "Datasets"): rows regenerate their tasks, splits are disjoint,
equal arguments write byte-identical Parquet files in the Hub's layout, which Hugging Face
`datasets` loads with its splits; the trainer formats add their columns."""

from __future__ import annotations

import json

import pytest

pa = pytest.importorskip("pyarrow")
import pyarrow.parquet as pq  # noqa: E402

import netpress  # noqa: E402
import netpress.datasets as nd  # noqa: E402

SMALL = {"test": (0, 4), "validation": (1000, 3), "train": (2_000_000_000, 5)}


def test_rows_regenerate_their_tasks():
    by_split = nd.rows("route", levels=[1, 2], splits=SMALL, per_seed=2, knobs={"subnets": 6})
    assert {k: len(v) for k, v in by_split.items()} == {"test": 16, "validation": 12, "train": 20}
    row = by_split["train"][3]
    assert list(row) == list(nd.COLUMNS)
    assert row["seed"] >= 2_000_000_000 and row["split"] == "train"
    assert json.loads(row["knobs"]) == {"subnets": "6"} and row["task_id"].endswith("-n6")
    prompt, obs = netpress.make(row["task_id"]).reset()
    assert row["prompt"] == [{"role": "user", "content": prompt}] and row["prompt_text"] == prompt
    assert (row["content_hash"], row["label"], row["max_turns"]) == (obs["content_hash"], obs["label"], obs["max_turns"])
    seeds = {s: {r["seed"] for r in rs} for s, rs in by_split.items()}
    assert not (seeds["test"] & seeds["validation"]) and not (seeds["train"] & seeds["test"])


def test_overlapping_splits_and_bad_formats_are_refused():
    with pytest.raises(ValueError, match="share seeds"):
        nd.rows("k8s", splits={"a": (0, 10), "b": (5, 10)})
    with pytest.raises(ValueError, match="format"):
        nd.rows("k8s", splits=SMALL, format="csv")


def test_parquet_files_are_byte_identical_and_load_with_their_splits(tmp_path):
    a = nd.write_parquet(str(tmp_path / "a"), "k8s", [1, 3], splits=SMALL)
    b = nd.write_parquet(str(tmp_path / "b"), "k8s", [1, 3], splits=SMALL)
    assert [p.rsplit("/", 2)[-2:] for p in a][:3] == [["data", f"{s}-00000-of-00001.parquet"] for s in SMALL]
    for x, y in zip(a, b):
        assert open(x, "rb").read() == open(y, "rb").read(), x
    table = pq.read_table(a[2])
    assert table.num_rows == 10 and table.column("task_id")[0].as_py().startswith("k8s-v1-L1-s2000000000")
    datasets = pytest.importorskip("datasets")
    loaded = datasets.load_dataset(str(tmp_path / "a"), cache_dir=str(tmp_path / "cache"))
    assert sorted(loaded) == sorted(SMALL)
    assert loaded["validation"][0]["task_id"] == "k8s-v1-L1-s1000-i0"
    built = nd.build("k8s", [1, 3], splits=SMALL)
    assert built["test"]["task_id"] == loaded["test"]["task_id"]


@pytest.mark.parametrize("fmt", ["trl", "skyrl", "verl"])
def test_trainer_formats_add_their_columns(fmt):
    row = nd.rows("k8s", [2], splits={"train": (2_000_000_000, 1)}, format=fmt)["train"][0]
    added = {k: v for k, v in row.items() if k not in nd.COLUMNS}
    tid = row["task_id"]
    assert added == {
        "trl": {},
        "skyrl": {"env_class": "netpress", "reward_spec": {"method": "env"}, "extra_info": {"task_id": tid}},
        "verl": {
            "data_source": "netpress/k8s",
            "ability": "network-ops",
            "reward_model": {"style": "rule", "ground_truth": tid},
            "extra_info": {
                "index": 0,
                "tools_kwargs": {"run": {"create_kwargs": {"task_id": tid}}},
                "interaction_kwargs": {"name": "netpress", "task_id": tid},
            },
        },
    }[fmt]


def test_a_mixture_gives_a_train_split(mixture, tmp_path):
    path, want = mixture
    by_split = nd.from_mixture(str(path), 24)
    assert [r["task_id"] for r in by_split["train"]] == want
    files = nd.write_parquet(str(tmp_path), rows_by_split=by_split)
    assert pq.read_table(files[0]).column("task_id").to_pylist() == want
