"""The adapters, one module per log format, in sniffing order (docs/formats.md).

The order matters: specific formats (ctxkeep's own, Claude Code, Codex, OpenHands) are
tried before the plain message arrays, and ``openai`` is last because a list of
``{role, content}`` objects with string content is valid in several formats.

An adapter module is imported when it is first needed: naming the formats (the
``--log-format`` choices, ``ctxkeep --help``) imports none, :func:`adapter_named` one,
sniffing all of them.
"""

from __future__ import annotations

import functools
import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ctxkeep.log.adapters.base import Adapter, ReadOptions

    ADAPTERS: tuple[Adapter, ...]

__all__ = ["ADAPTERS", "Adapter", "ReadOptions", "adapter_named", "all_adapters", "format_names"]

# format name -> the module of this package whose ADAPTER reads it, in sniffing order
_MODULES: dict[str, str] = {
    "ctxkeep": "native",
    "claude-code": "claude_code",
    "codex": "codex",
    "openhands": "openhands",
    "anthropic": "anthropic",
    "openai": "openai",
}


def format_names() -> tuple[str, ...]:
    """The names ``--log-format`` accepts, in sniffing order."""
    return tuple(_MODULES)


def adapter_named(name: str) -> Adapter:
    """The adapter called ``name``; raises ``KeyError`` listing the known names."""
    module = _MODULES.get(name)
    if module is None:
        raise KeyError(f"unknown format {name!r}; known: {', '.join(format_names())}")
    adapter: Adapter = importlib.import_module(f"{__name__}.{module}").ADAPTER
    return adapter


@functools.cache
def all_adapters() -> tuple[Adapter, ...]:
    """Every adapter, in sniffing order."""
    return tuple(adapter_named(name) for name in _MODULES)


def __getattr__(name: str) -> Any:
    if name == "ADAPTERS":
        return all_adapters()
    if name in ("Adapter", "ReadOptions"):
        from ctxkeep.log.adapters import base

        return getattr(base, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
