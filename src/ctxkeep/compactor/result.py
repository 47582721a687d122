"""What a compaction returns: the messages, the stats, and one decision per message."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

__all__ = ["CompactionResult", "CompactionStats", "Decision", "RemovedItem", "SummaryRepair"]


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
    unit's reason>``. Under a hard budget a protected message that had to give way reads
    ``gave-way:<its reason>`` (dropped) and a message kept shortened lists in ``spans`` the
    ``(start, end)`` character ranges of its text that were kept verbatim (the rest was
    elided with a marker). ``score`` and ``confidence`` are None when it was never scored.
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
    spans: tuple[tuple[int, int], ...] | None = None
    """Kept character ranges of a shortened message's text (hard budget); None: whole."""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True, slots=True)
class CompactionStats:
    """Measured sizes before and after, and what it cost.

    Bytes are UTF-8 bytes of message text; tokens are o200k counts of the same text
    (``token_method`` says so, or ``estimate`` when they are bytes / 4). ``over_budget_*``
    is how far protected messages alone exceed the budget (0 when within it). ``requests``
    counts scorer requests; ``scorer_tokens`` estimates what they sent (bytes / 4).
    ``budget`` is the mode (``soft``: protected messages kept whole, an excess reported;
    ``hard``: the target is never exceeded); ``fits`` is False only when, under a hard
    budget, the system messages and the last user message alone exceed it; ``shortened``
    counts messages kept with spans elided.
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
    budget: str = "soft"
    fits: bool = True
    shortened: int = 0

    @property
    def over_budget(self) -> bool:
        return self.over_budget_bytes > 0 or self.over_budget_tokens > 0

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["over_budget"] = self.over_budget
        return data


@dataclass(frozen=True, slots=True)
class RemovedItem:
    """An item of a model's summary that nothing in the conversation holds (a path, an
    identifier, a claim: the auditor's CK002 judgement, high confidence), taken out of
    the summary; ``why`` is the auditor's reason."""

    text: str
    kind: str
    why: str


@dataclass(frozen=True, slots=True)
class SummaryRepair:
    """An abstractive summariser's run: what it wrote, and what its audit changed.

    ``summarizer`` and ``model`` name it (``replay:<name>`` when a replay used the text a
    receipt recorded). ``used``: the summary in the result is its text, repaired; else
    ``failed`` says why not and the extractive summary stood in. ``written`` is its own
    text before the repair (None when it wrote nothing usable). ``appended``
    are the user's standing instructions (from the replaced messages) its text lost,
    added verbatim; ``removed`` the invented items taken out (each replaced by a marker).
    ``instructions_cut`` counts lost instructions the budget had no room for.
    ``sources_sha256`` identifies what it summarised (a replay uses ``written`` only for
    the same sources).
    """

    summarizer: str
    model: str | None
    used: bool
    written: str | None
    failed: str | None
    appended: tuple[str, ...] = ()
    removed: tuple[RemovedItem, ...] = ()
    instructions_cut: int = 0
    sources_sha256: str = ""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True, slots=True)
class CompactionResult:
    """The compacted list and everything needed to trust it.

    ``messages`` is what to send: the caller's kept objects, unchanged and in order, with
    ``summary`` (when there is one) at ``summary_index``; under a hard budget a kept message
    may be a shortened copy (its decision lists the kept ``spans``). ``compacted`` is True
    when any message was dropped or shortened. ``problems`` lists what went wrong without
    stopping the run (a bad pin pattern, a receipt that could not be written, a scorer
    failure, a summariser failure, a hard budget that cannot hold). ``repair`` is set when
    a ``summarizer`` was asked for the summary: what it wrote and what the audit changed.
    """

    messages: tuple[Any, ...]
    summary: Any | None
    summary_index: int | None
    stats: CompactionStats
    decisions: tuple[Decision, ...]
    run_id: str
    receipt_path: str | None
    problems: tuple[str, ...]
    repair: SummaryRepair | None = None

    @property
    def compacted(self) -> bool:
        return self.stats.dropped > 0 or self.stats.shortened > 0

    @property
    def fits(self) -> bool:
        """False only when a hard budget could not hold (the mandatory part alone is over)."""
        return self.stats.fits

    @property
    def kept(self) -> tuple[Any, ...]:
        """The kept input messages, without the summary."""
        if self.summary_index is None:
            return self.messages
        return self.messages[: self.summary_index] + self.messages[self.summary_index + 1 :]
