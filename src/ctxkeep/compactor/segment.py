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
from dataclasses import dataclass
from typing import Any

from ctxkeep.messages import Dialect, message_parts
from ctxkeep.tokens import count_tokens

__all__ = ["Segment", "Unit", "group_units", "segment_messages"]


@dataclass(frozen=True, slots=True)
class Segment:
    """One message reduced to what the compactor needs."""

    index: int
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


@dataclass(frozen=True, slots=True)
class Unit:
    """Messages kept or dropped together; ``broken`` when its tool pairing is incomplete."""

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
    sha256 = hashlib.sha256
    for i, message in enumerate(messages):
        parts = message_parts(message)
        text = parts.text
        raw = text.encode("utf-8", "surrogatepass")
        kind = message.get("type") if parts.dialect == "ctxkeep" else None
        out.append(
            Segment(
                index=i,
                dialect=parts.dialect,
                role=parts.role,
                text=text,
                bytes=len(raw),
                tokens=count_tokens(text) if exact_tokens else (len(raw) + 3) // 4,
                hash=sha256(raw).hexdigest(),
                calls=parts.call_ids,
                results=parts.result_ids,
                is_native_call=kind == "tool/call",
                is_native_message=kind == "message",
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
    turn_anchor: int | None = None
    for seg in segments:
        if seg.is_native_call:
            if turn_anchor is None:
                turn_anchor = seg.index
            else:
                union(turn_anchor, seg.index)
        elif seg.is_native_message:
            turn_anchor = None
        for cid in seg.calls:
            open_calls[cid] = seg.index
        for rid in seg.results:
            caller = open_calls.pop(rid, None)
            if caller is None or caller == seg.index:
                orphan_result.add(seg.index)
            else:
                union(caller, seg.index)
    unanswered = set(open_calls.values())

    groups: dict[int, list[int]] = {}
    for i in range(n):
        groups.setdefault(find(i), []).append(i)
    units: list[Unit] = []
    for root in sorted(groups):
        members = tuple(groups[root])
        has_orphan = any(i in orphan_result for i in members)
        waiting = [i for i in members if i in unanswered]
        pending = not has_orphan and bool(waiting) and all(i == n - 1 for i in waiting)
        broken = has_orphan or bool(waiting)
        units.append(Unit(members, broken, pending))
    return units
