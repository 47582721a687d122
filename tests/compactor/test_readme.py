"""The README's Compact example runs as written and does what the text says."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

README = Path(__file__).resolve().parents[2] / "README.md"


def compact_example() -> str:
    section = README.read_text(encoding="utf-8").split("\n## Compact\n", 1)[1]
    return section.split("```python\n", 1)[1].split("```", 1)[0]


def test_the_example_runs_and_keeps_what_matters(capsys: pytest.CaptureFixture[str]) -> None:
    namespace: dict[str, Any] = {}
    exec(compile(compact_example(), str(README), "exec"), namespace)
    result = namespace["result"]
    assert result.stats.bytes_after <= 1500 < result.stats.bytes_before
    reasons = [d.reason for d in result.decisions[:4]]
    assert reasons[:3] == ["system", "pinned:constraint", "selected"]
    assert result.summary in namespace["messages"]
    out = capsys.readouterr().out.splitlines()
    assert out[0] == f"{result.stats.bytes_before} -> {result.stats.bytes_after} bytes"
    assert out[1] == "0 True system None"


def test_the_example_is_formatted_as_ruff_wants() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "ruff", "format", "--check", "-"],
        input=compact_example(),
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
