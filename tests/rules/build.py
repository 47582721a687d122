"""Write small ctxkeep event logs from a compact shorthand (the rule cases use it).

A log is a list of steps; seqs are numbered from 1 in order:

- ``["user", text]``, ``["assistant", text]``, ``["system", text]``: a message;
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
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

__all__ = ["build_records", "write_log"]

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
            emit({"type": "message", "role": kind, "text": _text(step[1])})
        elif kind == "inject":
            emit({"type": "message", "role": "user", "text": step[2], "injected": step[1]})
        elif kind == "call":
            emit({"type": "tool/call", "call_id": step[1], "name": step[2], "input": step[3]})
        elif kind == "result":
            emit({"type": "tool/result", "call_id": step[1], "text": step[2]})
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
