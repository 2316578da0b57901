"""Task datasets with splits, as Hugging Face ``datasets`` and as Parquet files (docs/env.md,
"Datasets").

A row is one task: its id and the parts a trainer filters or groups by, and its prompt. Only the
id matters to an episode (``reset(task_id=...)`` regenerates the rest), so a dataset is a list of
ids with their prompts rendered for reading. Splits are seed ranges that never meet: a model
trained on ``train`` never saw a ``test`` task, whatever the level.

``build`` needs ``datasets``; ``write_parquet`` needs only ``pyarrow`` (the package's ``hf`` extra
has both).
"""

from __future__ import annotations

import json
import os
from typing import Any, Iterable, Mapping

import netpress

from . import _tools

__all__ = ["SPLITS", "FORMATS", "rows", "build", "write_parquet", "from_mixture"]

# name -> (first seed, seeds): the benchmark's seeds, the next thousand, and the curriculum's range
# (adaptive mode streams draw seeds at 2e9 and above, so training tasks from there are never
# benchmark tasks).
SPLITS: dict[str, tuple[int, int]] = {
    "test": (0, 1000),
    "validation": (1000, 1000),
    "train": (2_000_000_000, 1000),
}
FORMATS = ("generic", "trl", "skyrl", "verl")
COLUMNS = ("task_id", "app", "version", "level", "label", "seed", "index", "knobs", "prompt",
           "prompt_text", "content_hash", "max_turns", "split")
ROWS_PER_GROUP = 1024  # fixed, so equal arguments give equal files


def _check_splits(splits: Mapping[str, tuple[int, int]]) -> None:
    spans = sorted((start, start + count, name) for name, (start, count) in splits.items())
    for (_, end, a), (start, _, b) in zip(spans, spans[1:]):
        if start < end:
            raise ValueError(f"splits {a!r} and {b!r} share seeds")


def _knobs(task_id: str, app: dict) -> dict:
    """The id's knobs by long name, e.g. ``{"subnets": "6"}`` for ``...-i0-n6``."""
    names = {k["key"]: k["name"] for k in app["knobs"]}
    parts = task_id.split("-")[5:]  # after app, version, level, seed, index
    return {names.get(p[0], p[0]): p[1:] for p in parts}


def _verl_tools(app: str, task_id: str) -> dict:
    tool = _tools.name(app)
    return {tool: {"create_kwargs": {"task_id": task_id}}} if tool else {}


def _added(fmt: str, app: str, task_id: str, n: int) -> dict:
    if fmt == "skyrl":
        return {"env_class": "netpress", "reward_spec": {"method": "env"}, "extra_info": {"task_id": task_id}}
    if fmt == "verl":
        return {
            "data_source": f"netpress/{app}",
            "ability": "network-ops",
            "reward_model": {"style": "rule", "ground_truth": task_id},
            "extra_info": {
                "index": n,
                # How verl's tool and interaction reach the row's task (netpress.verl).
                "tools_kwargs": _verl_tools(app, task_id),
                "interaction_kwargs": {"name": "netpress", "task_id": task_id},
            },
        }
    return {}


def _row(env: netpress.Env, params: dict, app: dict, split: str, fmt: str, n: int) -> dict:
    prompt, obs = env.reset(**params)
    task_id = obs["task_id"]
    parts = task_id.split("-")
    row = {
        "task_id": task_id,
        "app": obs["app"],
        "version": int(parts[1][1:]),
        "level": obs["level"],
        "label": obs["label"],
        "seed": int(parts[3][1:]),
        "index": int(parts[4][1:]),
        "knobs": json.dumps(_knobs(task_id, app), sort_keys=True),
        "prompt": [{"role": "user", "content": prompt}],
        "prompt_text": prompt,
        "content_hash": obs["content_hash"],
        "max_turns": obs["max_turns"],
        "split": split,
    }
    return {**row, **_added(fmt, obs["app"], task_id, n)}


def _app(name: str) -> dict:
    for a in netpress.info()["apps"]:
        if a["name"] == name:
            return a
    raise netpress.EnvError("VALIDATION_ERROR", "UNKNOWN_APP", f"unknown application {name!r}")


def rows(
    app: str,
    levels: Iterable[int] | None = None,
    splits: Mapping[str, tuple[int, int]] | None = None,
    per_seed: int = 1,
    knobs: Mapping[str, Any] | None = None,
    variant: str = "zeroshot_base",
    format: str = "generic",
) -> dict[str, list[dict]]:
    """The rows of every split: for each seed of the split's range, each level, each index below
    ``per_seed``, one task (``knobs`` by long name, as in reset parameters)."""
    if format not in FORMATS:
        raise ValueError(f"format must be one of {', '.join(FORMATS)}, not {format!r}")
    splits = dict(SPLITS if splits is None else splits)
    _check_splits(splits)
    info = _app(app)
    levels = list(levels) if levels else [lv["level"] for lv in info["levels"]]
    base = {"app": app, "variant": variant, **({"knobs": dict(knobs)} if knobs else {})}
    out: dict[str, list[dict]] = {}
    with netpress.make() as env:
        for name, (start, count) in splits.items():
            params = ({**base, "level": lv, "seed": s, "index": i}
                      for s in range(start, start + count) for lv in levels for i in range(per_seed))
            out[name] = [_row(env, p, info, name, format, n) for n, p in enumerate(params)]
    return out


def build(app: str, levels: Iterable[int] | None = None, **kw: Any):
    """A ``datasets.DatasetDict`` with one ``Dataset`` per split (arguments as ``rows``)."""
    import datasets

    return datasets.DatasetDict({name: datasets.Dataset.from_list(r) for name, r in rows(app, levels, **kw).items()})


def from_mixture(path: str, n: int, variant: str = "zeroshot_base", format: str = "generic") -> dict[str, list[dict]]:
    """A ``train`` split of the first ``n`` tasks of an adaptive mixture file's curriculum
    (``netpress.mixture_ids``), as ``rows`` returns them; pass it to ``write_parquet(rows_by_split=...)``."""
    ids = netpress.mixture_ids(path, n)
    out = []
    with netpress.make() as env:
        for k, task_id in enumerate(ids):
            app = _app(task_id.split("-")[0])
            out.append(_row(env, {"task_id": task_id, "variant": variant}, app, "train", format, k))
    return {"train": out}


def write_parquet(directory: str, app: str | None = None, levels: Iterable[int] | None = None, *,
                  rows_by_split: Mapping[str, list[dict]] | None = None, **kw: Any) -> list[str]:
    """Writes ``directory/data/{split}-00000-of-00001.parquet`` (the Hub's layout, which
    ``datasets.load_dataset(directory)`` reads with its splits) and ``directory/README.md``, a
    card saying how the files were made. Equal arguments give byte-identical files. Returns the
    paths written. Needs only ``pyarrow``."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    if rows_by_split is None:
        if app is None:
            raise ValueError("give app (with levels and rows' arguments) or rows_by_split")
        rows_by_split = rows(app, levels, **kw)
    os.makedirs(os.path.join(directory, "data"), exist_ok=True)
    written = []
    for split, rs in rows_by_split.items():
        path = os.path.join(directory, "data", f"{split}-00000-of-00001.parquet")
        table = pa.Table.from_pylist(rs) if rs else pa.table({c: [] for c in COLUMNS})
        pq.write_table(table, path, row_group_size=ROWS_PER_GROUP, compression="zstd")
        written.append(path)
    card = os.path.join(directory, "README.md")
    with open(card, "w", encoding="utf-8") as f:
        f.write(_card(rows_by_split, app, levels, kw))
    return written + [card]


def _card(rows_by_split: Mapping[str, list[dict]], app: str | None, levels, kw: Mapping[str, Any]) -> str:
    configs = "\n".join(f"  - split: {s}\n    path: data/{s}-00000-of-00001.parquet" for s in rows_by_split)
    made = json.dumps({"app": app, "levels": list(levels) if levels else None, **kw}, sort_keys=True, default=str)
    sizes = "\n".join(f"| {s} | {len(r)} |" for s, r in rows_by_split.items())
    gens = ", ".join(f"{a['name']} v{a['version']}" for a in netpress.info()["apps"])
    return (
        f"---\nconfigs:\n- config_name: default\n  data_files:\n{configs}\n---\n\n"
        f"# NetPress tasks\n\nMade by `netpress.datasets.write_parquet` with netpress {netpress.__version__} "
        f"(generators: {gens}) from `{made}`.\n\n| split | rows |\n|---|---:|\n{sizes}\n\n"
        "Each row is a task; `task_id` alone reproduces it: `netpress.make(row[\"task_id\"])`.\n"
    )
