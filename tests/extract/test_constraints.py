"""Standing instructions: must-find / must-not-find tables (English and Chinese), whole
clauses, filters with their cases, polarity. None of these sentences is a labelled one."""

from __future__ import annotations

import pytest

from ctxkeep.extract import ConstraintKind, extract_constraints
from ctxkeep.extract import filters as f
from ctxkeep.extract.constraints import _MARKER, is_negative, is_objectless

P, OB, R, S, C, X = (
    "prohibition",
    "obligation",
    "preference",
    "scope",
    "choice",
    "correction",
)

# (user text, the constraint exactly as it stands, its kind)
MUST_FIND: list[tuple[str, str, str]] = [
    # the explicit forms
    (
        "Do not change the public API of the parser.",
        "Do not change the public API of the parser",
        P,
    ),
    (
        "Please don't touch src/ctxkeep/log/model.py.",
        "Please don't touch src/ctxkeep/log/model.py",
        P,
    ),
    ("Never push to main.", "Never push to main", P),
    ("You should never log the API key.", "You should never log the API key", P),
    ("The parser must not panic on bad input.", "The parser must not panic on bad input", P),
    ("You must run make test before committing.", "You must run make test before committing", OB),
    ("Error messages must keep line numbers.", "Error messages must keep line numbers", OB),
    ("Always use tabs in the Makefile.", "Always use tabs in the Makefile", OB),
    ("Make sure the benchmarks print MB/s.", "Make sure the benchmarks print MB/s", OB),
    ("Only edit files under tests/.", "Only edit files under tests/", S),
    ("Use only the stdlib.", "Use only the stdlib", S),
    ("I want you to only touch the docs.", "I want you to only touch the docs", S),
    ("Important: never commit .env files.", "never commit .env files", P),
    ("- always run ruff before a commit", "always run ruff before a commit", OB),
    # casual forms
    ("please use poetry instead of pip", "please use poetry instead of pip", R),
    ("let's avoid global state in the handlers", "let's avoid global state in the handlers", P),
    ("keep the docstrings short!", "keep the docstrings short", OB),
    ("just the lexer for now", "just the lexer for now", S),
    ("for now, leave the CLI flags alone", "for now, leave the CLI flags alone", S),
    ("stick to the stdlib logging module", "stick to the stdlib logging module", S),
    ("I'd prefer dataclasses over attrs here", "I'd prefer dataclasses over attrs here", R),
    (
        "we want the retries in one place, not in every caller",
        "we want the retries in one place, not in every caller",
        R,
    ),
    ("the cache doesn't need to be thread safe", "the cache doesn't need to be thread safe", P),
    ("the margins can be a bit smaller", "the margins can be a bit smaller", R),
    ("stop adding comments to every line", "stop adding comments to every line", P),
    ("no mocks in the integration tests", "no mocks in the integration tests", P),
    ("From now on run mypy before you commit.", "From now on run mypy before you commit", OB),
    (
        "if the cache is cold we just fetch from the origin",
        "if the cache is cold we just fetch from the origin",
        S,
    ),
    # a choice among the agent's options, with what it adds
    ("approach B is fine, and log each retry", "approach B is fine, and log each retry", C),
    ("let's go with the second option", "let's go with the second option", C),
    # corrections
    (
        "you said the index was rebuilt, but it is loaded from disk",
        "you said the index was rebuilt, but it is loaded from disk",
        X,
    ),
    (
        "that's wrong, the config lives in settings.toml",
        "that's wrong, the config lives in settings.toml",
        X,
    ),
    ("No, remove the retry decorator again", "No, remove the retry decorator again", X),
    ("why are you editing the vendored copy?", "why are you editing the vendored copy", X),
    ("I told you: the schema file is generated.", "I told you: the schema file is generated", X),
    # Chinese
    ("不要修改公共接口。", "不要修改公共接口", P),
    ("别动数据库配置。", "别动数据库配置", P),
    ("禁止使用第三方库。", "禁止使用第三方库", P),
    ("测试代码不得删除。", "测试代码不得删除", P),
    ("切勿提交密钥文件。", "切勿提交密钥文件", P),
    ("接口不能改。", "接口不能改", P),
    ("错误信息必须保留原始行号和列号。", "错误信息必须保留原始行号和列号", OB),
    ("务必先运行测试。", "务必先运行测试", OB),
    ("一定要保留日志格式。", "一定要保留日志格式", OB),
    ("请始终使用中文回复。", "请始终使用中文回复", OB),
    ("以后每次提交前都要跑 ruff。", "以后每次提交前都要跑 ruff", OB),
    ("只修改 README.md 文件。", "只修改 README.md 文件", S),
    ("仅限测试目录。", "仅限测试目录", S),
    ("你只能修改测试文件。", "你只能修改测试文件", S),
    ("只准改文档。", "只准改文档", S),
    ("请用 uv 管理依赖。", "请用 uv 管理依赖", R),
    ("尽量用标准库。", "尽量用标准库", R),
    ("方案二就行，再加一行日志。", "方案二就行，再加一行日志", C),
    ("我说过不要改配置文件。", "我说过不要改配置文件", X),
    ("不对，缓存应该按用户 id 区分。", "不对，缓存应该按用户 id 区分", X),
]


@pytest.mark.parametrize(("text", "expected", "kind"), MUST_FIND)
def test_must_find(text: str, expected: str, kind: str) -> None:
    found = {c.text: c for c in extract_constraints(text)}
    assert expected in found, list(found)
    assert found[expected].kind == kind
    assert kind in set(ConstraintKind)


# (text, the filter that must reject its first marker); one real or made-up case per
# false-positive class, English and Chinese where it applies
MUST_NOT_FIND: list[tuple[str, str]] = [
    ("I just looked at the logs.", "is_narrative_statement"),
    ("I don't know why the build broke.", "is_narrative_statement"),
    ("The build always fails on Windows.", "is_narrative_statement"),
    ("We never used that flag.", "is_narrative_statement"),
    ("When I looked we only had three files.", "is_narrative_statement"),
    ("测试始终失败。", "is_narrative_statement"),
    ("`2 ** 3 ** 2` should be 512.", "is_narrative_statement"),
    ("It must have failed during the night.", "is_epistemic_must"),
    ("There must be a bug in the lexer.", "is_epistemic_must"),
    ("That should work now.", "is_epistemic_should"),
    ("Only 3 tests fail.", "is_quantity_only"),
    ("Only a few files changed.", "is_quantity_only"),
    ("只有三个测试失败。", "is_quantity_only"),
    ("Should I only change the tests?", "is_question"),
    ("Do you want me to never use mocks?", "is_question"),
    ("要不要修改接口？", "is_question"),
    ("必须修改接口吗？", "is_question"),
    ("Don't worry about the flaky test.", "is_phatic_idiom"),
    ("Never mind the warning.", "is_phatic_idiom"),
    ("No problem with the rename.", "is_phatic_idiom"),
    ("Keep me posted on the benchmark.", "is_phatic_idiom"),
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
    ("I use vim for the config files.", "is_not_imperative_position"),
    ("We keep getting timeouts from the mirror.", "is_not_imperative_position"),
    ("There is no cache on the staging box.", "is_not_imperative_position"),
    ("用户说登录页面很慢。", "is_not_imperative_position"),
    ("let's stash and rebase on main", "is_one_shot_request"),
    ("just push it to the branch", "is_one_shot_request"),
    ("请用 make 重新编译一下。", "is_one_shot_request"),
    ("run the benchmarks again", "is_repeat_request"),
    ("no files were changed by the formatter", "is_no_statement"),
]


def _first_marker(text: str) -> tuple[str, int, int]:
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
    assert all(p.__doc__ for p in (*f.CONSTRAINT_FILTERS, *f.TEXT_FILTERS))
    assert set(f.__all__) >= {p.__name__ for p in (*f.CONSTRAINT_FILTERS, *f.TEXT_FILTERS)}


# ------------------------------------------------------------------ whole clauses


def test_a_tail_of_fewer_than_three_words_stays_with_its_clause() -> None:
    # examples/openai: "never float" and the tinyparse example's "always" were listed
    # as constraints of their own
    text = "Amounts must stay Decimal end to end, never float, and totals stay exact."
    assert [c.text for c in extract_constraints(text)] == [
        "Amounts must stay Decimal end to end, never float, and totals stay exact"
    ]
    (only,) = extract_constraints("Only run tests/a.py and tests/b.py, always.")
    assert only.text == "Only run tests/a.py and tests/b.py, always"
    assert all(f.is_fragment(tail) for tail in ("never float", "always", "别动"))
    assert not f.is_fragment("never use floats here")


def test_brackets_and_quotes_are_never_cut() -> None:
    # examples/openhands listed "retries=3)——我说过不要修改公共接口"
    text = "你把 fetch 改成了 fetch(city, days=3, retries=3)——我说过不要修改公共接口。"
    assert [c.text for c in extract_constraints(text)] == ["我说过不要修改公共接口"]
    text = 'Keep the message "unexpected end, expected ) or ," as it is.'
    assert [c.text for c in extract_constraints(text)] == [
        'Keep the message "unexpected end, expected ) or ," as it is'
    ]
    (paren,) = extract_constraints("Only touch the cache (and its tests, just additions).")
    assert paren.text == "Only touch the cache (and its tests, just additions)"


def test_a_dash_ends_a_clause_and_a_reason_stays() -> None:
    text = "Never run the slow suite — it takes 40 minutes. Use only tox -e fast."
    assert [c.text for c in extract_constraints(text)] == [
        "Never run the slow suite — it takes 40 minutes",
        "Use only tox -e fast",
    ]


def test_a_short_leading_clause_is_kept_a_label_is_not() -> None:
    (c,) = extract_constraints("We still ship for Python 3.9, so no walrus operators.")
    assert c.text == "We still ship for Python 3.9, so no walrus operators"
    assert c.kind == P
    assert "3.9" in c.keys
    (d,) = extract_constraints("Also: never print secrets.")
    assert d.text == "never print secrets"


def test_every_item_under_a_rules_heading_is_one_instruction() -> None:
    text = (
        "Fix the flaky test. A few rules for this repo:\n"
        "- 4 spaces, no tabs, and keep lines under 100 characters\n"
        "- Don't touch vendor/.\n"
        "补充几点要求：\n1. 重试最多 5 次，每次间隔 2 秒。\n2. 不要改接口：签名保持不变。\n"
    )
    found = [(c.text, c.kind) for c in extract_constraints(text)]
    assert found == [
        ("4 spaces, no tabs, and keep lines under 100 characters", P),
        ("Don't touch vendor/", P),
        ("重试最多 5 次，每次间隔 2 秒", S),
        ("不要改接口：签名保持不变", P),
    ]


def test_pasted_text_holds_no_instruction() -> None:
    text = (
        "this one still fails:\n"
        '{"time":"2026-02-15T20:46:19","msg":"never retry","prompt":"only use docs/"}\n'
        "> - 5952698 always rebuild the index\n"
        "```\nDo not edit this file\n```\n"
    )
    assert extract_constraints(text) == []
    assert f.is_machine_line('{"time":"2026","level":"DEBUG"}')
    assert f.is_machine_line("    at parse (lexer.js:10:3)")
    assert f.is_quoted_output_line("   > │ - abc always")
    assert not f.is_machine_line("- never edit the lockfile")


def test_a_plan_the_agent_wrote_counts_only_its_explicit_markers() -> None:
    plan = (
        "Implement the following plan:\n\n## Steps\n- Use the new parser in the CLI\n"
        "- Keep the old flags\n- Do NOT change the wire format.\n"
    )
    assert f.is_agent_plan(plan)
    assert [c.text for c in extract_constraints(plan)] == ["Do NOT change the wire format"]


def test_compact_arguments_that_leave_something_out() -> None:
    assert f.is_omission_request("drop the benchmark tangents")
    assert f.is_omission_request("不要包含调试过程")
    assert not f.is_omission_request("keep the exact test commands")


def test_objectless_marker_is_no_constraint() -> None:
    assert is_objectless("Don't!")
    assert is_objectless("I said that at the very beginning")
    assert not is_objectless("Don't touch the parser")
    assert extract_constraints("Don't! Never again.") == []


def test_polarity() -> None:
    assert is_negative("do not change the API")
    assert is_negative("keep the public API unchanged")
    assert is_negative("公共接口不能修改")
    assert not is_negative('always print "not found" on a miss')
    assert not is_negative("use only the stdlib")


def test_offsets_slice_back_and_keys_are_not_words() -> None:
    text = "  Hi. Please don't bump torch==2.13.0 in pyproject.toml, it breaks CI."
    (c,) = extract_constraints(text)
    assert text[c.start : c.end] == c.text
    assert c.keys == ("2.13.0", "pyproject.toml")
    assert "pyproject" not in c.words
    assert "torch" in c.words
    assert c.negative


def test_text_without_markers_is_rejected_early() -> None:
    assert extract_constraints("The parser reads the file and returns events.") == []
    assert extract_constraints("Turn 7: look at the worker and fix the queue.") == []
    assert extract_constraints("") == []


def test_a_wrapped_line_is_one_sentence() -> None:
    text = (
        "Acceptance:\n  - No new network calls at runtime (the provider must stay\n"
        "    offline; `doctor` keeps saying so).\n  - Keep emitting the old keys, and\n"
        "    keep their order.\n"
    )
    assert [c.text for c in extract_constraints(text)] == [
        "No new network calls at runtime (the provider must stay\n"
        "    offline; `doctor` keeps saying so)",
        "Keep emitting the old keys",
        "keep their order",
    ]


def test_an_aside_in_brackets_gives_no_order_unless_it_says_please() -> None:
    assert extract_constraints("Confirm the count drops (or only broken files remain).") == []
    assert extract_constraints("Where a route is external (no handler), mark it so.") == []
    (please,) = extract_constraints("We refactor the pty code (please also note the A11Y flag).")
    assert please.text == "We refactor the pty code (please also note the A11Y flag)"


def test_only_in_an_agent_plan_describes() -> None:
    plan = "Implement the following plan:\n- `GetProjectDir` — only works for Claude\n"
    assert extract_constraints(plan) == []


def test_text_that_is_all_instructions() -> None:
    from ctxkeep.extract import extract_instructions

    text = "keep the exact test commands; drop the debugging details. Never say 'done' early."
    found = extract_instructions(text)
    assert [(c.text, c.kind) for c in found] == [
        ("keep the exact test commands", OB),
        ("drop the debugging details", OB),
        ("Never say 'done' early", P),
    ]
    assert all(text[c.start : c.end] == c.text for c in found)
    assert extract_instructions("ok; thanks.") == []
