"""Step 3 of the compactor: ask the scorer about the messages that may go.

A remote scorer is asked in batches of ``batch_size``; a failed batch is scored by
recency (and the run marked degraded); after :data:`GIVE_UP_AFTER` failed batches in a
row the scorer is not asked again; an unavailable scorer (no key, no endpoint) makes the
whole run recency-scored at once.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from ctxkeep.base.tokens import estimate_tokens
from ctxkeep.compactor.segment import Segments
from ctxkeep.compactor.text import cut_utf8
from ctxkeep.scorers import (
    Candidate,
    Score,
    Scorer,
    ScoreRequest,
    ScorerError,
    ScorerUnavailable,
    make_scorer,
)
from ctxkeep.scorers.lexical import LexicalScorer
from ctxkeep.scorers.recency import recency_score

__all__ = [
    "GIVE_UP_AFTER",
    "QUESTION_BYTES",
    "Scoring",
    "by_recency",
    "resolve_scorer",
    "score",
    "scorer_name",
]

GIVE_UP_AFTER = 3
"""Consecutive failed batches after which the scorer is not asked again this run."""
QUESTION_BYTES = 4000
"""The most of one message sent to a remote scorer."""


@dataclass
class Scoring:
    """What the scoring step produced (mutable while it runs)."""

    scores: dict[int, Score] = field(default_factory=dict)
    scorer: str = ""
    degraded_reason: str | None = None
    requests: int = 0
    failed_requests: int = 0
    scorer_tokens: int = 0


def resolve_scorer(scorer: Any, problems: list[str]) -> Scorer:
    """The scorer to use: ``scorer`` itself, a registry name, or lexical (None or bad)."""
    if scorer is None:
        return make_scorer("lexical")
    if isinstance(scorer, str):
        try:
            return make_scorer(scorer)
        except KeyError as exc:
            problems.append(f"scorer: {exc.args[0]}; using lexical")
            return make_scorer("lexical")
    if isinstance(scorer, Scorer):
        return scorer
    problems.append(f"scorer: {type(scorer).__name__} is not a Scorer; using lexical")
    return make_scorer("lexical")


def scorer_name(scorer: Scorer) -> str:
    name = getattr(scorer, "name", None)
    return name if isinstance(name, str) else type(scorer).__name__


def by_recency(indexes: Iterable[int], total: int) -> Iterator[tuple[int, Score]]:
    """(index, recency score) of each message: the fallback for a failed batch."""
    return ((i, recency_score(Candidate(i, "", total))) for i in indexes)


def _state(task: str, segments: Segments, keep_recent: int, state_bytes: int) -> str:
    """The task and the latest messages, cut to ``state_bytes``."""
    parts = [f"Task: {task}"]
    n = len(segments)
    tail = range(max(0, n - keep_recent), n) if keep_recent else range(0)
    if tail:
        parts.append("Latest messages:")
        parts.extend(f"{segments.roles[i] or 'message'}: {segments.texts[i]}" for i in tail)
    return cut_utf8("\n".join(parts), state_bytes)


def _checked(scores: Sequence[Any], expected: int) -> None:
    """Raise ScorerError unless ``scores`` are ``expected`` valid Scores."""
    if len(scores) != expected:
        raise ScorerError(f"{len(scores)} scores for {expected} messages")
    seen: set[int] = set()
    for s in scores:
        if id(s) in seen:  # a scorer may share one Score for many messages
            continue
        seen.add(id(s))
        if not isinstance(s, Score) or not s.is_valid():
            raise ScorerError(f"score outside [0, 1]: {s!r}")


def score(
    scorer: Scorer,
    task: str,
    segments: Segments,
    to_score: Sequence[int],
    *,
    batch_size: int,
    keep_recent: int,
    state_bytes: int,
    problems: list[str],
) -> Scoring:
    """Score the messages ``to_score`` (in that order), never raising."""
    n = len(segments)
    name = scorer_name(scorer)
    result = Scoring(scorer=name)
    if not to_score:
        return result
    remote = bool(getattr(scorer, "remote", False))
    per_candidate = bool(getattr(scorer, "per_candidate", False))
    state = _state(task, segments, keep_recent, state_bytes) if remote else task
    texts = [segments.texts[i] for i in to_score]
    if remote:
        texts = [cut_utf8(text, QUESTION_BYTES) for text in texts]
    size = batch_size if remote else len(to_score)
    # The built-in lexical scorer reads the texts as they are: no Candidate per message.
    lexical = scorer if type(scorer) is LexicalScorer and not remote else None
    batches = range(0, len(to_score), size)
    failed = consecutive = 0
    for number, lo in enumerate(batches):
        indexes, batch_texts = to_score[lo : lo + size], texts[lo : lo + size]
        if consecutive >= GIVE_UP_AFTER:
            # The endpoint is down or broken: asking on would cost a timeout per batch.
            result.scores.update(by_recency(indexes, n))
            failed += 1
            continue
        calls = len(indexes) if per_candidate else 1
        try:
            if lexical is not None:
                scores = list(lexical.score_texts(task, batch_texts))
            else:
                batch = tuple(
                    Candidate(i, text, n) for i, text in zip(indexes, batch_texts, strict=True)
                )
                scores = list(scorer.score(ScoreRequest(task, state, batch)))
            _checked(scores, len(indexes))
        except ScorerUnavailable as exc:
            problems.append(f"scorer {name}: {exc}; the whole run is scored by recency")
            result.degraded_reason = f"unavailable: {exc}"
            result.scores = dict(by_recency(to_score, n))
            return result
        except Exception as exc:  # any failure of a caller's scorer takes the same path
            failed += 1
            consecutive += 1
            if remote:
                result.requests += calls
                result.failed_requests += calls
            problems.append(f"scorer {name}: batch {number + 1} failed: {exc}; scored by recency")
            result.scores.update(by_recency(indexes, n))
            continue
        consecutive = 0
        if remote:
            result.requests += calls
            result.scorer_tokens += estimate_tokens(state) * calls
            result.scorer_tokens += sum(estimate_tokens(text) for text in batch_texts)
        result.scores.update(zip(indexes, scores, strict=True))
    result.degraded_reason = _degraded_reason(failed, consecutive, len(batches))
    return result


def _degraded_reason(failed: int, consecutive: int, batches: int) -> str | None:
    if failed == batches:
        return "every batch failed: the whole run is scored by recency"
    if consecutive >= GIVE_UP_AFTER:
        return (
            f"{GIVE_UP_AFTER} batches failed in a row: {failed} of {batches} batches "
            "scored by recency"
        )
    if failed:
        return f"{failed} of {batches} batches failed: scored by recency"
    return None
