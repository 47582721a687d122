from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ctxkeep.base.messages import (
    dialect_of,
    message_role,
    message_text,
    tool_call_ids,
    tool_result_ids,
)

OPENAI_CALL = {
    "role": "assistant",
    "content": None,
    "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": "read", "arguments": '{"p":"a.py"}'}}
    ],
}
OPENAI_RESULT = {"role": "tool", "tool_call_id": "c1", "content": "print(1)"}
ANTHROPIC_CALL = {
    "role": "assistant",
    "content": [
        {"type": "text", "text": "Reading."},
        {"type": "tool_use", "id": "t1", "name": "Read", "input": {"path": "src/a.py"}},
    ],
}
ANTHROPIC_RESULT = {
    "role": "user",
    "content": [
        {"type": "tool_result", "tool_use_id": "t1", "content": [{"type": "text", "text": "x=1"}]}
    ],
}
NATIVE_CALL = {
    "type": "tool/call",
    "seq": 3,
    "call_id": "k1",
    "name": "bash",
    "input": {"cmd": "ls"},
}
NATIVE_RESULT = {"type": "tool/result", "seq": 4, "call_id": "k1", "text": "a.py"}


@pytest.mark.parametrize(
    ("message", "dialect", "role", "calls", "results", "text"),
    [
        (OPENAI_CALL, "openai", "assistant", ("c1",), (), 'read {"p":"a.py"}'),
        (OPENAI_RESULT, "openai", "tool", (), ("c1",), "print(1)"),
        (
            ANTHROPIC_CALL,
            "anthropic",
            "assistant",
            ("t1",),
            (),
            'Reading.\nRead {"path":"src/a.py"}',
        ),
        (ANTHROPIC_RESULT, "anthropic", "user", (), ("t1",), "x=1"),
        (NATIVE_CALL, "ctxkeep", "assistant", ("k1",), (), 'bash {"cmd":"ls"}'),
        (NATIVE_RESULT, "ctxkeep", "tool", (), ("k1",), "a.py"),
        ({"role": "user", "content": "hi"}, "openai", "user", (), (), "hi"),
    ],
)
def test_dialects_share_one_reading(
    message: dict[str, Any],
    dialect: str,
    role: str,
    calls: tuple[str, ...],
    results: tuple[str, ...],
    text: str,
) -> None:
    assert dialect_of(message) == dialect
    assert message_role(message) == role
    assert tool_call_ids(message) == calls
    assert tool_result_ids(message) == results
    assert message_text(message) == text


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=10), children, max_size=4)
    ),
    max_leaves=20,
)


@given(json_values)
def test_never_raises_on_any_json(value: Any) -> None:
    dialect_of(value)
    message_role(value)
    message_text(value)
    tool_call_ids(value)
    tool_result_ids(value)


def test_tool_calls_and_results_carry_name_arguments_text_and_error() -> None:
    from ctxkeep.base.messages import ToolCall, ToolResult, tool_calls, tool_results

    assert tool_calls(OPENAI_CALL) == (ToolCall("c1", "read", '{"p":"a.py"}'),)
    assert tool_calls(ANTHROPIC_CALL) == (ToolCall("t1", "Read", '{"path":"src/a.py"}'),)
    assert tool_calls(NATIVE_CALL) == (ToolCall("k1", "bash", '{"cmd":"ls"}'),)
    assert tool_results(OPENAI_RESULT) == (ToolResult("c1", "print(1)"),)
    failed = {
        "role": "user",
        "content": [
            {"type": "tool_result", "tool_use_id": "t9", "content": "no", "is_error": True}
        ],
    }
    assert tool_results(failed) == (ToolResult("t9", "no", is_error=True),)
    # A call whose id is not a string is still a call; only the id is unknown.
    assert tool_calls({"role": "assistant", "tool_calls": [{"id": 5, "function": {}}]}) == (
        ToolCall(None, None, ""),
    )


def test_message_prose_leaves_out_tool_traffic_and_compaction_blocks() -> None:
    from ctxkeep.base.messages import compaction_summaries, message_prose

    assert message_prose(ANTHROPIC_CALL) == "Reading."
    assert message_prose(ANTHROPIC_RESULT) == ""
    assert message_prose(OPENAI_CALL) == ""
    summary = {
        "role": "assistant",
        "content": [{"type": "compaction", "content": "We fixed the parser."}],
    }
    assert message_prose(summary) == ""
    assert compaction_summaries(summary) == ("We fixed the parser.",)
    assert compaction_summaries({"type": "compaction", "content": "bare"}) == ("bare",)


def test_deeply_nested_tool_results_do_not_exhaust_the_stack() -> None:
    message: dict[str, Any] = {"role": "user", "content": []}
    inner: list[Any] = message["content"]
    for _ in range(600):  # msgspec decodes this depth; unbounded recursion here did not
        block: dict[str, Any] = {"type": "tool_result", "tool_use_id": "x", "content": []}
        inner.append(block)
        inner = block["content"]
    inner.append({"type": "text", "text": "deep"})
    assert message_text(message) == ""  # text past the nesting limit is not read
    assert tool_result_ids(message) == ("x",)
