"""The shortcuts the compactor takes for speed give the answers of the plain way.

Each test pins one thing the fast code relies on: a batched scan that agrees with one
text at a time, a search bounded to the runs that can hold a match, the tool-unit
listing, and decisions built column by column.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ctxkeep.compactor import compact
from ctxkeep.compactor.core import _to_score_order
from ctxkeep.compactor.pins import (
    BUILTIN_PINS,
    compile_pins,
    finditer_in_runs,
    search_in_runs,
    trigger_head,
)
from ctxkeep.compactor.result import Decision, frozen_from_columns
from ctxkeep.compactor.segment import group_units, read_segments
from ctxkeep.scorers.lexical import CHUNK_CHARS, LexicalScorer

PINS, _ = compile_pins(())


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.lists(
            st.sampled_from(
                [
                    "\tat x (a.js:1:2)",
                    "    at y (b.js:3:4)",
                    "0x8007000E",
                    "0X1F2E",
                    "HTTP 429",
                    "status: 503",
                    "ENOENT",
                    "https://x.example",
                    "Traceback (most recent call last)",
                    'File "a.py", line 3',
                    "KeyError: 'k'",
                    "panic: boom",
                    "goroutine 7 [run]:",
                    "Note: slow",
                    "never push",
                    "src/a/b.py",
                    "plain",
                    "words",
                    "\n",
                    "\t",
                    "0",
                ]
            ),
            max_size=6,
        ).map(" ".join),
        min_size=1,
        max_size=8,
    )
)
def test_batched_pins_match_one_text_at_a_time(batch: list[str]) -> None:
    # A trigger is skipped when one of its characters is absent from the whole batch:
    # the batch and each text alone (where more characters are absent) must agree.
    assert PINS.pins_of(batch) == [PINS.pin_of(text) for text in batch]
    prose = ["" if i % 2 else text for i, text in enumerate(batch)]
    assert PINS.pins_of(batch, prose) == [
        PINS.pins_of([text], [words])[0] for text, words in zip(batch, prose, strict=True)
    ]


def _openai(n_plain: int) -> list[dict[str, Any]]:
    return [
        {"role": "user", "content": "start"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "a", "type": "function", "function": {"name": "x", "arguments": "{}"}},
                {"id": "b", "type": "function", "function": {"name": "y", "arguments": "{}"}},
            ],
        },
        *({"role": "assistant", "content": f"note {k}"} for k in range(n_plain)),
        {"role": "tool", "tool_call_id": "a", "content": "A"},
        {"role": "tool", "tool_call_id": "b", "content": "B"},
        {"role": "tool", "tool_call_id": "zzz", "content": "orphan"},
        {"role": "assistant", "content": "end"},
    ]


def test_only_tool_traffic_is_listed_in_units() -> None:
    units = group_units(read_segments(_openai(2), exact_tokens=False))
    assert [(u.members, u.broken, u.pending) for u in units] == [
        ((1, 4, 5), False, False),
        ((6,), True, False),
    ]
    assert group_units(read_segments([{"role": "user", "content": "x"}])) == []


def test_messages_are_scored_in_the_order_of_their_unit() -> None:
    # A unit's members are scored together at its first member's place (remote scorers'
    # batches follow the conversation), messages alone at their own.
    units = group_units(read_segments(_openai(2), exact_tokens=False))
    own = ["", "", "", "", "", "", "recent"]
    assert _to_score_order(units, own) == [0, 1, 4, 5, 2, 3]
    own[4] = "pinned:trace"  # a protected member keeps its whole unit from scoring
    assert _to_score_order(units, own) == [0, 2, 3]


def test_trigger_heads_start_every_match_of_their_trigger() -> None:
    heads = {t: trigger_head(t) for _, _, t, _ in BUILTIN_PINS if isinstance(t, str)}
    assert set(heads.values()) == {"E", "."}
    sample = "EIO E2BIG. main.py x.JSON, Ex EACCES .md ENOENT\nE"
    for trigger, head in heads.items():
        matches = list(re.finditer(trigger, sample))
        assert matches
        assert all(sample[m.start()] == head for m in matches)
    assert trigger_head("E?x") == trigger_head("a|b") == trigger_head("[ab]") == ""


def test_pins_of_texts_longer_than_a_chunk_match_one_at_a_time() -> None:
    pieces = [
        "plain words", "HTTP 429", "Traceback (most recent call last)", "src/a/b.py",
        "never push", "ENOENT", "0x8007000E", "\tat x (a.js:1:2)", "İ", "x" * 70_000,
    ]  # fmt: skip
    batch = [" ".join(pieces[(i * 7 + j) % len(pieces)] for j in range(i % 4)) for i in range(400)]
    assert sum(map(len, batch)) > 3 * CHUNK_CHARS
    prose = ["" if i % 3 else text for i, text in enumerate(batch)]
    assert PINS.pins_of(batch, prose) == [
        PINS.pins_of([text], [words])[0] for text, words in zip(batch, prose, strict=True)
    ]


def test_the_built_in_lexical_scorer_read_directly_scores_as_through_the_protocol() -> None:
    class Wrapped(LexicalScorer):
        """A subclass: the compactor asks it through Scorer.score, with Candidates."""

    about = [
        {"role": "assistant", "content": f"the parser config loader, try {k}"} for k in range(5)
    ]
    messages = about + _openai(30)
    direct = compact(messages, "fix the parser config", target_bytes=200)
    wrapped = compact(messages, "fix the parser config", target_bytes=200, scorer=Wrapped())
    assert any(d.score for d in direct.decisions)
    assert direct.decisions == wrapped.decisions
    assert direct.messages == wrapped.messages


def test_decisions_built_from_columns_equal_the_dataclass() -> None:
    columns: list[list[Any]] = [
        [0, 1],
        ["a" * 64, "b" * 64],
        ["user", None],
        [10, 0],
        [3, 0],
        [0.5, None],
        [1.0, None],
        [True, False],
        ["selected", "orphan"],
        [0, 1],
        [((0, 4),), None],
    ]
    fast = frozen_from_columns(Decision, columns)
    assert fast == tuple(map(Decision, *columns))
    rows = zip(*columns, strict=True)
    assert [d.to_dict() for d in fast] == [Decision(*row).to_dict() for row in rows]
    assert hash(fast[1]) == hash(Decision(*[c[1] for c in columns]))
    with pytest.raises(AttributeError):  # still frozen
        fast[0].kept = False  # type: ignore[misc]
    assert frozen_from_columns(Decision, [[]] * 11) == ()


def test_columns_of_different_lengths_or_count_are_refused() -> None:
    with pytest.raises(ValueError, match="11 columns of one length"):
        frozen_from_columns(Decision, [[1, 2]] * 10 + [[1]])
    with pytest.raises(ValueError, match="11 columns of one length"):
        frozen_from_columns(Decision, [[1]] * 10)


# Path-like pieces, the characters around them, and every kind of whitespace.
_RUN_PIECES = [
    "src/a/b.py", "/etc/hosts", "/usr", "./x.c", "../up/y.ts", "~/z.md", "C:\\dir\\f.txt",
    "D:\\x", "https://x.example/a?b=1", "ftp://h/f", "file:///p", "km/h", "a/b", "/",
    "\\", "//", "://", ".", "-", "_", "@", "+", ":", "~", "x", "py", "Zz9", '"', "'", "<",
    ">", "|", "(", ")", "é", "İ", " ", "\n", "\t", "\u00a0", "\u3000", "\u2028", "\x1c",
]  # fmt: skip


@settings(max_examples=600, deadline=None)
@given(
    st.lists(st.sampled_from(_RUN_PIECES), max_size=16).map("".join)
    | st.text(alphabet="/\\:.-_ aZ9\n\u00a0é~", max_size=30),
    st.integers(min_value=0, max_value=40),
)
def test_pins_searched_in_whitespace_free_runs_find_what_a_plain_search_finds(
    text: str, start: int
) -> None:
    checked = [pin for pin in PINS.builtin if pin.in_runs]
    assert {pin.name for pin in checked} == {"path", "url"}
    for pin in checked:
        plain = pin.pattern.search(text, start) is not None
        assert search_in_runs(pin.pattern, text, start, pin.substrings) == plain, pin.name
        assert pin.search(text, start) == plain


@settings(max_examples=600, deadline=None)
@given(
    st.lists(st.sampled_from(_RUN_PIECES), max_size=16).map("".join)
    | st.text(alphabet="/\\:.-_ aZ9\n\u00a0é~", max_size=30)
)
def test_pins_found_run_by_run_are_what_finditer_finds(text: str) -> None:
    """``hit_offsets`` (a pinned message shrunk to its spans) keeps exactly the spans the
    plain ``finditer`` over the whole text would."""
    for pin in (pin for pin in PINS.builtin if pin.in_runs):
        plain = [m.span() for m in pin.pattern.finditer(text)]
        assert [m.span() for m in finditer_in_runs(pin.pattern, text, pin.substrings)] == plain


_TRIGGER_PIECES = [
    "Traceback (most recent call last):", 'File "x.py", line 3', '  File "/a/b.py", line 12, in f',
    "    at Foo.bar(Foo.java:3)", "\tat x.y(Z.kt:9)", "ValueError: bad", "HTTP 500", "http/1.1 404",
    "status 503", "Status: 429", "0x1F", "0xdeadbeef", "E0432", "EACCES", "ENOENT", "error[E0308]",
    "must", "Must not", "do not", "Don't", "never", "NEVER", "always", "src/a.py", "x.ts", ".py",
    "a", " ", "\n", "\t", ":", ",", ".", "İ", "é", "1", "42",
]  # fmt: skip


@settings(max_examples=800, deadline=None)
@given(st.lists(st.sampled_from(_TRIGGER_PIECES), max_size=14).map("".join))
def test_pins_found_from_their_triggers_are_what_finditer_finds(text: str) -> None:
    """Every built-in pin's ``finditer`` (from trigger to trigger) finds exactly what the
    pattern's own ``finditer`` over the whole text finds."""
    for pin in PINS.builtin:
        plain = [m.span() for m in pin.pattern.finditer(text)]
        assert [m.span() for m in pin.finditer(text)] == plain, pin.name
