"""Anthropic Messages arrays (docs/formats.md section 4): ``{system?, messages: [{role,
content: str | [text | tool_use | tool_result | thinking | image | compaction]}]}``, a bare
JSON array of messages, or JSONL.

The reading, the summary rule and the line numbers are those of every plain array: see
:mod:`ctxkeep.log.adapters._arrays`. A server-side ``{"type": "compaction", "content"}``
block is a summary that replaced everything before it. Sniffing wants a sign that only
Anthropic gives: a top-level ``system`` beside ``messages``, or a ``tool_use``,
``tool_result``, ``thinking`` or ``compaction`` block.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ctxkeep.base.messages import compaction_summaries, dialect_of
from ctxkeep.log.adapters._arrays import chat_messages_in_head, looks_like_chat, read_message_array
from ctxkeep.log.adapters.base import ReadOptions
from ctxkeep.log.model import Session
from ctxkeep.log.source import Head

__all__ = ["ADAPTER", "NAME"]

NAME = "anthropic"


def _anthropic_sign(message: Any) -> bool:
    return dialect_of(message) == "anthropic" or bool(compaction_summaries(message))


class _AnthropicAdapter:
    name = NAME

    def sniff(self, head: Head) -> bool:
        messages, enclosing = chat_messages_in_head(head)
        chat = [m for m in messages if not (isinstance(m, Mapping) and "role" not in m)]
        if not looks_like_chat(chat):
            return False
        if enclosing is not None and "system" in enclosing:
            return True
        return any(_anthropic_sign(m) for m in messages)

    def read(self, path: Path, display_path: str, options: ReadOptions) -> Session:
        return read_message_array(path, display_path, options, NAME)


ADAPTER = _AnthropicAdapter()
