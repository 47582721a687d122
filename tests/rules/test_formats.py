"""The same session in every log format ctxkeep reads must be audited the same way.

One scenario — a constraint kept, one lost, an injected instruction, an identifier that
entered through tool output, one the summary invented — written as each harness writes
it. The rules must flag exactly the lost constraint and the invented path, whatever the
format.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from ctxkeep import audit

USER = "Never push to the main branch. Do not touch src/db.py."
INJECTED = "Always answer in French."
RESULT = "CONFIG_PATH = 'etc/app.toml'"
SUMMARY = (
    "Never push to the main branch. The app reads etc/app.toml via CONFIG_PATH in "
    "src/app.py; we also edited lib/ghost.py."
)
CLAUDE_OPENING = (
    "This session is being continued from a previous conversation that ran out of "
    "context. The conversation is summarized below:\n"
)


def _jsonl(path: Path, records: list[Any]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def _claude_code(folder: Path) -> Path:
    n = 0

    def rec(kind: str, parent: str | None, **fields: Any) -> dict[str, Any]:
        nonlocal n
        n += 1
        return {
            "parentUuid": parent,
            "isSidechain": False,
            "userType": "external",
            "cwd": "/w",
            "sessionId": "s",
            "version": "2.1.39",
            "type": kind,
            "uuid": f"u{n}",
            "timestamp": "2026-11-20T10:00:00.000Z",
            **fields,
        }

    usage = {"input_tokens": 10, "cache_read_input_tokens": 5000, "output_tokens": 5}
    records = [
        rec("user", None, message={"role": "user", "content": USER}),
        rec(
            "user",
            "u1",
            message={"role": "user", "content": f"<system-reminder>{INJECTED}</system-reminder>"},
            isMeta=True,
        ),
        rec(
            "assistant",
            "u2",
            message={
                "id": "m1",
                "role": "assistant",
                "content": [
                    {
                        "type": "tool_use",
                        "id": "t1",
                        "name": "Read",
                        "input": {"file_path": "src/app.py"},
                    }
                ],
                "usage": usage,
            },
        ),
        rec(
            "user",
            "u3",
            message={
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": "t1", "content": RESULT}],
            },
        ),
        rec(
            "system",
            None,
            subtype="compact_boundary",
            content="Conversation compacted",
            logicalParentUuid="u4",
            compactMetadata={"trigger": "auto", "preTokens": 150000},
        ),
        rec(
            "user",
            "u5",
            message={"role": "user", "content": CLAUDE_OPENING + SUMMARY},
            isCompactSummary=True,
            isVisibleInTranscriptOnly=True,
        ),
    ]
    return _jsonl(folder / "claude.jsonl", records)


def _codex(folder: Path) -> Path:
    def line(kind: str, payload: dict[str, Any]) -> dict[str, Any]:
        return {"timestamp": "2026-11-20T09:00:00.000Z", "type": kind, "payload": payload}

    def user(text: str) -> dict[str, Any]:
        return line(
            "response_item",
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]},
        )

    records = [
        line("session_meta", {"id": "s", "cwd": "/w", "originator": "codex_cli_rs"}),
        user(f"# AGENTS.md instructions for /w\n\n{INJECTED}"),
        user(USER),
        line("event_msg", {"type": "user_message", "message": USER}),
        line(
            "response_item",
            {
                "type": "function_call",
                "name": "shell",
                "call_id": "c1",
                "arguments": json.dumps({"command": ["cat", "src/app.py"]}),
            },
        ),
        line("response_item", {"type": "function_call_output", "call_id": "c1", "output": RESULT}),
        line("compacted", {"message": SUMMARY, "replacement_history": []}),
        line("event_msg", {"type": "context_compacted"}),
    ]
    return _jsonl(folder / "rollout-2026-11-20T09-00-00-s.jsonl", records)


def _openhands(folder: Path) -> Path:
    events = [
        {
            "id": 0,
            "source": "user",
            "message": USER,
            "action": "message",
            "args": {"content": USER},
        },
        {
            "id": 1,
            "source": "agent",
            "message": "Reading file: src/app.py",
            "action": "read",
            "args": {"path": "src/app.py"},
            "tool_call_metadata": {
                "function_name": "str_replace_editor",
                "tool_call_id": "c1",
                "total_calls_in_response": 1,
            },
        },
        {
            "id": 2,
            "source": "agent",
            "message": RESULT,
            "cause": 1,
            "observation": "read",
            "content": RESULT,
            "extras": {"path": "src/app.py"},
            "tool_call_metadata": {
                "function_name": "str_replace_editor",
                "tool_call_id": "c1",
                "total_calls_in_response": 1,
            },
        },
        {
            "id": 3,
            "source": "agent",
            "message": "Summary",
            "action": "condensation",
            "args": {"forgotten_event_ids": [0, 1, 2], "summary": SUMMARY, "summary_offset": 0},
        },
    ]
    path = folder / "openhands.json"
    path.write_text(json.dumps(events), encoding="utf-8")
    return path


def _openai(folder: Path) -> Path:
    messages = [
        {"role": "system", "content": INJECTED},
        {"role": "user", "content": USER},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "read_file", "arguments": '{"path": "src/app.py"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": RESULT},
        {"role": "user", "content": CLAUDE_OPENING + SUMMARY},
        {"role": "assistant", "content": "Continuing."},
    ]
    path = folder / "openai.json"
    path.write_text(json.dumps(messages), encoding="utf-8")
    return path


def _anthropic(folder: Path) -> Path:
    doc = {
        "system": INJECTED,
        "messages": [
            {"role": "user", "content": USER},
            {
                "role": "assistant",
                "content": [
                    {
                        "type": "tool_use",
                        "id": "t1",
                        "name": "read",
                        "input": {"path": "src/app.py"},
                    }
                ],
            },
            {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": "t1", "content": RESULT}],
            },
            {"role": "assistant", "content": "Read it."},
            {"role": "user", "content": CLAUDE_OPENING + SUMMARY},
            {"role": "assistant", "content": "Continuing."},
        ],
    }
    path = folder / "anthropic.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


WRITERS: dict[str, Callable[[Path], Path]] = {
    "claude-code": _claude_code,
    "codex": _codex,
    "openhands": _openhands,
    "openai": _openai,
    "anthropic": _anthropic,
}


@pytest.mark.parametrize("fmt", sorted(WRITERS))
def test_same_scenario_same_findings_in_every_format(fmt: str, tmp_path: Path) -> None:
    path = WRITERS[fmt](tmp_path)
    result = audit(path, select=["CK002", "CK003"])
    assert result.problems == (), result.problems
    (session,) = result.sessions
    assert session.format == fmt
    assert session.compactions.summarised == 1
    found = {f.rule_id: f.items for f in session.findings}
    assert found == {"CK002": ("lib/ghost.py",), "CK003": ("Do not touch src/db.py",)}
    assert (session.constraints_total, session.constraints_kept) == (2, 1)
