"""``http``: a typed score endpoint.

The request is ``POST {state, question, type: "score", levels}`` with ``question`` a string
for one message and an array for a batch. An answer for one message is an object holding
one of ``probabilities`` (per level, a list in level order or an object by level name:
reduced to the expected value over evenly spaced levels, confidence = the peak),
``level`` (a level name or index) or ``score`` (a number in [0, 1]), optionally with
``confidence``; a bare number is a direct score. A batch answer is a list of those, or an
object holding one under ``answers``, ``results`` or ``scores``. Anything that does not
reduce to numbers in [0, 1], one per question, is a failure.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from ctxkeep.scorers._transport import post_json, safe_url
from ctxkeep.scorers.base import (
    LEVELS,
    Score,
    ScoreRequest,
    ScorerError,
    ScorerUnavailable,
    reduce_level,
    reduce_probabilities,
)

__all__ = ["HttpScorer", "parse_answer", "parse_answers"]

_BATCH_KEYS = ("answers", "results", "scores")


def _unit_number(value: Any, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not _finite(value):
        raise ScorerError(f"{what} {_short(value)} is not a number")
    if not 0.0 <= value <= 1.0:
        raise ScorerError(f"{what} {_short(value)} is outside [0, 1]")
    return float(value)


def _finite(value: int | float) -> bool:
    """A JSON integer of 400 digits is an ``int`` that no float holds: ``math.isfinite``
    raised OverflowError on it (``doctor --probe`` crashed, issue 14)."""
    try:
        return math.isfinite(value)
    except OverflowError:
        return False


def _short(value: Any) -> str:
    """``repr(value)`` cut to a readable length (an answer may hold a 400-digit number)."""
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _level_index(level: Any, levels: Sequence[str]) -> int:
    if isinstance(level, str):
        name = level.strip().lower()
        if name in levels:
            return levels.index(name)
        raise ScorerError(f"unknown level {level!r}")
    if isinstance(level, int) and not isinstance(level, bool):
        return level
    raise ScorerError(f"level {level!r} is neither a level name nor an index")


def parse_answer(answer: Any, levels: Sequence[str] = LEVELS) -> Score:
    """One message's answer -> Score, or ScorerError naming what was wrong."""
    if isinstance(answer, int | float) and not isinstance(answer, bool):
        return Score(_unit_number(answer, "score"), 1.0)
    if not isinstance(answer, Mapping):
        raise ScorerError(f"an answer must be an object or a number, got {type(answer).__name__}")
    confidence = 1.0
    if answer.get("confidence") is not None:
        confidence = _unit_number(answer["confidence"], "confidence")
    if "probabilities" in answer:
        probs = answer["probabilities"]
        if isinstance(probs, Mapping):
            unknown = [k for k in probs if str(k).lower() not in levels]
            if unknown:
                raise ScorerError(f"probabilities for unknown levels {unknown!r}")
            lowered = {str(k).lower(): v for k, v in probs.items()}
            probs = [lowered.get(name, 0.0) for name in levels]
        if not isinstance(probs, list) or len(probs) != len(levels):
            raise ScorerError(f"probabilities must give one number per level ({len(levels)})")
        return reduce_probabilities(probs)
    if "level" in answer:
        return reduce_level(_level_index(answer["level"], levels), len(levels), confidence)
    if "score" in answer:
        return Score(_unit_number(answer["score"], "score"), confidence)
    raise ScorerError("the answer holds none of probabilities, level, score")


def parse_answers(body: Any, count: int, levels: Sequence[str] = LEVELS) -> list[Score]:
    """A whole response body for ``count`` questions -> one Score each, in order."""
    items: Any = body
    if isinstance(body, Mapping):
        for key in _BATCH_KEYS:
            if isinstance(body.get(key), list):
                items = body[key]
                break
        else:
            items = [body] if count == 1 else None
    if not isinstance(items, list):
        raise ScorerError(f"expected {count} answers, got {type(body).__name__}")
    if len(items) != count:
        raise ScorerError(f"expected {count} answers, got {len(items)}")
    return [parse_answer(item, levels) for item in items]


class HttpScorer:
    """Asks a typed score endpoint, one POST per batch, with a bearer key."""

    name = "http"
    remote = True

    def __init__(
        self,
        url: str | None,
        key: str | None,
        *,
        timeout: float = 10.0,
        levels: Sequence[str] = LEVELS,
    ) -> None:
        self.url = url
        self.key = key
        self.timeout = timeout
        self.levels = tuple(levels)

    def score(self, request: ScoreRequest) -> Sequence[Score]:
        if not self.url:
            raise ScorerUnavailable("no score endpoint: give --url or set CTXKEEP_SCORE_URL")
        if not self.key:
            raise ScorerUnavailable("no key for the score endpoint: set CTXKEEP_SCORE_KEY")
        texts = [c.text for c in request.candidates]
        if not texts:
            return []
        body = {
            "state": request.state,
            "question": texts[0] if len(texts) == 1 else texts,
            "type": "score",
            "levels": list(self.levels),
        }
        answer = post_json(self.url, body, key=self.key, timeout=self.timeout)
        return parse_answers(answer, len(texts), self.levels)

    def describe(self) -> dict[str, object]:
        return {
            "name": self.name,
            "url": safe_url(self.url) if self.url else None,
            "timeout": self.timeout,
            "levels": list(self.levels),
        }
