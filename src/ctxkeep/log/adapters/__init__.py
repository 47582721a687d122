"""The adapters, one module per log format, in sniffing order.

The order matters: specific formats (ctxkeep's own, Claude Code, Codex, OpenHands) are
tried before the plain message arrays, and ``openai`` is last because a list of
``{role, content}`` objects with string content is valid in several formats.
"""

from __future__ import annotations

from ctxkeep.log.adapters import anthropic, claude_code, codex, native, openai, openhands
from ctxkeep.log.adapters.base import Adapter, ReadOptions

__all__ = ["ADAPTERS", "Adapter", "ReadOptions", "adapter_named", "format_names"]

ADAPTERS: tuple[Adapter, ...] = (
    native.ADAPTER,
    claude_code.ADAPTER,
    codex.ADAPTER,
    openhands.ADAPTER,
    anthropic.ADAPTER,
    openai.ADAPTER,
)


def format_names() -> tuple[str, ...]:
    """The names ``--format`` accepts, in sniffing order."""
    return tuple(a.name for a in ADAPTERS)


def adapter_named(name: str) -> Adapter:
    """The adapter called ``name``; raises ``KeyError`` listing the known names."""
    for adapter in ADAPTERS:
        if adapter.name == name:
            return adapter
    raise KeyError(f"unknown format {name!r}; known: {', '.join(format_names())}")
