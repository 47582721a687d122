"""Kept / reworded / lost: paraphrase survives, a flipped polarity or a lost restriction
does not (English and Chinese). None of these is a labelled real compaction."""

from __future__ import annotations

import pytest

from ctxkeep.extract import Survival, constraint_survives, extract_constraints, judge_survival
from ctxkeep.extract.survival import text_carried

K, W, L = Survival.KEPT, Survival.REWORDED, Survival.LOST
CACHE = "Only cache per user id, not per session."
API = "Do not change the public API of the parser."
ZH_API = "不要修改公共接口。"
TESTS = "Always run pytest before committing."
LEXER = "just the lexer for now"
RETRIES = "重试最多 3 次，单次等待上限 8 秒。"
MODEL = "Please don't touch src/ctxkeep/log/model.py."
CSV = "Use only the standard library csv module, no pandas."

# (user text holding one instruction, summary, what became of it)
SURVIVAL = [
    # the issue's own example: paraphrase with stems and "alone" for "only"
    (CACHE, "Caching is keyed on the user id alone, never the session.", W),
    (CACHE, "The cache is keyed on the session.", L),
    (CACHE, "Cached responses per user id and per session.", L),  # the restriction is gone
    ("只缓存每个用户的 id，不按会话缓存。", "缓存只以用户 id 为键，从不按会话。", W),
    (API, "Do not change the public API of the parser.", K),
    (API, "Rules: do NOT change the public API of the parser; tests pass.", K),
    (API, "The user asked not to change the parser's public API.", W),
    (API, "Keep the public API of the parser unchanged.", W),
    (API, "Changed the public API of the parser.", L),  # a kept negation stays a negation
    (API, "Do not touch the parser. The public API grew.", L),  # not in one sentence
    (ZH_API, "用户要求：公共接口不能修改；我们正在重构错误处理。", W),
    (ZH_API, "修改了公共接口。", L),
    (TESTS, "Rule: pytest runs before every commit.", W),
    (TESTS, "Ran pytest: 12 passed.", L),  # a report that it ran once is no rule
    ("please use uv instead of pip", "Dependencies are managed with uv (not pip).", W),
    (LEXER, "Work is limited to the lexer for now.", W),
    (LEXER, "Refactored the lexer and the parser.", L),
    (MODEL, "Do not modify src/ctxkeep/log/model.py.", W),
    (MODEL, "Never edit model.py (user request).", W),
    (MODEL, "Edited src/ctxkeep/log/model.py.", L),
    (CSV, "Wrote export.py using the standard library csv module (no pandas).", W),
    (CSV, "Wrote export.py with the csv module of the standard library.", L),
    # a Chinese rule in an English summary: only its keys can be compared
    (RETRIES, "Max 3 retries, each wait capped at 8 s.", W),
    (RETRIES, "Retries with exponential backoff.", L),
    ("错误信息必须保留原始行号和列号。", "要求：错误信息务必保留原始行号与列号。", W),
    # a negation said with the opposite verb
    (
        "Never hold the lock while calling the origin.",
        "Get releases the lock around the origin fetch.",
        W,
    ),
    (
        "Never hold the lock while calling the origin.",
        "Get holds the lock around the origin fetch.",
        L,
    ),
    ("Don't export the retry helper.", "The retry helper is unexported now.", W),
    # an aside in brackets is no part of what it is about; a quoted one is
    (
        "Never hold the lock while calling the origin (it made p99 spike last month).",
        "The fetch runs without holding the lock while calling the origin.",
        W,
    ),
    (
        'Error messages must keep the "(line X, column Y)" suffix.',
        "Error messages must keep their suffix.",
        L,
    ),
    # a negative tail: the positive clause carries it, so does the negative tail alone
    ("Amounts must stay Decimal end to end, never float.", "Decimal amounts stay exact.", W),
]


@pytest.mark.parametrize(("user_text", "summary", "expected"), SURVIVAL)
def test_constraint_survives(user_text: str, summary: str, expected: Survival) -> None:
    (constraint,) = extract_constraints(user_text)
    assert constraint_survives(constraint, summary) is expected


def test_the_verdict_names_the_sentence_that_carries_it() -> None:
    (constraint,) = extract_constraints(CACHE)
    summary = (
        "Work done: the cache layer. Caching is keyed on the user id alone, never the session."
    )
    verdict = judge_survival(constraint, summary)
    assert verdict.carrier == "Caching is keyed on the user id alone, never the session"
    assert 0 < verdict.score <= 1
    assert judge_survival(constraint, "Nothing about it.").carrier is None


def test_a_chosen_option_is_judged_by_what_it_chose() -> None:
    (choice,) = extract_constraints("option 2 is fine")
    summary = "Retries now use a token bucket shared by all workers."
    assert constraint_survives(choice, summary) is L
    verdict = judge_survival(choice, summary, also=("A shared token bucket for retries",))
    assert verdict.survival is W


def test_a_later_summary_copying_the_earlier_wording() -> None:
    assert text_carried(
        "Only style the `*` green for active sessions",
        "x. Only style the `*` green for active sessions.",
    )
    assert not text_carried("Only style the `*` green for active sessions", "The lanes are green.")
