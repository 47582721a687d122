"""Shortened copies of messages: the same identity (role, tool-call ids, names), less text.

A message's text lives in *slots*: an OpenAI ``content`` string or its text parts, an
Anthropic text block or ``tool_result`` content, a tool call's arguments, a ctxkeep
event's ``text`` or ``input``. :func:`shortened` builds a copy of the message in which
each slot holds a cut of its text (:mod:`ctxkeep.compactor.spans`); everything else is
the caller's own value, shared, never modified. A call's arguments are JSON: long string
values inside them are cut (head and tail kept) so the arguments stay valid JSON of the
same shape.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ctxkeep.compactor.spans import Cut, keep_spans, split_spans
from ctxkeep.compactor.text import utf8_size

__all__ = ["Shortened", "Slot", "shortened", "slots_of"]

Path = tuple[str | int, ...]
_TEXT_PARTS = ("text", "input_text", "output_text")
_ARG_STRING_BYTES = 160
"""A string inside call arguments longer than this is cut to its head and tail."""


@dataclass(frozen=True, slots=True)
class Slot:
    """Where one piece of a message's text lives, and what it is: ``prose`` (sentences),
    ``output`` (tool output: lines), ``args`` (a JSON string) or ``input`` (a JSON value)."""

    path: Path
    text: str
    kind: str


@dataclass(frozen=True, slots=True)
class Shortened:
    """A shortened copy of a message, what of each slot was kept, and what was elided."""

    message: Any
    kept: tuple[tuple[int, int], ...]
    """Kept (start, end) ranges of the message's prose and output slots, each slot's
    ranges offset by where its text starts in ``message_text`` of the original."""
    elided: str


def _content_slots(content: Any, base: Path, role: str | None) -> list[Slot]:
    kind = "output" if role == "tool" else "prose"
    if isinstance(content, str):
        return [Slot(base, content, kind)]
    if not isinstance(content, list):
        return []
    slots: list[Slot] = []
    for k, part in enumerate(content):
        if isinstance(part, str):
            slots.append(Slot((*base, k), part, kind))
        elif isinstance(part, Mapping):
            kind_of_part = part.get("type")
            if kind_of_part in _TEXT_PARTS and isinstance(part.get("text"), str):
                slots.append(Slot((*base, k, "text"), part["text"], kind))
            elif kind_of_part == "tool_result":
                slots.extend(_content_slots(part.get("content"), (*base, k, "content"), "tool"))
            elif kind_of_part == "tool_use" and isinstance(part.get("input"), Mapping):
                slots.append(Slot((*base, k, "input"), "", "input"))
    return slots


def slots_of(message: Any) -> list[Slot]:
    """The slots of ``message`` that can be shortened, in the order of its text."""
    if not isinstance(message, Mapping):
        return []
    if isinstance(message.get("type"), str) and "seq" in message:  # a ctxkeep event
        if message.get("type") == "tool/call":
            return (
                [Slot(("input",), "", "input")] if isinstance(message.get("input"), Mapping) else []
            )
        text = message.get("text")
        kind = "output" if message.get("type") == "tool/result" else "prose"
        return [Slot(("text",), text, kind)] if isinstance(text, str) else []
    role = message.get("role")
    slots = _content_slots(
        message.get("content"), ("content",), role if isinstance(role, str) else None
    )
    calls = message.get("tool_calls")
    if isinstance(calls, list):
        for k, call in enumerate(calls):
            fn = call.get("function") if isinstance(call, Mapping) else None
            if isinstance(fn, Mapping) and isinstance(fn.get("arguments"), str):
                slots.append(
                    Slot(("tool_calls", k, "function", "arguments"), fn["arguments"], "args")
                )
    return slots


def _with(value: Any, path: Path, leaf: Any) -> Any:
    """A copy of ``value`` with ``leaf`` at ``path``; containers off the path are shared."""
    if not path:
        return leaf
    head, rest = path[0], path[1:]
    if isinstance(value, Mapping) and isinstance(head, str):
        copy = dict(value)
        copy[head] = _with(value[head], rest, leaf)
        return copy
    if isinstance(value, list) and isinstance(head, int):
        items = list(value)
        items[head] = _with(value[head], rest, leaf)
        return items
    return value


def _get(value: Any, path: Path) -> Any:
    for key in path:
        value = value[key]
    return value


def _cut_string(text: str) -> str:
    """A long string's head and tail around a marker of what was left out."""
    if utf8_size(text) <= _ARG_STRING_BYTES:
        return text
    half = _ARG_STRING_BYTES // 2 - 16
    middle = len(text) - 2 * half
    return f"{text[:half]}[… {middle} characters elided …]{text[-half:]}"


def _cut_json(value: Any) -> Any:
    if isinstance(value, str):
        return _cut_string(value)
    if isinstance(value, Mapping):
        return {k: _cut_json(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_cut_json(v) for v in value]
    return value


def _cut_args(text: str) -> str:
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return _cut_string(text)
    cut = json.dumps(_cut_json(value), ensure_ascii=False)
    return cut if len(cut) < len(text) else text


Chooser = Callable[[str, Sequence[tuple[int, int]], bool], list[int]]
"""Which spans of a slot's text to keep: (text, spans, prose) -> span indexes."""


def shortened(message: Any, full_text: str, choose: Chooser) -> Shortened | None:
    """A copy of ``message`` with each slot cut to the spans ``choose`` picks and the
    arguments of its calls cut; None when nothing could be shortened."""
    slots = slots_of(message)
    if not slots:
        return None
    result = message
    kept: list[tuple[int, int]] = []
    elided: list[str] = []
    search_from = 0
    changed = False
    for slot in slots:
        if slot.kind == "input":
            original = _get(message, slot.path)
            cut_input = _cut_json(original)
            if cut_input != original:
                result, changed = _with(result, slot.path, cut_input), True
            continue
        if slot.kind == "args":
            cut_text = _cut_args(slot.text)
            if cut_text != slot.text:
                result, changed = _with(result, slot.path, cut_text), True
            continue
        offset = full_text.find(slot.text, search_from) if slot.text else -1
        prose = slot.kind == "prose"
        spans = split_spans(slot.text, prose=prose)
        cut: Cut = keep_spans(slot.text, spans, choose(slot.text, spans, prose), prose=prose)
        if offset >= 0:
            search_from = offset + len(slot.text)
            kept.extend((offset + a, offset + b) for a, b in cut.kept)
        if cut.text != slot.text:
            result, changed = _with(result, slot.path, cut.text), True
            if cut.elided:
                elided.append(cut.elided)
    if not changed:
        return None
    return Shortened(result, tuple(kept), "\n".join(elided))
