"""What ctxkeep knows about message lists that callers hand it.

Three dialects share one set of functions: OpenAI chat messages (``role``, ``content`` as a
string or parts, ``tool_calls``, ``tool_call_id``), Anthropic Messages (``content`` blocks
``text`` / ``tool_use`` / ``tool_result`` / ``thinking``) and ctxkeep events (``type``:
``message``, ``tool/call``, ``tool/result``, ...; FORMATS.md section 5). The compactor, the
guard and the plain-array adapters read messages only through here, so a message means
the same thing everywhere. Every function accepts any object and never raises.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

import msgspec

__all__ = [
    "Dialect",
    "dialect_of",
    "message_role",
    "message_text",
    "tool_call_ids",
    "tool_result_ids",
]

Dialect = Literal["openai", "anthropic", "ctxkeep", "unknown"]

_encode = msgspec.json.Encoder(order="sorted")


def _dump(value: Any) -> str:
    if isinstance(value, str):
        return value
    try:
        return _encode.encode(value).decode("utf-8", "replace")
    except (TypeError, ValueError, OverflowError, RecursionError):
        return repr(value)


def dialect_of(message: Any) -> Dialect:
    """Which dialect ``message`` is written in (by its fields, not by position)."""
    if not isinstance(message, Mapping):
        return "unknown"
    if isinstance(message.get("type"), str) and "seq" in message:
        return "ctxkeep"
    content = message.get("content")
    if "tool_calls" in message or "tool_call_id" in message or message.get("role") == "tool":
        return "openai"
    if isinstance(content, list) and any(
        isinstance(b, Mapping) and b.get("type") in ("tool_use", "tool_result", "thinking")
        for b in content
    ):
        return "anthropic"
    if "role" in message:
        return "openai"
    return "unknown"


def message_role(message: Any) -> str | None:
    """The role: ``system`` / ``developer`` / ``user`` / ``assistant`` / ``tool``, or None.

    ctxkeep events map ``tool/call`` to ``assistant`` and ``tool/result`` to ``tool``.
    """
    if not isinstance(message, Mapping):
        return None
    kind = message.get("type")
    if kind == "tool/call" and "seq" in message:
        return "assistant"
    if kind == "tool/result" and "seq" in message:
        return "tool"
    role = message.get("role")
    return role if isinstance(role, str) else None


def _part_text(part: Any) -> str:
    if isinstance(part, str):
        return part
    if not isinstance(part, Mapping):
        return ""
    kind = part.get("type")
    if kind in ("text", "input_text", "output_text"):
        text = part.get("text")
        return text if isinstance(text, str) else ""
    if kind == "tool_use":
        return f"{part.get('name', '')} {_dump(part.get('input', ''))}".strip()
    if kind == "tool_result":
        return _content_text(part.get("content"))
    if kind == "thinking":
        thought = part.get("thinking")
        return thought if isinstance(thought, str) else ""
    if kind in ("compaction",):
        text = part.get("content")
        return text if isinstance(text, str) else ""
    return ""


def _content_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, Sequence) and not isinstance(content, bytes | bytearray):
        return "\n".join(t for t in (_part_text(p) for p in content) if t)
    return ""


def message_text(message: Any) -> str:
    """All the text a message puts in the context, tool calls and results included."""
    if isinstance(message, str):
        return message
    if not isinstance(message, Mapping):
        return ""
    if dialect_of(message) == "ctxkeep":
        kind = message.get("type")
        if kind == "tool/call":
            return f"{message.get('name', '')} {_dump(message.get('input', ''))}".strip()
        text = message.get("text")
        if isinstance(text, str):
            return text
        summary = message.get("summary")
        return summary if isinstance(summary, str) else ""
    parts = [_content_text(message.get("content"))]
    calls = message.get("tool_calls")
    if isinstance(calls, Sequence) and not isinstance(calls, str | bytes):
        for call in calls:
            fn = call.get("function") if isinstance(call, Mapping) else None
            if isinstance(fn, Mapping):
                parts.append(f"{fn.get('name', '')} {_dump(fn.get('arguments', ''))}".strip())
    return "\n".join(p for p in parts if p)


def tool_call_ids(message: Any) -> tuple[str, ...]:
    """The ids of the tool calls this message makes (OpenAI, Anthropic or ctxkeep)."""
    if not isinstance(message, Mapping):
        return ()
    if dialect_of(message) == "ctxkeep":
        cid = message.get("call_id")
        return (cid,) if message.get("type") == "tool/call" and isinstance(cid, str) else ()
    ids: list[str] = []
    calls = message.get("tool_calls")
    if isinstance(calls, Sequence) and not isinstance(calls, str | bytes):
        ids.extend(
            c["id"] for c in calls if isinstance(c, Mapping) and isinstance(c.get("id"), str)
        )
    content = message.get("content")
    if isinstance(content, Sequence) and not isinstance(content, str | bytes):
        ids.extend(
            b["id"]
            for b in content
            if isinstance(b, Mapping)
            and b.get("type") == "tool_use"
            and isinstance(b.get("id"), str)
        )
    return tuple(ids)


def tool_result_ids(message: Any) -> tuple[str, ...]:
    """The ids of the tool calls this message answers."""
    if not isinstance(message, Mapping):
        return ()
    if dialect_of(message) == "ctxkeep":
        cid = message.get("call_id")
        return (cid,) if message.get("type") == "tool/result" and isinstance(cid, str) else ()
    ids: list[str] = []
    tcid = message.get("tool_call_id")
    if isinstance(tcid, str):
        ids.append(tcid)
    content = message.get("content")
    if isinstance(content, Sequence) and not isinstance(content, str | bytes):
        ids.extend(
            b["tool_use_id"]
            for b in content
            if isinstance(b, Mapping)
            and b.get("type") == "tool_result"
            and isinstance(b.get("tool_use_id"), str)
        )
    return tuple(ids)
