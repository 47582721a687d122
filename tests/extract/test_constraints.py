"""Constraints: must-find / must-not-find tables (English and Chinese), filters, survival."""

from __future__ import annotations

import pytest

from ctxkeep.extract import Constraint, Survival, constraint_survives, extract_constraints
from ctxkeep.extract import filters as f
from ctxkeep.extract.constraints import is_objectless

# (text, constraint text as it stands, kind, entities that must be among its entities)
MUST_FIND: list[tuple[str, str, str, tuple[str, ...]]] = [
    (
        "Do not change the public API of the parser.",
        "Do not change the public API of the parser",
        "negation",
        ("public", "api", "parser"),
    ),
    (
        "Please don't touch src/ctxkeep/log/model.py.",
        "Please don't touch src/ctxkeep/log/model.py",
        "negation",
        (),
    ),
    ("Never push to main.", "Never push to main", "negation", ("main",)),
    (
        "You should never log the API key.",
        "You should never log the API key",
        "negation",
        ("api", "key"),
    ),
    (
        "The parser must not panic on bad input.",
        "The parser must not panic on bad input",
        "negation",
        ("parser", "panic", "input"),
    ),
    (
        "You must run make test before committing.",
        "You must run make test before committing",
        "requirement",
        ("test",),
    ),
    (
        "Error messages must keep line numbers.",
        "Error messages must keep line numbers",
        "requirement",
        ("error", "message", "line", "number"),
    ),
    (
        "Always use tabs in the Makefile.",
        "Always use tabs in the Makefile",
        "requirement",
        ("tab", "makefile"),
    ),
    (
        "Make sure the benchmarks print MB/s.",
        "Make sure the benchmarks print MB/s",
        "requirement",
        ("benchmark",),
    ),
    ("Only edit files under tests/.", "Only edit files under tests/", "scope", ("file",)),
    ("Use only the stdlib.", "Use only the stdlib", "scope", ("stdlib",)),
    ("Just change the README.", "Just change the README", "scope", ("readme",)),
    ("I want you to only touch the docs.", "I want you to only touch the docs", "scope", ("doc",)),
    ("Important: never commit .env files.", "never commit .env files", "negation", ("file",)),
    (
        "- always run ruff before a commit",
        "always run ruff before a commit",
        "requirement",
        ("ruff",),
    ),
    ("不要修改公共接口。", "不要修改公共接口", "negation", ("公共接口",)),
    ("别动数据库配置。", "别动数据库配置", "negation", ("数据库配置",)),
    ("禁止使用第三方库。", "禁止使用第三方库", "negation", ("第三方库",)),
    ("测试代码不得删除。", "测试代码不得删除", "negation", ("测试代码",)),
    ("切勿提交密钥文件。", "切勿提交密钥文件", "negation", ("密钥文件",)),
    (
        "错误信息必须保留原始行号和列号。",
        "错误信息必须保留原始行号和列号",
        "requirement",
        ("错误信息", "原始行号", "列号"),
    ),
    ("务必先运行测试。", "务必先运行测试", "requirement", ("测试",)),
    ("一定要保留日志格式。", "一定要保留日志格式", "requirement", ("日志格式",)),
    ("请始终使用中文回复。", "请始终使用中文回复", "requirement", ("中文回复",)),
    ("只修改 README.md 文件。", "只修改 README.md 文件", "scope", ("文件",)),
    ("仅限测试目录。", "仅限测试目录", "scope", ("测试目录",)),
    ("你只能修改测试文件。", "你只能修改测试文件", "scope", ("测试文件",)),
    ("只准改文档。", "只准改文档", "scope", ("文档",)),
]


@pytest.mark.parametrize(("text", "expected", "kind", "entities"), MUST_FIND)
def test_must_find(text: str, expected: str, kind: str, entities: tuple[str, ...]) -> None:
    found = {c.text: c for c in extract_constraints(text)}
    assert expected in found, list(found)
    constraint = found[expected]
    assert constraint.kind == kind
    assert set(entities) <= set(constraint.entities), constraint.entities


def test_identifiers_inside_a_constraint() -> None:
    (constraint,) = extract_constraints("Don't bump torch==2.13.0 in pyproject.toml.")
    assert constraint.identifiers == ("2.13.0", "pyproject.toml")


def test_two_constraints_in_one_sentence() -> None:
    found = extract_constraints("Never touch the parser, always run the tests.")
    assert [(c.text, c.kind) for c in found] == [
        ("Never touch the parser", "negation"),
        ("always run the tests", "requirement"),
    ]


def test_object_after_a_comma_stays_with_its_marker() -> None:
    (constraint,) = extract_constraints("Do not change the parser, the lexer or the CLI.")
    assert constraint.text == "Do not change the parser, the lexer or the CLI"


# (text, the constraint filter that must reject it); each bait of the brief, EN and ZH
MUST_NOT_FIND: list[tuple[str, str]] = [
    ("I just looked at the logs.", "is_narrative_statement"),
    ("I don't know why the build broke.", "is_narrative_statement"),
    ("The build always fails on Windows.", "is_narrative_statement"),
    ("We never used that flag.", "is_narrative_statement"),
    ("测试始终失败。", "is_narrative_statement"),
    ("It must have failed during the night.", "is_epistemic_must"),
    ("There must be a bug in the lexer.", "is_epistemic_must"),
    ("Only 3 tests fail.", "is_quantity_only"),
    ("Only a few files changed.", "is_quantity_only"),
    ("只有三个测试失败。", "is_quantity_only"),
    ("Should I only change the tests?", "is_question"),
    ("Do you want me to never use mocks?", "is_question"),
    ("要不要修改接口？", "is_question"),
    ("必须修改接口吗？", "is_question"),
    ("Don't worry about the flaky test.", "is_phatic_idiom"),
    ("Never mind the warning.", "is_phatic_idiom"),
    ("别担心这个警告。", "is_phatic_idiom"),
    ("It is not only faster but also smaller.", "is_not_only_but_also"),
    ("这不仅更快而且更小。", "is_not_only_but_also"),
    ("别人也改过这个文件。", "is_bie_inside_word"),
    ("这个功能特别慢。", "is_bie_inside_word"),
    ("只要测试通过就行。", "is_unrestrictive_zhi"),
    ("这只是一个警告。", "is_unrestrictive_zhi"),
    ("我们不得不重启服务。", "is_bude_idiom"),
    ("怪不得测试失败了。", "is_bude_idiom"),
    ("If you don't know the answer, say so.", "is_subordinate_clause"),
    ("Why don't we cache the index.", "is_subordinate_clause"),
]


def _first_marker(text: str) -> tuple[str, int, int]:
    from ctxkeep.extract.constraints import _MARKER

    match = _MARKER.search(text)
    assert match is not None, text
    return text, match.start(), match.end()


@pytest.mark.parametrize(("text", "filter_name"), MUST_NOT_FIND)
def test_must_not_find(text: str, filter_name: str) -> None:
    assert extract_constraints(text) == []
    predicate = getattr(f, filter_name)
    assert predicate(*_first_marker(text)), f"{filter_name} does not name {text!r}"


def test_every_constraint_filter_has_a_case_and_a_docstring() -> None:
    named = {name for _, name in MUST_NOT_FIND}
    assert {p.__name__ for p in f.CONSTRAINT_FILTERS} == named
    assert all(p.__doc__ for p in f.CONSTRAINT_FILTERS)


def test_objectless_marker_is_no_constraint() -> None:
    assert is_objectless((), ())
    assert not is_objectless(("parser",), ())
    assert extract_constraints("Don't!") == []


def test_text_without_markers_is_rejected_early() -> None:
    assert extract_constraints("The parser reads the file and returns events.") == []
    assert extract_constraints("") == []


# ------------------------------------------------------------------------------- survival

PARSER_API = "Do not change the public API of the parser."
LINE_NUMBERS = "错误信息必须保留原始行号和列号。"
MODEL_FILE = "Please don't touch src/ctxkeep/log/model.py."
ONLY_TESTS = "Only edit the tests."
STDLIB_CSV = "Use only the standard library csv module, no pandas."

# (user text holding one constraint, summary, expected survival)
SURVIVAL = [
    (PARSER_API, "Do not change the public API of the parser.", Survival.KEPT),
    (PARSER_API, "Rules: do NOT change the public API of the parser; tests pass.", Survival.KEPT),
    (PARSER_API, "The user asked not to change the parser's public API.", Survival.REWORDED),
    (PARSER_API, "Keep the public API of the parser unchanged.", Survival.REWORDED),
    (PARSER_API, "Refactored the parser.", Survival.LOST),
    (PARSER_API, "Changed the public API of the parser.", Survival.LOST),
    # entity words in different sentences do not co-occur
    (PARSER_API, "Do not touch the parser. The public API grew.", Survival.LOST),
    (LINE_NUMBERS, "错误信息必须保留原始行号和列号。", Survival.KEPT),
    (LINE_NUMBERS, "要求：错误信息务必保留原始行号与列号。", Survival.REWORDED),
    (LINE_NUMBERS, "修复了错误信息。", Survival.LOST),
    (MODEL_FILE, "Do not modify src/ctxkeep/log/model.py.", Survival.REWORDED),
    (MODEL_FILE, "Never edit model.py (user request).", Survival.REWORDED),
    (MODEL_FILE, "Edited src/ctxkeep/log/model.py.", Survival.LOST),
    (ONLY_TESTS, "The user restricted edits to tests only.", Survival.REWORDED),
    (ONLY_TESTS, "Edited the tests and the docs.", Survival.LOST),
    # a scope restriction restated as an exclusion (examples/openai)
    (
        STDLIB_CSV,
        "Wrote export.py using the standard library csv module (no pandas).",
        Survival.REWORDED,
    ),
    (STDLIB_CSV, "Wrote export.py with the csv module of the standard library.", Survival.LOST),
]


@pytest.mark.parametrize(("user_text", "summary", "expected"), SURVIVAL)
def test_constraint_survives(user_text: str, summary: str, expected: Survival) -> None:
    (constraint,) = extract_constraints(user_text)
    assert constraint_survives(constraint, summary) is expected


def test_survival_of_a_hand_built_constraint() -> None:
    constraint = Constraint("只修改 README.md", "scope", (), ("README.md",), 0, 13)
    assert constraint_survives(constraint, "用户要求仅修改 README.md。") is Survival.REWORDED
    assert constraint_survives(constraint, "修改了 README.md。") is Survival.LOST
