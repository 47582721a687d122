"""Text helpers shared by the extractors: sentence spans, words, CJK runs and bigrams.

Chinese words are cut by a segmenter where they are compared (the constraint survival
test, :mod:`ctxkeep.extract._words`); character runs and bigrams serve the rest.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator

# CJK Unified Ideographs (+ extension A and compatibility ideographs): the characters that
# make Chinese words. Punctuation (。，) is deliberately outside the class.
CJK_CLASS = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
CJK_RUN = re.compile(f"[{CJK_CLASS}]+")

# A sentence ends at . ! ? followed by space or the end (so paths, versions and URLs are
# not cut), at Chinese terminators, or at a line break.
_SENTENCE_END = re.compile(r"[.!?](?=\s|$)|[。！？\n]")
# A clause break inside a sentence: a comma or semicolon (ASCII before a space, or
# Chinese), or a colon that ends a short label ("Important: ..."). A semicolon does not
# end the sentence: "never commit to main; push to fix/x instead" is one instruction.
_CLAUSE_BREAK = re.compile(r"[,;:](?=\s)|[，；：]")
# Words for entity matching: ASCII words (with inner apostrophes, hyphens, underscores).
ASCII_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_]*(?:['’-][A-Za-z0-9_]+)*")
# List bullets and numbering at the start of a line: "- ", "* ", "• ", "1. ", "2) ".
_BULLET = re.compile(r"(?:[-*•·]|\d{1,3}[.)、])\s+")
_SPACE = " \t\r\n\f\v\u3000"


def has_cjk(text: str) -> bool:
    # CJK_RUN, not a pattern of one character: compiling a CJK class costs 13-27 M
    # instructions (``re`` builds its character map in Python, code point by code point)
    return CJK_RUN.search(text) is not None


def is_cjk_char(char: str) -> bool:
    """One character of :data:`CJK_CLASS` (code point ranges: no regex call per character)."""
    code = ord(char)
    return 0x4E00 <= code <= 0x9FFF or 0x3400 <= code <= 0x4DBF or 0xF900 <= code <= 0xFAFF


def trimmed_span(text: str, start: int, end: int) -> tuple[int, int]:
    """``(start, end)`` shrunk past surrounding whitespace and a leading list bullet."""
    while start < end and text[start] in _SPACE:
        start += 1
    bullet = _BULLET.match(text, start, end)
    if bullet is not None:
        start = bullet.end()
    while end > start and text[end - 1] in _SPACE:
        end -= 1
    return start, end


def sentence_spans(text: str) -> Iterator[tuple[int, int]]:
    """Spans of the sentences of ``text`` (terminator excluded, trimmed, never empty)."""
    start = 0
    for match in _SENTENCE_END.finditer(text):
        s, e = trimmed_span(text, start, match.start())
        if s < e:
            yield s, e
        start = match.end()
    s, e = trimmed_span(text, start, len(text))
    if s < e:
        yield s, e


@functools.lru_cache(maxsize=64)
def summary_sentences(summary: str) -> tuple[tuple[int, int], ...]:
    """:func:`sentence_spans` of a summary, computed once: the survival test and the
    back-reference check each read every summary by its sentences."""
    return tuple(sentence_spans(summary))


def clause_starts(text: str, start: int, end: int) -> list[int]:
    """Start offsets of the comma/colon clauses of the sentence ``text[start:end]``."""
    starts = [start]
    for match in _CLAUSE_BREAK.finditer(text, start, end):
        s, e = trimmed_span(text, match.end(), end)
        if s < e:
            starts.append(s)
    return starts


@functools.lru_cache(maxsize=65536)
def normalise_word(word: str) -> str:
    """Lower-case, possessive and plural stripped:
    ``Parser's`` -> ``parser``, ``APIs`` -> ``api``."""
    word = word.lower().replace("’", "'")
    if word.endswith("'s"):
        word = word[:-2]
    word = word.rstrip("'")
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def word_set(text: str) -> frozenset[str]:
    return frozenset(map(normalise_word, ASCII_WORD.findall(text)))


def bigrams(run: str) -> set[str]:
    return {run[i : i + 2] for i in range(len(run) - 1)}


def cjk_bigrams(text: str) -> frozenset[str]:
    grams: set[str] = set()
    for run in CJK_RUN.findall(text):
        grams |= bigrams(run)
    return frozenset(grams)


def squash(text: str) -> str:
    """Lower-case words and CJK characters only, single-spaced: for verbatim comparison."""
    return " ".join(_SQUASH_TOKEN.findall(text.lower()))


_SQUASH_TOKEN = re.compile(f"[a-z0-9_]+|[{CJK_CLASS}]")


def words_of(spaced: str) -> frozenset[str]:
    """A set from a space-separated vocabulary (long word lists read better as prose)."""
    return frozenset(spaced.split())
