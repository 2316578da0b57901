"""Shared fixtures: the native `netpress` binary the parity tests compare against."""

from __future__ import annotations

import json
import re
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


@pytest.fixture(scope="session")
def mixture(netpress_bin, tmp_path_factory) -> tuple[Path, list[str]]:
    """A mixture file written by a small `netpress adapt` search, and the first 24 ids of its
    curriculum as `netpress adapt export --format ids` lists them."""
    tmp = tmp_path_factory.mktemp("adapt")
    state, mixture = tmp / "state.json", tmp / "mixture.json"
    adapt = [str(netpress_bin), "adapt", "--app", "route", "--agent", "fake:subnets>=6", "--levels", "1,2"]
    adapt += ["--turns", "10", "--rounds", "2", "--budget", "10", "--k", "3", "--confirm", "10"]
    adapt += ["--state", str(state), "-o", str(tmp / "search.jsonl")]
    subprocess.run(adapt, check=True, capture_output=True)
    export = [str(netpress_bin), "adapt", "export", str(state)]
    subprocess.run([*export, "--format", "mixture", "-o", str(mixture)], check=True, capture_output=True)
    ids = subprocess.run([*export, "--count", "24", "--format", "ids"], check=True, capture_output=True, text=True)
    return mixture, ids.stdout.split()


ROLES = {"Task": "user", "Observation": "user", "Your reply": "assistant", "System": "system"}


def messages_of(transcript: str) -> list[dict]:
    """The chat messages an A2A turn's transcript (`=== Task ===`, `=== Your reply ===`, …) was
    made from: what a participant built on a chat model would send on (test_a2a, test_a2a_sdk)."""
    parts = re.split(r"(?:^|\n\n)=== (Task|Observation|Your reply|System) ===\n", transcript)
    return [{"role": ROLES[who], "content": text} for who, text in zip(parts[1::2], parts[2::2])]
