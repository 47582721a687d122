"""``lexical``: Okapi BM25 of each message against the task. Offline, the default.

Terms are lowercased letter/digit runs (underscores and punctuation split them, so
``parse_config`` and ``src/parse.py`` share ``parse``) and, for Chinese, Japanese and Korean
text that has no spaces, overlapping character bigrams. Document length is the message's
character count, a proxy for its term count that keeps scoring one regex pass per message.
Scores are divided by the batch's best, so the most relevant message scores 1; confidence
is 1 because BM25 is a measurement, not a guess.
"""

from __future__ import annotations

import bisect
import math
import operator
import re
from collections.abc import Iterable, Sequence
from itertools import accumulate

from ctxkeep.scorers.base import Score, ScoreRequest

__all__ = ["CHUNK_CHARS", "LexicalScorer", "chunk_ranges", "join_offsets", "query_terms"]

_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af"
_WORD = re.compile(rf"[^\W_{_CJK}]+")
_CJK_RUN = re.compile(rf"[{_CJK}]+")

# Function words carry no relevance; BM25's idf would only shrink them, so they are left
# out of the query instead of costing a regex alternative each.
_ZERO = Score(0.0, 1.0)  # shared: most messages share no term with the task
_TEXT = operator.attrgetter("text")

_STOP_TEXT = (
    "a an and are as at be but by do for from has have i if in is it its me my of on or "
    "our so that the their then there this to was we were what when which will with you "
    "your"
)
_STOP_WORDS = frozenset(_STOP_TEXT.split())


def query_terms(text: str) -> tuple[list[str], list[str]]:
    """The task's word terms (stop words removed) and CJK bigrams, each once, sorted."""
    low = text.lower()
    words = sorted({w for w in _WORD.findall(low) if w not in _STOP_WORDS})
    bigrams: set[str] = set()
    for run in _CJK_RUN.findall(low):
        if len(run) == 1:
            bigrams.add(run)
        bigrams.update(run[i : i + 2] for i in range(len(run) - 1))
    return words, sorted(bigrams)


def _is_term_char(ch: str) -> bool:
    """A character that continues a word term (so a match next to it is not a whole word)."""
    return ch.isalnum() and not ("\u3040" <= ch <= "\u9fff" or "\uac00" <= ch <= "\ud7af")


def join_offsets(lengths: Iterable[int]) -> list[int]:
    """Where each text starts when texts of ``lengths`` are joined by a one-character
    separator (NUL), and one past the end."""
    return list(accumulate([length + 1 for length in lengths], initial=0))


CHUNK_CHARS = 65_536
"""Texts are joined and searched this many characters at a time (the lexical scorer and
the compactor's pins): a joined chunk is small enough to come from the allocator's heap
instead of fresh pages mapped for each call. A 10,000-message compaction took 2,600 page
faults a call with one 2 MB corpus, ~600 with chunks (3-4% of its time)."""


def chunk_ranges(lengths: Sequence[int], limit: int = CHUNK_CHARS) -> list[tuple[int, int]]:
    """Consecutive ``(start, end)`` index ranges covering ``lengths`` in order, each of at
    most ``limit`` characters with separators (a longer text is a range of its own)."""
    ends = join_offsets(lengths)
    ranges: list[tuple[int, int]] = []
    start = 0
    while start < len(lengths):
        end = max(start + 1, bisect.bisect_right(ends, ends[start] + limit) - 1)
        ranges.append((start, end))
        start = end
    return ranges


def _term_counts(
    corpus: str, starts: Sequence[int], words: Sequence[str], bigrams: Sequence[str]
) -> tuple[dict[int, dict[str, int]], dict[str, int]]:
    """Occurrences of each query term in each text of ``corpus`` (texts joined by NUL),
    for the texts that hold any (text index -> term -> count), and the number of texts
    that hold each term (its document frequency).

    One ``str.find`` scan per term over the whole corpus: C speed, instead of a regex
    call per message (10,000 messages: ~5 ms instead of ~60 ms).
    """
    counts: dict[int, dict[str, int]] = {}
    df: dict[str, int] = {}
    size = len(corpus)
    is_term_char = _is_term_char
    for term, whole_word in [(w, True) for w in words] + [(b, False) for b in bigrams]:
        pos = corpus.find(term)
        while pos != -1:
            end = pos + len(term)
            # An ASCII neighbour continues the word when it is a letter or digit; others
            # (rare) go through the full test, which knows CJK.
            before = corpus[pos - 1] if pos else " "
            after = corpus[end] if end < size else " "
            if not whole_word or (
                not (before.isalnum() if before.isascii() else is_term_char(before))
                and not (after.isalnum() if after.isascii() else is_term_char(after))
            ):
                text = bisect.bisect_right(starts, pos) - 1
                found = counts.get(text)
                if found is None:
                    counts[text] = {term: 1}
                    df[term] = df.get(term, 0) + 1
                elif term in found:
                    found[term] += 1
                else:
                    found[term] = 1
                    df[term] = df.get(term, 0) + 1
            pos = corpus.find(term, pos + 1)
    return counts, df


class LexicalScorer:
    """BM25 (k1, b) of every candidate against the task, scaled to [0, 1]."""

    name = "lexical"
    remote = False

    def __init__(self, k1: float = 1.2, b: float = 0.75) -> None:
        self.k1 = k1
        self.b = b

    def score(self, request: ScoreRequest) -> Sequence[Score]:
        return self.score_texts(request.task, list(map(_TEXT, request.candidates)))

    def score_texts(self, task: str, texts: Sequence[str]) -> list[Score]:
        """:meth:`score` of candidates with these texts (the compactor calls this for
        the built-in scorer: no Candidate object per message)."""
        if not texts:
            return []
        n = len(texts)
        words, bigrams = query_terms(task)
        if not words and not bigrams:
            return [_ZERO] * n
        lengths = list(map(len, texts))
        # Most messages share no term with the task: only those that do are scored.
        counts: dict[int, dict[str, int]] = {}
        df: dict[str, int] = {}
        # A chunk of texts at a time (CHUNK_CHARS).
        for first, end in chunk_ranges(lengths):
            starts = join_offsets(lengths[first:end])
            corpus = "\x00".join(texts[first:end]).lower()
            if len(corpus) != starts[-1] - 1:
                # lower() changed some lengths (e.g. "İ"): fall back to per-text offsets.
                lowered = [text.lower() for text in texts[first:end]]
                starts = join_offsets(map(len, lowered))
                corpus = "\x00".join(lowered)
            part_counts, part_df = _term_counts(corpus, starts, words, bigrams)
            counts.update((first + k, found) for k, found in part_counts.items())
            for term, d in part_df.items():
                df[term] = df.get(term, 0) + d
        avgdl = (sum(lengths) / n) or 1.0
        idf = {t: math.log(1.0 + (n - d + 0.5) / (d + 0.5)) for t, d in df.items()}
        k1, b = self.k1, self.b
        raw: dict[int, float] = {}
        for text, found in counts.items():
            norm = k1 * (1.0 - b + b * lengths[text] / avgdl)
            if len(found) == 1:  # the common case; the same float as the sum of one term
                ((t, tf),) = found.items()
                raw[text] = idf[t] * tf * (k1 + 1.0) / (tf + norm)
            else:
                raw[text] = sum(idf[t] * tf * (k1 + 1.0) / (tf + norm) for t, tf in found.items())
        best = max(raw.values(), default=0.0)
        if best <= 0:
            return [_ZERO] * n
        scores = [_ZERO] * n
        for text, value in raw.items():
            if value:
                scores[text] = Score(value / best, 1.0)
        return scores

    def describe(self) -> dict[str, object]:
        return {"name": self.name, "k1": self.k1, "b": self.b}
