"""Write small ctxkeep event logs from a compact shorthand (the rule cases use it).

A log is a list of steps; seqs are numbered from 1 in order:

- ``["user", text]``, ``["assistant", text]``, ``["system", text]``: a message; a third
  element adds fields to its record (``{"tokens": n}``: the size the log states);
- ``["inject", kind, text]``: a user-role message the harness injected (``kind`` is the
  ``injected`` field: ``system-reminder``, ``agents-md``, ...);
- ``["call", call_id, name, input]`` / ``["result", call_id, text]``: a tool call / result;
- ``["usage", context_tokens]`` or ``["usage", context_tokens, context_window]``;
- ``["compact", {...}]``: a compaction start and end. Keys: ``summary``, ``status``
  (default ``summarised``), ``error``, ``trigger`` (default ``auto``), ``tokens_before``,
  ``tokens_after``, ``shadowed`` (ranges; default: every event since the previous
  compaction ended, markers excluded);
- ``["start", {...}]``: a compaction start whose end never comes;
- ``["prune", {"pruned": ranges, "tokens": n}]``;
- ``["raw", record]``: a record written as is (its ``seq`` is not touched);
- ``["line", text]``: a raw line (for unreadable lines).

Wherever a text is expected, ``{"repeat": text, "times": n}`` stands for ``text * n``.

:func:`write_claude_code_log` writes the same shorthand as a Claude Code log, in the
harness's own record shapes (a case with ``"format": "claude-code"``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

__all__ = ["build_claude_code_records", "build_records", "write_claude_code_log", "write_log"]

Step = list[Any]


def _text(value: Any) -> Any:
    if isinstance(value, dict) and "repeat" in value:
        return str(value["repeat"]) * int(value["times"])
    return value


def build_records(steps: list[Step], *, header: dict[str, Any] | None = None) -> list[str]:
    """The lines of a ctxkeep event log for ``steps``."""
    lines: list[str] = []
    if header is not None:
        lines.append(json.dumps({"type": "session", "v": 1, **header}, ensure_ascii=False))
    seq = 0
    since: list[int] = []  # seqs since the last compaction ended
    compaction = 0

    def emit(record: dict[str, Any], *, history: bool = True) -> int:
        nonlocal seq
        seq += 1
        record = {"seq": seq, **record}
        lines.append(json.dumps(record, ensure_ascii=False))
        if history:
            since.append(seq)
        return seq

    for step in steps:
        kind = step[0]
        if kind in {"user", "assistant", "system"}:
            extra = step[2] if len(step) > 2 else {}
            emit({"type": "message", "role": kind, "text": _text(step[1]), **extra})
        elif kind == "inject":
            emit({"type": "message", "role": "user", "text": step[2], "injected": step[1]})
        elif kind == "call":
            emit({"type": "tool/call", "call_id": step[1], "name": step[2], "input": step[3]})
        elif kind == "result":
            emit({"type": "tool/result", "call_id": step[1], "text": _text(step[2])})
        elif kind == "usage":
            rec: dict[str, Any] = {"type": "usage", "context_tokens": step[1]}
            if len(step) > 2:
                rec["context_window"] = step[2]
            emit(rec)
        elif kind in {"compact", "start"}:
            spec: dict[str, Any] = step[1] if len(step) > 1 else {}
            compaction += 1
            cid = f"c{compaction}"
            start: dict[str, Any] = {
                "type": "compaction/start",
                "compaction_id": cid,
                "trigger": spec.get("trigger", "auto"),
            }
            if "tokens_before" in spec:
                start["tokens_before"] = spec["tokens_before"]
            shadowed = spec.get("shadowed", _ranges(since))
            emit(start, history=False)
            if kind == "compact":
                end: dict[str, Any] = {"type": "compaction/end", "compaction_id": cid}
                for key in ("summary", "error", "tokens_after"):
                    if key in spec:
                        end[key] = _text(spec[key])
                end["status"] = spec.get("status", "failed" if "error" in spec else "summarised")
                if end["status"] == "summarised":
                    end["shadowed_seqs"] = shadowed
                emit(end, history=False)
                if end["status"] == "summarised":
                    since.clear()
        elif kind == "prune":
            spec = step[1]
            emit(
                {
                    "type": "prune",
                    "pruned_seqs": spec.get("pruned", []),
                    "tokens_pruned": spec.get("tokens"),
                },
                history=False,
            )
        elif kind == "raw":
            lines.append(json.dumps(step[1], ensure_ascii=False))
        elif kind == "line":
            lines.append(step[1])
        else:
            raise ValueError(f"unknown step {kind!r}")
    return lines


def _ranges(seqs: list[int]) -> list[list[int]]:
    out: list[list[int]] = []
    for s in seqs:
        if out and out[-1][1] == s - 1:
            out[-1][1] = s
        else:
            out.append([s, s])
    return out


def write_log(path: Path, steps: list[Step], *, header: dict[str, Any] | None = None) -> Path:
    """Write the log for ``steps`` at ``path`` and return ``path``."""
    path.write_text("\n".join(build_records(steps, header=header)) + "\n", encoding="utf-8")
    return path


# --------------------------------------------------------------------------- Claude Code

_CC_SESSION = "5e55a10e-0000-4000-8000-00000000c0de"


def build_claude_code_records(steps: list[Step], *, mid_session: bool = False) -> list[str]:
    """The lines of a Claude Code session log (the harness's own record shapes, as in the
    real logs of benchmarks/real-logs/) for the same shorthand as :func:`build_records`,
    restricted to ``user``, ``assistant``, ``call``, ``result`` and ``compact`` (keys
    ``summary``, ``trigger``), plus ``["hook", event]`` or ``["hook", event, name,
    command]`` (a ``hook_progress`` record, whose output Claude Code does not record) and
    ``["prune", {"ids": [call ids], "tokens": n}]`` (a ``microcompact_boundary`` clearing
    those tool results, saving ``n`` tokens).

    ``mid_session``: the first record's ``parentUuid`` names a record that is not in the
    file, as in a log that begins mid-session.
    """
    lines: list[str] = []
    parent: str | None = "0000-before-line-1" if mid_session else None
    counter = 0

    def emit(kind: str, **fields: Any) -> None:
        nonlocal parent, counter
        counter += 1
        uuid = f"u-{counter:04d}"
        record = {
            "parentUuid": parent,
            "isSidechain": False,
            "userType": "external",
            "cwd": "/home/dev/app",
            "sessionId": _CC_SESSION,
            "version": "2.1.39",
            "type": kind,
            "uuid": uuid,
            "timestamp": f"2026-11-20T10:{counter // 60:02d}:{counter % 60:02d}.000Z",
            **fields,
        }
        lines.append(json.dumps(record, ensure_ascii=False))
        parent = uuid

    for step in steps:
        kind = step[0]
        if kind == "user":
            emit("user", message={"role": "user", "content": _text(step[1])})
        elif kind == "assistant":
            content = [{"type": "text", "text": _text(step[1])}]
            emit("assistant", message=_assistant_message(counter, content))
        elif kind == "call":
            use = {"type": "tool_use", "id": step[1], "name": step[2], "input": step[3]}
            emit("assistant", message=_assistant_message(counter, [use]))
        elif kind == "result":
            block = {"type": "tool_result", "tool_use_id": step[1], "content": _text(step[2])}
            emit("user", message={"role": "user", "content": [block]})
        elif kind == "hook":
            data = {"type": "hook_progress", "hookEvent": step[1]}
            if len(step) > 2:
                data.update(hookName=step[2], command=step[3])
            emit("progress", data=data)
        elif kind == "prune":
            metadata = {
                "trigger": "auto",
                "preTokens": 90_000,
                "tokensSaved": step[1]["tokens"],
                "compactedToolIds": step[1]["ids"],
                "clearedAttachmentUUIDs": [],
            }
            emit(
                "system",
                subtype="microcompact_boundary",
                content="Context microcompacted",
                microcompactMetadata=metadata,
            )
        elif kind == "compact":
            spec: dict[str, Any] = step[1]
            logical = parent
            parent = None
            metadata = {"trigger": spec.get("trigger", "auto"), "preTokens": 150_000}
            emit(
                "system",
                subtype="compact_boundary",
                content="Conversation compacted",
                logicalParentUuid=logical,
                compactMetadata=metadata,
            )
            summary = (
                "This session is being continued from a previous conversation that ran "
                "out of context. The conversation is summarized below:\n" + _text(spec["summary"])
            )
            emit(
                "user",
                isCompactSummary=True,
                message={"role": "user", "content": summary},
            )
        else:
            raise ValueError(f"unknown Claude Code step {kind!r}")
    return lines


def _assistant_message(counter: int, content: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "model": "claude-sonnet-4-5",
        "id": f"msg_{counter:04d}",
        "type": "message",
        "role": "assistant",
        "content": content,
        "usage": {"input_tokens": 100, "cache_read_input_tokens": 900, "output_tokens": 50},
    }


def write_claude_code_log(path: Path, steps: list[Step], *, mid_session: bool = False) -> Path:
    """Write the Claude Code log for ``steps`` at ``path`` and return ``path``."""
    lines = build_claude_code_records(steps, mid_session=mid_session)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path
