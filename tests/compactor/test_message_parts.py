"""message_parts (the compactor's one-pass reader) equals the separate readers."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ctxkeep.base.messages import (
    dialect_of,
    message_parts,
    message_role,
    message_text,
    tool_call_ids,
    tool_result_ids,
)

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=10),
    lambda children: (
        st.lists(children, max_size=3)
        | st.dictionaries(
            st.sampled_from(
                ["role", "content", "type", "seq", "tool_calls", "tool_call_id", "text", "id"]
            )
            | st.text(max_size=5),
            children,
            max_size=5,
        )
    ),
    max_leaves=15,
)
tool_call_messages = st.fixed_dictionaries(
    {
        "role": st.sampled_from(["assistant", "tool", "user"]),
        "content": st.none() | st.text(max_size=5) | st.lists(json_values, max_size=2),
        "tool_calls": st.lists(
            st.fixed_dictionaries(
                {"id": st.text(max_size=3) | st.integers() | st.none()},
                optional={"function": json_values, "type": st.just("function")},
            )
            | json_values,
            max_size=3,
        )
        | json_values,
    },
    optional={"tool_call_id": st.text(max_size=3)},
)
messages = st.one_of(
    json_values,
    tool_call_messages,
    st.fixed_dictionaries(
        {
            "role": st.sampled_from(["user", "assistant", "tool", "system", 3]),
            "content": st.none() | st.text(max_size=10) | st.lists(json_values, max_size=2),
        },
        optional={"tool_call_id": st.text(max_size=3) | st.integers(), "type": st.text(max_size=3)},
    ),
)


def _separately(message: Any) -> tuple[Any, ...]:
    return (
        dialect_of(message),
        message_role(message),
        message_text(message),
        tool_call_ids(message),
        tool_result_ids(message),
    )


@given(messages)
def test_message_parts_equals_the_separate_readers(message: Any) -> None:
    parts = message_parts(message)
    got = (parts.dialect, parts.role, parts.text, parts.call_ids, parts.result_ids)
    assert got == _separately(message)


@pytest.mark.parametrize(
    "message",
    [
        {"role": "user", "content": "hi"},
        {"role": "tool", "tool_call_id": "c1", "content": "out"},
        {"role": "tool", "tool_call_id": 5, "content": "out"},
        {"content": "no role"},
        {"role": "user", "content": ""},
    ],
)
def test_fast_shapes(message: Any) -> None:
    parts = message_parts(message)
    assert (parts.dialect, parts.role, parts.text, parts.call_ids, parts.result_ids) == (
        _separately(message)
    )


names_or_not = st.text(max_size=6) | st.none() | st.integers() | st.just(" ")
plain_call_turns = st.fixed_dictionaries(
    {
        "role": st.sampled_from(["assistant", "user"]) | st.none(),
        "content": st.none() | st.just("") | st.text(max_size=8),
        "tool_calls": st.lists(
            st.fixed_dictionaries(
                {
                    "function": st.fixed_dictionaries(
                        {},
                        optional={"name": names_or_not, "arguments": names_or_not | json_values},
                    )
                    | json_values
                },
                optional={
                    "id": st.text(max_size=3) | st.integers() | st.none(),
                    "type": st.just("function"),
                },
            )
            | json_values,
            max_size=4,
        ),
    }
)


@given(plain_call_turns)
def test_assistant_turns_calling_tools_read_as_the_separate_readers(message: Any) -> None:
    # The one-pass reading of {"function": {"name": str, "arguments": str}} calls, and the
    # fallback for every other shape of call (missing, non-string or non-dict parts).
    parts = message_parts(message)
    got = (parts.dialect, parts.role, parts.text, parts.call_ids, parts.result_ids)
    assert got == _separately(message)


def test_plain_calls_with_empty_parts_join_like_message_text() -> None:
    message = {
        "role": "assistant",
        "content": "",
        "tool_calls": [
            {"id": "a", "function": {"name": "", "arguments": ""}},
            {"id": 7, "function": {"name": "run", "arguments": " {} "}},
            {"function": {"name": "ls"}},
        ],
    }
    parts = message_parts(message)
    assert parts.text == message_text(message) == "run  {}\nls"
    assert parts.call_ids == tool_call_ids(message) == ("a",)
