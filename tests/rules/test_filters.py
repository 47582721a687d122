"""The auditor's own false-positive filters, each with the case that needed it."""

from __future__ import annotations

import pytest

from ctxkeep.extract import Identifier, SourceIndex, extract_identifiers
from ctxkeep.rules.summary_hallucination import (
    is_file_of_a_named_module,
    is_summary_section_heading,
    is_transcript_pointer,
    module_name_of,
)


def _identifier(text: str, item: str) -> Identifier:
    return next(i for i in extract_identifiers(text) if i.text == item)


def test_claude_code_transcript_pointer() -> None:
    summary = (
        "Summary: ...\nIf you need specific details from before compaction, read the full "
        "transcript at: /home/maya/.claude/projects/-home-maya-code-tinyparse/4f7c.jsonl"
    )
    pointer = _identifier(
        summary, "/home/maya/.claude/projects/-home-maya-code-tinyparse/4f7c.jsonl"
    )
    assert is_transcript_pointer(pointer, summary)
    other = "We wrote the events to logs/run.jsonl for later."
    assert not is_transcript_pointer(_identifier(other, "logs/run.jsonl"), other)


@pytest.mark.parametrize(
    ("summary", "item", "heading"),
    [
        ("USER_CONTEXT: add retries", "USER_CONTEXT", True),
        ("intro\n- CODE_STATE : loop done", "CODE_STATE", True),
        ("The constant MAX_RETRIES: 3 is new.", "MAX_RETRIES", False),
        ("MAX_RETRIES = 3", "MAX_RETRIES", False),
    ],
)
def test_openhands_section_labels(summary: str, item: str, heading: bool) -> None:
    assert is_summary_section_heading(_identifier(summary, item), summary) is heading


def test_module_names_of_python_files() -> None:
    assert module_name_of("src/tinyparse/errors.py") == "tinyparse.errors"
    assert module_name_of("pkg/sub/__init__.py") == "pkg.sub"
    assert module_name_of("errors.py") is None
    assert module_name_of("src/my-pkg/x.py") is None
    sources = SourceIndex(["from tinyparse.errors import ParseError"])
    summary = "See src/tinyparse/errors.py and src/tinyparse/lexer.py."
    assert is_file_of_a_named_module(_identifier(summary, "src/tinyparse/errors.py"), sources)
    assert not is_file_of_a_named_module(_identifier(summary, "src/tinyparse/lexer.py"), sources)
