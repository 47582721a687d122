"""docs/rules.md is generated from the rules' docstrings and must not go stale."""

from __future__ import annotations

from pathlib import Path

from ctxkeep.rules import RULES
from ctxkeep.rules.docs import render_rules_doc

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
