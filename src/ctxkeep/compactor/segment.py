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
from itertools import compress
from typing import Any, NamedTuple

from ctxkeep.base.messages import Dialect, message_parts
from ctxkeep.base.tokens import count_tokens

__all__ = ["Segment", "Segments", "Unit", "group_units", "read_segments", "unit_of_each"]


class Segment(NamedTuple):
    """One message reduced to what the compactor needs (``Segments[i]``: the compactor
    keeps them as columns and builds one only for a message the summary quotes)."""

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


@dataclass(frozen=True, slots=True)
class Segments:
    """Every message reduced to what the compactor needs, a column per field.

    Columns, not an object per message: the compactor reads each field of all messages
    at once (sizes, hashes, roles) with map() and compress(), which run in C; one
    :class:`Segment` is built only for the few messages the summary quotes.
    """

    dialects: Sequence[Dialect]
    roles: Sequence[str | None]
    texts: Sequence[str]
    sizes: Sequence[int]
    """UTF-8 bytes of each text."""
    tokens: Sequence[int]
    hashes: Sequence[str]
    calls: Sequence[tuple[str, ...]]
    results: Sequence[tuple[str, ...]]
    native_calls: Sequence[bool]
    native_messages: Sequence[bool]

    def __len__(self) -> int:
        return len(self.texts)

    def __getitem__(self, i: int) -> Segment:
        return Segment(
            i, self.dialects[i], self.roles[i], self.texts[i], self.sizes[i], self.tokens[i],
            self.hashes[i], self.calls[i], self.results[i], self.native_calls[i],
            self.native_messages[i],
        )  # fmt: skip


def read_segments(messages: Sequence[Any], *, exact_tokens: bool = True) -> Segments:
    """Text, UTF-8 size, token count and SHA-256 of every message, in order.

    ``exact_tokens`` counts o200k tokens; without it tokens are the labelled estimate
    (bytes / 4), which is what a bytes-only budget needs and ~10x cheaper.
    """
    if not messages:
        return Segments((), (), (), (), (), (), (), (), (), ())
    # Column by column with map() and zip(): the per-message work stays in C (10,000
    # messages: ~10 ms instead of ~30 ms for a loop building a record per message).
    dialects, roles, texts, calls, results = zip(*map(message_parts, messages), strict=True)
    raws = [text.encode("utf-8", "surrogatepass") for text in texts]
    sizes = list(map(len, raws))
    tokens = list(map(count_tokens, texts)) if exact_tokens else [(size + 3) // 4 for size in sizes]
    hashes = [hashlib.sha256(raw).hexdigest() for raw in raws]
    if "ctxkeep" in dialects:
        kinds = [
            message.get("type") if dialect == "ctxkeep" else None
            for message, dialect in zip(messages, dialects, strict=True)
        ]
        native_calls = [kind == "tool/call" for kind in kinds]
        native_messages = [kind == "message" for kind in kinds]
    else:
        native_calls = native_messages = [False] * len(raws)
    return Segments(
        dialects, roles, texts, sizes, tokens, hashes, calls, results, native_calls,
        native_messages,
    )  # fmt: skip


def group_units(segments: Segments) -> list[Unit]:
    """The tool units (union-find), in order of their first message: every message that
    makes or answers a tool call is in exactly one. Every other message is a unit of its
    own, well-formed, and not listed (most of a session: no object is built for them).
    """
    n = len(segments)
    calls, results, native_calls = segments.calls, segments.results, segments.native_calls
    involved = list(compress(range(n), map(any, zip(calls, results, native_calls, strict=True))))
    if not involved:
        return []
    parent = {i: i for i in involved}

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
    native_messages = segments.native_messages
    # A ctxkeep "message" event ends a turn of tool/call events: walk those too.
    walk = (
        sorted({*involved, *compress(range(n), native_messages)})
        if any(native_messages)
        else involved
    )
    for i in walk:
        if native_calls[i]:
            if turn_anchor is None:
                turn_anchor = i
            else:
                union(turn_anchor, i)
        elif native_messages[i]:
            turn_anchor = None
        for cid in calls[i]:
            open_calls[cid] = i
        for rid in results[i]:
            caller = open_calls.pop(rid, None)
            if caller is None or caller == i:
                orphan_result.add(i)
            elif parent[caller] == caller and parent[i] == i:
                parent[i] = caller  # the common case: union of two roots
            else:
                union(caller, i)
    unanswered = set(open_calls.values())

    groups: dict[int, list[int]] = {}
    for i in involved:  # in order of position, so each group's members are sorted
        root = parent[i]
        if parent[root] != root:
            root = find(root)
        groups.setdefault(root, []).append(i)
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


def unit_of_each(units: Sequence[Unit], n: int) -> list[Unit | None]:
    """The tool unit of each of ``n`` messages, None for a message that is a unit of its
    own (:func:`group_units` lists only tool units)."""
    unit_of: list[Unit | None] = [None] * n
    for unit in units:
        for i in unit.members:
            unit_of[i] = unit
    return unit_of
