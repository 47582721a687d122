"""Step 2 of the compactor: what each message is protected by, and where its pins are.

A message is protected by being a system message, by being among the last
``keep_recent``, or by a pin (see :mod:`ctxkeep.compactor.pins`). Paths, URLs and
constraints pin a message that speaks in words (user, system, an assistant turn without
tool calls); tool calls and results, and the words beside a call, are pinned only by
traces and error codes: the words beside a call narrate it ("Let me read src/x.py").
"""

from __future__ import annotations

from collections.abc import Sequence

from ctxkeep.compactor.pins import PinSet, compile_pins
from ctxkeep.compactor.segment import Segments
from ctxkeep.extract import extract_constraints

__all__ = ["SYSTEM_ROLES", "Protection", "last_user_message", "protect", "tool_traffic"]

SYSTEM_ROLES = frozenset({"system", "developer"})


class Protection:
    """Each message's own protection reason ('' for none) and the compiled pins."""

    def __init__(
        self,
        reasons: list[str],
        pins: PinSet,
        prose: list[str],
        instructions: dict[int, tuple[str, ...]] | None = None,
    ) -> None:
        self.reasons = reasons
        self.pins = pins
        self.prose = prose
        """What each message says in words ('' for tool traffic): where prose pins apply."""
        self.instructions = instructions if instructions is not None else {}
        """The constraints (verbatim) of the user messages whose text the extractor has
        judged (every user message not otherwise protected), by index: the summary reads
        them here rather than extracting again."""


def tool_traffic(segments: Segments) -> list[bool]:
    """For each message, whether it makes or answers tool calls, or is a ``tool`` message."""
    columns = zip(
        segments.calls, segments.results, segments.native_calls, segments.roles, strict=True
    )
    return [
        bool(calls or results or native or role == "tool")
        for calls, results, native, role in columns
    ]


def last_user_message(segments: Segments) -> int | None:
    """The last message a person wrote (role ``user``, no tool results), or None."""
    for i in range(len(segments) - 1, -1, -1):
        if segments.roles[i] == "user" and not segments.results[i]:
            return i
    return None


def protect(
    segments: Segments,
    *,
    keep_recent: int,
    pin_patterns: Sequence[object],
    enable_pinning: bool,
    pin_flags: str,
    problems: list[str],
) -> Protection:
    """Each message's own protection reason, or '' (system > recent > pinned)."""
    pins, pin_problems = compile_pins(pin_patterns, enabled=enable_pinning, flags=pin_flags)
    problems.extend(pin_problems)
    n = len(segments)
    recent_from = max(0, n - keep_recent)
    reasons = ["system" if role in SYSTEM_ROLES else "" for role in segments.roles]
    for i in range(recent_from, n):
        reasons[i] = reasons[i] or "recent"
    prose = [
        "" if tool else text
        for text, tool in zip(segments.texts, tool_traffic(segments), strict=True)
    ]
    unpinned = [i for i in range(recent_from) if not reasons[i]]
    found = pins.pins_of([segments.texts[i] for i in unpinned], [prose[i] for i in unpinned])
    for i, pin in zip(unpinned, found, strict=True):
        if pin is not None:
            reasons[i] = f"pinned:{pin}"
    instructions: dict[int, tuple[str, ...]] = {}
    if enable_pinning:
        instructions = _pin_constraints(segments, unpinned, reasons, prose)
    return Protection(reasons, pins, prose, instructions)


def _pin_constraints(
    segments: Segments, unpinned: Sequence[int], reasons: list[str], prose: Sequence[str]
) -> dict[int, tuple[str, ...]]:
    """Pin user messages that hold a standing instruction by the auditor's extractor, and
    return what it found in each message it judged.

    The pin pattern sees a marker only where a sentence starts; a user's constraint is
    also "错误信息必须保留行号" or "补充两点：禁止…" (subject first, after a colon). The
    extractor, which judges survival, decides. It rejects a text without a marker word
    itself, faster than a batched pre-check of the compactor's own could.
    """
    users = [i for i in unpinned if not reasons[i] and prose[i] and segments.roles[i] == "user"]
    found: dict[int, tuple[str, ...]] = {}
    for i in users:
        texts = tuple(c.text for c in extract_constraints(prose[i]))
        found[i] = texts
        if texts:
            reasons[i] = "pinned:constraint"
    return found
