"""Measuring a message list, and telling what a compaction kept, dropped and added.

The guard never takes a compactor's word for what it did: it counts messages and tokens
before and after, and matches the messages of the result against those of the input by
content (a message kept verbatim is the same message; anything else is new).
"""

from __future__ import annotations

import hashlib
from collections import defaultdict, deque
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import msgspec

from ctxkeep.base.messages import message_text
from ctxkeep.base.tokens import count_tokens

__all__ = ["MessageDiff", "Size", "compare_messages", "fingerprint", "measure"]

_encode = msgspec.json.Encoder(order="sorted").encode


@dataclass(frozen=True, slots=True)
class Size:
    """How big a message list is: messages and o200k tokens of their text."""

    messages: int
    tokens: int

    def __str__(self) -> str:
        return f"{self.messages} messages, {self.tokens} tokens"

    def smaller_than(self, other: Size) -> bool:
        """Strictly fewer messages *and* fewer tokens: the only meaning of "compacted"."""
        return self.messages < other.messages and self.tokens < other.tokens


def measure(messages: Sequence[Any], counts: dict[str, int] | None = None) -> Size:
    """Count the messages and the tokens of their text (tool calls and results included).

    ``counts`` caches token counts by text across calls: a result mostly holds messages of
    its input, whose text need not be counted twice.
    """
    cache = {} if counts is None else counts
    total = 0
    for message in messages:
        text = message_text(message)
        tokens = cache.get(text)
        if tokens is None:
            tokens = cache[text] = count_tokens(text)
        total += tokens
    return Size(len(messages), total)


def fingerprint(message: Any) -> str:
    """A content hash of one message: equal messages, equal fingerprints."""
    try:
        raw = _encode(message)
    except (TypeError, ValueError, OverflowError, RecursionError):
        raw = repr(message).encode("utf-8", "surrogatepass")
    return hashlib.sha256(raw).hexdigest()


@dataclass(frozen=True, slots=True)
class MessageDiff:
    """Which input messages a result kept verbatim, which it dropped, which it added.

    ``kept`` maps output index -> input index; ``dropped`` are input indices absent from
    the output; ``added`` are output indices that match no input message (a summary, a
    notice, a rewritten message).
    """

    kept: dict[int, int]
    dropped: tuple[int, ...]
    added: tuple[int, ...]


def compare_messages(before: Sequence[Any], after: Sequence[Any]) -> MessageDiff:
    """Match ``after`` against ``before`` by content, each input message used at most once
    (equal messages are matched in order)."""
    positions: dict[str, deque[int]] = defaultdict(deque)
    for index, message in enumerate(before):
        positions[fingerprint(message)].append(index)
    kept: dict[int, int] = {}
    added: list[int] = []
    for out_index, message in enumerate(after):
        queue = positions.get(fingerprint(message))
        if queue:
            kept[out_index] = queue.popleft()
        else:
            added.append(out_index)
    used = set(kept.values())
    dropped = tuple(i for i in range(len(before)) if i not in used)
    return MessageDiff(kept, dropped, tuple(added))
