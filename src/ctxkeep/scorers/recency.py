"""``recency``: newer is worth more. The native behaviour of every harness, and the fallback."""

from __future__ import annotations

from collections.abc import Sequence

from ctxkeep.scorers.base import Candidate, Score, ScoreRequest

__all__ = ["RecencyScorer", "recency_score"]


def recency_score(candidate: Candidate) -> Score:
    """The candidate's position, scaled so the newest message scores 1."""
    total = max(candidate.total, 1)
    return Score(min(1.0, max(0.0, (candidate.index + 1) / total)), 1.0)


class RecencyScorer:
    """Scores each message by its position: what a truncating harness keeps, it keeps."""

    name = "recency"
    remote = False

    def score(self, request: ScoreRequest) -> Sequence[Score]:
        return [recency_score(c) for c in request.candidates]

    def describe(self) -> dict[str, object]:
        return {"name": self.name}
