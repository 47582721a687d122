"""Back-references: phrases that must be found and prose that must not be read as one."""

from __future__ import annotations

import pytest

from ctxkeep.extract import find_references

# (text, phrase as it stands)
MUST_FIND = [
    ("As mentioned above, the parser is done.", "As mentioned above"),
    ("as discussed earlier we keep the API", "as discussed earlier"),
    ("See above for the list.", "See above"),
    ("as noted before, tests pass", "as noted before"),
    ("As we discussed, the cache stays.", "As we discussed"),
    ("the fix described earlier works", "described earlier"),
    ("the aforementioned flag", "aforementioned"),
    ("the above-mentioned file", "the above-mentioned"),
    ("as explained in the previous message", "as explained in the previous message"),
    ("如上所述，解析器已完成。", "如上所述"),
    ("前面提到的接口不变。", "前面提到的"),
    ("见上文。", "上文"),
    ("之前提到过这个问题。", "之前提到过"),
    ("按上述方案执行。", "上述"),
    ("如前所述，不要修改接口。", "如前所述"),
    ("正如之前讨论的，保持不变。", "正如之前讨论"),
]


@pytest.mark.parametrize(("text", "phrase"), MUST_FIND)
def test_must_find(text: str, phrase: str) -> None:
    found = find_references(text)
    assert [r.text for r in found] == [phrase]
    (reference,) = found
    assert text[reference.start : reference.end] == phrase


MUST_NOT_FIND = [
    "The parser reads the file.",
    "as shown below, the table lists them",
    "Run the tests before committing.",
    "It works as expected.",
    "例如上海的服务器。",
    "解析器已完成。",
]


@pytest.mark.parametrize("text", MUST_NOT_FIND)
def test_must_not_find(text: str) -> None:
    assert find_references(text) == []


def test_several_references_in_order() -> None:
    text = "As mentioned above, X. 如上所述, Y. See earlier."
    assert [r.text for r in find_references(text)] == [
        "As mentioned above",
        "如上所述",
        "See earlier",
    ]


# ----------------------------------------------------------------- resolved or a ghost

# (summary, the phrase, unresolved?)
RESOLUTION = [
    ("Use the retry settings as discussed earlier.", "as discussed earlier", True),
    ("The retry limit is five, in the settings file. Use the retry settings as discussed "
     "earlier.", "as discussed earlier", False),
    ('The build failed with "undefined: cpkg". The error detailed above is fixed.',
     "detailed above", False),
    ("We fixed the error detailed above.", "detailed above", True),
    ("Edited:\n- tests/a.py\n- tests/b.py\nThe files listed before need a lint pass.",
     "listed before", False),
    ("The files listed before need a lint pass.", "listed before", True),
    ("Edit a.py. The above-mentioned file is gone.", "The above-mentioned", False),
    ("As mentioned above.", "As mentioned above", True),
    ("公共接口保持不变。前面提到的接口不要修改。", "前面提到的", False),
    ("前面提到的方案已经完成。", "前面提到的", True),
    ("重试上限是五次。如上所述，重试上限不变。", "如上所述", False),
]  # fmt: skip


@pytest.mark.parametrize(("summary", "phrase", "unresolved"), RESOLUTION)
def test_resolution(summary: str, phrase: str, unresolved: bool) -> None:
    from ctxkeep.extract import unresolved_references

    assert [r.text for r in find_references(summary)] == [phrase]
    assert ([r.text for r in unresolved_references(summary)] == [phrase]) is unresolved


# reference filters: (summary, phrase, filtered?) with the real case each one exists for
REFERENCE_FILTER_CASES = [
    ("is_quoted_speech",
     '   - "okay, let\'s do the split as you\'ve detailed above first"', "detailed above", True),
    ("is_quoted_speech", "   - “按照前面提到的方案来做”", "前面提到的", True),
    ("is_quoted_speech", "We did the split as detailed above.", "detailed above", False),
    ("is_position_not_reference",
     "`*Alias` field must be listed before `Content json.RawMessage`.", "listed before", True),
    ("is_position_not_reference", "the options listed before.", "listed before", False),
]  # fmt: skip


@pytest.mark.parametrize(("name", "summary", "phrase", "filtered"), REFERENCE_FILTER_CASES)
def test_reference_filter_case(name: str, summary: str, phrase: str, filtered: bool) -> None:
    from ctxkeep.extract import filters

    predicate = getattr(filters, name)
    start = summary.index(phrase)
    assert predicate(summary, start, start + len(phrase)) is filtered


def test_every_reference_filter_has_a_case_and_a_docstring() -> None:
    from ctxkeep.extract import filters

    tested = {name for name, *_, filtered in REFERENCE_FILTER_CASES if filtered}
    assert {f.__name__ for f in filters.REFERENCE_FILTERS} == tested
    assert all(f.__doc__ for f in filters.REFERENCE_FILTERS)
