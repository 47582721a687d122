"""The openhands adapter against fixture event streams: V0 arrays/JSONL and V1 folders."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ctxkeep import Compaction, CompactionStatus, EventKind, ParseProblem, Session, read_session
from ctxkeep.log.adapters import openhands
from ctxkeep.log.adapters.base import ReadOptions
from ctxkeep.log.reader import discover, sniff
from ctxkeep.log.source import Head
from tests.conftest import run_cli

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "openhands"
EXAMPLES = Path(__file__).resolve().parent.parent.parent / "examples"
M, CALL, RESULT = EventKind.MESSAGE, EventKind.TOOL_CALL, EventKind.TOOL_RESULT
START, END = EventKind.COMPACTION_START, EventKind.COMPACTION_END
SUMMARISED, STARTED = CompactionStatus.SUMMARISED, CompactionStatus.STARTED
S1 = "S1: retry.go created; TestRetry fails (1 attempt)."
S2 = "S2: TestRetry fixed except the build timeout."


def _shape(session: Session) -> list[tuple[object, ...]]:
    """(seq, line, kind, role, injected, call_id, tool_name, is_error, source_id) per event."""
    return [
        (e.seq, e.line, e.kind, e.role, e.injected, e.call_id, e.tool_name, e.is_error, e.source_id)
        for e in session.events
    ]


def test_v0_array_events_pairing_and_injection() -> None:
    s = read_session(FIXTURES / "v0-condensations.json")
    assert s.format == "openhands"
    assert _shape(s) == [
        (1, 0, M, "system", "system-prompt", None, None, False, "0"),
        (2, 0, M, "user", None, None, None, False, "1"),
        # recall action (2) and agent_state_changed (4) are not context
        (3, 0, M, "system", "recall", None, None, False, "3"),
        (4, 0, CALL, "assistant", None, "toolu_01", "execute_bash", False, "5"),
        (5, 0, RESULT, "tool", None, "toolu_01", None, False, "6"),
        (6, 0, M, "user", None, None, None, False, "7"),
        # no tool_call_metadata: paired by cause, the action's id is the call id
        (7, 0, CALL, "assistant", None, "8", "edit", False, "8"),
        (8, 0, RESULT, "tool", None, "8", None, False, "9"),
        (9, 0, CALL, "assistant", None, "toolu_02", "execute_bash", False, "10"),
        (10, 0, RESULT, "tool", None, "toolu_02", None, True, "11"),  # exit code 1
        (11, 0, START, None, None, None, None, False, "12"),
        (12, 0, END, None, None, None, None, False, "12"),
        (13, 0, M, "assistant", None, None, None, False, "13"),
        (14, 0, CALL, "assistant", None, "toolu_03", "execute_bash", False, "14"),
        # an error observation with only a cause finds its action's tool_call_id
        (15, 0, RESULT, "tool", None, "toolu_03", None, True, "15"),
        (16, 0, START, None, None, None, None, False, "16"),  # the request; 17 repeats it
        (17, 0, END, None, None, None, None, False, "18"),
        (18, 0, START, None, None, None, None, False, "19"),
        (19, 0, END, None, None, None, None, False, "19"),
        (20, 0, START, None, None, None, None, False, "20"),
        (21, 0, END, None, None, None, None, False, "20"),
        (22, 0, START, None, None, None, None, False, "21"),
        (23, 0, END, None, None, None, None, False, "21"),
        (24, 0, M, "assistant", None, None, None, False, "22"),  # finish
        (25, 0, START, None, None, None, None, False, "27"),
    ]
    assert s.by_seq[3].text == "Added workspace context\nRun go test ./... before finishing."
    assert s.by_seq[24].text == "Retry added in client/retry.go."
    assert json.loads(s.by_seq[4].text)["command"] == "cat client/client.go"


def test_v0_condensations_ids_inclusive_ranges_and_requests() -> None:
    s = read_session(FIXTURES / "v0-condensations.json")
    assert s.compactions == (
        # explicit ids 5..9 -> their seqs
        Compaction(
            index=1,
            id="12",
            start_seq=11,
            end_seq=12,
            status=SUMMARISED,
            trigger="auto",
            summary=S1,
            shadowed_seqs=(4, 5, 6, 7, 8),
        ),
        # requested; inclusive range 5..15 minus what the first already forgot
        # (id 12, the condensation itself, is not context)
        Compaction(
            index=2,
            id="16",
            start_seq=16,
            end_seq=17,
            status=SUMMARISED,
            trigger="manual",
            summary=S2,
            shadowed_seqs=(9, 10, 13, 14, 15),
            previous_summary=S1,
        ),
        # end before start: a problem, nothing shadowed, the rest still read
        Compaction(
            index=3,
            id="19",
            start_seq=18,
            end_seq=19,
            status=SUMMARISED,
            trigger="auto",
            summary="S3",
            previous_summary=S2,
        ),
        # ids with a bool and a float among them: the usable id 1 is forgotten; no summary
        Compaction(
            index=4,
            id="20",
            start_seq=20,
            end_seq=21,
            status=SUMMARISED,
            trigger="auto",
            summary=None,
            shadowed_seqs=(2,),
            previous_summary="S3",
        ),
        # a range of 10**15 ids: what is left before it, without enumerating the range
        Compaction(
            index=5,
            id="21",
            start_seq=22,
            end_seq=23,
            status=SUMMARISED,
            trigger="auto",
            summary="S5",
            shadowed_seqs=(1, 3),
            previous_summary="S3",
        ),
        # a request with no condensation after it: started, never ended
        Compaction(
            index=6,
            id="27",
            start_seq=25,
            end_seq=None,
            status=STARTED,
            trigger="manual",
            previous_summary="S5",
        ),
    )
    assert s.problems == (
        ParseProblem(0, "event #19: condensation: forgotten range [9, 3] ends before it starts"),
        ParseProblem(0, "event #20: condensation: forgotten_event_ids holds non-id values"),
        ParseProblem(0, "event #23: event is not a JSON object"),
        ParseProblem(0, "event #24: 'action' is not a string"),
        ParseProblem(0, "event #25: run: 'args' is not an object"),
        ParseProblem(0, "event #26: 'observation' is not a string"),
    )


def test_v0_jsonl_lines_metadata_pairing_and_bad_lines() -> None:
    s = read_session(FIXTURES / "v0-events.jsonl")
    assert s.format == "openhands"
    assert _shape(s) == [
        (1, 1, M, "user", None, None, None, False, "0"),
        (2, 2, CALL, "assistant", None, "call_9", "execute_bash", False, "1"),
        (3, 3, RESULT, "tool", None, "call_9", None, False, "2"),
        (4, 5, CALL, "assistant", None, "call_10", "think", False, "3"),
        (5, 6, RESULT, "tool", None, "call_10", None, False, "4"),
        (6, 7, RESULT, "tool", None, None, None, False, "5"),  # no cause, no metadata
    ]
    assert s.problems == (
        ParseProblem(4, "invalid JSON (JSON is malformed: object keys must be strings (byte 1))"),
        ParseProblem(8, "truncated last line (no newline, incomplete JSON)"),
    )


def test_v1_folder_events_condensations_and_per_file_problems() -> None:
    folder = FIXTURES / "v1-conversation-7f3a"
    assert list(discover([FIXTURES])) == [
        FIXTURES / "v0-condensations.json",
        FIXTURES / "v0-events.jsonl",
        folder,
    ]
    s = read_session(folder)
    assert s.format == "openhands"
    assert s.session_id == "v1-conversation-7f3a"
    ids = [f"4e1c{i:04d}-0000-4000-8000-00000000{i:04d}" for i in range(20)]
    assert _shape(s) == [
        (1, 0, M, "system", "system-prompt", None, None, False, ids[0]),
        (2, 0, M, "user", None, None, None, False, ids[1]),
        (3, 0, M, "user", "skill-context", None, None, False, None),
        (4, 0, CALL, "assistant", None, "call_1", "execute_bash", False, ids[2]),
        (5, 0, RESULT, "tool", None, "call_1", "execute_bash", False, ids[3]),
        (6, 0, M, "user", None, None, None, False, ids[4]),
        (7, 0, CALL, "assistant", None, "call_2", "execute_bash", False, ids[5]),
        (8, 0, RESULT, "tool", None, "call_2", "execute_bash", True, ids[6]),
        (9, 0, CALL, "assistant", None, "call_3", "str_replace_editor", False, ids[7]),
        (10, 0, RESULT, "tool", None, "call_3", "str_replace_editor", True, ids[8]),
        (11, 0, START, None, None, None, None, False, ids[10]),
        (12, 0, END, None, None, None, None, False, ids[10]),
        (13, 0, START, None, None, None, None, False, ids[11]),
        (14, 0, END, None, None, None, None, False, ids[12]),
        (15, 0, START, None, None, None, None, False, ids[16]),
        (16, 0, END, None, None, None, None, False, ids[16]),
    ]
    assert s.by_seq[5].text == "package client"
    assert s.by_seq[8].text == "FAIL client"
    assert s.by_seq[10].text == "File not found: /workspace/nope.go"
    assert s.compactions == (
        Compaction(
            index=1,
            id=ids[10],
            start_seq=11,
            end_seq=12,
            status=SUMMARISED,
            trigger="auto",
            summary="S1: tests fail on client.",
            shadowed_seqs=(4, 5, 6, 7, 8),  # an unknown uuid among the ids is ignored
        ),
        Compaction(
            index=2,
            id=ids[11],
            start_seq=13,
            end_seq=14,
            status=SUMMARISED,
            trigger="manual",
            summary=None,  # forgotten with no summary
            shadowed_seqs=(9, 10),  # ids[3] was already forgotten
            previous_summary="S1: tests fail on client.",
        ),
        Compaction(
            index=3,
            id=ids[16],
            start_seq=15,
            end_seq=16,
            status=SUMMARISED,
            trigger="auto",
            previous_summary="S1: tests fail on client.",
        ),
    )
    name = "event-{:05d}-{}.json".format
    assert s.problems == (
        ParseProblem(0, f"{name(14, ids[14])}: event is not a JSON object"),
        ParseProblem(0, f"{name(15, ids[15])}: MessageEvent without an llm_message object"),
        ParseProblem(0, f"{name(16, ids[16])}: condensation summary is not a string"),
        ParseProblem(0, f"{name(16, ids[16])}: condensation: forgotten_event_ids is not a list"),
        ParseProblem(0, f"{name(17, ids[17])}: event without a string 'kind'"),
        ParseProblem(1, f"{name(13, ids[13])}: invalid JSON (Input data was truncated)"),
    )


def test_trajectory_object_and_sniffing(tmp_path: Path) -> None:
    events = [{"id": 0, "source": "user", "action": "message", "args": {"content": "hi"}}]
    wrapped = tmp_path / "trajectory.json"
    wrapped.write_text(json.dumps({"trajectory": events}), encoding="utf-8")
    adapter = sniff(wrapped)
    assert adapter is openhands.ADAPTER
    assert [e.text for e in read_session(wrapped).events] == ["hi"]
    plain = tmp_path / "chat.json"
    plain.write_text(json.dumps([{"role": "user", "content": "hi"}]), encoding="utf-8")
    assert sniff(plain) is not openhands.ADAPTER
    empty = tmp_path / "empty-folder"
    empty.mkdir()
    assert not openhands.ADAPTER.sniff(Head(empty, (), None, True))


def test_broken_array_is_one_problem_not_one_per_line(tmp_path: Path) -> None:
    broken = tmp_path / "events.json"
    broken.write_text('[\n  {"id": 0, "source": "user",\n  "action": "message"\n', encoding="utf-8")
    s = openhands.ADAPTER.read(broken, str(broken), ReadOptions())
    assert s.events == ()
    assert len(s.problems) == 1
    assert s.problems[0].line == 1


def test_show_on_the_v1_folder() -> None:
    proc = run_cli("show", "--format", "json", str(FIXTURES / "v1-conversation-7f3a"))
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)[0]
    assert data["format"] == "openhands"
    assert [(c["trigger"], c["shadowed"]) for c in data["compactions"]] == [
        ("auto", 5),
        ("manual", 2),
        ("auto", 0),
    ]


_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=6),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner),
    max_leaves=10,
)
_events = st.fixed_dictionaries(
    {"id": st.integers(-3, 20) | _values, "source": _values},
    optional={
        "action": st.sampled_from(["message", "run", "condensation", "condensation_request"])
        | _values,
        "observation": st.sampled_from(["run", "error", "recall"]) | _values,
        "args": st.fixed_dictionaries(
            {},
            optional={
                "content": _values,
                "forgotten_event_ids": _values,
                "forgotten_events_start_id": st.integers(-5, 10**12) | _values,
                "forgotten_events_end_id": st.integers(-5, 10**12) | _values,
                "summary": _values,
            },
        )
        | _values,
        "cause": _values,
        "extras": _values,
        "content": _values,
        "tool_call_metadata": _values,
    },
)


@settings(max_examples=150, deadline=None)
@given(events=st.lists(_events | _values, max_size=10), as_array=st.booleans())
def test_arbitrary_events_never_raise(
    tmp_path_factory: pytest.TempPathFactory, events: list[object], as_array: bool
) -> None:
    log = tmp_path_factory.getbasetemp() / "openhands-arbitrary.json"
    if as_array:
        log.write_text(json.dumps(events), encoding="utf-8")
    else:
        log.write_text("".join(json.dumps(e) + "\n" for e in events), encoding="utf-8")
    s = openhands.ADAPTER.read(log, str(log), ReadOptions())
    for c in s.compactions:
        assert set(c.shadowed_seqs) <= set(s.by_seq)


@settings(max_examples=60, deadline=None)
@given(events=st.lists(st.fixed_dictionaries({"kind": _values}) | _values, max_size=6))
def test_arbitrary_v1_files_never_raise(
    tmp_path_factory: pytest.TempPathFactory, events: list[object]
) -> None:
    folder = tmp_path_factory.mktemp("v1") / "events"
    folder.mkdir()
    for n, event in enumerate(events):
        (folder / f"event-{n:05d}-x.json").write_text(json.dumps(event), encoding="utf-8")
    s = openhands.ADAPTER.read(folder.parent, "conv", ReadOptions())
    assert len(s.events) <= 2 * len(events)


def test_bundled_example_forgets_the_chinese_constraints() -> None:
    """The demo session: the auto condensation forgets the follow-up with 不要修改公共接口."""
    path = EXAMPLES / "openhands" / "weatherhub-retry.json"
    assert path.stat().st_size < 200_000
    s = read_session(path)
    assert (s.format, s.problems) == ("openhands", ())
    typed = [e for e in s.events if e.kind is M and e.role == "user" and e.injected is None]
    task, chinese, four_xx, complaint, condense = typed
    assert "不要修改公共接口" in chinese.text
    auto, manual = s.compactions
    assert (auto.trigger, manual.trigger) == ("auto", "manual")
    assert task.seq not in auto.shadowed_seqs  # kept by the condenser's keep_first
    assert {chinese.seq, four_xx.seq} <= set(auto.shadowed_seqs)
    assert auto.summary is not None
    assert "不要修改公共接口" not in auto.summary
    assert "不要引入新的依赖" not in auto.summary
    assert "每次改完都要跑 pytest -q tests/test_http_client.py" in auto.summary
    assert complaint.seq in manual.shadowed_seqs
    assert condense.seq not in manual.shadowed_seqs
    assert manual.previous_summary == auto.summary
