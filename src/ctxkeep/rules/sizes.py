"""Token sizes of events, measured once the same way for every rule that compares sizes."""

from __future__ import annotations

from collections.abc import Iterable

from ctxkeep.log.model import Event
from ctxkeep.tokens import count_tokens, estimate_tokens

__all__ = ["estimated_size", "event_tokens", "size_of"]


def event_tokens(event: Event) -> int:
    """The event's own size: as the log states it, else its o200k token count."""
    return event.tokens if event.tokens is not None else count_tokens(event.text)


def size_of(events: Iterable[Event]) -> int:
    """Total tokens of ``events`` (see :func:`event_tokens`)."""
    return sum(event_tokens(e) for e in events)


def estimated_size(events: Iterable[Event]) -> int:
    """A cheap upper-bound-ish estimate (bytes / 4) to skip exact counts that cannot matter."""
    return sum(e.tokens if e.tokens is not None else estimate_tokens(e.text) for e in events)
