"""The Claude Code adapter, rule by rule of docs/formats.md section 1, on hand-written logs.

Each fixture in tests/fixtures/claude_code/ is a small session written to exercise the
rules; the tests assert the whole Session read from it, so a change in any rule shows.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ctxkeep import (
    CompactionStatus,
    EventKind,
    ParseProblem,
    Prune,
    ReadOptions,
    Session,
    read_session,
)
from ctxkeep.log.adapters import claude_code
from ctxkeep.log.adapters.claude_code import (
    command_args,
    injected_kind_of_user_text,
    split_system_reminders,
)
from ctxkeep.log.reader import sniff
from ctxkeep.log.source import read_head
from tests.conftest import run_cli

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "claude_code"
SESSION_ID = "9b2f6c1e-0000-4000-8000-000000000001"


def event_lines(session: Session) -> str:
    """One line per event: seq, line, kind, role, injected, call id, tool, tokens, error, text."""
    out = []
    for e in session.events:
        fields = [
            str(e.seq),
            f"L{e.line}",
            e.kind.value,
            f"role={e.role}",
            f"injected={e.injected}",
            f"call={e.call_id}",
            f"tool={e.tool_name}",
            f"tokens={e.tokens}",
            f"error={e.is_error}",
            json.dumps(e.text, ensure_ascii=False),
        ]
        out.append(" ".join(fields) + "\n")
    return "".join(out)


def assert_events_match_golden(session: Session, fixture: str) -> None:
    """Compare with ``<fixture>.events.txt`` beside the log (the expected events, by hand)."""
    assert [e.seq for e in session.events] == list(range(1, len(session.events) + 1))
    golden = FIXTURES / f"{fixture}.events.txt"
    assert event_lines(session) == golden.read_text(encoding="utf-8")


def write_log(path: Path, records: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def test_basic_session_events_injected_kinds_and_problems() -> None:
    s = read_session(FIXTURES / "basic.jsonl")
    assert s.format == "claude-code"
    assert s.session_id == SESSION_ID
    assert_events_match_golden(s, "basic")
    assert s.hooks_unrecorded is True  # line 8: a hook_progress record
    assert s.compactions == ()  # line 1 is a legacy title, not a compaction summary
    assert s.prunes == ()
    assert s.problems == (
        ParseProblem(24, "assistant record has no 'message' object"),
        ParseProblem(25, "user message content is neither a string nor a list"),
        ParseProblem(27, "record is not a JSON object"),
        ParseProblem(28, "invalid JSON (Input data was truncated)"),
    )


def test_blocks_of_one_message_id_are_one_message_with_usage_counted_once() -> None:
    s = read_session(FIXTURES / "basic.jsonl")
    usage = [e for e in s.events if e.kind is EventKind.USAGE]
    # msg_01 spans lines 4-6 and repeats its usage: one reading, 10 + 100 + 5.
    assert [(e.line, e.tokens, e.source_id) for e in usage] == [
        (4, 115, "msg_01"),
        (9, 423, "msg_02"),
        (26, 500, "msg_03"),  # input_tokens "many" is ignored, cache read counts
    ]


def test_duplicate_uuid_is_read_once() -> None:
    s = read_session(FIXTURES / "basic.jsonl")
    firsts = [e for e in s.events if e.text.startswith("Fix the crash")]
    assert [e.line for e in firsts] == [3]  # line 14 repeats uuid b-u1


def test_compactions_session_events() -> None:
    s = read_session(FIXTURES / "compactions.jsonl")
    assert_events_match_golden(s, "compactions")
    assert s.hooks_unrecorded is False
    assert s.problems == (
        ParseProblem(
            24,
            "compact_boundary has no isCompactSummary record after it: "
            "the summary is missing from the log",
        ),
    )


def test_first_compaction_replaces_the_chain_before_it_but_not_an_abandoned_branch() -> None:
    s = read_session(FIXTURES / "compactions.jsonl")
    first = s.compactions[0]
    assert (first.index, first.id, first.start_seq, first.end_seq) == (1, "c-b1", 12, 13)
    assert first.status is CompactionStatus.SUMMARISED
    assert first.trigger == "auto"
    assert first.summary is not None
    assert first.summary.startswith("This session is being continued")
    assert first.summary == s.events[12].text
    # seqs 6-8 are the abandoned "approach A" branch (c-u3, c-a3): not in context.
    assert first.shadowed_seqs == (1, 2, 3, 4, 5, 9, 10, 11)
    assert first.preserved_seqs == ()
    assert first.previous_summary is None
    assert (first.tokens_before, first.tokens_after) == (150000, 20 + 12000 + 300)
    assert (first.line, first.summary_line) == (9, 10)
    assert first.instructions is None


def test_manual_compaction_with_preserved_segment_args_and_a_prune_before_it() -> None:
    s = read_session(FIXTURES / "compactions.jsonl")
    second = s.compactions[1]
    assert (second.id, second.start_seq, second.end_seq) == ("c-b2", 24, 25)
    assert second.trigger == "manual"
    assert second.summary is not None
    assert "nested lists" in second.summary  # a summary given as a list of text blocks
    assert second.previous_summary == s.compactions[0].summary
    # Since the previous summary: seqs 14-18; 19 was pruned before (the model no longer
    # saw it), 20 is the prune marker, 21-23 are the preserved segment c-a7..c-u7.
    assert second.shadowed_seqs == (14, 15, 16, 17, 18)
    assert second.preserved_seqs == (21, 22, 23)
    assert (second.tokens_before, second.tokens_after) == (60000, 9000)  # postTokens wins
    assert second.instructions == "keep the lexer API notes"
    # logicalParentUuid points at a uuid absent from the file: file order is used.
    assert second.line == 18


def test_boundary_without_summary_is_a_compaction_with_nothing_to_audit() -> None:
    s = read_session(FIXTURES / "compactions.jsonl")
    third = s.compactions[2]
    assert (third.index, third.start_seq, third.end_seq) == (3, 31, None)
    assert third.status is CompactionStatus.SUMMARISED
    assert third.summary is None
    assert third.previous_summary == s.compactions[1].summary
    # What came after the previous summary (the /compact records included) plus what
    # the previous compaction preserved, which was in context until this one.
    assert third.shadowed_seqs == (21, 22, 23, 26, 27, 28, 29, 30)
    assert third.tokens_before is None  # preTokens "lots" is not a number
    assert third.tokens_after is None


def test_microcompact_boundary_is_a_prune_of_the_named_tool_results() -> None:
    s = read_session(FIXTURES / "compactions.jsonl")
    assert s.prunes == (
        Prune(
            seq=20,
            line=15,
            trigger="auto",
            pruned_seqs=(19,),
            tokens_pruned=3000,
            tokens_before=90000,
            call_ids=("toolu_12", "toolu_missing"),
        ),
    )
    assert s.events[18].call_id == "toolu_12"


def _envelope(kind: str, uuid: str, parent: str | None, **fields: Any) -> dict[str, Any]:
    return {"type": kind, "uuid": uuid, "parentUuid": parent, "sessionId": "s", **fields}


def test_compact_command_written_before_the_boundary_is_still_its_instructions(
    tmp_path: Path,
) -> None:
    log = write_log(
        tmp_path / "s.jsonl",
        [
            _envelope("user", "u1", None, message={"role": "user", "content": "Only edit a.py"}),
            _envelope(
                "user",
                "u2",
                "u1",
                message={
                    "role": "user",
                    "content": "<command-name>/compact</command-name>"
                    "<command-args>  mention a.py  </command-args>",
                },
            ),
            _envelope(
                "system",
                "b1",
                None,
                subtype="compact_boundary",
                logicalParentUuid="u2",
                compactMetadata={"trigger": "manual", "preTokens": 500},
            ),
            _envelope(
                "user",
                "s1",
                "b1",
                isCompactSummary=True,
                message={"role": "user", "content": "Summary: only edit a.py"},
            ),
        ],
    )
    s = read_session(log)
    (c,) = s.compactions
    assert c.instructions == "mention a.py"
    assert c.shadowed_seqs == (1, 2, 3)  # the request, the command record, its args
    assert s.events[2].text == "mention a.py"
    assert s.events[2].injected is None


def test_summary_without_boundary_and_preserved_messages(tmp_path: Path) -> None:
    log = write_log(
        tmp_path / "s.jsonl",
        [
            _envelope(
                "user",
                "s0",
                None,
                isCompactSummary=True,
                message={"role": "user", "content": "This session is being continued ..."},
            ),
            _envelope("user", "u1", "s0", message={"role": "user", "content": "one"}),
            _envelope("user", "u2", "u1", message={"role": "user", "content": "two"}),
            _envelope(
                "system",
                "b1",
                None,
                subtype="compact_boundary",
                logicalParentUuid="u2",
                compactMetadata={
                    "trigger": "auto",
                    "preTokens": 900,
                    "preservedMessages": {"anchorUuid": "s1", "uuids": ["u2", 3]},
                },
            ),
            _envelope(
                "user",
                "s1",
                "b1",
                isCompactSummary=True,
                message={"role": "user", "content": "Summary two"},
            ),
        ],
    )
    s = read_session(log)
    first, second = s.compactions
    assert (first.start_seq, first.end_seq, first.trigger) == (1, 1, None)
    assert first.shadowed_seqs == ()
    assert (second.start_seq, second.end_seq) == (4, 5)
    assert second.shadowed_seqs == (2,)
    assert second.preserved_seqs == (3,)
    assert second.previous_summary == "This session is being continued ..."
    assert s.problems == ()


def test_sidechain_records_are_injected_and_their_usage_is_not_this_context(
    tmp_path: Path,
) -> None:
    log = write_log(
        tmp_path / "s.jsonl",
        [
            _envelope(
                "assistant",
                "a1",
                None,
                isSidechain=True,
                message={
                    "id": "m1",
                    "content": [{"type": "text", "text": "subagent says"}],
                    "usage": {"input_tokens": 90000},
                },
            ),
            _envelope(
                "assistant",
                "a2",
                None,
                message={
                    "id": "m2",
                    "content": [{"type": "text", "text": "main says"}],
                    "usage": {"input_tokens": 1200},
                },
            ),
        ],
    )
    s = read_session(log)
    assert [(e.kind.value, e.injected, e.tokens) for e in s.events] == [
        ("message", "sidechain", None),
        ("usage", None, 1200),
        ("message", None, None),
    ]


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("<task-notification>x", "task-notification"),
        ("<local-command-stdout>x", "local-command"),
        ("<local-command-caveat>x", "local-command"),
        ("<command-name>/clear</command-name>", "command"),
        ("<command-message>init</command-message>", "command"),
        ("<system-reminder>x</system-reminder>", "system-reminder"),
        ("[Request interrupted by user]", "interrupted"),
        ("<bash-stdout>ok</bash-stdout>", "bash-output"),
        ("Do not touch <command-name>", None),
        ("[1] is the first", None),
        ("", None),
    ],
)
def test_injected_kind_by_opening_tag(text: str, kind: str | None) -> None:
    assert injected_kind_of_user_text(text) == kind


def test_command_args_and_system_reminder_split() -> None:
    assert command_args("<command-name>/x</command-name><command-args></command-args>") is None
    assert command_args("<command-name>/x</command-name><command-args>a b") == "a b"
    assert command_args("<command-name>/x</command-name>") is None
    text, reminders = split_system_reminders("out\n<system-reminder>r1</system-reminder>\nmore")
    assert (text, reminders) == ("out\n\nmore", ["<system-reminder>r1</system-reminder>"])
    assert split_system_reminders("a<system-reminder>open") == ("a", ["<system-reminder>open"])


def test_sniff_accepts_claude_code_heads_and_rejects_others(tmp_path: Path) -> None:
    title_first = write_log(
        tmp_path / "t.jsonl", [{"type": "summary", "summary": "T", "leafUuid": "x"}]
    )
    codex = write_log(
        tmp_path / "c.jsonl",
        [{"timestamp": "t", "type": "session_meta", "payload": {"id": "x"}}],
    )
    chat = write_log(tmp_path / "o.jsonl", [{"role": "user", "content": "hi"}])
    unhashable = write_log(tmp_path / "u.jsonl", [{"type": ["user"], "sessionId": "s"}])
    assert claude_code.ADAPTER.sniff(read_head(unhashable)) is False
    for fixture in ("basic.jsonl", "compactions.jsonl"):
        assert sniff(FIXTURES / fixture) is claude_code.ADAPTER
    assert sniff(title_first) is claude_code.ADAPTER
    assert sniff(codex) is not claude_code.ADAPTER
    assert sniff(chat) is not claude_code.ADAPTER


@pytest.mark.parametrize(
    "record",
    [
        {"type": "user", "uuid": ["x"], "message": {"content": [{"type": "tool_result"}]}},
        {"type": "user", "uuid": "u", "message": {"content": [1, None, {"type": "text"}]}},
        {"type": "assistant", "uuid": "a", "message": {"id": 3, "content": [{"type": "x"}]}},
        {"type": "assistant", "uuid": "a", "message": {"content": 5, "usage": [1]}},
        {"type": "system", "subtype": "compact_boundary", "compactMetadata": [1]},
        {"type": "system", "subtype": "microcompact_boundary", "microcompactMetadata": 1},
        {
            "type": "system",
            "subtype": "compact_boundary",
            "compactMetadata": {"preservedSegment": {"headUuid": "h", "tailUuid": 1}},
        },
        {"type": "user", "isCompactSummary": True, "message": {"content": {"a": 1}}},
        {"type": "queue-operation", "operation": "enqueue", "content": ["a", {"b": 1}]},
        {"type": "progress", "data": "hook_progress"},
        {"type": 7},
        {},
    ],
)
def test_wrong_field_types_never_raise(tmp_path: Path, record: dict[str, Any]) -> None:
    log = write_log(tmp_path / "s.jsonl", [{"type": "user", "sessionId": "s", "uuid": "z"}, record])
    s = claude_code.ADAPTER.read(log, str(log), ReadOptions())
    assert s.format == "claude-code"


def test_show_cli_reads_the_fixture(tmp_path: Path) -> None:
    proc = run_cli("show", "--format", "json", str(FIXTURES / "compactions.jsonl"))
    assert proc.returncode == 0, proc.stderr
    (data,) = json.loads(proc.stdout)
    assert data["format"] == "claude-code"
    assert [(c["trigger"], c["tokens_before"], c["tokens_after"]) for c in data["compactions"]] == [
        ("auto", 150000, 12320),
        ("manual", 60000, 9000),
        ("auto", None, None),
    ]


EXAMPLES = Path(__file__).resolve().parent.parent.parent / "examples" / "claude-code"


def test_example_with_three_compactions_reads_whole() -> None:
    s = read_session(EXAMPLES / "tinyparse-three-compactions.jsonl")
    assert s.format == "claude-code"
    assert s.problems == ()
    assert s.hooks_unrecorded is True
    assert [(c.trigger, c.status) for c in s.compactions] == [
        ("auto", CompactionStatus.SUMMARISED),
        ("auto", CompactionStatus.SUMMARISED),
        ("manual", CompactionStatus.SUMMARISED),
    ]
    first, second, third = s.compactions
    assert third.instructions == (
        "keep the exact test commands and the list of files we changed; "
        "drop the precedence debugging details"
    )
    assert (second.previous_summary, third.previous_summary) == (first.summary, second.summary)
    previous_end = 0
    for c in s.compactions:
        assert c.summary is not None
        assert c.summary.startswith("This session is being continued from a previous")
        assert c.tokens_before is not None
        assert c.tokens_after is not None
        assert c.tokens_after < c.tokens_before
        # Each compaction replaced only what came after the previous one.
        assert c.shadowed_seqs
        assert previous_end < min(c.shadowed_seqs) <= max(c.shadowed_seqs) < c.start_seq
        assert c.end_seq is not None
        previous_end = c.end_seq
    # The constraint typed while the agent was busy exists only as a queue operation.
    queued = [e for e in s.events if e.text.startswith("btw keep the Token namedtuple")]
    assert [e.injected for e in queued] == [None]
    assert queued[0].seq in first.shadowed_seqs


def test_example_with_microcompact_reads_whole() -> None:
    s = read_session(EXAMPLES / "tinyparse-microcompact.jsonl")
    assert s.problems == ()
    assert s.compactions == ()
    (prune,) = s.prunes
    assert prune.trigger == "auto"
    assert len(prune.call_ids) == 4
    pruned = s.events_at(prune.pruned_seqs)
    assert {e.call_id for e in pruned if e.kind is EventKind.TOOL_RESULT} == set(prune.call_ids)
    assert prune.tokens_pruned is not None
    assert prune.tokens_pruned > 0


def test_a_log_that_begins_mid_session_has_incomplete_history(tmp_path: Path) -> None:
    # The real logs of benchmarks/real-logs/ (a6, b8, e5): the first record's parentUuid
    # names a record that is not in the file.
    def record(uuid: str, parent: str | None, text: str) -> dict[str, Any]:
        return {
            "parentUuid": parent,
            "sessionId": SESSION_ID,
            "type": "user",
            "uuid": uuid,
            "message": {"role": "user", "content": text},
        }

    whole = write_log(tmp_path / "whole.jsonl", [record("a", None, "hi"), record("b", "a", "x")])
    cut = write_log(tmp_path / "cut.jsonl", [record("b", "a", "x"), record("c", "b", "y")])
    assert read_session(whole).history_incomplete is False
    assert read_session(cut).history_incomplete is True
