"""Issue 14, files ctxkeep writes: appends start on a fresh line, a corrupted run line is
not trusted, a corrupt statistics database is a clear error."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

import ctxkeep
from ctxkeep.compactor import compact, read_receipts
from ctxkeep.log.model import EventKind
from ctxkeep.verify import EventLog, RoundGroupTruncation, guard
from tests.conftest import run_cli
from tests.verify.sessions import incident_session


def test_the_guard_log_after_a_torn_line_loses_nothing(tmp_path: Path) -> None:
    # after a torn last line, the next append was glued onto it and lost
    log = tmp_path / "guard.jsonl"
    guarded = guard(RoundGroupTruncation(), fallbacks=(), event_log=EventLog(log))
    guarded(incident_session())
    whole = log.read_bytes()
    log.write_bytes(whole[:-40])  # a writer killed mid-line
    guard(RoundGroupTruncation(), fallbacks=(), event_log=EventLog(log))(incident_session())
    session = ctxkeep.read_session(log)
    assert [p.reason for p in session.problems] == ["invalid JSON (Input data was truncated)"]
    starts = [e for e in session.events if e.kind is EventKind.COMPACTION_START]
    assert len(starts) == 2  # the second call's compaction is read whole


def test_append_lines_starts_a_fresh_line_and_refuses_a_fifo(tmp_path: Path) -> None:
    from ctxkeep.base.paths import append_lines

    path = tmp_path / "x.jsonl"
    path.write_bytes(b'{"a": 1}\n{"torn": ')
    append_lines(path, b'{"b": 2}\n')
    assert path.read_bytes().splitlines()[-1] == b'{"b": 2}'
    private = tmp_path / "private.jsonl"
    append_lines(private, b"{}\n", mode=0o600, lock=True)
    append_lines(private, b"{}\n", mode=0o600, lock=True)
    assert private.read_bytes() == b"{}\n{}\n"
    assert private.stat().st_mode & 0o777 == 0o600
    fifo = tmp_path / "f"
    os.mkfifo(fifo)
    with pytest.raises(OSError, match="not a regular file"):
        append_lines(fifo, b"{}\n")


def test_a_line_torn_right_before_its_newline_is_never_read_as_a_record(tmp_path: Path) -> None:
    # a writer that died after the object but before its newline left valid JSON: closing
    # the line with a bare newline made that unfinished record readable (the hooks' ledger)
    from ctxkeep.base.paths import append_lines

    path = tmp_path / "x.jsonl"
    path.write_bytes(b'{"a": 1}\n{"torn": true}')
    append_lines(path, b'{"b": 2}\n')
    session = ctxkeep.read_session(path, format="ctxkeep")
    assert [p.line for p in session.problems] == [2]
    assert path.read_bytes().splitlines()[-1] == b'{"b": 2}'


def _receipt(tmp_path: Path) -> Path:
    messages = [{"role": "user", "content": f"message {i} " + "x" * 200} for i in range(12)]
    path = tmp_path / "r.jsonl"
    result = compact(messages, "task", target_bytes=800, receipt_path=path)
    assert result.receipt_path == str(path)
    return path


def test_a_corrupted_run_line_is_not_trusted(tmp_path: Path) -> None:
    # the digest covered only the message lines: a corrupted run line was still trusted
    path = _receipt(tmp_path)
    assert len(read_receipts(path).runs) == 1
    lines = path.read_text().splitlines()
    run = json.loads(lines[-1])
    run["settings"]["keep_recent"] = 99
    path.write_text("\n".join([*lines[:-1], json.dumps(run, sort_keys=True)]) + "\n")
    receipts = read_receipts(path)
    assert receipts.runs == ()
    assert "do not match the run's digest" in receipts.problems[0][1]


def test_a_version_1_receipt_says_why_it_is_not_trusted(tmp_path: Path) -> None:
    path = tmp_path / "old.jsonl"
    path.write_text(
        '{"v":1,"kind":"message","run":"r"}\n{"v":1,"kind":"run","run":"r","messages":1}\n'
    )
    receipts = read_receipts(path)
    assert receipts.runs == ()
    assert "version 1 receipt" in receipts.problems[0][1]


def test_guard_stats_on_a_corrupt_database_is_a_clear_error(tmp_path: Path) -> None:
    # guard-stats printed a sqlite3.DatabaseError traceback
    home = tmp_path / "home"
    home.mkdir()
    (home / "stats.sqlite3").write_bytes(b"this is not a database" * 100)
    done = run_cli("guard-stats", env={"CTXKEEP_HOME": str(home)})
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert "not a readable statistics database" in done.stderr
