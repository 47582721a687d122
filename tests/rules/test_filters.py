"""The auditor's own false-positive filters, each with the case that needed it."""

from __future__ import annotations

import pytest

from ctxkeep.extract import Identifier, SourceIndex, extract_identifiers
from ctxkeep.rules.summary_hallucination import (
    is_file_of_a_named_module,
    is_harness_instruction_file,
    is_harness_tool,
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


@pytest.mark.parametrize(
    ("summary", "item", "harness"),
    [
        ("Per the CLAUDE.md instructions, commits need a request.", "CLAUDE.md", True),
        ("AGENTS.md says to run make check.", "AGENTS.md", True),
        ("See docs/CLAUDE_NOTES.md for more.", "docs/CLAUDE_NOTES.md", False),
        ("Edited README.md.", "README.md", False),
    ],
)
def test_harness_instruction_files(summary: str, item: str, harness: bool) -> None:
    assert is_harness_instruction_file(_identifier(summary, item), summary) is harness


def test_harness_tools() -> None:
    assert is_harness_tool("WebSearch")
    assert is_harness_tool("apply_patch")
    assert not is_harness_tool("FetchDocs")


def test_redacted_transcript_pointer_is_the_pointer() -> None:
    summary = "read the full transcript at: /Users/alex/.REDACTED.jsonl\nPlease continue"
    assert is_transcript_pointer(_identifier(summary, "/Users/alex/.REDACTED.jsonl"), summary)
