"""Where a message list can be cut: round-group boundaries.

A harness that compacts keeps a recent tail and replaces what comes before it. The cut is
safe only where it separates no tool call from its result: otherwise the tail starts with
a result whose call is gone (an orphan, which every API rejects) or the head ends with a
call that will never be answered. The narrow rule "cut only before a user message that
holds no tool result" finds almost nothing in an agent session, where nearly every user
message *is* a tool result (the incident behind issue 5: 2 safe points in 156 messages,
one of them index 0). Any boundary between API round groups is just as safe.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ctxkeep.base.messages import tool_call_ids, tool_result_ids

__all__ = ["split_points"]


def split_points(messages: Sequence[Any]) -> tuple[int, ...]:
    """The indices ``i`` (``0 < i < len(messages)``) where cutting before ``messages[i]``
    separates no tool call from its result.

    A cut at ``i`` keeps ``messages[i:]`` as the tail. It is unsafe when a call made in
    ``messages[:i]`` is answered in ``messages[i:]``. Calls never answered anywhere
    (a call still pending at the end) do not forbid a cut: they leave no orphan result.
    Where a broken list answers an id twice, each answer binds it to its call.
    """
    called_at: dict[str, int] = {}
    # blocked[i] > 0: a call at or before i-1 is answered at or after i
    delta = [0] * (len(messages) + 1)
    for index, message in enumerate(messages):
        for call_id in tool_result_ids(message):
            start = called_at.get(call_id)
            if start is not None and start < index:
                delta[start + 1] += 1
                delta[index + 1] -= 1
        for call_id in tool_call_ids(message):
            called_at[call_id] = index
    points: list[int] = []
    open_pairs = 0
    for i in range(1, len(messages)):
        open_pairs += delta[i]
        if open_pairs == 0:
            points.append(i)
    return tuple(points)
