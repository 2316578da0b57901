"""The README's Python examples run as written."""

from __future__ import annotations

import re

from conftest import ROOT


def examples() -> list[str]:
    text = (ROOT / "README.md").read_text()
    section = text.split("\n## Python package\n", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```python\n(.*?)```", section, re.S)


def test_every_example_runs(capsys, tmp_path, monkeypatch):
    blocks = examples()
    assert len(blocks) == 3
    monkeypatch.chdir(tmp_path)  # the Ray example writes ray.jsonl
    for block in blocks:
        exec(compile(block, "README.md", "exec"), {})
    out = capsys.readouterr().out.splitlines()
    assert out == ["solved 1.0 True", "k8s-v1-L2-s7-i0 1 False False", "40 40"]
    assert len((tmp_path / "ray.jsonl").read_text().splitlines()) == 40
