from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

import ctxkeep
from ctxkeep.log.model import CompactionStatus, EventKind
from ctxkeep.verify import TRUNCATION_NOTICE, EventLog, RoundGroupTruncation, guard, message_events
from tests.conftest import run_cli
from tests.verify.sessions import TASK, incident_session, openai_session
from tests.verify.test_guard import naive_compactor


def fixed_clock() -> datetime:
    return datetime(2026, 11, 29, 12, 0, tzinfo=UTC)


def lines_of(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_each_attempt_is_a_compaction_the_native_adapter_reads(tmp_path: Path) -> None:
    log = tmp_path / "guard.jsonl"
    session = incident_session()
    result = guard(
        naive_compactor,
        fallbacks=(RoundGroupTruncation(),),
        event_log=EventLog(log, clock=fixed_clock),
    )(session)

    read = ctxkeep.read_session(log)
    assert read.format == "ctxkeep"
    assert read.problems == ()
    noop, summarised = read.compactions
    assert noop.status is CompactionStatus.NOOP
    assert noop.tokens_before == noop.tokens_after == result.before.tokens
    assert summarised.status is CompactionStatus.SUMMARISED
    assert summarised.summary == TRUNCATION_NOTICE
    assert summarised.tokens_before == result.before.tokens
    assert summarised.tokens_after == result.after.tokens
    shadowed = read.events_at(summarised.shadowed_seqs)
    # what was dropped: the task and the first round groups, calls and results together
    assert shadowed[0].text == TASK
    dropped = len(session) - (len(result.messages) - 1)
    assert sum(1 for e in shadowed if e.kind is EventKind.TOOL_RESULT) == (dropped - 1) // 2
    assert {e.call_id for e in shadowed if e.kind is EventKind.TOOL_CALL} == {
        e.call_id for e in shadowed if e.kind is EventKind.TOOL_RESULT
    }
    assert all(
        line.get("ts", "2026-11-29T12:00:00Z") == "2026-11-29T12:00:00Z" for line in lines_of(log)
    )


def test_the_log_is_only_appended_to_and_kept_messages_are_written_once(tmp_path: Path) -> None:
    log = tmp_path / "guard.jsonl"
    guarded = guard(RoundGroupTruncation(), fallbacks=(), event_log=log)
    first = guarded(openai_session(rounds=12))
    written = log.read_bytes()
    second = guarded([*first.messages, {"role": "user", "content": "And the tests?"}])
    assert second.success
    assert log.read_bytes().startswith(written)

    records = lines_of(log)
    assert records[0]["type"] == "session"
    seqs = [r["seq"] for r in records[1:]]
    assert seqs == list(range(1, len(seqs) + 1))
    texts = [r.get("text") for r in records if r["type"] == "message"]
    assert texts.count(TASK) == 1
    assert texts.count("And the tests?") == 1
    assert TRUNCATION_NOTICE not in texts  # the notice is the summary, not a message
    assert [r["status"] for r in records if r["type"] == "compaction/end"] == [
        "summarised",
        "summarised",
    ]

    # A new EventLog on the same file continues the seqs.
    guard(RoundGroupTruncation(), fallbacks=(), event_log=log)(openai_session(rounds=12))
    again = [r["seq"] for r in lines_of(log)[1:]]
    assert again == list(range(1, len(again) + 1))
    assert lines_of(log)[len(records)]["type"] != "session"


def test_a_strategy_that_raises_is_logged_as_failed_with_its_error(tmp_path: Path) -> None:
    def broken(messages: list[Any]) -> list[Any]:
        raise TimeoutError("summariser timed out")

    log = tmp_path / "guard.jsonl"
    guard(broken, fallbacks=(), event_log=log)(openai_session())
    (compaction,) = ctxkeep.read_session(log).compactions
    assert compaction.status is CompactionStatus.FAILED
    assert compaction.error == "broken raised TimeoutError: summariser timed out"


def test_message_events_cover_every_dialect() -> None:
    anthropic_result = {
        "role": "user",
        "content": [
            {"type": "tool_result", "tool_use_id": "t1", "content": "boom", "is_error": True},
            {"type": "text", "text": "and please hurry"},
        ],
    }
    assert message_events(anthropic_result) == [
        {"type": "tool/result", "text": "boom", "call_id": "t1", "is_error": True},
        {"type": "message", "role": "user", "text": "and please hurry"},
    ]
    openai_call = openai_session()[2]
    assert message_events(openai_call) == [
        {"type": "tool/call", "name": "read_file", "input": {"n": 0}, "call_id": "call_0"}
    ]
    assert message_events({"role": "developer", "content": "be terse"}) == [
        {"type": "message", "role": "system", "text": "be terse"}
    ]
    native = {"type": "tool/result", "seq": 9, "call_id": "k", "text": "ok", "ts": "x"}
    assert message_events(native) == [{"type": "tool/result", "call_id": "k", "text": "ok"}]
    assert message_events({"type": "usage", "seq": 3, "context_tokens": 5}) == []
    assert message_events("not a message") == []


def audit_findings(log: Path, cwd: Path) -> list[dict[str, Any]]:
    proc = run_cli("audit", str(log), "--format", "json", cwd=cwd)
    assert proc.returncode in (0, 1), proc.stderr
    report = json.loads(proc.stdout)
    (session,) = report["sessions"]
    assert session["format"] == "ctxkeep"
    findings: list[dict[str, Any]] = session["findings"]
    return findings


def test_ctxkeep_audit_reads_the_guards_own_compactions(tmp_path: Path) -> None:
    good = tmp_path / "good.jsonl"
    guarded = guard(RoundGroupTruncation(), fallbacks=(), event_log=good)
    first = guarded(openai_session(rounds=12))
    assert guarded([*first.messages, {"role": "user", "content": "Next?"}]).success
    rule_ids = {f["rule_id"] for f in audit_findings(good, tmp_path)}
    assert "CK001" not in rule_ids
    assert "CK007" not in rule_ids

    forced = tmp_path / "noop.jsonl"
    assert not guard(lambda m: m, fallbacks=(), event_log=forced)(openai_session()).success
    findings = audit_findings(forced, tmp_path)
    assert [f["rule_id"] for f in findings if f["rule_id"] in ("CK001", "CK007")] == ["CK007"]


def test_a_file_that_is_not_a_ctxkeep_log_is_never_appended_to(tmp_path: Path) -> None:
    foreign = tmp_path / "claude.jsonl"
    foreign.write_text('{"type": "user", "uuid": "u1", "message": {"content": "hi"}}\n')
    before = foreign.read_bytes()
    with pytest.raises(ValueError, match="is not a ctxkeep event log"):
        guard(RoundGroupTruncation(), event_log=foreign)
    assert foreign.read_bytes() == before
    empty = tmp_path / "empty.jsonl"
    empty.touch()
    assert guard(RoundGroupTruncation(), fallbacks=(), event_log=empty)(
        openai_session(rounds=12)
    ).success
    assert lines_of(empty)[0]["type"] == "session"
