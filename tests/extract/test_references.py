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
