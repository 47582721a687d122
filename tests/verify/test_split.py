from __future__ import annotations

from typing import Any

from hypothesis import given

from ctxkeep.base.messages import tool_call_ids, tool_result_ids
from ctxkeep.verify import sequence_problems, split_points
from tests.verify.sessions import (
    agent_sessions,
    incident_session,
    narrow_split_points,
    openai_session,
)


def brute_force_points(messages: list[Any]) -> list[int]:
    """The definition, spelt out: no call in the head is answered in the tail."""
    points = []
    for cut in range(1, len(messages)):
        head_calls = {c for m in messages[:cut] for c in tool_call_ids(m)}
        tail_results = {r for m in messages[cut:] for r in tool_result_ids(m)}
        if not head_calls & tail_results:
            points.append(cut)
    return points


@given(agent_sessions())
def test_split_points_are_exactly_the_cuts_that_leave_no_orphan(messages: list[Any]) -> None:
    points = split_points(messages)
    assert list(points) == brute_force_points(messages)
    for cut in points:
        tail = [messages[0], {"role": "user", "content": "notice"}, *messages[cut:]]
        assert sequence_problems(tail, "openai") == ()


def test_round_groups_find_far_more_cuts_than_the_narrow_rule() -> None:
    session = incident_session()
    points = split_points(session)
    assert len([p for p in narrow_split_points(session) if p > 0]) == 1
    assert len(points) == 79  # before every round group, and before the user's 2nd turn
    assert 150 in points
    assert all(session[p]["role"] == "assistant" for p in points if p != 150)


def test_a_pending_call_does_not_forbid_cuts() -> None:
    session = openai_session(rounds=2)
    pending = {
        "role": "assistant",
        "content": None,
        "tool_calls": [{"id": "late", "function": {"name": "f"}}],
    }
    assert split_points([*session, pending]) == (*split_points(session), len(session))


def test_no_cut_inside_a_parallel_call_group() -> None:
    messages: list[Any] = [
        {"role": "user", "content": "go"},
        {"role": "assistant", "tool_calls": [{"id": "a"}, {"id": "b"}]},
        {"role": "tool", "tool_call_id": "a", "content": "1"},
        {"role": "tool", "tool_call_id": "b", "content": "2"},
        {"role": "assistant", "content": "done"},
    ]
    assert split_points(messages) == (1, 4)
    assert split_points([]) == ()
    assert split_points([{"role": "user", "content": "x"}]) == ()
