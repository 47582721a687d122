"""Properties over arbitrary text: the extractors never raise and offsets slice back."""

from __future__ import annotations

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
        assert index.contains(identifier), identifier


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
