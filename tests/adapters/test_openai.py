"""The ``openai`` adapter: chat arrays, summaries by opening line, and the shadowed rule."""

from __future__ import annotations

import json
from pathlib import Path

from ctxkeep import CompactionStatus, EventKind, ReadOptions, read_session
from ctxkeep.log.adapters._arrays import KNOWN_SUMMARY_OPENINGS, summary_opening_of
from tests.conftest import run_cli

PLAIN = Path(__file__).resolve().parent.parent / "fixtures" / "plain"


def _kinds(path: Path | str, **kw: object) -> list[tuple[str, str | None, str | None]]:
    s = read_session(path, **kw)  # type: ignore[arg-type]
    return [(e.kind.value, e.role, e.injected) for e in s.events]


def test_transcript_with_appended_summaries_shadows_what_came_before() -> None:
    s = read_session(PLAIN / "openai_transcript_with_summary.json")
    assert s.format == "openai"
    assert s.problems == ()
    assert [(e.kind, e.role, e.injected) for e in s.events[:5]] == [
        (EventKind.MESSAGE, "system", "system-prompt"),
        (EventKind.MESSAGE, "user", None),
        (EventKind.TOOL_CALL, "assistant", None),
        (EventKind.TOOL_RESULT, "tool", "tool-result"),
        (EventKind.MESSAGE, "assistant", None),
    ]
    call, result = s.events[2], s.events[3]
    assert (call.call_id, call.tool_name, json.loads(call.text)) == (
        "call_1",
        "read_file",
        {"path": "src/feeds/client.py"},
    )
    assert result.call_id == "call_1"
    assert "http.get" in result.text
    first, second = s.compactions
    assert first.status is CompactionStatus.SUMMARISED
    assert first.trigger is None
    # The system prompt stays in context: it is not among what the summary replaced.
    assert first.shadowed_seqs == (2, 3, 4, 5)
    assert first.summary is not None
    assert first.summary.startswith("This session is being continued")
    start, end = s.by_seq[first.start_seq], s.by_seq[first.end_seq or 0]
    assert (start.kind, end.kind) == (EventKind.COMPACTION_START, EventKind.COMPACTION_END)
    assert (end.role, end.injected, end.text) == ("user", "compact-summary", first.summary)
    # The second summary replaced only what came after the first, and inherits it.
    assert second.shadowed_seqs == ((first.end_seq or 0) + 1,)
    assert second.previous_summary == first.summary
    assert second.summary is not None
    assert second.summary.startswith("I spoke to you previously about")
    # Line numbers in a pretty-printed document: the line the message starts on.
    assert [e.line for e in s.events[:2]] == [2, 3]
    assert first.line == 9


def test_request_snapshot_has_no_history_before_its_summary() -> None:
    s = read_session(PLAIN / "openai_request_snapshot.json")
    assert s.format == "openai"
    (c,) = s.compactions
    assert c.shadowed_seqs == ()
    assert c.preserved_seqs == ()
    assert [e.line for e in s.events] == [1, 1, 1, 1]


def test_user_messages_kept_beside_a_codex_summary_are_preserved_not_shadowed() -> None:
    s = read_session(PLAIN / "codex_kept_user_messages.jsonl")
    assert s.format == "openai"
    assert _kinds(PLAIN / "codex_kept_user_messages.jsonl")[:3] == [
        ("message", "developer", "developer"),
        ("message", "user", "runtime-snapshot"),
        ("message", "user", None),
    ]
    (c,) = s.compactions
    assert c.shadowed_seqs == ()
    assert c.preserved_seqs == (2, 3)
    assert [e.line for e in s.events] == [1, 2, 3, 4, 4, 5]


def test_every_known_opening_is_recognised_and_ordinary_text_is_not() -> None:
    for known in KNOWN_SUMMARY_OPENINGS:
        assert summary_opening_of("\n  " + known.opening + " more") == known
    assert summary_opening_of("Please continue from a previous conversation.") is None


def test_summary_index_marks_a_summary_and_an_index_past_the_end_is_reported(
    tmp_path: Path,
) -> None:
    log = tmp_path / "chat.jsonl"
    log.write_text(
        "\n".join(
            json.dumps(m)
            for m in [
                {"role": "user", "content": "Use Postgres 16 only."},
                {"role": "assistant", "content": "Noted."},
                {"role": "user", "content": "Recap: we use Postgres."},
                {"role": "assistant", "content": "Yes."},
            ]
        )
        + "\n",
        encoding="utf-8",
    )
    s = read_session(log, options=ReadOptions(summary_index=2))
    (c,) = s.compactions
    assert c.summary == "Recap: we use Postgres."
    assert c.shadowed_seqs == (1, 2)
    assert c.id == "message-2"
    assert read_session(log).compactions == ()
    late = read_session(log, options=ReadOptions(summary_index=9))
    assert late.compactions == ()
    assert "past the last message" in late.problems[0].reason


def test_wrong_field_types_are_reported_with_line_and_index_and_the_rest_is_read(
    tmp_path: Path,
) -> None:
    log = tmp_path / "chat.jsonl"
    lines = [
        {"role": "user", "content": "first"},
        {"role": "user", "content": 42},
        {"role": "assistant", "content": "x", "tool_calls": "ls"},
        {"content": "no role"},
        {"role": "wizard", "content": "unknown role"},
        ["not", "a", "message"],
        {"role": "assistant", "tool_calls": [{"id": 7, "function": {"name": "ls"}}]},
        {"role": "tool", "content": "orphan result without id"},
        {"role": "user", "content": "last"},
    ]
    # Line 6 holds a JSON list: a one-line array of three items, each reported.
    log.write_text("\n".join(json.dumps(m) for m in lines) + "\n", encoding="utf-8")
    s = read_session(log, format="openai")
    reasons = {(p.line, p.reason) for p in s.problems}
    assert (2, "message 1: 'content' is a number, expected text or a list of parts") in reasons
    assert (3, "message 2: 'tool_calls' is a string, expected a list") in reasons
    assert (4, "message 3: has no 'role'; skipped") in reasons
    assert (5, "message 4: unknown role 'wizard'; skipped") in reasons
    assert (6, "message 5: is a string, not a message object; skipped") in reasons
    assert (7, "message 8: a tool call without a string id") in reasons
    assert (8, "message 9: a tool result without a string call id") in reasons
    texts = [e.text for e in s.events if e.kind is EventKind.MESSAGE]
    assert texts[0] == "first"
    assert texts[-1] == "last"


def test_a_broken_document_still_yields_its_whole_messages(tmp_path: Path) -> None:
    good = [{"role": "user", "content": f"message {i}"} for i in range(3)]
    body = ",\n".join(json.dumps(m) for m in good)
    # Invalid UTF-8 inside one message, deep nesting in another, and a cut-off end.
    broken = (
        ("[\n" + body + ',\n{"role": "user", "content": "\xff"},\n')
        .encode("utf-8")
        .replace(b"\xc3\xbf", b"\xff")
    )
    deep = b'{"role": "user", "content": ' + b"[" * 5000 + b"]" * 5000 + b"},\n"
    tail = b'{"role": "assistant", "content": "after"},\n{"role": "user", "cont'
    log = tmp_path / "cut.json"
    log.write_bytes(broken + deep + tail)
    s = read_session(log)
    assert s.format == "openai"
    assert [e.text for e in s.events] == ["message 0", "message 1", "message 2", "after"]
    by_line = {p.line: p.reason for p in s.problems}
    assert by_line[5] == "message 3: invalid UTF-8 (Invalid UTF-8 encoded string)"
    assert by_line[6] == "message 4: JSON nested too deeply to read"
    assert by_line[8] == "message 6: truncated: the document ends inside it"
    assert any("not whole JSON" in r for r in by_line.values())


def test_show_lists_the_summaries_of_a_chat_array() -> None:
    path = PLAIN / "openai_transcript_with_summary.json"
    before = path.read_bytes()
    proc = run_cli("show", "--format", "json", str(path))
    assert proc.returncode == 0, proc.stderr
    (data,) = json.loads(proc.stdout)
    assert data["format"] == "openai"
    assert [
        (c["index"], c["status"], c["trigger"], c["shadowed"]) for c in data["compactions"]
    ] == [
        (1, "summarised", None, 4),
        (2, "summarised", None, 1),
    ]
    assert path.read_bytes() == before


def test_the_bundled_example_shows_constraints_the_summary_replaced() -> None:
    path = PLAIN.parent.parent.parent / "examples" / "openai" / "ledgerlite-csv-export.json"
    assert path.stat().st_size < 100_000
    s = read_session(path)
    assert (s.format, s.problems) == ("openai", ())
    (c,) = s.compactions
    assert c.summary is not None
    assert c.summary.startswith("Another language model started to solve this problem")
    replaced = "\n".join(e.text for e in s.events_at(c.shadowed_seqs))
    assert "Do not change the public API of ledgerlite.core" in replaced
    assert "We still support Python 3.9" in replaced
    # The summary keeps some of the user's rules and drops others.
    assert "no pandas" in c.summary
    assert "3.9" not in c.summary
    assert "public API" not in c.summary


def test_objects_without_a_message_list_are_reported(tmp_path: Path) -> None:
    pretty = tmp_path / "pretty.json"
    pretty.write_text('{\n  "model": "gpt-4.1",\n  "messages": "hello"\n}\n', encoding="utf-8")
    s = read_session(pretty, format="openai")
    assert s.events == ()
    assert [(p.line, p.reason) for p in s.problems] == [
        (3, "'messages' is a string, expected a list of messages")
    ]
    missing = tmp_path / "missing.json"
    missing.write_text('{\n  "model": "gpt-4.1"\n}\n', encoding="utf-8")
    (problem,) = read_session(missing, format="openai").problems
    assert problem.reason == "a JSON object with no 'messages' list: not a message array"
    one_line = tmp_path / "one.jsonl"
    one_line.write_text('{"messages": 7}\n{"role": "user", "content": "hi"}\n', encoding="utf-8")
    s = read_session(one_line, format="openai")
    assert [(p.line, p.reason) for p in s.problems] == [
        (1, "'messages' is a number, expected a list of messages")
    ]
    assert [e.text for e in s.events] == ["hi"]
