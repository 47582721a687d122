"""Golden reports: the text, JSON and SARIF output for tests/golden/session.jsonl,
compared byte for byte. Regenerate after an intended change with
``UPDATE_GOLDEN=1 .venv/bin/pytest tests/test_report_golden.py`` and review the diff."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.conftest import run_cli

GOLDEN = Path(__file__).parent / "golden"


@pytest.mark.parametrize(("fmt", "suffix"), [("text", "txt"), ("json", "json"), ("sarif", "sarif")])
def test_audit_report_matches_golden(fmt: str, suffix: str) -> None:
    proc = run_cli("audit", "--format", fmt, "session.jsonl", cwd=GOLDEN)
    assert proc.returncode == 1, proc.stderr
    expected = GOLDEN / f"audit.{suffix}"
    if os.environ.get("UPDATE_GOLDEN") == "1":
        expected.write_text(proc.stdout, encoding="utf-8")
    assert proc.stdout == expected.read_text(encoding="utf-8")


def test_diff_report_matches_golden() -> None:
    proc = run_cli("diff", "session.jsonl", "--compaction", "1", cwd=GOLDEN)
    assert proc.returncode == 0, proc.stderr
    expected = GOLDEN / "diff-1.txt"
    if os.environ.get("UPDATE_GOLDEN") == "1":
        expected.write_text(proc.stdout, encoding="utf-8")
    assert proc.stdout == expected.read_text(encoding="utf-8")
