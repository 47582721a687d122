"""What a guarded compaction returns: each strategy's attempt, the measured result, and
the one decision of what may be told about it.

These are the guard's results, kept apart from the guard itself so that what records
them (the event log, :mod:`ctxkeep.verify.eventlog`; the statistics,
:mod:`ctxkeep.verify.stats`) imports them without importing the guard, which imports
both of those.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from ctxkeep.verify.measure import Size
from ctxkeep.verify.validity import SequenceProblem

__all__ = ["Attempt", "GuardedResult", "Outcome", "Settlement", "settle"]

Outcome = Literal["compacted", "noop", "invalid", "raised", "not-a-list"]


@dataclass(frozen=True, slots=True)
class Attempt:
    """What one strategy did with one call: its outcome, why, and the size it produced."""

    strategy: str
    outcome: Outcome
    reason: str
    after: Size | None = None
    problems: tuple[SequenceProblem, ...] = ()
    summary_kind: str = "custom"


@dataclass(frozen=True, slots=True)
class GuardedResult:
    """The outcome of one guarded compaction.

    ``success`` is ``after`` smaller than ``before`` in messages and tokens; it is derived
    from the measurement and construction refuses a ``success`` that contradicts it.
    ``messages`` is the compacted list on success and the input, unchanged, otherwise.
    ``strategy`` names the strategy whose result was taken (None on failure).
    ``breaker_open`` is True when the circuit breaker is open after this call (this call
    tripped it, or was refused by it). ``attempts`` lists every strategy that ran.
    ``problems`` says what could not be recorded (event log, statistics): the compaction
    stands, its record is missing.
    """

    success: bool
    messages: list[Any]
    before: Size
    after: Size
    strategy: str | None
    reason: str
    breaker_open: bool = False
    attempts: tuple[Attempt, ...] = ()
    problems: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.success != self.after.smaller_than(self.before):
            raise ValueError(
                f"success={self.success} contradicts the measurement {self.before} -> {self.after}"
            )

    def settle(self) -> Settlement:
        """What the caller may tell the user and the model (see :func:`settle`)."""
        return settle(self)


@dataclass(frozen=True, slots=True)
class Settlement:
    """What may be said about a guarded compaction.

    ``user_notice`` is for the person (a status line); ``model_notice`` is the text to put
    in front of the model, or None when nothing about the context changed and the model
    must not be told anything.
    """

    compacted: bool
    user_notice: str
    model_notice: str | None


def settle(result: GuardedResult) -> Settlement:
    """The one decision of what a caller may report: "compacted" only if the measured
    delta says so, whatever else the result carries."""
    before, after = result.before, result.after
    if after.smaller_than(before):
        return Settlement(
            compacted=True,
            user_notice=(
                f"Compacted the conversation with {result.strategy}: "
                f"{before.messages} -> {after.messages} messages, "
                f"{before.tokens} -> {after.tokens} tokens."
            ),
            model_notice=(
                f"Earlier parts of this conversation were compacted ({before.messages} -> "
                f"{after.messages} messages). What is not in your context now is gone; "
                "ask the user before relying on details you cannot see."
            ),
        )
    if result.breaker_open and not result.attempts:
        notice = f"Compaction is switched off: {result.reason}"
    else:
        notice = f"Compaction failed; the conversation is unchanged ({before}). {result.reason}"
        if result.breaker_open:
            notice += " Compaction is now switched off until a reset."
    return Settlement(compacted=False, user_notice=notice, model_notice=None)
