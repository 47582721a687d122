"""The README's Guard example runs as written and does what the text says."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import ctxkeep

README = Path(__file__).resolve().parents[2] / "README.md"


def guard_example() -> str:
    section = README.read_text(encoding="utf-8").split("\n## Guard\n", 1)[1]
    return section.split("```python\n", 1)[1].split("```", 1)[0]


def test_the_worked_example_runs_and_the_guard_catches_the_unsafe_cut(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("CTXKEEP_HOME", str(tmp_path / "home"))
    namespace: dict[str, Any] = {}
    exec(compile(guard_example(), str(README), "exec"), namespace)
    result = namespace["result"]
    assert result.attempts[0].outcome == "invalid"
    assert {p.code for p in result.attempts[0].problems} >= {"orphan-result"}
    assert result.success
    assert namespace["messages"] is result.messages
    out = capsys.readouterr().out
    assert out.startswith(f"True {result.strategy}")
    assert "Compacted the conversation" in out
    session = ctxkeep.read_session(tmp_path / "compactions.jsonl")
    assert [c.status.value for c in session.compactions][-1] == "summarised"
    (stored,) = ctxkeep.StatsStore().records()
    assert stored.record.success
    assert stored.provenance == "test"
