"""Step 1 and 3 of the compactor: each message as text and size, grouped into tool units.

A tool unit is what must be kept or dropped whole: a tool call with its result, and all
calls of one assistant turn with all their results (an OpenAI or Anthropic assistant
message carries the turn's calls together; in ctxkeep events, consecutive ``tool/call``
events are one turn). A unit whose pairing is broken in the input (a result without a
call, a call never answered) cannot be sent to any API and is dropped, except calls in
the last message, which are still waiting for their results.
"""

from __future__ import annotations

import hashlib
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
    out: list[Segment] = []
    append = out.append
    sha256 = hashlib.sha256
    for i, message in enumerate(messages):
        dialect, role, text, call_ids, result_ids = message_parts(message)
        raw = text.encode("utf-8", "surrogatepass")
        kind = message.get("type") if dialect == "ctxkeep" else None
        append(
            Segment(
                i,
                dialect,
                role,
                text,
                len(raw),
                count_tokens(text) if exact_tokens else (len(raw) + 3) // 4,
                sha256(raw).hexdigest(),
                call_ids,
                result_ids,
                kind == "tool/call",
                kind == "message",
            )
        )
    return out


def group_units(segments: Sequence[Segment]) -> list[Unit]:
    """Group messages into tool units (union-find), in order of their first message."""
    n = len(segments)
    parent = list(range(n))

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
    involved: set[int] = set()
    turn_anchor: int | None = None
    for seg in segments:
        if seg.is_native_call:
            involved.add(seg.position)
            if turn_anchor is None:
                turn_anchor = seg.position
            else:
                union(turn_anchor, seg.position)
        elif seg.is_native_message:
            turn_anchor = None
        if seg.calls:
            involved.add(seg.position)
            for cid in seg.calls:
                open_calls[cid] = seg.position
        if seg.results:
            involved.add(seg.position)
            for rid in seg.results:
                caller = open_calls.pop(rid, None)
                if caller is None or caller == seg.position:
                    orphan_result.add(seg.position)
                else:
                    union(caller, seg.position)
    if not involved:
        return [Unit((i,), False, False) for i in range(n)]
    unanswered = set(open_calls.values())

    groups: dict[int, list[int]] = {}
    for i in sorted(involved):
        groups.setdefault(find(i), []).append(i)
    units: list[Unit] = []
    for i in range(n):
        if i not in involved:
            units.append(Unit((i,), False, False))
            continue
        group = groups.get(i)
        if group is None:  # i belongs to a unit that started earlier
            continue
        members = tuple(group)
        has_orphan = any(m in orphan_result for m in members)
        waiting = [m for m in members if m in unanswered]
        pending = not has_orphan and bool(waiting) and all(m == n - 1 for m in waiting)
        units.append(Unit(members, has_orphan or bool(waiting), pending))
    return units
