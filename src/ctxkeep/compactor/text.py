"""UTF-8 sizes and cuts: the compactor's budgets are UTF-8 bytes of message text."""

from __future__ import annotations

__all__ = ["cut_utf8", "utf8_size"]


def utf8_size(text: str) -> int:
    """UTF-8 bytes of ``text`` (lone surrogates counted as written, never an error)."""
    return len(text.encode("utf-8", "surrogatepass"))


def cut_utf8(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` UTF-8 bytes without splitting a character."""
    raw = text.encode("utf-8", "surrogatepass")
    if len(raw) <= limit:
        return text
    return raw[: max(limit, 0)].decode("utf-8", "ignore")
