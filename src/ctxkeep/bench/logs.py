"""Generated sessions written as real session logs, for the speed benchmark.

Two formats ctxkeep reads: its own event log (docs/formats.md, section 5) and Claude
Code's JSONL (section 1). A log is a run of generated sessions; after each one the harness
"compacts": a compaction whose summary (:func:`~ctxkeep.bench.corpus.harness_summary`)
replaced that session's events, as a long-running agent compacts again and again. So the
auditor has real work at every size: constraints to judge, identifiers to look up.

Identifiers (uuids, call ids, timestamps) are derived from the seed and a counter, never
from the clock, so a log of a given size is the same bytes on every run.
"""

from __future__ import annotations

import random
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal

import msgspec

from ctxkeep.base.messages import message_prose, tool_calls, tool_results
from ctxkeep.bench.corpus import GeneratedSession, SessionSpec, generate_session, harness_summary

__all__ = [
    "LogFormat",
    "claude_code_records",
    "event_log_records",
    "log_sessions",
    "transcript_lines",
    "write_log",
]

LogFormat = Literal["ctxkeep", "claude-code"]

_encode = msgspec.json.Encoder(order="sorted").encode


def _chunk_specs(seed: int, messages: int) -> Iterator[SessionSpec]:
    """Endless session specs for a log: both languages, sizes 200 to 2,000 messages."""
    sizes = (200, 500, 1000, 2000)
    n = 0
    while True:
        yield SessionSpec(
            seed * 1_000_003 + n, "zh" if n % 3 == 2 else "en", min(messages, sizes[n % 4])
        )
        n += 1


def event_log_records(
    sessions: Iterator[GeneratedSession], *, session_id: str = "bench"
) -> Iterator[dict[str, Any]]:
    """ctxkeep event log records: the header, then per session its events and a
    compaction that replaced them."""
    yield {
        "type": "session",
        "v": 1,
        "id": session_id,
        "harness": "ctxkeep-bench",
        "model": "bench",
    }
    seq = 0
    for number, session in enumerate(sessions, start=1):
        first = seq + 1
        for message in session.messages:
            role = message.get("role")
            prose = message_prose(message)
            if role in ("system", "user", "assistant") and (prose or not tool_calls(message)):
                seq += 1
                yield {"type": "message", "seq": seq, "role": role, "text": prose}
            for call in tool_calls(message):
                seq += 1
                yield {
                    "type": "tool/call",
                    "seq": seq,
                    "call_id": f"{number}-{call.id}",
                    "name": call.name,
                    "input": msgspec.json.decode(call.arguments),
                }
            for result in tool_results(message):
                seq += 1
                yield {
                    "type": "tool/result",
                    "seq": seq,
                    "call_id": f"{number}-{result.id}",
                    "text": result.text,
                }
        last = seq
        seq += 1
        cid = f"c{number}"
        yield {"type": "compaction/start", "seq": seq, "compaction_id": cid, "trigger": "auto"}
        seq += 1
        yield {
            "type": "compaction/end",
            "seq": seq,
            "compaction_id": cid,
            "status": "summarised",
            "summary": harness_summary(session),
            "shadowed_seqs": [[first, last]],
        }


def claude_code_records(
    sessions: Iterator[GeneratedSession], *, seed: int = 0
) -> Iterator[dict[str, Any]]:
    """Claude Code records: one per content block, tool results as user records, and a
    ``compact_boundary`` + ``isCompactSummary`` pair after each session."""
    rng = random.Random(seed)
    session_id = str(uuid.UUID(int=rng.getrandbits(128), version=4))
    parent: str | None = None
    tick = 0

    def envelope(kind: str) -> dict[str, Any]:
        nonlocal parent, tick
        tick += 1
        uid = str(uuid.UUID(int=rng.getrandbits(128), version=4))
        rec = {
            "type": kind,
            "uuid": uid,
            "parentUuid": parent,
            "sessionId": session_id,
            "isSidechain": False,
            "userType": "external",
            "cwd": "/srv/project",
            "version": "2.1.39",
            "gitBranch": "main",
            # A fixed date plus a counter: realistic shape, no clock.
            "timestamp": (
                f"2026-01-01T{tick // 3600 % 24:02d}:{tick // 60 % 60:02d}:{tick % 60:02d}.000Z"
            ),
        }
        parent = uid
        return rec

    for number, session in enumerate(sessions, start=1):
        for index, message in enumerate(session.messages):
            role = message.get("role")
            if role == "assistant":
                mid = f"msg_{number:05d}_{index:05d}"
                usage = {
                    "input_tokens": 1200 + index,
                    "output_tokens": 80,
                    "cache_read_input_tokens": 0,
                    "cache_creation_input_tokens": 0,
                }
                blocks: list[dict[str, Any]] = []
                prose = message_prose(message)
                if prose:
                    blocks.append({"type": "text", "text": prose})
                blocks.extend(
                    {
                        "type": "tool_use",
                        "id": f"toolu_{number}_{c.id}",
                        "name": c.name,
                        "input": msgspec.json.decode(c.arguments),
                    }
                    for c in tool_calls(message)
                )
                for block in blocks:
                    rec = envelope("assistant")
                    rec["message"] = {
                        "id": mid,
                        "role": "assistant",
                        "model": "bench",
                        "content": [block],
                        "usage": usage,
                    }
                    yield rec
            elif role == "tool":
                for result in tool_results(message):
                    rec = envelope("user")
                    rec["message"] = {
                        "role": "user",
                        "content": [
                            {
                                "type": "tool_result",
                                "tool_use_id": f"toolu_{number}_{result.id}",
                                "content": result.text,
                            }
                        ],
                    }
                    yield rec
            elif role == "user":
                rec = envelope("user")
                rec["message"] = {"role": "user", "content": message_prose(message)}
                yield rec
            # The system prompt is not a record in Claude Code logs.
        boundary = envelope("system")
        boundary.update(
            subtype="compact_boundary",
            content="Conversation compacted",
            logicalParentUuid=boundary["parentUuid"],
            compactMetadata={"trigger": "auto", "preTokens": 150_000},
        )
        boundary["parentUuid"] = None
        yield boundary
        summary = envelope("user")
        summary.update(isCompactSummary=True, isVisibleInTranscriptOnly=True)
        summary["message"] = {"role": "user", "content": harness_summary(session)}
        yield summary


def transcript_lines(session: GeneratedSession) -> Iterator[dict[str, Any]]:
    """The session as compact-audit reads a transcript: one ``{"text": ...}`` per message."""
    for message in session.messages:
        prose = message_prose(message)
        if prose:
            yield {"role": message.get("role"), "text": prose}
        for result in tool_results(message):
            yield {"role": "tool", "text": result.text}


def write_log(
    path: Path,
    size_bytes: int,
    *,
    log_format: LogFormat = "claude-code",
    seed: int = 1,
    session_messages: int = 2000,
) -> tuple[int, int]:
    """Write a log of about ``size_bytes`` (whole sessions, at least one) to ``path``.

    Returns the bytes written and how many sessions (each closed by a compaction) it
    holds: :func:`log_sessions` gives the same sessions again. They are generated on the
    fly and streamed, so writing a gigabyte needs no more memory than one session.
    """
    records = (
        event_log_records(log_sessions(seed, session_messages))
        if log_format == "ctxkeep"
        else claude_code_records(log_sessions(seed, session_messages), seed=seed)
    )
    written = sessions = 0
    with path.open("wb") as out:
        for rec in records:
            line = _encode(rec) + b"\n"
            out.write(line)
            written += len(line)
            # Stop only after a compaction closes a session, so the log stays whole.
            if rec.get("type") == "compaction/end" or rec.get("isCompactSummary") is True:
                sessions += 1
                if written >= size_bytes:
                    break
    return written, sessions


def log_sessions(seed: int = 1, session_messages: int = 2000) -> Iterator[GeneratedSession]:
    """The sessions :func:`write_log` writes for ``seed``, in order (endless)."""
    for spec in _chunk_specs(seed, session_messages):
        yield generate_session(spec)
