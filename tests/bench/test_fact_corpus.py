"""The mixed-fact chats: deterministic, the sizes asked for, every plant findable and only
where it was planted, and the compactor told nothing of the plants."""

from __future__ import annotations

import re
from collections import Counter
from functools import cache
from pathlib import Path

import pytest

import ctxkeep.compactor
from ctxkeep.bench import fact_corpus
from ctxkeep.bench.fact_corpus import (
    CHAT_CORPORA,
    ChatSpec,
    FactChat,
    chat_bytes,
    generate_chat,
    keyword_found,
)

SPECS = sorted({*CHAT_CORPORA["smoke"], *CHAT_CORPORA["full"]}, key=lambda s: s.name)


@cache
def chat(spec: ChatSpec) -> FactChat:
    return generate_chat(spec)


def test_the_same_spec_gives_the_same_chat() -> None:
    spec = CHAT_CORPORA["smoke"][0]
    assert generate_chat(spec) == generate_chat(spec)
    assert generate_chat(spec).messages != generate_chat(ChatSpec(2, "en", 50)).messages


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.name)
def test_chats_have_the_size_asked_for_and_alternate_user_and_assistant(spec: ChatSpec) -> None:
    generated = chat(spec)
    size = chat_bytes(generated.messages)
    assert spec.kilobytes * 1000 <= size <= spec.kilobytes * 1000 + 4000
    roles = [m["role"] for m in generated.messages]
    assert roles == ["user", "assistant"] * (len(roles) // 2)


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.name)
def test_every_keyword_is_found_where_it_was_planted_and_nowhere_else(spec: ChatSpec) -> None:
    generated = chat(spec)
    texts = [m["content"] for m in generated.messages]
    for fact in generated.facts:
        said = {fact.message_index: fact.keywords}
        if fact.old_index is not None:
            assert fact.old_index < fact.message_index
            said[fact.old_index] = fact.old_keywords
        for index, keywords in said.items():
            for keyword in keywords:
                where = [i for i, text in enumerate(texts) if keyword_found(keyword, text)]
                assert where == [index], (fact, keyword, where)
    for instruction in generated.instructions:
        for keyword in instruction.keywords:
            where = [i for i, text in enumerate(texts) if keyword_found(keyword, text)]
            assert where == [instruction.message_index], (instruction, keyword)


def test_the_full_corpus_plants_every_kind_in_both_languages() -> None:
    for language in ("en", "zh"):
        kinds: Counter[str] = Counter()
        for spec in CHAT_CORPORA["full"]:
            if spec.language == language:
                kinds.update(f.kind for f in chat(spec).facts)
        assert set(kinds) == {"personal", "number", "date", "name", "preference", "changed"}
        assert min(kinds.values()) >= 3, kinds


def test_a_keyword_is_not_found_inside_a_longer_word_or_number() -> None:
    assert keyword_found("March 14|14 March", "on 14 March, then")
    assert keyword_found("lisbon", "LISBON.")
    assert not keyword_found("14", "in 1450")
    assert not keyword_found("peanuts", "peanutsy")
    assert keyword_found("3月14日", "定在3月14日。")


def test_the_compactor_does_not_know_the_planted_values() -> None:
    """The generator's fact pools and the compactor share nothing: no planted value is a
    word of the compactor's source."""
    source = "\n".join(
        path.read_text(encoding="utf-8")
        for path in Path(ctxkeep.compactor.__file__).parent.glob("*.py")
    )
    words = set(re.findall(r"\w+", source))
    values = {
        value
        for pool in fact_corpus._POOLS.values()
        for value in pool
        if " " not in value and len(value) > 2
    }
    assert values
    assert not values & words
