"""docs/rules.md is generated from the rules' docstrings and thresholds and must not go
stale; a rule states its unit, and each threshold is written once, in code."""

from __future__ import annotations

from pathlib import Path

import pytest

from ctxkeep.base.findings import Severity
from ctxkeep.rules import RULES, CompactionRule, Rule, SessionRule
from ctxkeep.rules.docs import render_rules_doc, threshold_meanings

DOCS = Path(__file__).resolve().parents[2] / "docs" / "rules.md"


def test_rules_doc_is_current() -> None:
    assert DOCS.read_text(encoding="utf-8") == render_rules_doc(), (
        "docs/rules.md is stale: run `.venv/bin/python -m ctxkeep.rules.docs`"
    )


def test_every_rule_documents_what_why_and_an_example() -> None:
    for rule in RULES:
        doc = rule.__doc__ or ""
        assert "Example" in doc, rule.id
        assert len(doc.split()) >= 40, rule.id
        assert f"## {rule.id} {rule.name}" in render_rules_doc()


def test_thresholds_are_written_once_in_code_and_printed_in_the_docs() -> None:
    page = render_rules_doc()
    with_thresholds = [rule for rule in RULES if rule.thresholds()]
    assert {r.id for r in with_thresholds} >= {"CK002", "CK003", "CK004", "CK005", "CK006"}
    for rule in with_thresholds:
        meanings = threshold_meanings(type(rule))
        assert list(meanings) == list(rule.thresholds())
        for name in rule.thresholds():
            # the docstring names the threshold as a field, and the page prints its value
            assert "{" + name in (rule.__doc__ or "") + (rule.level_note or ""), (rule.id, name)
            assert f"- `{name}` = " in page
        assert "{" not in rule.documentation(), rule.id


def test_a_rule_states_its_unit_and_names_only_its_own_thresholds() -> None:
    with pytest.raises(TypeError, match="SessionRule or CompactionRule"):

        class NoUnit(Rule):
            """A rule that does not say what it checks."""

            id = "CK902"
            name = "no-unit"
            level = Severity.INFO
            summary = "no unit"

    with pytest.raises(TypeError, match="unknown threshold"):

        class UnknownThreshold(SessionRule):
            """Flags more than {most} things."""

            id = "CK903"
            name = "unknown-threshold"
            level = Severity.INFO
            summary = "names a threshold it does not have"


def test_a_threshold_without_a_docstring_fails_the_docs() -> None:
    class Undocumented(CompactionRule):
        """Flags a summary over {limit:,} characters."""

        id = "CK904"
        name = "undocumented"
        level = Severity.INFO
        summary = "a threshold with no docstring"

        limit = 10_000

    assert Undocumented.documentation() == "Flags a summary over 10,000 characters."
    with pytest.raises(ValueError, match="limit"):
        threshold_meanings(Undocumented)
