"""What ctxkeep knows about message lists that callers hand it.

Three dialects share one set of functions: OpenAI chat messages (``role``, ``content`` as a
string or parts, ``tool_calls``, ``tool_call_id``), Anthropic Messages (``content`` blocks
``text`` / ``tool_use`` / ``tool_result`` / ``thinking``) and ctxkeep events (``type``:
``message``, ``tool/call``, ``tool/result``, ...; docs/formats.md section 5). The compactor, the
guard and the plain-array adapters read messages only through here, so a message means
the same thing everywhere. Every function accepts any object and never raises.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, NamedTuple, TypeGuard

import msgspec

__all__ = [
    "Dialect",
    "Message",
    "MessageParts",
    "Messages",
    "ToolCall",
    "ToolResult",
    "compaction_summaries",
    "dialect_of",
    "message_parts",
    "message_prose",
    "message_role",
    "message_text",
    "tool_call_ids",
    "tool_calls",
    "tool_result_ids",
    "tool_results",
]

Dialect = Literal["openai", "anthropic", "ctxkeep", "unknown"]

Message = Mapping[str, Any]
"""One message as callers hand it: an OpenAI chat message, an Anthropic message or a
ctxkeep event. (The functions here accept any object and never raise; this is the type
the public API promises.)"""
Messages = Sequence[Message]

_encode = msgspec.json.Encoder(order="sorted")
# Tool results may hold content lists that hold tool results: a hostile message nested a
# few hundred levels deep would otherwise exhaust Python's recursion limit.
_MAX_NESTING = 32
_PROSE_PARTS = ("text", "input_text", "output_text", "thinking")


@dataclass(frozen=True, slots=True)
class ToolCall:
    """One tool call a message makes: ``arguments`` is the input as JSON text."""

    id: str | None
    name: str | None
    arguments: str


@dataclass(frozen=True, slots=True)
class ToolResult:
    """One tool result a message carries, answering the call ``id``."""

    id: str | None
    text: str
    is_error: bool = False


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


def _part_text(part: Any, depth: int = 0) -> str:
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
        return _content_text(part.get("content"), depth + 1)
    if kind == "thinking":
        thought = part.get("thinking")
        return thought if isinstance(thought, str) else ""
    if kind in ("compaction",):
        text = part.get("content")
        return text if isinstance(text, str) else ""
    return ""


def _content_text(content: Any, depth: int = 0) -> str:
    if isinstance(content, str):
        return content
    if depth > _MAX_NESTING:
        return ""
    if _is_list(content):
        return "\n".join(t for t in (_part_text(p, depth) for p in content) if t)
    return ""


def _is_list(value: Any) -> TypeGuard[Sequence[Any]]:
    if type(value) is list:  # decoded JSON: skip the slower ABC check
        return True
    return isinstance(value, Sequence) and not isinstance(value, str | bytes | bytearray)


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
    return tuple(c.id for c in tool_calls(message) if c.id is not None)


def tool_result_ids(message: Any) -> tuple[str, ...]:
    """The ids of the tool calls this message answers."""
    return tuple(r.id for r in tool_results(message) if r.id is not None)


def message_prose(message: Any) -> str:
    """What the message says in words: text and thinking parts, without tool calls, tool
    results or compaction blocks (those are read by :func:`tool_calls`,
    :func:`tool_results` and :func:`compaction_summaries`)."""
    if isinstance(message, str):
        return message
    if not _is_map(message):
        return ""
    if _is_ctxkeep_event(message):
        if message.get("type") in ("tool/call", "tool/result"):
            return ""
        text = message.get("text")
        return text if isinstance(text, str) else ""
    content = message.get("content")
    if isinstance(content, str):
        return content
    if not _is_list(content):
        return ""
    texts: list[str] = []
    for part in content:
        if isinstance(part, str):
            texts.append(part)
        elif _is_map(part) and part.get("type") in _PROSE_PARTS:
            texts.append(_part_text(part))
    return "\n".join(t for t in texts if t)


def tool_calls(message: Any) -> tuple[ToolCall, ...]:
    """The tool calls this message makes, in order (an id that is not a string is None)."""
    if not _is_map(message):
        return ()
    if _is_ctxkeep_event(message):
        if message.get("type") != "tool/call":
            return ()
        return (
            ToolCall(
                _str_or_none(message.get("call_id")),
                _str_or_none(message.get("name")),
                _dump(message.get("input", "")),
            ),
        )
    calls: list[ToolCall] = []
    raw_calls = message.get("tool_calls")
    if _is_list(raw_calls):
        for call in raw_calls:
            if not _is_map(call):
                continue
            fn = call.get("function")
            fn = fn if _is_map(fn) else {}
            calls.append(
                ToolCall(
                    _str_or_none(call.get("id")),
                    _str_or_none(fn.get("name")),
                    _dump(fn.get("arguments", "")),
                )
            )
    content = message.get("content")
    if _is_list(content):
        calls.extend(
            ToolCall(
                _str_or_none(b.get("id")),
                _str_or_none(b.get("name")),
                _dump(b.get("input", "")),
            )
            for b in content
            if _is_map(b) and b.get("type") == "tool_use"
        )
    return tuple(calls)


def tool_results(message: Any) -> tuple[ToolResult, ...]:
    """The tool results this message carries, in order (an OpenAI ``tool`` message is one
    result; an Anthropic message may hold several ``tool_result`` blocks)."""
    if not _is_map(message):
        return ()
    if _is_ctxkeep_event(message):
        if message.get("type") != "tool/result":
            return ()
        text = message.get("text")
        return (
            ToolResult(
                _str_or_none(message.get("call_id")),
                text if isinstance(text, str) else "",
                message.get("is_error") is True,
            ),
        )
    results: list[ToolResult] = []
    if message.get("role") == "tool" or "tool_call_id" in message:
        results.append(
            ToolResult(
                _str_or_none(message.get("tool_call_id")),
                _content_text(message.get("content")),
            )
        )
    content = message.get("content")
    if _is_list(content):
        results.extend(
            ToolResult(
                _str_or_none(b.get("tool_use_id")),
                _content_text(b.get("content"), 1),
                b.get("is_error") is True,
            )
            for b in content
            if _is_map(b) and b.get("type") == "tool_result"
        )
    return tuple(results)


def compaction_summaries(message: Any) -> tuple[str, ...]:
    """The texts of Anthropic server-side ``{"type": "compaction", "content": ...}`` blocks
    in this message (a bare block counts too): each is a summary that replaced the
    conversation before it."""
    if not _is_map(message):
        return ()
    if message.get("type") == "compaction" and "role" not in message:
        blocks: Sequence[Any] = (message,)
    else:
        content = message.get("content")
        blocks = content if _is_list(content) else ()
    return tuple(
        b["content"]
        for b in blocks
        if _is_map(b) and b.get("type") == "compaction" and isinstance(b.get("content"), str)
    )


def _is_map(value: Any) -> TypeGuard[Mapping[Any, Any]]:
    # Decoded JSON objects are dicts: test that first, the ABC check is several times slower.
    return type(value) is dict or isinstance(value, Mapping)


def _is_ctxkeep_event(message: Mapping[Any, Any]) -> bool:
    """``dialect_of(message) == "ctxkeep"`` without reading the content."""
    return isinstance(message.get("type"), str) and "seq" in message


def _str_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) else None


class MessageParts(NamedTuple):
    """The dialect, role, text and tool ids of one message, read in one pass.

    A named tuple, not a dataclass: the compactor builds one per message of sessions with
    100,000 messages, and a tuple is built several times faster.
    """

    dialect: Dialect
    role: str | None
    text: str
    call_ids: tuple[str, ...]
    result_ids: tuple[str, ...]


def _plain_calls(
    content: str | None, raw_calls: Sequence[Any]
) -> tuple[str, tuple[str, ...]] | None:
    """``message_text`` and ``tool_call_ids`` of an OpenAI assistant turn whose calls are
    all plain JSON (``{"id": ..., "function": {"name": str, "arguments": str}}``), or None
    for any other shape (the general readers handle those).

    A fifth of an agent session's messages are such turns; the general readers decide
    the dialect and walk the content first (3 us a message instead of 1).
    """
    parts = [content] if content else []
    ids: list[str] = []
    for call in raw_calls:
        if type(call) is not dict:
            return None
        fn = call.get("function")
        if type(fn) is not dict:
            return None
        name = fn.get("name", "")
        arguments = fn.get("arguments", "")
        if type(name) is not str or type(arguments) is not str:
            return None
        part = f"{name} {arguments}".strip()
        if part:
            parts.append(part)
        call_id = call.get("id")
        if isinstance(call_id, str):
            ids.append(call_id)
    return "\n".join(parts), tuple(ids)


def message_parts(message: Any) -> MessageParts:
    """``dialect_of``, ``message_role``, ``message_text``, ``tool_call_ids`` and
    ``tool_result_ids`` at once, equal to calling each (a test holds it).

    The compactor reads every message of long sessions: the common OpenAI shapes (plain
    text, a tool result, an assistant turn calling tools) are answered without deciding
    the dialect five times.
    """
    if type(message) is dict and "type" not in message:
        content = message.get("content")
        role = message.get("role")
        plain_content = content is None or isinstance(content, str)
        if "tool_calls" not in message and "tool_call_id" not in message:
            if isinstance(content, str) and role != "tool":
                return MessageParts(
                    "openai" if "role" in message else "unknown",
                    role if isinstance(role, str) else None,
                    content,
                    (),
                    (),
                )
        elif "tool_calls" not in message:
            call_id = message.get("tool_call_id")
            if role == "tool" and isinstance(content, str) and isinstance(call_id, str):
                return MessageParts("openai", "tool", content, (), (call_id,))
        elif plain_content and role != "tool" and "tool_call_id" not in message:
            raw_calls = message.get("tool_calls")
            if _is_list(raw_calls):
                plain = _plain_calls(content, raw_calls)
                if plain is not None:
                    text, call_ids = plain
                    return MessageParts(
                        "openai", role if isinstance(role, str) else None, text, call_ids, ()
                    )
                return MessageParts(
                    "openai",
                    role if isinstance(role, str) else None,
                    message_text(message),
                    tuple(
                        c["id"]
                        for c in raw_calls
                        if isinstance(c, Mapping) and isinstance(c.get("id"), str)
                    ),
                    (),
                )
    return MessageParts(
        dialect_of(message),
        message_role(message),
        message_text(message),
        tool_call_ids(message),
        tool_result_ids(message),
    )
