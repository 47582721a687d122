"""Issue 14, the library as a new user calls it."""

from __future__ import annotations

from pathlib import Path

import pytest

import ctxkeep
from ctxkeep.base.findings import Severity
from tests.conftest import EXAMPLES, run_cli

LOG = EXAMPLES / "claude-code" / "tinyparse-three-compactions.jsonl"


def test_ignore_takes_one_string() -> None:
    # ctxkeep.audit(p, ignore="CK003") read the string letter by letter
    everything = ctxkeep.audit(LOG)
    assert any(f.rule_id == "CK003" for f in everything.findings)
    result = ctxkeep.audit(LOG, ignore="CK003")
    assert not any(f.rule_id == "CK003" for f in result.findings)
    assert {r.id for r in result.rules} == {r.id for r in everything.rules} - {"CK003"}
    only = ctxkeep.audit(LOG, select="CK003,CK004")
    assert {r.id for r in only.rules} == {"CK003", "CK004"}
    with pytest.raises(TypeError, match="rule ids or names"):
        ctxkeep.audit(LOG, ignore=[3])  # type: ignore[list-item]


def test_at_or_above_takes_a_level_name() -> None:
    # at_or_above("warn") raised AttributeError
    result = ctxkeep.audit(LOG)
    assert result.at_or_above("warn") == result.at_or_above(Severity.WARN) > 0
    assert result.at_or_above("ERROR") == result.at_or_above(Severity.ERROR)
    with pytest.raises(ValueError, match="unknown level 'loud'"):
        result.at_or_above("loud")
    with pytest.raises(TypeError, match="must be a Severity"):
        result.at_or_above(2)  # type: ignore[arg-type]


def test_read_session_of_a_folder_with_one_log_reads_it() -> None:
    # read_session("examples/codex") said the folder has no log
    session = ctxkeep.read_session(EXAMPLES / "codex")
    assert session.format == "codex"
    assert session.events
    assert session.path.endswith(".jsonl")


def test_read_session_of_a_folder_with_several_logs_names_them() -> None:
    session = ctxkeep.read_session(EXAMPLES / "claude-code")
    assert not session.readable
    assert "holding 2 session logs" in session.problems[0].reason


def test_diff_of_a_missing_file_says_it_is_missing(tmp_path: Path) -> None:
    # diff on a missing file said "no compaction 1; the log has 0"
    missing = tmp_path / "nope.jsonl"
    done = run_cli("diff", str(missing), "-c", "1")
    assert done.returncode == 2
    assert done.stderr.strip() == f"ctxkeep: error: {missing}: no such file"
