"""The lexical scorer's corpus-wide scan equals BM25 computed one message at a time."""

from __future__ import annotations

import itertools
import math
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ctxkeep.scorers import Candidate, ScoreRequest
from ctxkeep.scorers.lexical import (
    CHUNK_CHARS,
    LexicalScorer,
    _is_term_char,
    chunk_ranges,
    join_offsets,
    query_terms,
)

_WORDS = [
    "fix", "the", "parser", "Parser", "PARSER", "parsers", "config", "parse_config", "src/parse.py",
    "loader", "ok", "sounds", "good", "配置", "加载", "配置加载", "İ", "ß", "-", "_", ".", "\n",
    "x", "reparser", "parser2", "2parser",
]  # fmt: skip


def _reference(task: str, texts: list[str], k1: float = 1.2, b: float = 0.75) -> list[float]:
    """BM25 of each text on its own: whole-word counts of word terms, any-position counts
    of bigrams, document length in characters, scaled by the best."""
    words, bigrams = query_terms(task)
    counts: list[dict[str, int]] = []
    for text in texts:
        low = text.lower()
        found: dict[str, int] = {}
        for term, whole in [(w, True) for w in words] + [(g, False) for g in bigrams]:
            pos = low.find(term)
            while pos != -1:
                end = pos + len(term)
                if not whole or (
                    (pos == 0 or not _is_term_char(low[pos - 1]))
                    and (end >= len(low) or not _is_term_char(low[end]))
                ):
                    found[term] = found.get(term, 0) + 1
                pos = low.find(term, pos + 1)
        counts.append(found)
    n = len(texts)
    df: dict[str, int] = {}
    for found in counts:
        for term in found:
            df[term] = df.get(term, 0) + 1
    avgdl = (sum(len(t) for t in texts) / n) or 1.0
    raw = []
    for found, text in zip(counts, texts, strict=True):
        norm = k1 * (1.0 - b + b * len(text) / avgdl)
        raw.append(
            sum(
                math.log(1.0 + (n - df[t] + 0.5) / (df[t] + 0.5)) * tf * (k1 + 1.0) / (tf + norm)
                for t, tf in found.items()
            )
        )
    best = max(raw)
    return [r / best if best > 0 else 0.0 for r in raw]


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.sampled_from(_WORDS), min_size=1, max_size=5).map(" ".join),
    st.lists(st.lists(st.sampled_from(_WORDS), max_size=12).map(" ".join), min_size=1, max_size=8),
)
def test_lexical_equals_bm25_one_message_at_a_time(task: str, texts: list[str]) -> None:
    request = ScoreRequest(
        task, "", tuple(Candidate(i, t, len(texts)) for i, t in enumerate(texts))
    )
    scores = LexicalScorer().score(request)
    assert [s.value for s in scores] == pytest.approx(_reference(task, texts), abs=1e-12)
    assert all(s.confidence == 1.0 for s in scores)


def test_texts_searched_in_chunks_score_as_one_corpus() -> None:
    # Over CHUNK_CHARS of text is scanned a chunk at a time; the scores cannot tell.
    rng = random.Random(5)
    texts = [" ".join(rng.choice(_WORDS) for _ in range(rng.randint(0, 30))) for _ in range(4000)]
    texts[1234] = "parser " * 20_000  # one text longer than a chunk
    assert sum(map(len, texts)) > 3 * CHUNK_CHARS
    task = "fix the parser config loader 配置加载"
    candidates = tuple(Candidate(i, t, len(texts)) for i, t in enumerate(texts))
    scores = LexicalScorer().score(ScoreRequest(task, "", candidates))
    assert [s.value for s in scores] == pytest.approx(_reference(task, texts), abs=1e-12)


def test_join_offsets_are_where_each_text_starts_in_the_nul_joined_corpus() -> None:
    texts = ["abc", "", "de", "İx"]
    joined = "\x00".join(texts)
    starts = join_offsets(map(len, texts))
    assert starts == [0, 4, 5, 8, 11]
    assert [joined[a : b - 1] for a, b in itertools.pairwise(starts)] == texts
    assert join_offsets([]) == [0]


def test_chunk_ranges_cover_the_texts_in_order() -> None:
    assert chunk_ranges([5, 5, 5], 12) == [(0, 2), (2, 3)]
    assert chunk_ranges([100, 1, 1], 10) == [(0, 1), (1, 3)]
    assert chunk_ranges([], 10) == []
    assert chunk_ranges([0] * 5, 2) == [(0, 2), (2, 4), (4, 5)]
