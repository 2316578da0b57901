"""Shared fixtures: the native `netpress` binary the parity tests compare against."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def netpress_bin() -> Path:
    """`$NETPRESS_BIN`, else the crate's debug or release build (scripts/test.sh builds it)."""
    given = os.environ.get("NETPRESS_BIN")
    candidates = [Path(given)] if given else [ROOT / "target/debug/netpress", ROOT / "target/release/netpress"]
    for c in candidates:
        if c.is_file():
            return c
    pytest.fail(f"no netpress binary at {', '.join(map(str, candidates))}: run `cargo build` first")


def run_records(binary: Path, tmp: Path, *args: str) -> list[dict]:
    """The records `netpress run ARGS` writes, in order."""
    out = tmp / "run.jsonl"
    done = subprocess.run([str(binary), "run", *args, "-o", str(out)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in out.read_text().splitlines()]


def without_latency(value):
    """A record with every measured latency removed (the only field two runs may differ in)."""
    if isinstance(value, dict):
        return {k: without_latency(v) for k, v in value.items() if k != "latency_ms"}
    if isinstance(value, list):
        return [without_latency(v) for v in value]
    return value
