"""Spans: the pieces a message is cut into when it must shrink (hard budget).

A text is cut into consecutive spans that together are the whole text: lines of tool
output, and in prose the sentences of a line, a list item as one span, a fenced code
block as one span (code is kept whole or not at all). A line longer than
:data:`LONG_SPAN_BYTES` (minified JSON, a log line without breaks) is cut at spaces into
pieces of about :data:`PIECE_BYTES`. A shortened text is its kept spans, verbatim and in
order, with one marker where spans were left out: ``[… 212 lines elided …]``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ctxkeep.compactor.text import utf8_size

__all__ = ["LONG_SPAN_BYTES", "Cut", "keep_spans", "split_spans"]

LONG_SPAN_BYTES = 2048
PIECE_BYTES = 1024
_FENCE = re.compile(r"^[ \t]*(```|~~~)", re.MULTILINE)
_ITEM = re.compile(r"[ \t]*(?:[-*•]|\d{1,3}[.)])\s")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|(?<=[。！？；])")


@dataclass(frozen=True, slots=True)
class Cut:
    """A text shortened to some of its spans."""

    text: str
    kept: tuple[tuple[int, int], ...]
    """The (start, end) ranges of the original text kept verbatim."""
    elided: str
    """What was left out, its pieces joined by newlines (for the summary)."""


def _lines(text: str, start: int, end: int) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    at = start
    while at < end:
        nl = text.find("\n", at, end)
        stop = end if nl == -1 else nl + 1
        out.append((at, stop))
        at = stop
    return out


def _fenced_blocks(text: str) -> list[tuple[int, int]]:
    """(start, end) of every fenced code block, fences included (an open fence runs on)."""
    blocks: list[tuple[int, int]] = []
    opened: int | None = None
    for match in _FENCE.finditer(text):
        if opened is None:
            opened = match.start()
        else:
            nl = text.find("\n", match.end())
            end = len(text) if nl == -1 else nl + 1
            blocks.append((opened, end))
            opened = None
    if opened is not None:
        blocks.append((opened, len(text)))
    return blocks


def _sentences(text: str, start: int, end: int) -> list[tuple[int, int]]:
    if _ITEM.match(text, start, end):
        return [(start, end)]
    out: list[tuple[int, int]] = []
    at = start
    for match in _SENTENCE_END.finditer(text, start, end):
        if match.end() > at and match.end() < end:
            out.append((at, match.end()))
            at = match.end()
    out.append((at, end))
    return out


def _pieces(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """A span cut at spaces into pieces of about PIECE_BYTES (whole when it has none)."""
    if utf8_size(text[start:end]) <= LONG_SPAN_BYTES:
        return [(start, end)]
    out: list[tuple[int, int]] = []
    at = start
    while at < end:
        stop = min(end, at + PIECE_BYTES)
        if stop < end:
            space = text.rfind(" ", at + PIECE_BYTES // 2, stop)
            stop = space + 1 if space != -1 else stop
        out.append((at, stop))
        at = stop
    return out


def split_spans(text: str, *, prose: bool) -> list[tuple[int, int]]:
    """Consecutive (start, end) spans covering ``text``: lines (tool output) or sentences
    and list items (prose); fenced code blocks whole."""
    spans: list[tuple[int, int]] = []
    at = 0
    for block_start, block_end in [*_fenced_blocks(text), (len(text), len(text))]:
        for line in _lines(text, at, block_start):
            parts = _sentences(text, *line) if prose else [line]
            for part in parts:
                spans.extend(_pieces(text, *part))
        if block_end > block_start:
            spans.append((block_start, block_end))
        at = block_end
    return spans


def _marker(count: int, prose: bool) -> str:
    what = ("sentence" if prose else "line") if count == 1 else ("sentences" if prose else "lines")
    return f"[… {count} {what} elided …]"


def keep_spans(
    text: str, spans: Sequence[tuple[int, int]], chosen: Iterable[int], *, prose: bool
) -> Cut:
    """``text`` with only the ``chosen`` spans (indexes into ``spans``), a marker for
    each run of spans left out."""
    keep = sorted(set(chosen))
    if len(keep) == len(spans):
        return Cut(text, ((0, len(text)),), "")
    parts: list[str] = []
    kept: list[tuple[int, int]] = []
    elided: list[str] = []
    previous = -1
    for k in [*keep, len(spans)]:
        gap = k - previous - 1
        if gap > 0:
            left_out = text[spans[previous + 1][0] : spans[k - 1][1]]
            elided.append(left_out.strip())
            marker = _marker(gap, prose)
            parts.append(marker + ("\n" if not prose or k < len(spans) else ""))
            if prose and k < len(spans):
                parts[-1] = marker + " "
        if k < len(spans):
            start, end = spans[k]
            parts.append(text[start:end])
            if kept and kept[-1][1] == start:
                kept[-1] = (kept[-1][0], end)
            else:
                kept.append((start, end))
        previous = k
    return Cut(
        "".join(parts).rstrip("\n ") or _marker(len(spans), prose),
        tuple(kept),
        "\n".join(e for e in elided if e),
    )
