"""The codex adapter against fixture rollouts: every rule of docs/formats.md section 2."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ctxkeep import Compaction, CompactionStatus, EventKind, ParseProblem, Session, read_session
from ctxkeep.log.adapters import codex
from ctxkeep.log.adapters.base import ReadOptions
from ctxkeep.log.reader import sniff
from tests.conftest import run_cli

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "codex"
EXAMPLES = Path(__file__).resolve().parent.parent.parent / "examples"
M, CALL, RESULT, USAGE, OTHER = (
    EventKind.MESSAGE,
    EventKind.TOOL_CALL,
    EventKind.TOOL_RESULT,
    EventKind.USAGE,
    EventKind.OTHER,
)
START, END = EventKind.COMPACTION_START, EventKind.COMPACTION_END
S1 = "Retries live in client/retry.go with exponential backoff; go test passes."
S2 = "Backoff has jitter now; only client/retry.go was changed."


def _read(name: str) -> Session:
    return read_session(FIXTURES / name)


def _shape(session: Session) -> list[tuple[object, ...]]:
    """(seq, line, kind, role, injected, call_id, tool_name, is_error, tokens) per event."""
    return [
        (e.seq, e.line, e.kind, e.role, e.injected, e.call_id, e.tool_name, e.is_error, e.tokens)
        for e in session.events
    ]


def test_basic_rollout_events_injection_tools_and_usage() -> None:
    s = _read("rollout-basic.jsonl")
    assert s.format == "codex"
    assert s.session_id == "0199a1b2-7c3d-7e4f-8a9b-0c1d2e3f4a5b"
    assert s.context_window == 272000
    assert _shape(s) == [
        (1, 2, M, "developer", "developer", None, None, False, None),
        (2, 3, M, "user", "environment-context", None, None, False, None),
        (3, 4, M, "user", "agents-md", None, None, False, None),
        (4, 5, OTHER, "system", "turn-context", None, None, False, None),
        # the person's message; its user_message echo on line 7 is the same message
        (5, 6, M, "user", None, None, None, False, None),
        # reasoning with a summary is the model's text; the empty one (line 10) is skipped
        (6, 9, OTHER, "assistant", None, None, None, False, None),
        (7, 11, CALL, "assistant", None, "call_1", "shell", False, None),
        (8, 12, RESULT, "tool", None, "call_1", None, False, None),
        (9, 13, CALL, "assistant", None, "call_2", "shell", False, None),
        (10, 14, RESULT, "tool", None, "call_2", None, True, None),
        (11, 15, CALL, "assistant", None, "call_3", "apply_patch", False, None),
        (12, 16, RESULT, "tool", None, "call_3", None, False, None),
        # agent_message came first here: it is kept, the response_item copy (19) dropped
        (13, 18, M, "assistant", None, None, None, False, None),
        # total 8700 - 200 reasoning; line 21 repeats the reading and is skipped
        (14, 20, USAGE, None, None, None, None, False, 8500),
        (15, 22, M, "user", "user-shell-command", None, None, False, None),
        (16, 23, M, "user", "turn-aborted", None, None, False, None),
        (17, 24, M, "user", "user-instructions", None, None, False, None),
        (18, 29, CALL, "assistant", None, None, "shell", False, None),
        (19, 30, RESULT, "tool", None, "call_9", None, False, None),
        # an echo with no response_item twin (a cut file) is still the person's message
        (20, 32, M, "user", None, None, None, False, None),
    ]
    by_seq = s.by_seq
    assert by_seq[5].text == "Add a retry to client.Do. Do not add new dependencies."
    assert by_seq[6].text == "**Reading the client**"
    assert json.loads(by_seq[7].text)["command"] == ["bash", "-lc", "cat client/client.go"]
    assert by_seq[8].text.startswith("package client\n")  # unwrapped from {"output", "metadata"}
    assert by_seq[10].text.startswith("Exit code: 1\n")
    assert by_seq[11].text.startswith("*** Begin Patch")
    assert by_seq[12].text == "Success. Updated the following files:\nA client/retry.go\n"
    assert by_seq[19].text == "listed 3 files"
    assert by_seq[14].context_window == 272000
    assert s.compactions == ()
    assert s.problems == (
        ParseProblem(26, "invalid JSON (JSON is malformed: object keys must be strings (byte 1))"),
        ParseProblem(27, "response_item record without an object payload"),
        ParseProblem(28, "response_item message without a string role and content list"),
        ParseProblem(29, "function_call without a string call_id"),
        ParseProblem(31, "token_count info is not an object"),
        ParseProblem(33, "record is not a JSON object"),
    )


def test_compactions_shadow_what_replacement_history_does_not_carry() -> None:
    s = _read("rollout-compactions.jsonl")
    assert s.session_id == "sess-compactions"
    kinds = [(e.seq, e.kind) for e in s.events if e.kind in (START, END, USAGE)]
    assert kinds == [
        (6, USAGE),
        (10, USAGE),
        (11, START),
        (12, END),
        (13, USAGE),
        (18, USAGE),
        (19, START),
        (20, END),
        (21, START),
        (22, END),
        (23, USAGE),
    ]
    # the summary Codex sends back as a user message is not the person's
    assert s.by_seq[14].injected == "compaction-summary"
    assert s.compactions == (
        # the user's messages (and the environment) ride along in replacement_history
        Compaction(
            index=1,
            id="compacted-1",
            start_seq=11,
            end_seq=12,
            status=CompactionStatus.SUMMARISED,
            summary=S1,
            shadowed_seqs=(3, 4, 5, 8, 9),
            preserved_seqs=(1, 2, 7),
            tokens_before=250000,
            tokens_after=30000,
            line=14,
            summary_line=14,
        ),
        # two in a row: the second drops user messages the first had kept (2, 7)
        Compaction(
            index=2,
            id="compacted-2",
            start_seq=19,
            end_seq=20,
            status=CompactionStatus.SUMMARISED,
            summary=S2,
            shadowed_seqs=(2, 7, 14, 16, 17),
            preserved_seqs=(1, 15),
            previous_summary=S1,
            tokens_before=90000,
            tokens_after=None,  # the next compaction came before any request
            line=23,
            summary_line=23,
        ),
        # server-side: empty message + encrypted item = opaque, still summarised
        Compaction(
            index=3,
            id="compacted-3",
            start_seq=21,
            end_seq=22,
            status=CompactionStatus.SUMMARISED,
            summary=None,
            opaque=True,
            shadowed_seqs=(1,),
            preserved_seqs=(15,),
            previous_summary=S2,
            tokens_before=None,  # no request since the previous compaction
            tokens_after=12000,
            line=24,
            summary_line=24,
        ),
    )
    assert s.problems == ()


def test_older_compaction_forms_bridge_message_and_no_replacement_history() -> None:
    s = _read("rollout-older-compactions.jsonl")
    first, second, third = s.compactions
    # the bridge message holds both user messages inside one text: they are carried
    assert (first.shadowed_seqs, first.preserved_seqs) == ((2, 4, 5), (1, 3))
    assert s.by_seq[5].is_error  # exit_code 1 in the JSON metadata
    # no replacement_history: the user's own messages are rebuilt, the rest shadowed
    assert (second.shadowed_seqs, second.preserved_seqs) == ((9,), (1, 3, 8))
    assert second.previous_summary == S1
    # wrong types: located problems, treated as "no summary" and "no replacement_history"
    assert (third.summary, third.opaque, third.status) == (None, False, CompactionStatus.SUMMARISED)
    assert third.shadowed_seqs == ()
    assert s.problems == (
        ParseProblem(14, "compacted: 'message' is not a string"),
        ParseProblem(14, "compacted: replacement_history is not a list"),
    )


def test_echo_before_item_keeps_one_message_and_repeated_text_in_two_turns_keeps_two(
    tmp_path: Path,
) -> None:
    def rec(kind: str, payload: dict[str, object]) -> str:
        return json.dumps({"timestamp": "t", "type": kind, "payload": payload})

    def item(role: str, text: str) -> str:
        part = "output_text" if role == "assistant" else "input_text"
        content = [{"type": part, "text": text}]
        return rec("response_item", {"type": "message", "role": role, "content": content})

    echo = rec("event_msg", {"type": "user_message", "message": "continue"})
    lines = [echo, item("user", "continue"), item("assistant", "ok"), item("user", "continue")]
    lines += [echo, echo]
    log = tmp_path / "rollout.jsonl"
    log.write_text("\n".join(lines) + "\n", encoding="utf-8")
    s = read_session(log)
    assert [(e.line, e.role, e.text) for e in s.events] == [
        (1, "user", "continue"),
        (3, "assistant", "ok"),
        (4, "user", "continue"),
        (6, "user", "continue"),  # a third "continue" with no twin: typed again
    ]


def test_context_tokens_figure() -> None:
    assert codex.context_tokens({"input_tokens": 900, "output_tokens": 50}) == 950
    full = {"input_tokens": 900, "cached_input_tokens": 800, "output_tokens": 50}
    assert codex.context_tokens({**full, "total_tokens": 950, "reasoning_output_tokens": 30}) == 920
    assert codex.context_tokens({"total_tokens": "950"}) is None
    assert codex.context_tokens(None) is None


def test_sniffing_picks_codex_only_for_rollouts(tmp_path: Path) -> None:
    adapter = sniff(FIXTURES / "rollout-compactions.jsonl")
    assert adapter is not None
    assert adapter.name == "codex"
    other = tmp_path / "claude.jsonl"
    other.write_text(json.dumps({"type": "user", "message": {"content": "hi"}}) + "\n")
    assert sniff(other) is not codex.ADAPTER


def test_show_reads_a_rollout_without_writing_it() -> None:
    path = FIXTURES / "rollout-compactions.jsonl"
    before = hashlib.sha256(path.read_bytes()).hexdigest()
    proc = run_cli("show", "--format", "json", str(path))
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)[0]
    assert data["format"] == "codex"
    assert [(c["status"], c["tokens_before"], c["tokens_after"]) for c in data["compactions"]] == [
        ("summarised", 250000, 30000),
        ("summarised", 90000, None),
        ("summarised", None, 12000),
    ]
    assert hashlib.sha256(path.read_bytes()).hexdigest() == before


_json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner),
    max_leaves=12,
)
_payloads = st.fixed_dictionaries(
    {
        "type": st.sampled_from(
            [
                "message",
                "reasoning",
                "function_call",
                "function_call_output",
                "custom_tool_call_output",
                "user_message",
                "agent_message",
                "token_count",
                "compaction",
            ]
        )
    },
    optional={
        "role": _json_values,
        "content": _json_values,
        "call_id": _json_values,
        "output": _json_values,
        "message": _json_values,
        "info": _json_values,
        "replacement_history": _json_values,
        "summary": _json_values,
    },
)
_records = st.fixed_dictionaries(
    {
        "type": st.sampled_from(list(codex._RECORD_TYPES)),
        "payload": _payloads | _json_values,
    }
)


@settings(max_examples=150, deadline=None)
@given(records=st.lists(_records, max_size=12))
def test_arbitrary_records_never_raise(
    tmp_path_factory: pytest.TempPathFactory, records: list[object]
) -> None:
    log = tmp_path_factory.getbasetemp() / "codex-arbitrary.jsonl"
    log.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    s = codex.ADAPTER.read(log, str(log), ReadOptions())
    assert [e.seq for e in s.events] == list(range(1, len(s.events) + 1))


def test_bundled_example_loses_the_early_constraints_at_the_local_compaction() -> None:
    """The demo session: what the opaque and the local compaction replaced."""
    (path,) = sorted((EXAMPLES / "codex").glob("rollout-*.jsonl"))
    assert path.stat().st_size < 320_000
    s = read_session(path)
    assert (s.format, s.problems, s.context_window) == ("codex", (), 272000)
    typed = [e for e in s.events if e.kind is M and e.role == "user" and e.injected is None]
    first, cap, race_and_dump, post, public_api = typed
    assert "Do not add new dependencies" in first.text
    assert len(race_and_dump.text.encode()) > 80_000  # over Codex's carry-over budget
    opaque, local = s.compactions
    # server-side: encrypted, the user's messages carried verbatim
    assert (opaque.opaque, opaque.summary) == (True, None)
    assert {first.seq, cap.seq} <= set(opaque.preserved_seqs)
    # local: the dump fills the budget, so the earlier messages are replaced by a summary
    # that keeps "only touch client/retry.go" and drops "no new dependencies"
    assert {first.seq, cap.seq, race_and_dump.seq} <= set(local.shadowed_seqs)
    assert local.summary is not None
    assert "Only touch client/retry.go" in local.summary
    assert "dependenc" not in local.summary
    assert "public API" not in local.summary
    assert local.previous_summary is None  # the summary before it was opaque
    assert (local.tokens_before, local.tokens_after) == (261132, 33570)
    assert post.seq > local.start_seq
    assert public_api.seq > post.seq


def test_type_fields_that_are_lists_or_objects_are_skipped(tmp_path: Path) -> None:
    part = {"type": ["input_text"], "text": "x"}
    records: list[object] = [
        {"type": "session_meta", "payload": {"id": "s"}},
        {"type": ["response_item"], "payload": {}},
        {"type": "response_item", "payload": {"type": {"a": 1}}},
        {
            "type": "response_item",
            "payload": {"type": "message", "role": "user", "content": [part]},
        },
        {"type": "event_msg", "payload": {"type": ["user_message"], "message": "x"}},
        {"type": "compacted", "payload": {"message": "s", "replacement_history": [{"type": []}]}},
    ]
    log = tmp_path / "rollout.jsonl"
    log.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    s = read_session(log)
    assert s.format == "codex"
    assert [(e.kind, e.text) for e in s.events] == [(M, ""), (START, ""), (END, "s")]
    assert s.problems == ()
