"""One identity for an item: case styles, symbols, versions and paths compare equal."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ctxkeep.extract import canonical, mentions, same_item, spellings
from ctxkeep.extract.identity import SourceIndex, as_written, parse_symbol, split_words


@pytest.mark.parametrize(
    "name",
    ["TotalAddedLines", "totalAddedLines", "total_added_lines", "total-added-lines",
     "TOTAL_ADDED_LINES", "total added lines"],
)  # fmt: skip
def test_case_styles_split_into_the_same_words(name: str) -> None:
    assert split_words(name) == ("total", "added", "lines")


def test_acronyms_split_at_the_next_word() -> None:
    assert split_words("HTTPServer") == ("http", "server")


@pytest.mark.parametrize(
    ("text", "parts", "arity"),
    [
        ("parse_header/2", ("parse_header",), 2),
        ("Map.fetch/2", ("Map", "fetch"), 2),
        ("lists:map/2", ("lists", "map"), 2),
        ("Class#method()", ("Class", "method"), None),
        ("Class::method", ("Class", "method"), None),
        ("self.parse", ("parse",), None),
        ("`s.initializeSession(`", ("s", "initializeSession"), None),
        ("&handle_call/3", ("handle_call",), 3),
    ],
)
def test_parse_symbol(text: str, parts: tuple[str, ...], arity: int | None) -> None:
    symbol = parse_symbol(text)
    assert (symbol.parts, symbol.arity) == (parts, arity)


# (a, b, kind, same?)
SAME = [
    ("TotalAddedLines", "total_added_lines", "symbol", True),
    ("Parser#parse()", "parser.parse", "symbol", True),
    ("Foo.Bar.Baz.fun", "Baz.fun", "symbol", True),
    ("Map.fetch", "fetch", "symbol", False),
    ("go1.21.3", "1.21.3", "version", True),
    ("v1.2.3", "1.2.4", "version", False),
    ("/work/app/src/a.py", "src/a.py", "path", True),
    ("./src/a.py:12", "src/a.py", "path", True),
    ("src/a.py", "lib/a.py", "path", False),
    ("https://Example.com/x/", "example.com/x", "url", True),
    ("${HOME}", "$HOME", "env", True),
    ("PR 45", "#45", "issue", True),
]


@pytest.mark.parametrize(("a", "b", "kind", "same"), SAME)
def test_same_item(a: str, b: str, kind: str, same: bool) -> None:
    assert same_item(a, b, kind) is same
    assert same_item(b, a, kind) is same


def test_canonical_keys() -> None:
    assert canonical("Parser#parse()", "symbol") == "parser.parse"
    assert canonical("parse_header/2", "symbol") == "parse_header"
    assert canonical("go1.21.3", "version") == "1.21.3"
    assert canonical("C:\\Src\\A.py", "path") == "c:/src/a.py"


def test_mentions_is_the_audit_lookup_for_one_text() -> None:
    message = "func (s *Strategy) initializeSession(repo string) {"
    assert mentions(message, "Strategy.initializeSession", "symbol")
    assert mentions(message, "initialize_session", "symbol")
    assert not mentions(message, "Strategy.finalize", "symbol")


def test_spellings_start_with_the_item_and_never_lose_a_qualifier() -> None:
    forms = [s.needle for s in spellings("Map.fetch/2", "symbol")]
    assert forms[0] == "Map.fetch"
    assert "fetch" not in forms


def test_prose_spelling_only_for_noun_phrases() -> None:
    assert "total added lines" in [s.needle for s in spellings("TotalAddedLines", "symbol")]
    assert "render session lanes" not in [
        s.needle for s in spellings("renderSessionLanes", "symbol")
    ]


def test_a_redaction_placeholder_can_hide_a_long_item_only() -> None:
    bare = SourceIndex(["the user said: ... logs here\n\nREDACTED"])
    assert bare.could_hide("/var/folders/wl/x/T/e2e-repo-1")
    assert not bare.could_hide("port 80")
    glued = SourceIndex(["Transcript: REDACTED.entire/tmp/s-1.json"])
    assert glued.could_hide("/var/T/TestX/.entire/tmp/s-1.json")
    assert not glued.could_hide("/var/T/TestX/.entire/tmp/s-2.txt")
    assert not SourceIndex(["nothing hidden"]).could_hide("/var/folders/wl/x/T/e2e-repo-1")


def test_a_redacted_summary_item_is_found_by_its_visible_parts() -> None:
    sources = SourceIndex(["wrote /tmp/TestA/.entire/tmp/test-session-1.json"])
    assert sources.contains("REDACTED.entire/tmp/test-session-1.json", "path")


_KINDS = ("path", "url", "version", "port", "env", "hash", "issue", "symbol")


@settings(max_examples=300, deadline=None)
@given(
    st.one_of(
        st.text(max_size=20), st.sampled_from(["Map.fetch/2", "`x`", " parse() ", "Foo#bar"])
    ),
    st.sampled_from(_KINDS),
)
def test_as_written_is_the_first_spelling(text: str, kind: str) -> None:
    """SourceIndex looks for this spelling before working out the others: it must be
    one of them (the first), or an item found as written could be one they miss."""
    assert as_written(text, kind) == spellings(text, kind)[0]
