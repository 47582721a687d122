"""Properties over arbitrary text: the extractors never raise and offsets slice back."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ctxkeep.extract import (
    SourceIndex,
    constraint_survives,
    extract_constraints,
    extract_identifiers,
    find_references,
    identifier_candidates,
)

# Arbitrary unicode, plus text built from the pieces the patterns care about, so that
# the interesting branches are reached far more often than by chance.
PIECES = st.sampled_from(
    [" ", ".", "/", ":", "?", "，", "。", "\n", "do not ", "must ", "only ", "just ", "never ",
     "不要", "必须", "只", "别", "src/a.py", "v1.2.3", "#12", "$HOME", "localhost:80", "3f1c9a0e",
     "https://x.org/a", "foo_bar()", "Class.method", "方案/数据", "127.0.0", "11/29", "`x`",
     "as mentioned above", "如上所述", "e.g.", "(", ")", "I ", "the parser", "接口"]
)  # fmt: skip
TEXT = st.one_of(st.text(), st.lists(st.one_of(PIECES, st.text(max_size=3))).map("".join))


@settings(max_examples=300)
@given(TEXT)
def test_constraints_slice_back(text: str) -> None:
    for constraint in extract_constraints(text):
        assert text[constraint.start : constraint.end] == constraint.text
        assert constraint.kind in {"negation", "requirement", "scope"}
        constraint_survives(constraint, text)


@settings(max_examples=300)
@given(TEXT)
def test_identifiers_slice_back(text: str) -> None:
    for candidate in identifier_candidates(text):
        identifier = candidate.identifier
        assert text[identifier.start : identifier.end] == identifier.text
    index = SourceIndex([text])
    for identifier in extract_identifiers(text):
        # an identifier is always found in the very text it came from
        assert index.contains(identifier.text, identifier.kind), identifier


@settings(max_examples=300)
@given(TEXT)
def test_references_slice_back(text: str) -> None:
    for reference in find_references(text):
        assert text[reference.start : reference.end] == reference.text


@settings(max_examples=200)
@given(TEXT, TEXT)
def test_survival_never_raises(user_text: str, summary: str) -> None:
    for constraint in extract_constraints(user_text):
        constraint_survives(constraint, summary)


@settings(max_examples=500)
@given(TEXT)
def test_windowed_marker_scan_equals_a_full_scan(text: str) -> None:
    from ctxkeep.extract.constraints import _MARKER, _marker_matches

    assert [m.span() for m in _marker_matches(text)] == [m.span() for m in _MARKER.finditer(text)]


def _reference_contains(index: SourceIndex, texts: list[str], item: str, kind: str) -> bool:
    """The lookup without the speed work: every spelling, one joined haystack; the rules
    that need the sources' structure (elisions, qualified names) asked of ``index``."""
    from ctxkeep.extract.identity import _occurs, _pieces, parse_symbol, spellings

    if _pieces(item) != [item]:
        return index._pieces_in_one_text(_pieces(item))
    text = "\x00".join(texts)
    for form in spellings(item, kind):
        haystack = text.lower() if form.ignore_case else text
        if _occurs(haystack, form) >= 0:
            return True
    if kind == "symbol":
        symbol = parse_symbol(item)
        return symbol.qualified and (
            index._alias_shortened(symbol) or index._qualified_nearby(symbol)
        )
    return False


SOURCE_PIECES = st.sampled_from(
    ["src/a.py", "/work/src/a.py", "a.py:12", "b/src/a.py", "parse()", "parse", "Parser",
     "Parser.parse", "xparse", "parse_x", "parse_header/2", "TotalAddedLines", "total added",
     "go1.21.3", "a/.../b.py", "REDACTED", "class ", "Map.fetch", "PR #12", "#12", "issues/12",
     "V1.2.3", "v1.2.3",
     "1.2.3", "HTTPS://X.org/a/", "x.org/a", "$HOME", "${HOME}", "HOME", "3F1C9A0E11",
     "localhost:8080", "8080", "C:\\Src\\A.py", "接口", "—", " ", "\n", "(", ".", "/", "_"]
)  # fmt: skip
SOURCE_TEXT = st.lists(st.one_of(SOURCE_PIECES, st.text(max_size=2)), max_size=8).map("".join)


@settings(max_examples=400)
@given(st.lists(SOURCE_TEXT, max_size=4), st.lists(SOURCE_TEXT, max_size=4), SOURCE_TEXT)
def test_source_lookup_equals_the_plain_one(
    texts: list[str], bulk: list[str], summary: str
) -> None:
    # Fewer spellings (the implied ones dropped), tiers, ASCII apart: the same answers.
    index = SourceIndex(texts, bulk=bulk)
    for identifier in extract_identifiers(summary):
        expected = _reference_contains(index, texts + bulk, identifier.text, identifier.kind)
        assert index.contains(identifier.text, identifier.kind) is expected, identifier


@settings(max_examples=300)
@given(TEXT)
def test_lower_case_cues_equal_the_case_blind_ones_on_ascii(text: str) -> None:
    from ctxkeep.extract.constraints import _CUES, _LOWER_CUES, _ascii_cue_kinds

    ascii_text = text.encode("ascii", "ignore").decode()
    found = set()
    for kind, cue in _CUES.items():
        if cue.search(ascii_text) is not None:
            found.add(str(kind))
        assert (_LOWER_CUES[kind].search(ascii_text.lower()) is not None) is (str(kind) in found)
    assert _ascii_cue_kinds(ascii_text.lower()) == found


@settings(max_examples=500)
@given(TEXT)
def test_references_by_halves_equal_the_whole_pattern(text: str) -> None:
    import re

    from ctxkeep.extract.references import _CHINESE, _ENGLISH

    whole = re.compile(f"{_ENGLISH}|{_CHINESE}", re.IGNORECASE)
    expected = [(m.group(), m.start(), m.end()) for m in whole.finditer(text)]
    assert [(r.text, r.start, r.end) for r in find_references(text)] == expected


CUE_WORDS = ["not", "no", "never", "dont", "don't", "doesn't", "didn't", "mustn't", "shouldn't",
             "cannot", "can't", "won't", "without", "avoiding", "forbidden", "prohibited",
             "refrain", "unchanged", "untouched", "intact", "preserve", "keep", "leave", "must",
             "always", "required", "need to", "needs to", "needed to", "has to", "have to",
             "should", "ensure", "make sure", "mandatory", "every time", "only", "just",
             "solely", "exclusively", "limited", "restricted", "nothing but", "nothing else",
             "no other", "except"]  # fmt: skip


@pytest.mark.parametrize("word", CUE_WORDS)
def test_every_cue_word_passes_the_stem_check(word: str) -> None:
    from ctxkeep.extract.constraints import _CUES, _ascii_cue_kinds

    for sentence in (f"Please {word} touch it", word.upper(), f"{word.title()}: x"):
        expected = {str(kind) for kind, cue in _CUES.items() if cue.search(sentence)}
        assert expected, sentence
        assert _ascii_cue_kinds(sentence.lower()) == expected, sentence
