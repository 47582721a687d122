"""Scorers: how much each message matters to the task (the compactor's step 4).

``SCORERS`` is the registry, in the order ``--scorer`` lists them; a new scorer (the
optional ``embedding`` one, say) is one more :class:`ScorerSpec` appended to it. Options for
remote scorers come from :class:`ScorerOptions`, which falls back to ``CTXKEEP_SCORE_URL``,
``CTXKEEP_SCORE_KEY``, ``CTXKEEP_SCORE_MODEL`` and ``CTXKEEP_SCORE_TIMEOUT``.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ctxkeep._lazy import attach

if TYPE_CHECKING:
    from ctxkeep.scorers.base import LEVELS as LEVELS
    from ctxkeep.scorers.base import Candidate as Candidate
    from ctxkeep.scorers.base import Score as Score
    from ctxkeep.scorers.base import Scorer as Scorer
    from ctxkeep.scorers.base import ScoreRequest as ScoreRequest
    from ctxkeep.scorers.base import ScorerError as ScorerError
    from ctxkeep.scorers.base import ScorerUnavailable as ScorerUnavailable

# The scorer types load on first use (``ctxkeep._lazy``): listing the names for
# ``--scorer`` imports no scorer.
__getattr__, __dir__ = attach(
    __name__,
    __file__,
    own=("SCORERS", "ScorerOptions", "ScorerSpec", "make_scorer", "scorer_names"),
)

DEFAULT_TIMEOUT = 10.0


@dataclass(frozen=True, slots=True)
class ScorerOptions:
    """Settings for remote scorers; local ones ignore them. The key is never written out."""

    url: str | None = None
    key: str | None = None
    model: str | None = None
    timeout: float = DEFAULT_TIMEOUT

    @classmethod
    def from_env(
        cls,
        *,
        url: str | None = None,
        key: str | None = None,
        model: str | None = None,
        timeout: float | None = None,
        environ: Mapping[str, str] | None = None,
    ) -> ScorerOptions:
        """Explicit values first, then the ``CTXKEEP_SCORE_*`` environment variables."""
        from ctxkeep.scorers.base import timeout_from_env

        env = os.environ if environ is None else environ
        return cls(
            url=url or env.get("CTXKEEP_SCORE_URL") or None,
            key=key or env.get("CTXKEEP_SCORE_KEY") or None,
            model=model or env.get("CTXKEEP_SCORE_MODEL") or None,
            timeout=timeout_from_env(timeout, env, "CTXKEEP_SCORE_TIMEOUT", DEFAULT_TIMEOUT),
        )


@dataclass(frozen=True, slots=True)
class ScorerSpec:
    """One registry entry: a name, a one-line summary, and how to build it."""

    name: str
    summary: str
    build: Callable[[ScorerOptions], Scorer]


def _lexical(options: ScorerOptions) -> Scorer:
    from ctxkeep.scorers.lexical import LexicalScorer  # each scorer loads when it is built

    return LexicalScorer()


def _recency(options: ScorerOptions) -> Scorer:
    from ctxkeep.scorers.recency import RecencyScorer

    return RecencyScorer()


def _http(options: ScorerOptions) -> Scorer:
    from ctxkeep.scorers.http import HttpScorer  # urllib loads only when it is used

    return HttpScorer(options.url, options.key, timeout=options.timeout)


def _openai_chat(options: ScorerOptions) -> Scorer:
    from ctxkeep.scorers.openai_chat import OpenAIChatScorer

    return OpenAIChatScorer(options.url, options.key, model=options.model, timeout=options.timeout)


def _embedding(options: ScorerOptions) -> Scorer:
    from ctxkeep.scorers.embedding import EmbeddingScorer  # torch loads only when used

    return EmbeddingScorer()


SCORERS: tuple[ScorerSpec, ...] = (
    ScorerSpec("lexical", "BM25 of each message against the task (offline default)", _lexical),
    ScorerSpec("recency", "newest first: what a truncating harness keeps", _recency),
    ScorerSpec("http", "a typed score endpoint (CTXKEEP_SCORE_URL, CTXKEEP_SCORE_KEY)", _http),
    ScorerSpec("openai-chat", "an OpenAI-compatible /v1/chat/completions server", _openai_chat),
    ScorerSpec("embedding", "MiniLM sentence embeddings, offline (the 'embed' extra)", _embedding),
)


def scorer_names() -> tuple[str, ...]:
    """The names ``--scorer`` accepts, in registry order."""
    return tuple(s.name for s in SCORERS)


def make_scorer(name: str, options: ScorerOptions | None = None) -> Scorer:
    """Build the scorer called ``name``; raises ``KeyError`` listing the known names."""
    for spec in SCORERS:
        if spec.name == name:
            return spec.build(options if options is not None else ScorerOptions.from_env())
    raise KeyError(f"unknown scorer {name!r}; known: {', '.join(scorer_names())}")
