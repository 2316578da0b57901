"""Sandboxed applications (MALT) in the package: each turn runs in a child process of this
interpreter (``python -m netpress._sandbox_worker``), and the records are the native binary's
for the same replies, the sandbox's memory limit included."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import netpress

from conftest import run_records, without_latency

MALT = "malt-v1-L1-s3-i0"
# 400 strings of 1 MiB, each allocation small: only the count of live bytes stops it at the
# sandbox's 256 MiB (a worker whose allocator did not count would return 400).
GROWS = "```python\ndef process_graph(G):\n    l = []\n    for i in range(400):\n        l.append('x' * (1024 * 1024) + str(i))\n    return len(l)\n```"


def stdio_record(binary: Path, task_id: str, replies: list[str]) -> dict:
    """The record `netpress env --stdio` gives for `replies` (its sandbox processes)."""
    lines = [{"type": "reset", "data": {"task_id": task_id, "max_turns": len(replies), "record": True}}]
    lines += [{"type": "step", "data": {"reply": r}} for r in replies]
    text = "".join(json.dumps(m) + "\n" for m in lines)
    done = subprocess.run([str(binary), "env", "--stdio", "--sandbox-jobs", "1"], input=text,
                          capture_output=True, text=True, check=True)
    return json.loads(done.stdout.splitlines()[-1])["data"]["observation"]["record"]


def sandbox_children() -> list[str]:
    """This process's children running the package's sandbox worker (Linux /proc)."""
    found = []
    for d in Path("/proc").iterdir():
        try:
            stat = (d / "stat").read_text()
            cmdline = (d / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        if ppid == os.getpid() and "netpress._sandbox_worker" in cmdline:
            found.append(d.name)
    return found


def test_a_two_turn_malt_episode_runs_in_a_child_and_equals_the_cli_record(netpress_bin):
    baseline = netpress.evaluate([MALT])[0]["turns"][0]["reply"]
    replies = ["no code", baseline]
    env = netpress.make(MALT, max_turns=2, record=True)
    prompt, _ = env.reset()
    text, reward, done, obs = env.step(replies[0])
    assert (reward, done, obs["turn"]) == (0.0, False, 1)
    assert env.messages()[1:] == [{"role": "assistant", "content": "no code"}, {"role": "user", "content": text}]
    _, reward, done, obs = env.step(replies[1])
    assert done and reward == 1.0, obs
    assert sandbox_children(), "the turns ran in no child process"
    want = stdio_record(netpress_bin, MALT, replies)
    assert without_latency(obs["record"]) == without_latency(want)


def test_the_memory_limit_holds_in_the_package_s_worker(netpress_bin):
    env = netpress.make(MALT, max_turns=1, record=True)
    env.reset()
    _, _, done, obs = env.step(GROWS)
    assert done and "MemoryError: memory limit exceeded" in obs["output"], obs["output"]
    assert without_latency(obs["record"]) == without_latency(stdio_record(netpress_bin, MALT, [GROWS]))


def test_baseline_records_equal_the_cli_records(netpress_bin, tmp_path):
    records = run_records(netpress_bin, tmp_path, "--app", "malt", "--levels", "1", "--seeds", "0..3")
    got = netpress.evaluate([r["id"] for r in records])
    assert [without_latency(r) for r in got] == [without_latency(r) for r in records]
