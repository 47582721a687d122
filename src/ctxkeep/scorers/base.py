"""The scorer contract: what the compactor asks and what a scorer must answer.

A scorer rates how much each candidate message matters to the task, as a ``Score`` (a value
and a confidence, both in [0, 1]). Scorers are batched: the compactor hands a local scorer
every candidate at once and a remote one ``batch_size`` at a time. Every way a scorer can
fail (network error, timeout, non-200 answer, unparsable or wrongly shaped body) is one
exception, :class:`ScorerError`; :class:`ScorerUnavailable` says no call can succeed this
run (no key, no endpoint), so the compactor stops asking at once.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

__all__ = [
    "LEVELS",
    "Candidate",
    "Score",
    "ScoreRequest",
    "Scorer",
    "ScorerError",
    "ScorerUnavailable",
    "reduce_level",
    "reduce_probabilities",
    "timeout_from_env",
]

LEVELS: tuple[str, ...] = ("none", "low", "medium", "high", "critical")
"""The typed score question's answer levels, lowest first (evenly spaced over [0, 1])."""


class ScorerError(Exception):
    """A batch could not be scored: the compactor scores it by recency instead."""


class ScorerUnavailable(ScorerError):
    """No batch can be scored this run (no key, no endpoint): recency for the whole run."""


@dataclass(frozen=True, slots=True)
class Score:
    """How much a message matters (``value``) and how sure the scorer is (``confidence``)."""

    value: float
    confidence: float = 1.0

    def is_valid(self) -> bool:
        """Both numbers finite and in [0, 1] (a scorer's answer is checked, not trusted)."""
        value, confidence = self.value, self.confidence
        if type(value) is float and type(confidence) is float:  # the common case, fast
            return 0.0 <= value <= 1.0 and 0.0 <= confidence <= 1.0
        # NaN fails every comparison and infinities fail the bounds, so no isfinite call.
        return (
            isinstance(value, float | int)
            and isinstance(confidence, float | int)
            and not isinstance(value, bool)
            and not isinstance(confidence, bool)
            and 0.0 <= value <= 1.0
            and 0.0 <= confidence <= 1.0
        )


@dataclass(frozen=True, slots=True)
class Candidate:
    """One message to score: its text and its place among all ``total`` messages."""

    index: int
    text: str
    total: int


@dataclass(frozen=True, slots=True)
class ScoreRequest:
    """One batch: the task, the conversation state sent with it, and the candidates."""

    task: str
    state: str
    candidates: tuple[Candidate, ...]


@runtime_checkable
class Scorer(Protocol):
    """Anything that can score a batch of candidates against a task.

    ``name`` is what receipts and stats record. ``remote`` scorers are called in batches of
    ``batch_size`` and counted as requests; local ones get every candidate in one call.
    ``score`` returns one :class:`Score` per candidate, in order, or raises
    :class:`ScorerError`. ``describe`` is a plain-data view of the configuration that is
    safe to write to a receipt (never a key).
    """

    name: str
    remote: bool

    def score(self, request: ScoreRequest) -> Sequence[Score]: ...

    def describe(self) -> dict[str, object]: ...


def reduce_probabilities(probabilities: Sequence[float]) -> Score:
    """Per-level probabilities -> expected value over evenly spaced levels; confidence = peak.

    The probabilities are normalised first (models rarely sum to exactly 1); anything that
    is not a list of finite non-negative numbers with a positive sum is a ScorerError.
    """
    n = len(probabilities)
    if n < 2:
        raise ScorerError(f"need at least 2 level probabilities, got {n}")
    values: list[float] = []
    for p in probabilities:
        if isinstance(p, bool) or not isinstance(p, int | float) or not math.isfinite(p) or p < 0:
            raise ScorerError(f"probability {p!r} is not a finite non-negative number")
        values.append(float(p))
    total = sum(values)
    if total <= 0:
        raise ScorerError("level probabilities sum to zero")
    norm = [p / total for p in values]
    expected = sum(p * i / (n - 1) for i, p in enumerate(norm))
    return Score(min(1.0, max(0.0, expected)), max(norm))


def reduce_level(index: int, levels: int = len(LEVELS), confidence: float = 1.0) -> Score:
    """A chosen level -> its place on the evenly spaced scale."""
    if not 0 <= index < levels:
        raise ScorerError(f"level index {index} outside 0..{levels - 1}")
    return Score(index / (levels - 1), confidence)


def timeout_from_env(
    timeout: float | None, env: Mapping[str, str], name: str, default: float
) -> float:
    """``timeout`` if given, else the seconds in ``env[name]``; ``default`` for a value
    that is missing, not a number, or not positive. It lives here, not in the HTTP
    transport: every scorer reads its options, and a local one must not load urllib
    and http.client for it (start-up of ``ctxkeep compact``)."""
    if timeout is None:
        try:
            timeout = float(env.get(name, "") or default)
        except ValueError:
            timeout = default
    return timeout if timeout > 0 else default
