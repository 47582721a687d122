"""Plain message arrays (docs/formats.md section 4): the reading shared by ``openai`` and
``anthropic``.

**Input shapes.** A JSON array of messages; a JSON object with a ``messages`` array (and,
for Anthropic, an optional top-level ``system``: a string or a list of text blocks); or
JSONL, one message a line (a line holding a whole array or ``{messages}`` object is
expanded). A file is read as one JSON document when it starts with ``[``, or with a ``{``
whose value spans more than one line (a pretty-printed object); otherwise as JSONL.

**Line numbers.** JSONL: the message's line. A JSON document: the line on which the
message's opening brace stands (1 for every message of a one-line document); problems name
the message's 0-based index as well, so they can be found either way.

**Bad input.** A document that does not decode as a whole (invalid UTF-8 or too deep a
nesting inside one message, a cut-off end) is split at its top-level commas and each
message decoded alone: the whole ones are read, every other one is a problem at its line.
When reading the file as JSONL yields more whole messages, that reading wins (a JSONL file
whose first line is broken). A message of the wrong shape (not an object, no or an unknown
role, ``content`` or ``tool_calls`` of the wrong type, a tool call or result without an
id) is a problem naming its index; what can still be read of it is read.

**Messages.** Read only through :mod:`ctxkeep.base.messages`. Words become one ``message``
event; each tool call one ``tool_call`` event and each tool result one ``tool_result``
event (injected ``tool-result``, as in the Claude Code adapter). ``system`` and
``developer`` messages are injected context (``system-prompt`` / ``developer``), and so are
user messages that open with a harness's injection tag (see :data:`INJECTED_OPENINGS`).

**Summaries.** No compaction marker exists in a plain array. A message is a summary when
its text opens with the known first line of a harness's summary
(:data:`KNOWN_SUMMARY_OPENINGS`), when it is Anthropic's server-side
``{"type": "compaction", "content": ...}`` block, or when ``ReadOptions.summary_index``
names it (0-based, counting messages in file order: ``messages`` of an object, elements
of an array, non-blank lines of JSONL, a line that cannot be read included). Each
becomes a ``compaction_start`` event and a ``compaction_end`` event carrying the summary
(injected ``compact-summary``), as in the other adapters, and a
:class:`~ctxkeep.log.model.Compaction` with status summarised, trigger None and no token
figures (the array states none).

**What a summary replaced** (its ``shadowed_seqs``) -- the rule for the two ways arrays
with summaries occur in practice:

- *A request snapshot* (what was sent to the model after compacting: system prompt,
  summary, newer turns). The replaced history is gone from the array: nothing but system
  or developer messages precedes the summary, so ``shadowed_seqs`` is empty and the rules
  report CK010 no-history.
- *A transcript with the summary appended* (a client that keeps every message and adds
  the summary, as with Anthropic's compaction block, which makes the API ignore what
  precedes it). The events after the previous summary (or the start) and before this
  one are what it replaced -- except system and developer messages, which stay in
  context across a compaction and are never shadowed.
- One refinement, :func:`kept_user_messages`: when everything in that span is a user
  message (no assistant turn, no tool traffic) there was no conversation to summarise;
  those are the user messages a harness re-sends beside its summary (Codex keeps the
  user's recent messages), so they are ``preserved_seqs``, not shadowed.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgspec

from ctxkeep.base.messages import (
    compaction_summaries,
    message_prose,
    message_role,
    message_text,
    tool_calls,
    tool_results,
)
from ctxkeep.log.adapters.base import ReadOptions, SessionBuilder
from ctxkeep.log.model import Compaction, CompactionStatus, Event, EventKind, Session
from ctxkeep.log.source import (
    Head,
    Record,
    decode_json,
    iter_records,
    open_regular,
    read_regular,
)

__all__ = [
    "INJECTED_OPENINGS",
    "KNOWN_SUMMARY_OPENINGS",
    "SummaryOpening",
    "chat_messages_in_head",
    "kept_user_messages",
    "looks_like_chat",
    "read_message_array",
    "summary_opening_of",
]

ROLES = frozenset({"system", "developer", "user", "assistant", "tool"})
_INJECTED_ROLES = {"system": "system-prompt", "developer": "developer"}
SUMMARY_INJECTED = "compact-summary"
_MARKERS = (EventKind.COMPACTION_START, EventKind.COMPACTION_END)
TOOL_RESULT_INJECTED = "tool-result"


@dataclass(frozen=True, slots=True)
class SummaryOpening:
    """The first words a harness writes at the top of its compaction summary."""

    harness: str
    opening: str


KNOWN_SUMMARY_OPENINGS: tuple[SummaryOpening, ...] = (
    # Claude Code's compact prompt (verified in real logs, docs/formats.md section 1).
    SummaryOpening(
        "claude-code",
        "This session is being continued from a previous conversation that ran out of context.",
    ),
    # Codex: the prefix it puts before the summary in the replacement history
    # (codex-rs core/templates/compact/summary_prefix.md) ...
    SummaryOpening(
        "codex",
        "Another language model started to solve this problem and produced a summary of "
        "its thinking process.",
    ),
    # ... and the older history bridge, which opens with the user's messages.
    SummaryOpening(
        "codex",
        "You were originally given instructions from a user over one or more turns.",
    ),
    # Aider's ChatSummary prefix (aider/prompts.py summary_prefix).
    SummaryOpening("aider", "I spoke to you previously about"),
    # Gemini CLI's chat compression writes an XML state snapshot.
    SummaryOpening("gemini-cli", "<state_snapshot>"),
)

INJECTED_OPENINGS: tuple[tuple[str, str], ...] = (
    # Harness text sent as a user message, never a person's instruction: Claude Code's
    # reminders and Codex's environment and AGENTS.md context (docs/formats.md sections 1-2).
    ("<system-reminder>", "system-reminder"),
    ("<environment_context>", "runtime-snapshot"),
    ("# AGENTS.md instructions", "agents-md"),
    ("<user_instructions>", "agents-md"),
)


def summary_opening_of(text: str) -> SummaryOpening | None:
    """The known summary opening that ``text`` starts with, or None."""
    head = text[:400].lstrip()
    for known in KNOWN_SUMMARY_OPENINGS:
        if head.startswith(known.opening):
            return known
    return None


def _injected_user_kind(text: str) -> str | None:
    head = text[:256].lstrip()
    for opening, kind in INJECTED_OPENINGS:
        if head.startswith(opening):
            return kind
    return None


# --- loading ------------------------------------------------------------------------

# Tokens that decide JSON structure: whole strings (a string never holds a raw newline),
# brackets, commas and newlines. Used on a peek at the file's start, and to salvage the
# whole messages of a document that does not decode.
# A string token ends at its closing quote or, unterminated, at the end of its line: it
# always matches, so a scan never starts again inside a string (an unterminated string of
# 32,000 escaped quotes took 2 min 18 s to scan, issue 14).
_TOKEN = re.compile(rb'"[^"\\\n]*(?:\\.[^"\\\n]*)*"?|[\[\]{},\n]')
_BYTE_OFFSET = re.compile(r"\(byte (\d+)\)")
_MESSAGES_KEY = re.compile(rb'\s*"messages"\s*:\s*\[')
_PEEK_BYTES = 1 << 16
_LIST_OF_RAW = msgspec.json.Decoder(list[msgspec.Raw])
_DICT_OF_RAW = msgspec.json.Decoder(dict[str, msgspec.Raw])


@dataclass(frozen=True, slots=True)
class _Item:
    """One entry of the source, in order: a message at its 0-based ``index`` (decoded in
    ``value``, or its JSON in ``chunk``, decoded when its turn comes), a problem in a
    message's place, the top-level ``system`` (``is_system``), or a problem of the whole
    file (``index`` -1)."""

    index: int
    line: int
    value: Any = None
    problem: str | None = None
    chunk: bytes | None = None
    is_system: bool = False


def _is_multiline_document(peek: bytes) -> bool:
    """True when the file is one JSON document, not JSONL (see the module docstring)."""
    start = len(peek) - len(peek.lstrip())
    first = peek[start : start + 1]
    if first == b"[":
        return True
    if first != b"{":
        return False
    # A pretty-printed object's first line is left open ("{", '{"system": "...",'); a
    # JSONL line that is merely broken ends anywhere.
    first_line = peek[start:].split(b"\n", 1)[0].rstrip()
    if first_line[-1:] not in (b"{", b"[", b",", b":"):
        return False
    depth = 0
    for m in _TOKEN.finditer(peek, start):
        c = peek[m.start()]
        if c in b"[{":
            depth += 1
        elif c in b"]}":
            depth -= 1
            if depth == 0:
                return False  # the first value closed on its own line: JSONL
        elif c == 0x0A and depth > 0:
            return True
    return False


def _entries(path: Path | bytes) -> Iterator[_Item]:
    """The entries of ``path`` (or of content already read: bytes) in order. Streamed: a
    message is decoded when its turn comes and dropped once read, so a large log never
    holds every decoded message at once (which also kept the garbage collector walking
    them all)."""
    if isinstance(path, bytes):
        peek = path[:_PEEK_BYTES]
    else:
        try:
            with open_regular(path) as fh:  # never blocks on a FIFO (issue 14)
                peek = fh.read(_PEEK_BYTES)
        except OSError:
            peek = b""  # iter_records reports why (a folder, no such file, no permission)
    if b"\x00" in peek[:8192]:  # binary: a problem of the file, not of a message in it
        for p in iter_records(path):
            if not isinstance(p, Record):
                yield _Item(-1, p.line, problem=p.reason)
        return
    if peek and _is_multiline_document(peek):
        yield from _document_entries(path)
    else:
        yield from _jsonl_entries(path)


def _jsonl_entries(path: Path | bytes) -> Iterator[_Item]:
    index = 0
    for record in iter_records(path):
        if not isinstance(record, Record):
            if record.line == 0:
                yield _Item(-1, 0, problem=record.reason)
            else:
                yield _Item(index, record.line, problem=record.reason)
                index += 1
            continue
        value, line = record.value, record.line
        if isinstance(value, dict) and "messages" in value:
            if "system" in value:
                yield _Item(-1, line, value["system"], is_system=True)
            messages = value["messages"]
            if not isinstance(messages, list):
                reason = f"'messages' is {_type_name(messages)}, expected a list of messages"
                yield _Item(-1, line, problem=reason)
                continue
        else:
            messages = value if isinstance(value, list) else [value]
        for element in messages:
            yield _Item(index, line, element)
            index += 1


def _document_entries(path: Path | bytes) -> Iterator[_Item]:
    try:
        data = path if isinstance(path, bytes) else read_regular(path)
    except OSError as exc:
        yield _Item(-1, 0, problem=f"cannot open: {exc.strerror or exc}")
        return
    lines = _LineIndex(data)
    start = len(data) - len(data.lstrip())
    try:
        if data[start : start + 1] == b"[":
            entries = _raw_elements(data, lines, _LIST_OF_RAW.decode(data), start)
        else:
            entries = _raw_object(data, lines, _DICT_OF_RAW.decode(data))
    except (msgspec.DecodeError, RecursionError) as exc:
        salvaged = list(_salvage(data, lines, start, exc))
        as_lines = list(_jsonl_entries(path))
        # A JSONL file whose first line is broken is not a broken document.
        yield from as_lines if _whole_messages(as_lines) > _whole_messages(salvaged) else salvaged
        return
    yield from entries


def _whole_messages(items: list[_Item]) -> int:
    return sum(1 for item in items if item.index >= 0 and item.problem is None)


def _raw_elements(
    data: bytes, lines: _LineIndex, raws: list[msgspec.Raw], pos: int
) -> Iterator[_Item]:
    for index, raw in enumerate(raws):
        chunk = bytes(raw)
        at = data.find(chunk, pos)
        pos = at + len(chunk) if at >= 0 else pos
        yield _Item(index, lines.line_of(max(at, 0)), chunk=chunk)


def _raw_object(data: bytes, lines: _LineIndex, fields: dict[str, msgspec.Raw]) -> Iterator[_Item]:
    if "system" in fields:
        chunk = bytes(fields["system"])
        line = lines.line_of(max(data.find(chunk, max(data.find(b'"system"'), 0)), 0))
        try:
            yield _Item(-1, line, decode_json(chunk), is_system=True)
        except ValueError as exc:
            yield _Item(-1, line, problem=f"'system': {exc}")
    if "messages" not in fields:
        yield _Item(-1, 1, problem="a JSON object with no 'messages' list: not a message array")
        return
    chunk = bytes(fields["messages"])
    at = max(data.find(chunk, max(data.find(b'"messages"'), 0)), 0)
    try:
        raws = _LIST_OF_RAW.decode(chunk)
    except (msgspec.DecodeError, RecursionError):
        value = _decoded_item(-1, lines.line_of(at), chunk)
        reason = value.problem or f"is {_type_name(value.value)}"
        yield _Item(-1, value.line, problem=f"'messages' {reason}, expected a list of messages")
        return
    yield from _raw_elements(data, lines, raws, at)


def _decoded_item(index: int, line: int, chunk: bytes) -> _Item:
    try:
        return _Item(index, line, decode_json(chunk))
    except ValueError as exc:
        return _Item(index, line, problem=str(exc))


def _salvage(data: bytes, lines: _LineIndex, start: int, exc: BaseException) -> Iterator[_Item]:
    """The whole messages of a document that does not decode as a whole."""
    if isinstance(exc, RecursionError):
        where, why = start, "nested too deeply to read as a whole"
    else:
        msg = str(exc)
        found = _BYTE_OFFSET.search(msg)
        where = int(found.group(1)) if found else start
        why = "invalid UTF-8" if "utf-8" in msg.lower() else f"invalid JSON ({msg})"
    reason = f"the document is not whole JSON: {why}; reading each message"
    yield _Item(-1, lines.line_of(where), problem=reason)
    if data[start : start + 1] == b"[":
        yield from _spans_as_messages(data, lines, start)
        return
    for span_start, span_end, _ in _split_spans(data, start):
        entry = data[span_start:span_end]
        key = _MESSAGES_KEY.match(entry)
        if key is not None:
            yield from _spans_as_messages(data, lines, span_start + key.end() - 1)
            continue
        line = lines.line_of(span_start)
        try:
            value = decode_json(b"{" + entry + b"}")
        except ValueError as err:
            yield _Item(-1, line, problem=f"top-level field: {err}")
            continue
        if isinstance(value, dict) and "system" in value:
            yield _Item(-1, line, value["system"], is_system=True)


def _spans_as_messages(data: bytes, lines: _LineIndex, open_at: int) -> Iterator[_Item]:
    for index, (span_start, span_end, whole) in enumerate(_split_spans(data, open_at)):
        line = lines.line_of(span_start)
        if whole:
            yield _decoded_item(index, line, data[span_start:span_end])
        else:
            yield _Item(index, line, problem="truncated: the document ends inside it")


def _split_spans(data: bytes, open_at: int) -> Iterator[tuple[int, int, bool]]:
    """The element spans of the array (or the ``key: value`` spans of the object) whose
    bracket is at ``open_at``: ``(start, end, whole)``; the last is not whole when the
    document ends before the bracket closes."""
    depth = 0
    begin = open_at + 1
    for m in _TOKEN.finditer(data, open_at):
        c = data[m.start()]
        if c in b"[{":
            depth += 1
        elif c in b"]}":
            depth -= 1
            if depth == 0:
                span = _strip_span(data, begin, m.start())
                if span is not None:
                    yield (*span, True)
                return
        elif c == 0x2C and depth == 1:  # a comma between elements
            span = _strip_span(data, begin, m.start())
            if span is not None:
                yield (*span, True)
            begin = m.end()
    span = _strip_span(data, begin, len(data))
    if span is not None:
        yield (*span, False)


def _strip_span(data: bytes, start: int, end: int) -> tuple[int, int] | None:
    piece = data[start:end]
    lead = len(piece) - len(piece.lstrip())
    stripped = piece.strip()
    if not stripped:
        return None
    return start + lead, start + lead + len(stripped)


class _LineIndex:
    """1-based line numbers of byte offsets, for offsets asked in increasing order."""

    def __init__(self, data: bytes) -> None:
        self._data = data
        self._offset = 0
        self._line = 1

    def line_of(self, offset: int) -> int:
        if offset < self._offset:
            self._offset, self._line = 0, 1
        self._line += self._data.count(b"\n", self._offset, offset)
        self._offset = offset
        return self._line


def _type_name(value: Any) -> str:
    names = {dict: "an object", list: "a list", str: "a string", bool: "a boolean"}
    if value is None:
        return "null"
    if isinstance(value, int | float) and not isinstance(value, bool):
        return "a number"
    return names.get(type(value), type(value).__name__)


# --- messages to events ------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Summary:
    start_seq: int
    end_seq: int
    line: int
    index: int
    text: str


def read_message_array(
    path: Path, display_path: str, options: ReadOptions, format_name: str
) -> Session:
    """Read a plain message array (any shape above) into a Session; never raises."""
    b = SessionBuilder(display_path, format_name)
    summaries: list[_Summary] = []
    messages = 0
    for item in _entries(path):
        if item.is_system:
            _system(b, item.value, item.line)
            continue
        if item.index < 0:
            b.problem(item.line, item.problem or "unreadable")
            continue
        messages = item.index + 1
        value, problem = item.value, item.problem
        if item.chunk is not None:
            try:
                value = decode_json(item.chunk)
            except ValueError as exc:
                problem = str(exc)
        if problem is not None:
            b.problem(item.line, f"message {item.index}: {problem}")
            continue
        marked = options.summary_index == item.index
        _message(b, item.index, item.line, value, marked, summaries)
    if options.summary_index is not None and options.summary_index >= messages:
        b.problem(
            0,
            f"--summary-index {options.summary_index} is past the last message "
            f"(the file holds {messages})",
        )
    _compactions(b, summaries)
    return b.build()


def _system(b: SessionBuilder, system: Any, line: int) -> None:
    if isinstance(system, str):
        text = system
    elif isinstance(system, list):
        text = message_prose({"content": system})
    else:
        b.problem(line, f"'system' is {_type_name(system)}, expected text or text blocks")
        return
    b.add(EventKind.MESSAGE, line=line, role="system", text=text, injected="system-prompt")


def _message(
    b: SessionBuilder,
    index: int,
    line: int,
    msg: Any,
    marked_summary: bool,
    summaries: list[_Summary],
) -> None:
    where = f"message {index}"
    if not isinstance(msg, dict):
        b.problem(line, f"{where}: is {_type_name(msg)}, not a message object; skipped")
        return
    # Which readings can apply (a string content holds no blocks): skipping the others
    # keeps plain chats fast.
    content = msg.get("content")
    has_parts = isinstance(content, list)
    blocks = compaction_summaries(msg) if has_parts or "type" in msg else ()
    role = message_role(msg)
    if role is None and not blocks:
        b.problem(line, f"{where}: has no 'role'; skipped")
        return
    if role is not None and role not in ROLES:
        b.problem(line, f"{where}: unknown role {role!r}; skipped")
        return
    if content is not None and not has_parts and not isinstance(content, str):
        b.problem(
            line, f"{where}: 'content' is {_type_name(content)}, expected text or a list of parts"
        )
    calls_field = msg.get("tool_calls")
    if calls_field is not None and not isinstance(calls_field, list):
        b.problem(line, f"{where}: 'tool_calls' is {_type_name(calls_field)}, expected a list")
    speaker = role or "assistant"
    for text in blocks:
        summaries.append(_summary_events(b, index, line, speaker, text))
    prose = message_prose(msg) if role != "tool" else ""
    emitted = bool(blocks)
    if role != "tool" and (marked_summary or (prose and summary_opening_of(prose) is not None)):
        text = prose or message_text(msg)
        summaries.append(_summary_events(b, index, line, speaker, text))
        emitted = True
    elif prose and role != "tool":
        injected = _INJECTED_ROLES.get(speaker)
        if injected is None and speaker == "user":
            injected = _injected_user_kind(prose)
        b.add(EventKind.MESSAGE, line=line, role=speaker, text=prose, injected=injected)
        emitted = True
    calls = tool_calls(msg) if has_parts or "tool_calls" in msg else ()
    for call in calls:
        if call.id is None:
            b.problem(line, f"{where}: a tool call without a string id")
        b.add(
            EventKind.TOOL_CALL,
            line=line,
            role="assistant",
            text=call.arguments,
            call_id=call.id,
            tool_name=call.name,
        )
        emitted = True
    answers = has_parts or role == "tool" or "tool_call_id" in msg
    for result in tool_results(msg) if answers else ():
        if result.id is None:
            b.problem(line, f"{where}: a tool result without a string call id")
        b.add(
            EventKind.TOOL_RESULT,
            line=line,
            role="tool",
            text=result.text,
            call_id=result.id,
            injected=TOOL_RESULT_INJECTED,
            is_error=result.is_error,
        )
        emitted = True
    if not emitted and role is not None:
        # An empty turn is still a turn (an assistant that said nothing).
        b.add(EventKind.MESSAGE, line=line, role=speaker, text=prose)


def kept_user_messages(span: Sequence[Event]) -> bool:
    """True when the events before a summary are only user messages.

    Codex's replacement history re-sends the user's recent messages ahead of its summary:
    in a request snapshot they stand before the summary although they were kept, not
    replaced. A span with no assistant turn and no tool traffic cannot be the conversation
    a summary condensed, so such messages are preserved, not shadowed.
    """
    return bool(span) and all(e.kind is EventKind.MESSAGE and e.role == "user" for e in span)


def _summary_events(b: SessionBuilder, index: int, line: int, speaker: str, text: str) -> _Summary:
    """A compaction start and an end carrying the summary, as every adapter writes them."""
    cid = f"message-{index}"
    start = b.add(EventKind.COMPACTION_START, line=line, source_id=cid)
    end = b.add(
        EventKind.COMPACTION_END,
        line=line,
        role=speaker,
        text=text,
        injected=SUMMARY_INJECTED,
        source_id=cid,
    )
    return _Summary(start.seq, end.seq, line, index, text)


def _compactions(b: SessionBuilder, summaries: list[_Summary]) -> None:
    previous: _Summary | None = None
    # Events are in seq order: each summary's span is a slice found by bisection, not a
    # scan of every event (5,671 summaries in 11,349 events took 10 s; issue 14's fuzzer).
    seqs = [e.seq for e in b.events]
    for number, summary in enumerate(summaries, start=1):
        after = previous.end_seq if previous else 0
        first = bisect.bisect_right(seqs, after)
        stop = bisect.bisect_left(seqs, summary.start_seq, first)
        span = [
            e
            for e in b.events[first:stop]
            if e.injected not in ("system-prompt", "developer") and e.kind not in _MARKERS
        ]
        preserved: tuple[int, ...] = ()
        shadowed = tuple(e.seq for e in span)
        if kept_user_messages(span):
            preserved, shadowed = shadowed, ()
        b.compactions.append(
            Compaction(
                index=number,
                id=f"message-{summary.index}",
                start_seq=summary.start_seq,
                end_seq=summary.end_seq,
                status=CompactionStatus.SUMMARISED,
                summary=summary.text,
                shadowed_seqs=shadowed,
                preserved_seqs=preserved,
                previous_summary=previous.text if previous else None,
                line=summary.line,
                summary_line=summary.line,
            )
        )
        previous = summary


# --- sniffing ----------------------------------------------------------------------


def chat_messages_in_head(head: Head) -> tuple[list[Any], dict[str, Any] | None]:
    """The first messages a sniffer can see, and the enclosing object if there is one."""
    if isinstance(head.whole, list):
        return head.whole[:8], None
    if isinstance(head.whole, dict):
        messages = head.whole.get("messages")
        return (messages[:8] if isinstance(messages, list) else []), head.whole
    if head.is_dir:
        return [], None
    peeked = _messages_in_peek(head.path)
    if peeked is not None:  # lines of a spread document that happen to decode are not records
        return peeked, None
    records = list(head.records[:8])
    if records and isinstance(records[0], dict) and "messages" in records[0]:
        messages = records[0].get("messages")
        return (messages[:8] if isinstance(messages, list) else []), records[0]
    if records and isinstance(records[0], list):
        return records[0][:8], None
    return records, None


def looks_like_chat(messages: list[Any]) -> bool:
    """Every message seen is an object with a known role and content or tool calls."""
    return bool(messages) and all(
        isinstance(m, Mapping)
        and isinstance(m.get("role"), str)
        and m["role"] in ROLES
        and ("content" in m or "tool_calls" in m)
        for m in messages
    )


def _messages_in_peek(path: Path) -> list[Any] | None:
    """The whole messages at the start of a document too big or too broken to decode;
    None when the file is not a document spread over lines."""
    try:
        with open_regular(path) as fh:  # never blocks on a FIFO (issue 14)
            peek = fh.read(_PEEK_BYTES)
    except OSError:
        return None
    if b"\x00" in peek[:8192] or not _is_multiline_document(peek):
        return None
    start = len(peek) - len(peek.lstrip())
    open_at = start
    if peek[start : start + 1] == b"{":
        found = re.search(rb'"messages"\s*:\s*\[', peek)
        if found is None:
            return []
        open_at = found.end() - 1
    messages: list[Any] = []
    for span_start, span_end, whole in _split_spans(peek, open_at):
        if not whole or len(messages) >= 8:
            break
        try:
            messages.append(decode_json(peek[span_start:span_end]))
        except ValueError:
            continue
    return messages
