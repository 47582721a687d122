"""The one reader of message lists: ``compact``, ``score``, ``replay`` and
``check-messages`` read their input here, through the same entries the ``openai`` and
``anthropic`` adapters read (:mod:`ctxkeep.log.adapters._arrays`), so one file gets one
answer everywhere.

Shapes: a JSON array of messages, an object with ``messages`` (and an Anthropic
``system``), or JSONL, one message a line (docs/reliability.md). Every element must be a message, a
JSON object with ``role`` (or ``type``, ctxkeep events): ``[1, 2, "three"]`` is three
located problems, not three messages. Problems
are capped per file (:data:`~ctxkeep.log.source.MAX_PROBLEMS_PER_FILE`), so a binary or
hostile file gives a screenful, not ten thousand lines.
"""

from __future__ import annotations

import os
import stat
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ctxkeep.log.adapters._arrays import _entries, _type_name
from ctxkeep.log.model import located
from ctxkeep.log.source import cap_problems, decode_json, not_a_file_reason

__all__ = ["MessageList", "read_message_list"]

STDIN_LIMIT = 1 << 30
"""Bytes read from stdin at most: a message list is not a gigabyte (``/dev/zero``)."""


@dataclass(frozen=True, slots=True)
class MessageList:
    """The messages read from one file and the located problems met on the way.

    ``problems`` are ``path:line: reason`` strings; ``error`` is set when the file could not
    be read at all (then ``messages`` is empty).
    """

    path: str
    messages: list[Any]
    problems: list[str]
    anthropic: bool
    """The file was an Anthropic request (an object with ``system`` beside ``messages``)."""
    error: str | None = None


def _stdin_bytes() -> bytes | str:
    """stdin's content, or why it is not read (a device such as ``/dev/zero``)."""
    fd = sys.stdin.fileno()
    mode = os.fstat(fd).st_mode
    if stat.S_ISCHR(mode) and not os.isatty(fd):
        return "stdin is a character device: not read (it may never end)"
    data = sys.stdin.buffer.read(STDIN_LIMIT + 1)
    if len(data) > STDIN_LIMIT:
        return f"stdin holds more than {STDIN_LIMIT:,} bytes: not a message list"
    return data


def read_message_list(path: str) -> MessageList:
    """Read the message list at ``path`` (``-`` is stdin); never raises on bad input."""
    shown = "<stdin>" if path == "-" else path
    source: Path | bytes
    if path == "-":
        data = _stdin_bytes()
        if isinstance(data, str):
            return MessageList(shown, [], [], False, f"{shown}: {data}")
        source = data
    else:
        source = Path(path)
        try:
            reason = not_a_file_reason(source.stat().st_mode)
        except OSError as exc:
            reason = f"cannot read: {exc.strerror or exc}"
        if reason is not None:
            return MessageList(shown, [], [], False, f"{shown}: {reason}")
    messages: list[Any] = []
    problems: list[tuple[int, str]] = []
    anthropic = False
    for item in _entries(source):
        if item.is_system:
            anthropic = True
            continue
        if item.index < 0:
            problems.append((item.line, item.problem or "unreadable"))
            continue
        value, problem = item.value, item.problem
        if item.chunk is not None and problem is None:
            try:
                value = decode_json(item.chunk)
            except ValueError as exc:
                problem = str(exc)
        if problem is None:
            problem = _not_a_message(value)
        if problem is not None:
            problems.append((item.line, f"message {item.index}: {problem}"))
        else:
            messages.append(value)
    located_problems = [
        f"{located(shown, line)}: {reason}" for line, reason in cap_problems(problems)
    ]
    error = None
    if not messages:
        error = f"{shown}: no message could be read" if problems else f"{shown}: no messages"
    return MessageList(shown, messages, located_problems, anthropic, error)


def _not_a_message(value: Any) -> str | None:
    """Why ``value`` is not a message (an object with ``role``, or ``type`` for ctxkeep
    events), or None when it is one."""
    if not isinstance(value, dict):
        return f"expected a JSON object, got {_type_name(value)}"
    if "role" not in value and "type" not in value:
        keys = ", ".join(sorted(map(str, value))[:5]) or "none"
        return f"expected a message (an object with 'role' or 'type'), got keys: {keys}"
    return None
