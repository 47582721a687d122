"""OpenAI chat message arrays (docs/formats.md section 4): ``[{role, content, tool_calls,
tool_call_id}]`` as a JSON array, a ``{messages: [...]}`` object or JSONL.

The reading, the summary rule and the line numbers are those of every plain array: see
:mod:`ctxkeep.log.adapters._arrays`. This adapter is tried last: a list of ``{role,
content}`` objects is valid in several formats, and this one claims whatever chat
messages are left.
"""

from __future__ import annotations

from pathlib import Path

from ctxkeep.log.adapters._arrays import chat_messages_in_head, looks_like_chat, read_message_array
from ctxkeep.log.adapters.base import ReadOptions
from ctxkeep.log.model import Session
from ctxkeep.log.source import Head

__all__ = ["ADAPTER", "NAME"]

NAME = "openai"


class _OpenAIAdapter:
    name = NAME

    def sniff(self, head: Head) -> bool:
        messages, _ = chat_messages_in_head(head)
        return looks_like_chat(messages)

    def read(self, path: Path, display_path: str, options: ReadOptions) -> Session:
        return read_message_array(path, display_path, options, NAME)


ADAPTER = _OpenAIAdapter()
