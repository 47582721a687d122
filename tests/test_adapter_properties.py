"""Property: no input makes an adapter raise, in ``sniff`` or in ``read``.

Every adapter in ``ADAPTERS`` (iterated, so adapters registered later are covered) is fed
arbitrary bytes, arbitrary JSON lines, and records shaped like each known format whose
fields, at every depth, may be replaced by values of any JSON type. Example counts are
modest: the suite runs on 2 shared cores.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ctxkeep.log.adapters import ADAPTERS, ReadOptions
from ctxkeep.log.source import read_head

SETTINGS = settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

# One record of every kind that matters to each format, compactions included.
TEMPLATES: dict[str, list[dict[str, Any]]] = {
    "ctxkeep": [
        {"type": "session", "v": 1, "id": "s", "context_window": 200000},
        {"type": "message", "seq": 1, "role": "user", "text": "Do not touch api.py"},
        {"type": "tool/call", "seq": 2, "call_id": "c", "name": "bash", "input": {"c": "ls"}},
        {"type": "tool/result", "seq": 3, "call_id": "c", "text": "a.py", "is_error": False},
        {"type": "usage", "seq": 4, "context_tokens": 900, "context_window": 1000},
        {"type": "compaction/start", "seq": 5, "compaction_id": "k", "trigger": "auto"},
        {
            "type": "compaction/end",
            "seq": 6,
            "compaction_id": "k",
            "status": "summarised",
            "summary": "s",
            "shadowed_seqs": [[1, 4]],
            "tokens_after": 10,
        },
        {"type": "prune", "seq": 7, "pruned_seqs": [[3, 3]], "tokens_pruned": 5},
    ],
    "claude-code": [
        {
            "type": "user",
            "uuid": "u1",
            "parentUuid": None,
            "sessionId": "s",
            "message": {"role": "user", "content": "Never push to main"},
        },
        {
            "type": "assistant",
            "uuid": "a1",
            "parentUuid": "u1",
            "sessionId": "s",
            "message": {
                "id": "msg_1",
                "role": "assistant",
                "content": [{"type": "tool_use", "id": "t1", "name": "Bash", "input": {}}],
                "usage": {"input_tokens": 5, "cache_read_input_tokens": 7},
            },
        },
        {
            "type": "user",
            "uuid": "u2",
            "parentUuid": "a1",
            "sessionId": "s",
            "message": {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "ok"}],
            },
            "toolUseResult": {"stdout": "ok"},
        },
        {
            "type": "system",
            "subtype": "compact_boundary",
            "uuid": "b1",
            "parentUuid": None,
            "logicalParentUuid": "u2",
            "sessionId": "s",
            "compactMetadata": {"trigger": "auto", "preTokens": 9000},
        },
        {
            "type": "user",
            "uuid": "u3",
            "parentUuid": "b1",
            "sessionId": "s",
            "isCompactSummary": True,
            "message": {"role": "user", "content": "This session is being continued"},
        },
        {
            "type": "system",
            "subtype": "microcompact_boundary",
            "uuid": "m1",
            "parentUuid": "u3",
            "sessionId": "s",
            "microcompactMetadata": {"trigger": "auto", "compactedToolIds": ["t1"]},
        },
        {"type": "progress", "uuid": "p1", "sessionId": "s", "data": {"type": "hook_progress"}},
        {"type": "queue-operation", "operation": "enqueue", "content": "also fix b.py"},
    ],
    "codex": [
        {"timestamp": "t", "type": "session_meta", "payload": {"id": "s", "cwd": "/w"}},
        {
            "timestamp": "t",
            "type": "response_item",
            "payload": {
                "type": "message",
                "role": "user",
                "content": [{"type": "input_text", "text": "Only edit src/"}],
            },
        },
        {
            "timestamp": "t",
            "type": "response_item",
            "payload": {
                "type": "function_call",
                "name": "shell",
                "arguments": "{}",
                "call_id": "c",
            },
        },
        {
            "timestamp": "t",
            "type": "response_item",
            "payload": {"type": "function_call_output", "call_id": "c", "output": "ok"},
        },
        {
            "timestamp": "t",
            "type": "event_msg",
            "payload": {
                "type": "token_count",
                "info": {"last_token_usage": {"input_tokens": 9}, "model_context_window": 99},
            },
        },
        {
            "timestamp": "t",
            "type": "compacted",
            "payload": {
                "message": "summary",
                "replacement_history": [
                    {"type": "compaction", "encrypted_content": "x"},
                    {"type": "message", "role": "user", "content": []},
                ],
            },
        },
        {"timestamp": "t", "type": "event_msg", "payload": {"type": "context_compacted"}},
    ],
    "openhands": [
        {"id": 1, "source": "user", "action": "message", "args": {"content": "Do not X"}},
        {
            "id": 2,
            "source": "agent",
            "action": "run",
            "args": {"command": "ls"},
            "tool_call_metadata": {"tool_call_id": "c", "function_name": "bash"},
        },
        {
            "id": 3,
            "source": "agent",
            "observation": "run",
            "content": "a.py",
            "cause": 2,
            "extras": {"metadata": {"exit_code": 1}},
        },
        {
            "id": 4,
            "source": "agent",
            "action": "condensation",
            "args": {
                "forgotten_event_ids": [1, 2],
                "forgotten_events_start_id": 1,
                "forgotten_events_end_id": 3,
                "summary": "s",
                "summary_offset": 1,
            },
        },
    ],
    "anthropic": [
        {"system": "be careful", "messages": [{"role": "user", "content": "Keep 3.11"}]},
        {
            "role": "assistant",
            "content": [
                {"type": "thinking", "thinking": "hm"},
                {"type": "tool_use", "id": "t", "name": "bash", "input": {}},
            ],
        },
        {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "t", "content": [{"type": "text"}]}],
        },
        {"role": "assistant", "content": [{"type": "compaction", "content": "summary"}]},
        {"type": "compaction", "content": "bare summary"},
    ],
    "openai": [
        {"role": "system", "content": "sys"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [{"id": "c", "type": "function", "function": {"name": "f"}}],
        },
        {"role": "tool", "tool_call_id": "c", "content": [{"type": "text", "text": "r"}]},
        {"role": "user", "content": "I spoke to you previously about a number of things."},
    ],
}

json_scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**63 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12)
)
json_values = st.recursive(
    json_scalars,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=8,
)


def shaped_like(template: Any) -> st.SearchStrategy[Any]:
    """Values with ``template``'s shape where any field, at any depth, may be any JSON."""
    if isinstance(template, dict):
        shaped = st.fixed_dictionaries({k: shaped_like(v) for k, v in template.items()})
        return shaped | json_values if not template else shaped
    if isinstance(template, list) and template:
        return st.lists(st.one_of(*(shaped_like(v) for v in template)), max_size=3) | json_values
    return st.just(template) | json_values


format_records = st.one_of(*(shaped_like(t) for ts in TEMPLATES.values() for t in ts))


@pytest.fixture(scope="module")
def workdir() -> Iterator[Path]:
    # Hypothesis runs many examples per test: one folder, rewritten per example.
    with tempfile.TemporaryDirectory(prefix="ctxkeep-props-") as name:
        yield Path(name)


def _feed(path: Path, data: bytes, summary_index: int | None = None) -> None:
    path.write_bytes(data)
    head = read_head(path)
    options = ReadOptions(summary_index=summary_index)
    for adapter in ADAPTERS:
        for step in ("sniff", "read"):
            try:
                if step == "sniff":
                    adapter.sniff(head)
                else:
                    session = adapter.read(path, str(path), options)
                    assert all(p.line >= 0 and p.reason for p in session.problems)
            except AssertionError:
                raise
            except Exception as exc:
                raise AssertionError(f"{adapter.name}.{step} raised {exc!r}") from exc


@SETTINGS
@given(data=st.binary(max_size=2048))
def test_arbitrary_bytes(workdir: Path, data: bytes) -> None:
    _feed(workdir / "bytes.jsonl", data)


@SETTINGS
@given(lines=st.lists(json_values, max_size=8))
def test_arbitrary_json_lines(workdir: Path, lines: list[Any]) -> None:
    _feed(workdir / "lines.jsonl", b"".join(json.dumps(v).encode() + b"\n" for v in lines))


@SETTINGS
@given(
    records=st.lists(format_records, min_size=1, max_size=10),
    layout=st.sampled_from(["jsonl", "array", "pretty", "messages"]),
    summary_index=st.none() | st.integers(min_value=0, max_value=12),
)
def test_records_shaped_like_each_format_with_random_field_types(
    workdir: Path, records: list[Any], layout: str, summary_index: int | None
) -> None:
    if layout == "jsonl":
        data = b"".join(json.dumps(r).encode() + b"\n" for r in records)
    elif layout == "array":
        data = json.dumps(records).encode()
    elif layout == "pretty":
        data = json.dumps(records, indent=2).encode()
    else:
        data = json.dumps({"system": records[0], "messages": records[1:]}, indent=1).encode()
    _feed(workdir / f"shaped.{layout}", data, summary_index)


@SETTINGS
@given(
    records=st.lists(format_records, min_size=1, max_size=6),
    cut=st.integers(min_value=1, max_value=400),
)
def test_cut_off_documents(workdir: Path, records: list[Any], cut: int) -> None:
    data = json.dumps(records, indent=2).encode()
    _feed(workdir / "cut.json", data[: max(1, len(data) - cut)])
