from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ctxkeep.messages import (
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
