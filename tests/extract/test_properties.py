"""Properties over arbitrary text: the extractors never raise and offsets slice back."""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st

from ctxkeep.extract import (
    ConstraintKind,
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
     "as mentioned above", "如上所述", "e.g.", "(", ")", "I ", "the parser", "接口",
     "can be ", "a bit ", "smaller", "why are you ", "option 2", "方案二", "let's ", "keep ",
     "用", "不对", "I told you", "we want ", "no ", "—", "——", "Rules:\n- ", "stop adding",
     "for now", "doesn't need to", "again", "- ", "\n> ", '{"a":', "parse/2", "Map.fetch/",
     "port ", "8", "go1.", "http://", "C:\\x", "a.b:", "_", "::", "Foo#bar", "#", "Turn 3:",
     "PR ", "Issue ", "gh-", "Pull request ", "PORT=", "FOO_BAR", "done.", "\\", "\t"],
)  # fmt: skip
TEXT = st.one_of(st.text(), st.lists(st.one_of(PIECES, st.text(max_size=3))).map("".join))


@settings(max_examples=300, deadline=None)
@given(TEXT)
def test_constraints_slice_back(text: str) -> None:
    for constraint in extract_constraints(text):
        assert text[constraint.start : constraint.end] == constraint.text
        assert constraint.kind in {k.value for k in ConstraintKind}
        assert constraint.keys or constraint.words
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


@settings(max_examples=200, deadline=None)
@given(TEXT, TEXT)
def test_survival_never_raises(user_text: str, summary: str) -> None:
    for constraint in extract_constraints(user_text):
        constraint_survives(constraint, summary)


@settings(max_examples=500, deadline=None)
@given(TEXT)
def test_windowed_marker_scan_equals_a_full_scan(text: str) -> None:
    from ctxkeep.extract.constraints import _MARKER, _marker_matches

    found = _marker_matches(text) or []
    assert [m.span() for m in found] == [m.span() for m in _MARKER.finditer(text)]


@settings(max_examples=500, deadline=None)
@given(TEXT)
def test_a_text_with_a_marker_passes_the_word_test(text: str) -> None:
    from ctxkeep.extract.constraints import _MARKER, _RULES_HEADING, _marker_matches, _may_hold

    if _MARKER.search(text) is not None or _RULES_HEADING.search(text) is not None:
        assert _may_hold(text)
    long = text * (2001 // max(1, len(text)) + 1)  # the windowed scan of long texts
    found = _marker_matches(long) or []
    assert [m.span() for m in found] == [m.span() for m in _MARKER.finditer(long)]


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


# Back-reference phrases in any case, and the characters that match an ASCII letter
# ignoring case or change length when lowered (long s, dotless i, Kelvin sign, İ).
_REFERENCE_PIECES = st.sampled_from(
    [
        "as mentioned", "AS MENTIONED", "As I said", "as ı said", "as I had ſaid", "see above",
        "SEE EARLIER", "aforementioned", "as before", ".", ",", " ", "\n", "-", "_", "x",
        "\u212a", "\u017f", "\u0131", "\u0130", "é", "如上所述", "前面提到的", "the fix from above",
        "previously described", "liſted above", "mentioned", "earlier",
    ]
)  # fmt: skip


@settings(max_examples=500)
@given(st.one_of(TEXT, st.lists(_REFERENCE_PIECES, max_size=16).map("".join)))
@example("as I said")
@example("aſ mentioned above")
def test_references_by_halves_equal_the_whole_pattern(text: str) -> None:
    import re

    from ctxkeep.extract.references import _CHINESE, _ENGLISH

    whole = re.compile(f"{_ENGLISH}|{_CHINESE}", re.IGNORECASE)
    expected = [(m.group(), m.start(), m.end()) for m in whole.finditer(text)]
    assert [(r.text, r.start, r.end) for r in find_references(text)] == expected


@settings(max_examples=500, deadline=None)
@given(TEXT)
@example("see PR 8, Pull request12 and gh-3")  # an issue by its word
@example("--port=8080, PORT 80 and :5432")  # a port by its word or a colon
@example("set MAX_RETRIES=3 (not max_retries)")  # a constant needs a capital
@example("Turn 3: Foo::bar and Foo#bar, at C:\\tmp\\x.py:12.")  # inner colons, dots
def test_identifier_scan_equals_the_alternation(text: str) -> None:
    """The alternatives searched one by one, each only in a region holding its trigger
    classes, find what the alternation of all of them finds in every region: a class
    skips an alternative only where it could not match. The hash is the exception, by
    design: a run of hex letters is one only beside a digit or a "#" ("deadbeef" alone is
    a word)."""
    import re

    from ctxkeep.extract.identifiers import _ALTERNATIVES, _matches, _regions

    every = re.compile("|".join(s for _, s in _ALTERNATIVES))
    no_hash = re.compile("|".join(s for _, s in _ALTERNATIVES if "(?P<hash>" not in s))
    expected = []
    for start, end in _regions(text):
        region = text[start:end]
        alternation = every if "#" in region or re.search(r"\d", region) else no_hash
        expected += [(m.span(), m.lastgroup) for m in alternation.finditer(text, start, end)]
    assert [(m.span(), m.lastgroup) for m in _matches(text)] == expected


# Markers and their near misses in both languages, names, digits and the characters
# whose case folding or word class could fool a shortcut (Kelvin sign, long s, İ).
_MARKER_PIECES = st.sampled_from(
    [
        "do not", "Don't", "don’t", "never", "must", "have to", "be sure to", "use", "just",
        "only", "keep", "no", "No,", "nope", "again", "option 2", "optionB", "approachA",
        "option#3", "option\u00a0c", "go with", "I told you", "you said", "that's wrong",
        "let's", "lets", "stop adding", "can there be fewer", "i'd prefer",
        "from now on", "at most",
        "不要", "别", "请勿", "不能改", "不能", "必须", "只", "方案二", "方案 3", "第2种",
        "我说过", "改回", "尽量", "用", "换成", "保持", "严禁", "切勿", "一定要",
        "x", "_", "2", "src/only/x.py", "no-op", "always_on", "\u212a", "\u017f", "İ", "é",
        " ", "  ", "\n", ",", ".", "!", "?", "。", "，", "：", "(", ")",
    ]
)  # fmt: skip


@settings(max_examples=800, deadline=None)
@given(st.lists(_MARKER_PIECES, max_size=24).map("".join))
def test_markers_matched_where_they_can_start_equal_a_full_scan(text: str) -> None:
    from ctxkeep.extract.constraints import (
        _MARKER,
        _marker_matches,
        _matches_at_starts,
        _may_hold,
        _starts,
    )

    full = [m.span() for m in _MARKER.finditer(text)]
    assert [m.span() for m in _matches_at_starts(text, _MARKER, _starts(text))] == full
    if not text.isascii() and _may_hold(text):
        assert [m.span() for m in _marker_matches(text) or []] == full


@settings(max_examples=800, deadline=None)
@given(st.lists(st.one_of(_MARKER_PIECES, st.text(max_size=3)), max_size=24).map("".join))
@example("don't-use_first 2only")
def test_ascii_starts_are_the_start_words_of_a_text_that_may_hold_a_marker(text: str) -> None:
    import re

    from ctxkeep.extract.constraints import (
        _ASCII_MARKER,
        _START_WORDS,
        _ascii_starts,
        _marker_matches,
    )

    text = text.encode("ascii", "ignore").decode()
    lowered = text.lower()
    plain = [w.start() for w in re.finditer("[a-z]+", lowered) if w.group() in _START_WORDS]
    starts = _ascii_starts(text)
    assert starts in ([], plain)
    full = [(m.span(), m.lastgroup) for m in _ASCII_MARKER.finditer(lowered)]
    assert {span[0] for span, _ in full} <= set(starts)
    assert [(m.span(), m.lastgroup) for m in _marker_matches(text) or []] == full


@settings(max_examples=800, deadline=None)
@given(st.lists(st.one_of(_MARKER_PIECES, st.text(max_size=3)), max_size=24).map("".join))
@example("\u212aeep İonly ſtop 请only")
def test_letter_runs_give_the_start_words_of_any_text(text: str) -> None:
    """The letter runs of one translate and split find the same marker starts as a regex
    pass over the ASCII words of any text; a text they reject fails the word test that
    gates the markers and a rules heading (and, when ASCII, holds no marker)."""
    import re

    from ctxkeep.extract.constraints import (
        _CJK_START,
        _MARKER,
        _START_WORDS,
        _marker_matches,
        _may_hold,
        _starts,
    )

    plain = [w.start() for w in re.finditer("[A-Za-z]+", text) if w.group().lower() in _START_WORDS]
    if not text.isascii():
        assert _starts(text) == sorted(plain + [m.start() for m in _CJK_START.finditer(text)])
    if _marker_matches(text) is None:
        assert not _may_hold(text)
        assert not text.isascii() or _MARKER.search(text) is None


def _without_asides_plain(clause: str) -> str:
    """``_without_asides`` without its shortcut for a clause with no bracket."""
    from ctxkeep.extract.constraints import _ASIDE

    pieces: list[str] = []
    position = 0
    for aside in _ASIDE.finditer(clause):
        before = clause[: aside.start()]
        if before.count('"') % 2 or before.count("`") % 2 or before.count("“") > before.count("”"):
            continue
        pieces.append(clause[position : aside.start()])
        position = aside.end()
    return "".join([*pieces, clause[position:]]).strip() or clause


@settings(max_examples=500, deadline=None)
@given(
    st.lists(
        st.sampled_from(["(", ")", "（", "）", " ", "\u3000", "x", '"', "`"]), max_size=12
    ).map("".join)
)
def test_asides_cut_with_the_bracket_shortcut_equal_the_plain_cut(clause: str) -> None:
    from ctxkeep.extract.constraints import _without_asides

    assert _without_asides(clause) == _without_asides_plain(clause)


_FENCE_PIECES = st.sampled_from(["```", "~~~", "``", "~", "`", "\n", " ", "a", "py"])


@settings(max_examples=500, deadline=None)
@given(st.lists(st.one_of(_FENCE_PIECES, st.text(max_size=2)), max_size=16).map("".join))
def test_a_text_without_a_fence_mark_has_no_fence(text: str) -> None:
    """pasted_spans looks for fence lines only in a text holding ``` or ~~~."""
    from ctxkeep.extract import _clauses

    if not ("```" in text or "~~~" in text):
        assert _clauses._FENCE.search(text) is None


# Abbreviations, their neighbours and the characters around a full stop that the
# abbreviation test looks at (case folding: long s, Kelvin sign).
_SENTENCE_PIECES = st.sampled_from(
    [
        "e.g", "i.e", "etc", "vs", "cf", "incl", "approx", "esp", "Etc", "E.G", "e\u017fp",
        "xetc", ".etc", "_vs", "a", "approxx", ".", ". ", "\n", " ", "!", "?", "。", "use x",
    ]
)  # fmt: skip


@settings(max_examples=800, deadline=None)
@given(st.lists(_SENTENCE_PIECES, max_size=24).map("".join))
@example("approx\n. a")  # the longest abbreviation, and ``$`` before a line break
def test_abbreviation_test_near_the_stop_equals_the_whole_text_one(text: str) -> None:
    from ctxkeep.extract import _clauses
    from ctxkeep.extract._text import trimmed_span

    plain: list[tuple[int, int]] = []
    start = 0
    line_start = 0
    for match in _clauses._SENTENCE_END.finditer(text):
        if match.group() == "\n":
            wrapped = _clauses._wrapped(text, line_start, match.start())
            line_start = match.end()
            if wrapped:
                continue
        elif match.group() == "." and _clauses._ABBREVIATION.search(text, 0, match.start()):
            continue
        span = trimmed_span(text, start, match.start())
        if span[0] < span[1]:
            plain.append(span)
        start = match.end()
    span = trimmed_span(text, start, len(text))
    if span[0] < span[1]:
        plain.append(span)
    assert _clauses.sentences(text) == plain


_BRACKET_TEXT = st.lists(
    st.sampled_from(["(", ")", "[", "]", "{", "}", "（", "）", "【", "】", "「", "」", "a", " "]),
    max_size=20,
).map("".join)


@settings(max_examples=500, deadline=None)
@given(_BRACKET_TEXT, st.integers(0, 20), st.integers(0, 20))
def test_bracket_start_by_brackets_equals_a_walk_over_every_character(
    text: str, start: int, position: int
) -> None:
    from ctxkeep.extract.constraints import _bracket_start

    start, position = min(start, len(text)), min(position, len(text))
    opened: list[int] = []
    for i in range(start, position):
        if text[i] in "([{（【「":
            opened.append(i)
        elif text[i] in ")]}）】」" and opened:
            opened.pop()
    assert _bracket_start(text, start, position) == (opened[-1] + 1 if opened else start)


_NESTING_TEXT = st.lists(
    st.sampled_from(["(", ")", "[", "（", "）", "「", "」", "“", "”", '"', "`", "a", ",", " "]),
    max_size=24,
).map("".join)


@settings(max_examples=500, deadline=None)
@given(_NESTING_TEXT, st.integers(0, 24), st.integers(0, 24))
def test_nesting_by_brackets_equals_a_walk_over_every_character(
    text: str, start: int, end: int
) -> None:
    from ctxkeep.extract._clauses import _CLOSERS, _OPENERS, _nested_at

    start, end = min(start, len(text)), max(min(end, len(text)), min(start, len(text)))
    depth = 0
    toggled = {'"': False, "`": False}
    walked = []
    for char in text[start:end]:
        if char in _OPENERS:
            depth += 1
        elif char in _CLOSERS:
            depth = max(0, depth - 1)
        elif char in toggled:
            toggled[char] = not toggled[char]
        walked.append(depth > 0 or any(toggled.values()))
    assert _nested_at(text, start, end) == walked


_RULES_TEXT = st.lists(
    st.sampled_from(
        ["Rules:", "Constraints:", "A few rules for this repo:", "要求：", "Note: ", "rules",
         ": ", ":", "\n", "\n- ", "- ", "1. ", "* ", "x", "keep it. ", "Done. Rules:", " ", "\t",
         "?", "。", "\r\n"]
    ),
    max_size=20,
).map("".join)  # fmt: skip


@settings(max_examples=800, deadline=None)
@given(_RULES_TEXT)
def test_rules_items_from_colon_lines_equal_a_whole_text_search(text: str) -> None:
    from ctxkeep.extract.constraints import _LIST_ITEM, _RULES_HEADING, _rules_items

    items = []
    for heading in _RULES_HEADING.finditer(text):
        position = heading.end() + 1
        while position < len(text):
            line_end = text.find("\n", position)
            line_end = len(text) if line_end == -1 else line_end
            item = _LIST_ITEM.match(text, position, line_end)
            if item is None:
                break
            items.append(item.end())
            position = line_end + 1
    assert list(_rules_items(text)) == items
