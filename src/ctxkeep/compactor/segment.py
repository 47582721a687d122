"""Step 1 and 3 of the compactor: each message as text and size, grouped into tool units.

A tool unit is what must be kept or dropped whole: a tool call with its result, and all
calls of one assistant turn with all their results (an OpenAI or Anthropic assistant
message carries the turn's calls together; in ctxkeep events, consecutive ``tool/call``
events are one turn). A unit whose pairing is broken in the input (a result without a
call, a call never answered) cannot be sent to any API and is dropped, except calls in
the last message, which are still waiting for their results.
"""

from __future__ import annotations

import functools
import hashlib
import operator
from collections.abc import Sequence
from typing import Any, NamedTuple

from ctxkeep.messages import Dialect, message_parts
from ctxkeep.tokens import count_tokens

__all__ = ["Segment", "Unit", "group_units", "segment_messages"]


class Segment(NamedTuple):
    """One message reduced to what the compactor needs.

    A named tuple, not a dataclass: one is built per message of sessions with 100,000
    messages, and a tuple is built three times faster than a frozen dataclass.
    """

    position: int
    dialect: Dialect
    role: str | None
    text: str
    bytes: int
    tokens: int
    hash: str
    calls: tuple[str, ...]
    results: tuple[str, ...]
    is_native_call: bool
    is_native_message: bool


class Unit(NamedTuple):
    """Messages kept or dropped together; ``broken`` when its tool pairing is incomplete.

    A named tuple for the same reason as :class:`Segment`.
    """

    members: tuple[int, ...]
    broken: bool
    pending: bool
    """Broken only by unanswered calls in the last message: kept waiting, not dropped."""

    @property
    def first(self) -> int:
        return self.members[0]

    @property
    def last(self) -> int:
        return self.members[-1]


def segment_messages(messages: Sequence[Any], *, exact_tokens: bool = True) -> list[Segment]:
    """Text, UTF-8 size, token count and SHA-256 of every message, in order.

    ``exact_tokens`` counts o200k tokens; without it tokens are the labelled estimate
    (bytes / 4), which is what a bytes-only budget needs and ~10x cheaper.
    """
    if not messages:
        return []
    # Column by column with map() and zip(): the per-message work stays in C (10,000
    # messages: ~12 ms instead of ~30 ms for a loop building each Segment in turn).
    dialects, roles, texts, call_ids, result_ids = zip(*map(message_parts, messages), strict=True)
    raws = [text.encode("utf-8", "surrogatepass") for text in texts]
    sizes = list(map(len, raws))
    tokens = list(map(count_tokens, texts)) if exact_tokens else [(size + 3) // 4 for size in sizes]
    hashes = list(map(_hexdigest, map(hashlib.sha256, raws)))
    if "ctxkeep" in dialects:
        kinds = [
            message.get("type") if dialect == "ctxkeep" else None
            for message, dialect in zip(messages, dialects, strict=True)
        ]
        native_call = [kind == "tool/call" for kind in kinds]
        native_message = [kind == "message" for kind in kinds]
    else:
        native_call = native_message = [False] * len(raws)
    return list(
        map(
            _new_segment,
            zip(
                range(len(raws)),
                dialects,
                roles,
                texts,
                sizes,
                tokens,
                hashes,
                call_ids,
                result_ids,
                native_call,
                native_message,
                strict=True,
            ),
        )
    )


_hexdigest = operator.methodcaller("hexdigest")
_new_segment = functools.partial(tuple.__new__, Segment)
"""``Segment(*fields)`` without the named tuple's Python-level ``__new__``."""


def group_units(segments: Sequence[Segment]) -> list[Unit]:
    """The tool units (union-find), in order of their first message: every message that
    makes or answers a tool call is in exactly one. Every other message is a unit of its
    own, well-formed, and not listed (most of a session: no object is built for them).
    """
    n = len(segments)
    involved = [seg for seg in segments if seg.calls or seg.results or seg.is_native_call]
    if not involved:
        return []
    parent = {seg.position: seg.position for seg in involved}

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    def union(i: int, j: int) -> None:
        a, b = find(i), find(j)
        if a != b:
            parent[max(a, b)] = min(a, b)

    open_calls: dict[str, int] = {}
    orphan_result: set[int] = set()
    turn_anchor: int | None = None
    # A ctxkeep "message" event ends a turn of tool/call events: walk those too.
    walk = (
        [seg for seg in segments if seg.calls or seg.results or seg.is_native_call
         or seg.is_native_message]
        if any(seg.is_native_message for seg in segments)
        else involved
    )  # fmt: skip
    for seg in walk:
        if seg.is_native_call:
            if turn_anchor is None:
                turn_anchor = seg.position
            else:
                union(turn_anchor, seg.position)
        elif seg.is_native_message:
            turn_anchor = None
        for cid in seg.calls:
            open_calls[cid] = seg.position
        for rid in seg.results:
            caller = open_calls.pop(rid, None)
            if caller is None or caller == seg.position:
                orphan_result.add(seg.position)
            elif parent[caller] == caller and parent[seg.position] == seg.position:
                parent[seg.position] = caller  # the common case: union of two roots
            else:
                union(caller, seg.position)
    unanswered = set(open_calls.values())

    groups: dict[int, list[int]] = {}
    for seg in involved:  # in order of position, so each group's members are sorted
        root = parent[seg.position]
        if parent[root] != root:
            root = find(root)
        groups.setdefault(root, []).append(seg.position)
    units: list[Unit] = []
    for group in groups.values():  # each group was opened by its first member: in order
        members = tuple(group)
        if not orphan_result.isdisjoint(members) or not unanswered.isdisjoint(members):
            has_orphan = not orphan_result.isdisjoint(members)
            waiting = [m for m in members if m in unanswered]
            pending = not has_orphan and bool(waiting) and all(m == n - 1 for m in waiting)
            units.append(Unit(members, True, pending))
        else:
            units.append(Unit(members, False, False))
    return units
