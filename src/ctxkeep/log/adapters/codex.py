"""Codex CLI rollout files (docs/formats.md section 2): ``~/.codex/sessions/**/rollout-*.jsonl``.

Each line is ``{"timestamp", "type", "payload"}``; one pass over the lines, in file order.

What becomes what:

- ``response_item`` ``message`` -> a message event (``input_text`` / ``output_text`` parts
  joined by newlines). ``developer`` messages are injected ``developer``; user messages
  that open with ``<environment_context>``, ``# AGENTS.md instructions``,
  ``<user_instructions>``, ``<user_shell_command>`` or ``<turn_aborted>`` are injected
  (kind named after the tag); a user message that holds the last compaction's summary is
  injected ``compaction-summary``.
- ``reasoning`` -> an ``other`` event of role ``assistant`` holding its summary (and raw
  ``reasoning_text``) parts, only when it has readable text: it is the model's, never
  user text. ``function_call`` / ``custom_tool_call`` / ``local_shell_call`` -> a tool
  call (text = the arguments JSON string, the custom tool's input, the shell action);
  ``function_call_output`` / ``custom_tool_call_output`` -> its result, paired by
  ``call_id``. An output shaped ``{"output", "metadata": {"exit_code"}}`` is unwrapped to
  its ``output``; a non-zero exit code (JSON metadata, or an ``Exit code: N`` /
  ``Process exited with code N`` header) marks the result an error.
- ``turn_context`` -> an ``other`` event injected ``turn-context`` (its JSON): harness
  state, not conversation, so it is never part of what a compaction replaced.
- ``session_meta`` gives ``Session.session_id`` (the first one: a forked session repeats
  its parent's).

Each person's message is written twice: as a ``response_item`` user message (what the
model saw, and the copy ``replacement_history`` carries) and as ``event_msg``
``user_message`` (what the person typed); an assistant reply likewise as a message and as
``agent_message``. ONE event is kept per message: whichever copy comes first, the second
(same role, same text after stripping, before any other conversation event) is dropped.
A copy without its twin (older rollouts, cut files) is kept. ``agent_reasoning`` echoes
are skipped.

Usage: ``event_msg`` ``token_count`` -> a usage event whose tokens are the context size
after that request: ``last_token_usage.total_tokens`` minus its
``reasoning_output_tokens`` (``input_tokens + output_tokens`` when ``total_tokens`` is
absent). ``input_tokens`` alone is the prompt already sent and misses the reply now in
history; ``cached_input_tokens`` is a part of ``input_tokens``, never added; reasoning
tokens of past turns are dropped from what is sent next, which is how Codex computes
its own "context left" figure. ``model_context_window`` is the window (the first one
seen is ``Session.context_window``). A ``token_count`` whose ``total_token_usage``
repeats the previous one is a rate-limit update, not a request, and is skipped; one
with ``info: null`` carries no usage.

Compaction: a ``compacted`` record is one :class:`Compaction` (a start and an end event
on its line; Codex writes no trigger, so ``trigger`` is None). ``message`` is the summary;
an empty one with a ``compaction`` (or ``compaction_summary``) item holding
``encrypted_content`` in ``replacement_history`` is a server-side summary: ``summary`` None,
``opaque`` True, still summarised. What ``replacement_history`` holds is the whole history
after the compaction: the initial context (environment, AGENTS.md), the user's own
messages verbatim (the most recent ones, up to Codex's budget of about 20k tokens; older
ones dropped, the oldest kept one possibly cut), then the summary as a user message (or
the encrypted item); older versions folded the user messages into one "bridge" message.
So an event in context before the compaction is *preserved* when an item of the
replacement history carries it (same role and text, counted per copy, latest first;
or its text inside a carried message of its role, for the bridge form; tool items by
``call_id``), and *shadowed* otherwise. "In context before" means the events preserved
by the previous compaction plus everything after it: a user message one compaction kept
and the next one dropped is that next one's loss. Without ``replacement_history`` (older
Codex rebuilt history from the user's messages and the summary) the user's own messages
are preserved and the rest shadowed. ``tokens_before`` is the last usage since the
previous compaction, ``tokens_after`` the first usage after it (before the next one);
``previous_summary`` is the previous compaction's summary (None when it was opaque).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ctxkeep.log.adapters.base import (
    PrefixKinds,
    ReadOptions,
    SessionBuilder,
    as_int,
    as_str,
    exit_code_failed,
    iter_objects,
    json_text,
    parts_text,
)
from ctxkeep.log.model import Compaction, CompactionStatus, EventKind, Session
from ctxkeep.log.source import Head, decode_json

__all__ = ["ADAPTER", "NAME", "context_tokens", "injected_kind_of_user_text"]

NAME = "codex"

_RECORD_TYPES = frozenset(
    {"session_meta", "turn_context", "response_item", "event_msg", "compacted"}
)

# User text the harness wrote (docs/formats.md section 2): (opening string, injected kind).
_INJECTED_PREFIXES: tuple[tuple[str, str], ...] = (
    ("<environment_context>", "environment-context"),
    ("# AGENTS.md instructions", "agents-md"),
    ("<user_instructions>", "user-instructions"),
    ("<user_shell_command>", "user-shell-command"),
    ("<turn_aborted>", "turn-aborted"),
)
_INJECTED = PrefixKinds(_INJECTED_PREFIXES)
_TEXT_PART_TYPES = frozenset({"input_text", "output_text", "text"})
_REASONING_PART_TYPES = frozenset({"summary_text", "reasoning_text", "text"})
_OPAQUE_ITEM_TYPES = frozenset({"compaction", "compaction_summary"})
_EXIT_CODE = re.compile(r"^(?:Exit code:|Process exited with code) (-?\d+)\s*$", re.MULTILINE)

# A context entry's identity for matching against replacement_history.
_Key = tuple[str, str]


def _named(value: Any, names: frozenset[str]) -> bool:
    """``value`` is one of ``names`` (a list or object in a 'type' field is not, and is
    never hashed)."""
    return isinstance(value, str) and value in names


def injected_kind_of_user_text(text: str) -> str | None:
    """The injected kind of a Codex user message by its opening, or None for real input.

    Codex sends the environment, AGENTS.md, shell commands run with ``!`` and abort notes
    as ``user`` messages; counting them as the person's words would make re-injected
    context look like lost constraints.
    """
    return _INJECTED.kind_of(text.lstrip())


def context_tokens(usage: Any) -> int | None:
    """Context size after one request, from ``last_token_usage`` (see the module doc)."""
    if not isinstance(usage, dict):
        return None
    total = as_int(usage.get("total_tokens"))
    if total is None:
        prompt = as_int(usage.get("input_tokens"))
        reply = as_int(usage.get("output_tokens"))
        if prompt is None:
            return None
        total = prompt + (reply or 0)
    reasoning = as_int(usage.get("reasoning_output_tokens")) or 0
    return max(total - reasoning, 0)


def _tool_output(output: Any) -> tuple[str, bool]:
    """The text of a tool output and whether it reports an error.

    Shell tools write ``{"output": ..., "metadata": {"exit_code": N}}`` as a JSON string
    (older) or a text with an ``Exit code: N`` header (newer); MCP tools may write a list
    of content items or ``{"content", "success"}``.
    """
    if isinstance(output, str):
        if output.startswith('{"output"'):
            try:
                value = decode_json(output)
            except ValueError:
                value = None
            if isinstance(value, dict) and isinstance(value.get("output"), str):
                metadata = value.get("metadata")
                failed = isinstance(metadata, dict) and exit_code_failed(metadata.get("exit_code"))
                return value["output"], failed
        match = _EXIT_CODE.search(output, 0, 400)
        return output, match is not None and int(match.group(1)) != 0
    if isinstance(output, list):
        return parts_text(output, _TEXT_PART_TYPES) or "", False
    if isinstance(output, dict):
        text = parts_text(output.get("content"), _TEXT_PART_TYPES) or ""
        return text, output.get("success") is False
    return "", False


@dataclass(slots=True)
class _Live:
    """An event in the model's context, for telling what a compaction replaced."""

    seq: int
    key: _Key
    typed_by_user: bool


@dataclass(slots=True)
class _Pending:
    """A compaction while the file is read; frozen into a Compaction at the end."""

    index: int
    start_seq: int
    end_seq: int
    line: int
    summary: str | None
    opaque: bool
    shadowed: tuple[int, ...]
    preserved: tuple[int, ...]
    previous_summary: str | None
    tokens_before: int | None
    tokens_after: int | None = None


@dataclass
class _Reader:
    b: SessionBuilder
    live: list[_Live] = field(default_factory=list)
    # Messages not yet matched by their twin copy, per role (see the module doc).
    unmatched_items: dict[str, list[str]] = field(default_factory=dict)
    unmatched_echoes: dict[str, list[str]] = field(default_factory=dict)
    pending: list[_Pending] = field(default_factory=list)
    awaiting_after: list[_Pending] = field(default_factory=list)
    last_usage: int | None = None
    last_total_usage: Any = None
    previous_summary: str | None = None
    summary_to_mark: str | None = None

    # -- events -------------------------------------------------------------------

    def _context(
        self,
        kind: EventKind,
        line: int,
        key: _Key,
        *,
        role: str | None,
        text: str,
        injected: str | None = None,
        call_id: str | None = None,
        tool_name: str | None = None,
        source_id: str | None = None,
        is_error: bool = False,
    ) -> None:
        """Add an event the model sees, and end the echo window of other roles."""
        if self.unmatched_items or self.unmatched_echoes:
            for r in ("user", "assistant"):
                if not (kind is EventKind.MESSAGE and role == r):
                    self.unmatched_items.pop(r, None)
                    self.unmatched_echoes.pop(r, None)
        event = self.b.add(
            kind,
            line=line,
            role=role,
            text=text,
            call_id=call_id,
            tool_name=tool_name,
            injected=injected,
            source_id=source_id,
            is_error=is_error,
        )
        typed = kind is EventKind.MESSAGE and role == "user" and injected is None
        self.live.append(_Live(event.seq, key, typed))

    def message(
        self, role: str, text: str, line: int, source_id: str | None, *, echo: bool
    ) -> None:
        injected: str | None = None
        if role == "developer":
            injected = "developer"
        elif role == "user":
            injected = injected_kind_of_user_text(text)
            if injected is None and self._holds_last_summary(text):
                injected = "compaction-summary"
        if injected is None and role in ("user", "assistant"):
            stripped = text.strip()
            twins = self.unmatched_items if echo else self.unmatched_echoes
            waiting = twins.get(role)
            if waiting and stripped in waiting:
                waiting.remove(stripped)
                return  # the second copy of a message already recorded
            mine = self.unmatched_echoes if echo else self.unmatched_items
            self._context(
                EventKind.MESSAGE,
                line,
                ("message:" + role, stripped),
                role=role,
                text=text,
                source_id=source_id,
            )
            mine.setdefault(role, []).append(stripped)
            return
        self._context(
            EventKind.MESSAGE,
            line,
            ("message:" + role, text.strip()),
            role=role,
            text=text,
            injected=injected,
            source_id=source_id,
        )

    def _holds_last_summary(self, text: str) -> bool:
        """A user message carrying the last summary (Codex sends it back as user text)."""
        summary = self.summary_to_mark
        return summary is not None and len(text) >= len(summary) and summary in text

    def response_item(self, payload: dict[str, Any], line: int) -> None:
        kind = payload.get("type")
        b = self.b
        if kind == "message":
            role = as_str(payload.get("role"))
            text = parts_text(payload.get("content"), _TEXT_PART_TYPES)
            if role is None or text is None:
                b.problem(line, "response_item message without a string role and content list")
                return
            self.message(role, text, line, as_str(payload.get("id")), echo=False)
        elif kind == "reasoning":
            text = _reasoning_text(payload)
            if text:
                self._context(
                    EventKind.OTHER,
                    line,
                    ("reasoning", text),
                    role="assistant",
                    text=text,
                    source_id=as_str(payload.get("id")),
                )
        elif kind in ("function_call", "custom_tool_call", "local_shell_call"):
            call_id = as_str(payload.get("call_id"))
            if call_id is None:
                b.problem(line, f"{kind} without a string call_id")
            if kind == "function_call":
                raw = payload.get("arguments")
                name = as_str(payload.get("name"))
            elif kind == "custom_tool_call":
                raw = payload.get("input")
                name = as_str(payload.get("name"))
            else:
                raw = payload.get("action")
                name = "local_shell"
            text = raw if isinstance(raw, str) else "" if raw is None else json_text(raw)
            self._context(
                EventKind.TOOL_CALL,
                line,
                ("call", call_id or ""),
                role="assistant",
                text=text,
                call_id=call_id,
                tool_name=name,
                source_id=as_str(payload.get("id")) or call_id,
            )
        elif kind in ("function_call_output", "custom_tool_call_output"):
            call_id = as_str(payload.get("call_id"))
            if call_id is None:
                b.problem(line, f"{kind} without a string call_id")
            text, failed = _tool_output(payload.get("output"))
            self._context(
                EventKind.TOOL_RESULT,
                line,
                ("result", call_id or ""),
                role="tool",
                text=text,
                call_id=call_id,
                source_id=call_id,
                is_error=failed,
            )
        # other item types (web_search_call, ghost_snapshot, compaction, ...) carry no text

    def event_msg(self, payload: dict[str, Any], line: int) -> None:
        kind = payload.get("type")
        if kind in ("user_message", "agent_message"):  # a tuple: kind may be unhashable
            text = payload.get("message")
            if not isinstance(text, str):
                self.b.problem(line, f"{kind} without a string message")
                return
            role = "user" if kind == "user_message" else "assistant"
            self.message(role, text, line, None, echo=True)
        elif kind == "token_count":
            self.token_count(payload.get("info"), line)

    def token_count(self, info: Any, line: int) -> None:
        if info is None:
            return  # a rate-limit update with no usage yet
        if not isinstance(info, dict):
            self.b.problem(line, "token_count info is not an object")
            return
        total = info.get("total_token_usage")
        if total is not None and total == self.last_total_usage:
            return  # repeats the previous reading: no request happened in between
        self.last_total_usage = total
        tokens = context_tokens(info.get("last_token_usage"))
        window = as_int(info.get("model_context_window"))
        if window is not None and self.b.context_window is None:
            self.b.context_window = window
        self.b.add(EventKind.USAGE, line=line, tokens=tokens, context_window=window)
        if tokens is not None:
            self.last_usage = tokens
            for c in self.awaiting_after:
                c.tokens_after = tokens
            self.awaiting_after.clear()

    # -- compactions ----------------------------------------------------------------

    def compacted(self, payload: dict[str, Any], line: int) -> None:
        b = self.b
        message = payload.get("message")
        summary: str | None = None
        if isinstance(message, str):
            summary = message if message.strip() else None
        elif message is not None:
            b.problem(line, "compacted: 'message' is not a string")
        history = payload.get("replacement_history")
        carried: Counter[_Key] | None = None
        carried_texts: dict[str, list[str]] = {}
        opaque = False
        if isinstance(history, list):
            carried = Counter()
            for item in history:
                if not isinstance(item, dict):
                    continue
                key = _history_key(item)
                if key is not None:
                    carried[key] += 1
                    if key[0].startswith("message:"):
                        carried_texts.setdefault(key[0], []).append(key[1])
                elif _named(item.get("type"), _OPAQUE_ITEM_TYPES) and isinstance(
                    item.get("encrypted_content"), str
                ):
                    opaque = True
        elif history is not None:
            b.problem(line, "compacted: replacement_history is not a list")
        if summary is not None:
            opaque = False  # a readable summary is audited even beside an encrypted item
        preserved = _carried_over(self.live, carried, carried_texts)
        kept = {entry.seq for entry in preserved}
        shadowed = tuple(entry.seq for entry in self.live if entry.seq not in kept)
        index = len(self.pending) + 1
        cid = f"compacted-{index}"
        start_seq = b.add(EventKind.COMPACTION_START, line=line, source_id=cid).seq
        end_seq = b.add(EventKind.COMPACTION_END, line=line, text=summary or "", source_id=cid).seq
        pending = _Pending(
            index=index,
            start_seq=start_seq,
            end_seq=end_seq,
            line=line,
            summary=summary,
            opaque=opaque,
            shadowed=shadowed,
            preserved=tuple(sorted(kept)),
            previous_summary=self.previous_summary,
            tokens_before=self.last_usage,
        )
        self.pending.append(pending)
        self.awaiting_after = [pending]
        self.live = preserved
        self.last_usage = None
        self.previous_summary = summary
        self.summary_to_mark = summary.strip() if summary else None
        self.unmatched_items.clear()
        self.unmatched_echoes.clear()

    def build(self) -> Session:
        for p in self.pending:
            self.b.compactions.append(
                Compaction(
                    index=p.index,
                    id=f"compacted-{p.index}",
                    start_seq=p.start_seq,
                    end_seq=p.end_seq,
                    status=CompactionStatus.SUMMARISED,
                    summary=p.summary,
                    opaque=p.opaque,
                    shadowed_seqs=p.shadowed,
                    preserved_seqs=p.preserved,
                    previous_summary=p.previous_summary,
                    tokens_before=p.tokens_before,
                    tokens_after=p.tokens_after,
                    line=p.line,
                    summary_line=p.line,
                )
            )
        return self.b.build()


def _reasoning_text(payload: dict[str, Any]) -> str:
    parts: list[str] = []
    for field_name in ("summary", "content"):
        text = parts_text(payload.get(field_name), _REASONING_PART_TYPES)
        if text:
            parts.append(text)
    return "\n".join(parts)


def _history_key(item: dict[str, Any]) -> _Key | None:
    """The key a replacement_history item matches a context event by, if it has one."""
    kind = item.get("type")
    if kind == "message":
        role = as_str(item.get("role"))
        text = parts_text(item.get("content"), _TEXT_PART_TYPES)
        if role is None or text is None:
            return None
        return ("message:" + role, text.strip())
    if kind in ("function_call", "custom_tool_call", "local_shell_call"):
        return ("call", as_str(item.get("call_id")) or "")
    if kind in ("function_call_output", "custom_tool_call_output"):
        return ("result", as_str(item.get("call_id")) or "")
    if kind == "reasoning":
        text = _reasoning_text(item)
        return ("reasoning", text) if text else None
    return None


def _carried_over(
    live: list[_Live], carried: Counter[_Key] | None, carried_texts: dict[str, list[str]]
) -> list[_Live]:
    """The context entries a compaction's replacement history keeps (see the module doc)."""
    if carried is None:
        return [entry for entry in live if entry.typed_by_user]
    remaining = Counter(carried)
    kept: list[_Live] = []
    for entry in reversed(live):
        if remaining[entry.key] > 0:
            remaining[entry.key] -= 1
            kept.append(entry)
        elif entry.key[1] and any(entry.key[1] in t for t in carried_texts.get(entry.key[0], ())):
            kept.append(entry)
    kept.reverse()
    return kept


class _CodexAdapter:
    name = NAME

    def sniff(self, head: Head) -> bool:
        for rec in head.records[:5]:
            if not isinstance(rec, dict):
                return False
            if _named(rec.get("type"), _RECORD_TYPES) and isinstance(rec.get("payload"), dict):
                return True
        return False

    def read(self, path: Path, display_path: str, options: ReadOptions) -> Session:
        reader = _Reader(SessionBuilder(display_path, NAME))
        b = reader.b
        for line, rec in iter_objects(path, b):
            kind = rec.get("type")
            payload = rec.get("payload")
            if not _named(kind, _RECORD_TYPES):
                continue  # unknown record types are skipped, never fatal
            if not isinstance(payload, dict):
                b.problem(line, f"{kind} record without an object payload")
                continue
            if kind == "response_item":
                reader.response_item(payload, line)
            elif kind == "event_msg":
                reader.event_msg(payload, line)
            elif kind == "compacted":
                reader.compacted(payload, line)
            elif kind == "turn_context":
                b.add(
                    EventKind.OTHER,
                    line=line,
                    role="system",
                    text=json_text(payload),
                    injected="turn-context",
                )
            elif b.session_id is None:  # session_meta
                b.session_id = as_str(payload.get("id"))
        return reader.build()


ADAPTER = _CodexAdapter()
