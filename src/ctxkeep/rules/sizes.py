"""Token sizes of events, measured once the same way for every rule that compares sizes."""

from __future__ import annotations

from collections.abc import Iterable

from ctxkeep.base.tokens import count_tokens, estimate_tokens, token_bounds
from ctxkeep.log.model import Event

__all__ = ["estimated_size", "event_tokens", "size_bounds", "size_of"]


def event_tokens(event: Event) -> int:
    """The event's own size: as the log states it, else its o200k token count."""
    return event.tokens if event.tokens is not None else count_tokens(event.text)


def size_of(events: Iterable[Event]) -> int:
    """Total tokens of ``events`` (see :func:`event_tokens`)."""
    return sum(event_tokens(e) for e in events)


def estimated_size(events: Iterable[Event]) -> int:
    """A cheap upper-bound-ish estimate (bytes / 4) to skip exact counts that cannot matter."""
    return sum(e.tokens if e.tokens is not None else estimate_tokens(e.text) for e in events)


def size_bounds(events: Iterable[Event]) -> tuple[int, int]:
    """``(low, high)`` around :func:`size_of`, with no tokenizer: a rule whose threshold
    the bounds already decide never loads o200k (see :func:`ctxkeep.base.tokens.token_bounds`)."""
    low = high = 0
    for e in events:
        if e.tokens is not None:
            low += e.tokens
            high += e.tokens
        else:
            lo, hi = token_bounds(e.text)
            low += lo
            high += hi
    return low, high
