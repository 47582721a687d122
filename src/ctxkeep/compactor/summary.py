"""Step 7: the extractive summary that stands in for what was dropped.

It quotes the highest-value dropped messages (each cut to a few hundred bytes) under one
header line, within a byte cap and, for token budgets, a token cap; the quotes are shown
in conversation order. It is a message in the caller's own dialect. Anthropic messages
have no ``system`` role (the system prompt is a separate request field), so there the
summary is a ``user`` message unless ``summary_role`` is ``user`` or ``assistant``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from ctxkeep.compactor.segment import Segment
from ctxkeep.messages import Dialect
from ctxkeep.tokens import count_tokens

__all__ = ["QUOTE_BYTES", "conversation_dialect", "summary_message", "summary_text"]

QUOTE_BYTES = 300
"""The most of one dropped message a summary quotes."""
_MIN_EXCERPT_BYTES = 24
"""A quote shorter than this says nothing: leave it out."""
_MIN_QUOTE_BYTES = _MIN_EXCERPT_BYTES + 16
_BREAKS = " \"'`,;()[]{}<>，。；：、"
"""Where a cut quote may end: between words, never inside a path or a symbol."""
"""Below this much room no quote line fits (its prefix is ~15 bytes)."""


def _excerpt_of(quote: str) -> str:
    return quote.split(': "', 1)[1][:-1]


def cut_utf8(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` UTF-8 bytes without splitting a character."""
    raw = text.encode("utf-8", "surrogatepass")
    if len(raw) <= limit:
        return text
    return raw[: max(limit, 0)].decode("utf-8", "ignore")


def _quote(seg: Segment, limit: int = QUOTE_BYTES) -> str | None:
    """One quote line for ``seg`` of at most ``limit`` bytes of excerpt (None if less than
    ``_MIN_EXCERPT_BYTES`` of it would fit)."""
    # Only the head can be quoted: flatten just enough of it (messages can be megabytes).
    flat = " ".join(seg.text[: QUOTE_BYTES * 2].split())
    limit = min(limit, QUOTE_BYTES)
    excerpt = cut_utf8(flat, limit)
    if excerpt != flat or len(seg.text) > QUOTE_BYTES * 2:
        if limit - 3 < _MIN_EXCERPT_BYTES:
            return None
        excerpt = cut_utf8(excerpt, limit - 3)
        # End on a word boundary: half a path ("src/quotad/rou…") is an item no source
        # holds, and the auditor rightly calls it invented.
        cut = max(excerpt.rfind(c) for c in _BREAKS)
        if cut < _MIN_EXCERPT_BYTES:
            return None  # no word boundary leaves enough to say anything
        excerpt = excerpt[:cut]
        excerpt += "…"
    # "message 12", not "#12": the auditor rightly reads "#12" as an issue number.
    return f'- message {seg.position} ({seg.role or "unknown role"}): "{excerpt}"'


def _size(text: str) -> int:
    return len(text.encode("utf-8", "surrogatepass"))


def summary_text(
    by_value: Sequence[Segment],
    *,
    dropped_count: int,
    dropped_bytes: int,
    cap_bytes: int,
    cap_tokens: int | None,
) -> str | None:
    """The summary for dropped messages ``by_value`` (best first), or None if nothing fits."""
    header = (
        f"[ctxkeep] {dropped_count} earlier message{'s' if dropped_count != 1 else ''} "
        f"({dropped_bytes} bytes) were compacted away; the most relevant, quoted:"
    )

    def fits(text: str) -> bool:
        if _size(text) > cap_bytes:
            return False
        return cap_tokens is None or count_tokens(text) <= cap_tokens

    if not fits(header):
        return None
    chosen: list[tuple[int, str]] = []
    size = _size(header)
    for seg in by_value:
        room = cap_bytes - size - 1
        if room < _MIN_QUOTE_BYTES:
            break
        if not seg.text.strip():
            continue
        quote = _quote(seg)
        if quote is not None and _size(quote) > room:
            # Too long for what is left: quote less of it rather than nothing.
            overhead = _size(quote) - _size(_excerpt_of(quote))
            quote = _quote(seg, room - overhead)
        if quote is None or _size(quote) > room:
            continue
        chosen.append((seg.position, quote))
        size += 1 + _size(quote)
    # Token cost depends on the joined text: drop the lowest-value quote until it fits.
    while True:
        text = "\n".join([header] + [q for _, q in sorted(chosen)])
        if fits(text) or not chosen:
            return text if fits(text) else None
        chosen.pop()


def conversation_dialect(dialects: Iterable[Dialect]) -> Dialect:
    """ctxkeep if any message is an event, else Anthropic if any message is recognisably
    Anthropic (tool_use / tool_result / thinking blocks), else OpenAI.

    A plain-text conversation reads the same in both APIs: it is taken as OpenAI, so an
    Anthropic caller without tool blocks passes ``summary_role="user"``.
    """
    found = set(dialects)
    if "ctxkeep" in found:
        return "ctxkeep"
    if "anthropic" in found:
        return "anthropic"
    return "openai"


def summary_message(text: str, dialect: Dialect, role: str, seq: Any) -> dict[str, Any]:
    """The summary as a message of ``dialect`` (``seq``: the place it takes, for events)."""
    if dialect == "ctxkeep":
        native_role = role if role in ("system", "user", "assistant") else "system"
        return {
            "type": "message",
            "seq": seq if isinstance(seq, int) and not isinstance(seq, bool) else 0,
            "role": native_role,
            "text": text,
        }
    if dialect == "anthropic":
        return {"role": role if role in ("user", "assistant") else "user", "content": text}
    return {"role": role, "content": text}
