"""The ``anthropic`` adapter: ``{system, messages}``, content blocks, server-side compaction."""

from __future__ import annotations

import json
from pathlib import Path

from ctxkeep import EventKind, read_session
from tests.conftest import run_cli

PLAIN = Path(__file__).resolve().parent.parent / "fixtures" / "plain"


def test_server_side_compaction_block_replaces_the_conversation_before_it() -> None:
    s = read_session(PLAIN / "anthropic_server_compaction.json")
    assert s.format == "anthropic"
    assert s.problems == ()
    got = [(e.kind.value, e.role, e.injected, e.text[:24]) for e in s.events]
    assert got == [
        ("message", "system", "system-prompt", "You are a careful refact"),
        ("message", "user", None, "Rename Store to Reposito"),
        ("message", "assistant", None, "Find every use first."),
        ("tool_call", "assistant", None, '{"path":"src/","pattern"'),
        ("message", "user", None, "Also keep the old name a"),
        ("tool_result", "tool", "tool-result", "src/store.py:3: class St"),
        ("compaction_start", None, None, ""),
        ("compaction_end", "assistant", "compact-summary", "Renaming Store to Reposi"),
        ("message", "assistant", None, "Continuing the rename."),
        ("tool_result", "tool", "tool-result", "ok"),
    ]
    assert s.events[3].call_id == s.events[5].call_id == "toolu_01"
    assert s.events[3].tool_name == "grep"
    assert s.events[-1].is_error
    (c,) = s.compactions
    assert c.summary == "Renaming Store to Repository under src/; src/store.py defines it."
    assert c.shadowed_seqs == (2, 3, 4, 5, 6)
    assert (c.start_seq, c.end_seq) == (7, 8)
    assert c.line == s.events[6].line == s.events[7].line == 14
    assert s.events[0].line == 3  # the line where "system" stands


def test_jsonl_messages_with_a_gemini_snapshot() -> None:
    s = read_session(PLAIN / "anthropic_messages.jsonl")
    assert s.format == "anthropic"
    (c,) = s.compactions
    assert c.summary is not None
    assert c.summary.startswith("<state_snapshot>")
    assert c.shadowed_seqs == (1, 2, 3)
    assert [e.line for e in s.events] == [1, 2, 3, 4, 4, 5]


def test_a_bare_compaction_block_on_its_own_line_is_a_summary(tmp_path: Path) -> None:
    log = tmp_path / "blocks.jsonl"
    records = [
        {"role": "user", "content": "Keep Python 3.11 support."},
        {"role": "assistant", "content": [{"type": "text", "text": "Sure."}]},
        {"type": "compaction", "content": "User wants 3.11 support kept."},
        {"role": "user", "content": [{"type": "text", "text": "Next step?"}]},
    ]
    log.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    s = read_session(log, format="anthropic")
    (c,) = s.compactions
    assert c.summary == "User wants 3.11 support kept."
    assert c.shadowed_seqs == (1, 2)
    assert c.line == 3


def test_plain_string_chats_are_left_to_the_openai_adapter(tmp_path: Path) -> None:
    log = tmp_path / "chat.json"
    log.write_text(json.dumps({"messages": [{"role": "user", "content": "hi"}]}), encoding="utf-8")
    assert read_session(log).format == "openai"
    log.write_text(
        json.dumps({"system": "be brief", "messages": [{"role": "user", "content": "hi"}]}),
        encoding="utf-8",
    )
    s = read_session(log)
    assert s.format == "anthropic"
    assert [(e.role, e.text) for e in s.events] == [("system", "be brief"), ("user", "hi")]


def test_a_system_of_the_wrong_type_is_reported_and_the_messages_read(tmp_path: Path) -> None:
    log = tmp_path / "chat.json"
    log.write_text(
        '{\n"system": 12,\n"messages": [\n{"role": "user", "content": "hi"}\n]\n}\n',
        encoding="utf-8",
    )
    s = read_session(log, format="anthropic")
    assert [(p.line, p.reason) for p in s.problems] == [
        (2, "'system' is a number, expected text or text blocks")
    ]
    assert [e.text for e in s.events] == ["hi"]
    assert s.events[0].kind is EventKind.MESSAGE


def test_show_summary_index_from_the_command_line(tmp_path: Path) -> None:
    log = tmp_path / "chat.jsonl"
    records = [
        {"role": "user", "content": [{"type": "text", "text": "Never push to main."}]},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t", "name": "git"}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t"}]},
        {"role": "user", "content": "So far: branch feature/x is ready."},
    ]
    log.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    proc = run_cli("show", "--format", "json", "--summary-index", "3", str(log))
    assert proc.returncode == 0, proc.stderr
    (data,) = json.loads(proc.stdout)
    assert data["format"] == "anthropic"
    assert data["compactions"][0]["shadowed"] == 3
    assert data["compactions"][0]["summary_chars"] == len("So far: branch feature/x is ready.")


def test_the_bundled_example_has_a_claude_code_summary_then_a_compaction_block() -> None:
    path = PLAIN.parent.parent.parent / "examples" / "anthropic" / "tilecache-race-fix.json"
    assert path.stat().st_size < 100_000
    s = read_session(path)
    assert (s.format, s.problems) == ("anthropic", ())
    first, second = s.compactions
    assert first.summary is not None
    assert first.summary.startswith("This session is being continued from a previous")
    replaced = "\n".join(e.text for e in s.events_at(first.shadowed_seqs))
    assert "Only touch files under internal/cache/" in replaced
    assert "Do not bump the Go version in go.mod" in replaced
    assert "internal/cache/" in first.summary
    assert "go.mod" not in first.summary
    assert "1.21" not in first.summary
    assert second.previous_summary == first.summary
    assert all(seq > first.start_seq for seq in second.shadowed_seqs)
