"""How the summary ranks facts: what the user says of themselves first, questions last."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from ctxkeep.compactor.facts import (
    _CONNECTIVES,
    FactSource,
    _trim_words,
    collect_facts,
    is_question,
    select_facts,
)


def _facts(*said: tuple[str, str]) -> list[str]:
    sources = [FactSource(i, role, text, 0.0) for i, (role, text) in enumerate(said)]
    return [f.text for f in select_facts(collect_facts(sources, len(sources)))]


def test_a_question_is_recognised_in_english_and_chinese() -> None:
    text = "Who built the Eiffel Tower? I live in Lyon. 去西安玩两天应该看什么？我住在西安。"
    ends = [text.index("?"), text.index("Lyon") + 4, text.index("？"), len(text) - 1]
    assert [is_question(text, end) for end in ends] == [True, False, True, False]


def test_what_the_user_says_of_themselves_is_a_fact_without_numbers_or_names() -> None:
    facts = _facts(
        ("user", "For context, I work as a structural engineer."),
        ("assistant", "The exam is on Friday."),
    )
    assert "For context, I work as a structural engineer" in facts


def test_the_users_own_facts_outrank_the_assistants_general_knowledge() -> None:
    ranked = _facts(
        ("assistant", "Gustave Eiffel and Maurice Koechlin built it in 1889 in 26 months."),
        ("user", "I drive 38 km to the clinic every day."),
    )
    assert ranked[0] == "I drive 38 km to the clinic every day"


def test_a_question_ranks_below_the_same_words_said_as_a_statement() -> None:
    ranked = _facts(
        ("user", "The museum in Amsterdam is open on Mondays."),
        ("user", "Is the museum in Amsterdam open on Mondays?"),
    )
    assert ranked == [
        "The museum in Amsterdam is open on Mondays",
        "Is the museum in Amsterdam open on Mondays",
    ]


def _trim_words_one_by_one(text: str, start: int, end: int) -> tuple[int, int]:
    """The plain way: each connective, in order, skipped once when the text goes on with it."""
    head = text[start : start + 40].lower()
    skipped = 0
    for lead in _CONNECTIVES:
        if head.startswith(lead, skipped):
            skipped += len(lead)
    return start + skipped, end


@settings(max_examples=400, deadline=None)
@given(
    st.lists(
        st.sampled_from([*_CONNECTIVES, "AND ", "So ", "and", "by the", "x", " ", "İ", "而"]),
        max_size=8,
    ),
    st.integers(0, 3),
)
def test_leading_connectives_are_trimmed_as_one_startswith_per_connective(
    pieces: list[str], start: int
) -> None:
    text = "ab " + "".join(pieces) + "the fact"
    assert _trim_words(text, start, len(text)) == _trim_words_one_by_one(text, start, len(text))
