"""What a compaction returns: the messages, the stats, and one decision per message."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass, fields
from typing import Any

__all__ = ["CompactionResult", "CompactionStats", "Decision", "decisions_from_columns"]


@dataclass(frozen=True, slots=True)
class Decision:
    """Why one input message was kept or dropped.

    ``reason`` is one of: ``under-budget`` (nothing needed compacting), ``system``,
    ``recent``, ``pinned:<pin>`` (path, trace, error, url, constraint, user), ``unsure``
    (confidence below ``min_confidence``), ``pending-call`` (a call in the last message
    awaiting its result), ``selected`` (kept by value), ``budget`` (dropped: did not fit),
    ``orphan`` (dropped: a tool call without its result or a result without its call),
    ``over-budget`` (dropped: protected messages alone exceed the budget); a message
    kept or dropped only because of the other half of its tool unit reads ``paired:<the
    unit's reason>``. ``score`` and ``confidence`` are None when it was never scored.
    """

    index: int
    hash: str
    role: str | None
    bytes: int
    tokens: int
    score: float | None
    confidence: float | None
    kept: bool
    reason: str
    unit: int
    """Index of the first message of its tool unit (its own index when alone)."""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def decisions_from_columns(*columns: Iterable[Any]) -> tuple[Decision, ...]:
    """``tuple(map(Decision, *columns))``, twice as fast: one Decision per message is a
    large part of compacting a long session (10,000 messages: 6 ms instead of 11).

    Each slot is set through its descriptor, which is what the frozen dataclass's
    ``__init__`` does through ``object.__setattr__`` at twice the cost; the objects are
    the same (equal, hashed alike, still frozen). ``columns`` are the fields in order.
    """
    return tuple(map(_new_decision, *columns))


(
    _set_index, _set_hash, _set_role, _set_bytes, _set_tokens, _set_score, _set_confidence,
    _set_kept, _set_reason, _set_unit,
) = (getattr(Decision, field.name).__set__ for field in fields(Decision))  # fmt: skip
_object_new = object.__new__


def _new_decision(  # one argument per field, unrolled: this is the fast path
    index: int,
    hash_: str,
    role: str | None,
    size: int,
    tokens: int,
    score: float | None,
    confidence: float | None,
    kept: bool,
    reason: str,
    unit: int,
) -> Decision:
    decision: Decision = _object_new(Decision)
    _set_index(decision, index)
    _set_hash(decision, hash_)
    _set_role(decision, role)
    _set_bytes(decision, size)
    _set_tokens(decision, tokens)
    _set_score(decision, score)
    _set_confidence(decision, confidence)
    _set_kept(decision, kept)
    _set_reason(decision, reason)
    _set_unit(decision, unit)
    return decision


@dataclass(frozen=True, slots=True)
class CompactionStats:
    """Measured sizes before and after, and what it cost.

    Bytes are UTF-8 bytes of message text; tokens are o200k counts of the same text
    (``token_method`` says so, or ``estimate`` when they are bytes / 4). ``over_budget_*``
    is how far protected messages alone exceed the budget (0 when within it). ``requests``
    counts scorer requests; ``scorer_tokens`` estimates what they sent (bytes / 4).
    """

    messages_before: int
    messages_after: int
    bytes_before: int
    bytes_after: int
    tokens_before: int
    tokens_after: int
    kept: int
    dropped: int
    pinned: int
    protected: int
    over_budget_bytes: int
    over_budget_tokens: int
    summary_bytes: int
    scorer: str
    degraded: bool
    degraded_reason: str | None
    requests: int
    failed_requests: int
    scorer_tokens: int
    token_method: str

    @property
    def over_budget(self) -> bool:
        return self.over_budget_bytes > 0 or self.over_budget_tokens > 0

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["over_budget"] = self.over_budget
        return data


@dataclass(frozen=True, slots=True)
class CompactionResult:
    """The compacted list and everything needed to trust it.

    ``messages`` is what to send: the caller's kept objects, unchanged and in order, with
    ``summary`` (when there is one) at ``summary_index``. ``compacted`` is True when any
    message was dropped. ``problems`` lists what went wrong without stopping the run (a bad
    pin pattern, a receipt that could not be written, a scorer failure).
    """

    messages: tuple[Any, ...]
    summary: Any | None
    summary_index: int | None
    stats: CompactionStats
    decisions: tuple[Decision, ...]
    run_id: str
    receipt_path: str | None
    problems: tuple[str, ...]

    @property
    def compacted(self) -> bool:
        return self.stats.dropped > 0

    @property
    def kept(self) -> tuple[Any, ...]:
        """The kept input messages, without the summary."""
        if self.summary_index is None:
            return self.messages
        return self.messages[: self.summary_index] + self.messages[self.summary_index + 1 :]
