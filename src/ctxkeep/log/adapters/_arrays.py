"""Plain message arrays (FORMATS.md section 4): the reading shared by ``openai`` and
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

**Messages.** Read only through :mod:`ctxkeep.messages`. Words become one ``message``
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

import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgspec

from ctxkeep.log.adapters.base import ReadOptions, SessionBuilder
from ctxkeep.log.model import Compaction, CompactionStatus, Event, EventKind, Session
from ctxkeep.log.source import Head, Record, decode_json, iter_records
from ctxkeep.messages import (
    compaction_summaries,
    message_prose,
    message_role,
    message_text,
    tool_calls,
    tool_results,
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
    # Claude Code's compact prompt (verified in real logs, FORMATS.md section 1).
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
    # reminders and Codex's environment and AGENTS.md context (FORMATS.md sections 1-2).
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
_TOKEN = re.compile(rb'"[^"\\\n]*(?:\\.[^"\\\n]*)*"|[\[\]{},\n]')
_BYTE_OFFSET = re.compile(r"\(byte (\d+)\)")
_MESSAGES_KEY = re.compile(rb'\s*"messages"\s*:\s*\[')
_PEEK_BYTES = 1 << 16
_LIST_OF_RAW = msgspec.json.Decoder(list[msgspec.Raw])
_DICT_OF_RAW = msgspec.json.Decoder(dict[str, msgspec.Raw])


@dataclass(frozen=True, slots=True)
class _Item:
    """One message (or a problem in its place) at its 0-based index and source line."""

    index: int
    line: int
    value: Any = None
    problem: str | None = None


@dataclass
class _Loaded:
    items: list[_Item] = field(default_factory=list)
    system: Any = None
    system_line: int = 0
    problems: list[tuple[int, str]] = field(default_factory=list)


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


def _load(path: Path) -> _Loaded:
    try:
        with path.open("rb") as fh:
            peek = fh.read(_PEEK_BYTES)
    except OSError:
        peek = b""  # iter_records reports why (a folder, no such file, no permission)
    if b"\x00" in peek[:8192]:  # binary: a problem of the file, not of a message in it
        out = _Loaded()
        out.problems.extend(
            (p.line, p.reason) for p in iter_records(path) if not isinstance(p, Record)
        )
        return out
    if peek and _is_multiline_document(peek):
        return _load_document(path)
    return _load_jsonl(path)


def _load_jsonl(path: Path) -> _Loaded:
    out = _Loaded()
    for item in iter_records(path):
        if not isinstance(item, Record):
            if item.line == 0:
                out.problems.append((item.line, item.reason))
            else:
                out.items.append(_Item(len(out.items), item.line, problem=item.reason))
            continue
        value = item.value
        if isinstance(value, dict) and "messages" in value:
            _take_object(out, value, item.line, item.line)
        elif isinstance(value, list):
            for element in value:
                out.items.append(_Item(len(out.items), item.line, element))
        else:
            out.items.append(_Item(len(out.items), item.line, value))
    return out


def _take_object(out: _Loaded, obj: dict[str, Any], line: int, system_line: int) -> None:
    messages = obj.get("messages")
    if "system" in obj:
        out.system = obj["system"]
        out.system_line = system_line
    if not isinstance(messages, list):
        out.problems.append(
            (line, f"'messages' is {_type_name(messages)}, expected a list of messages")
        )
        return
    for element in messages:
        out.items.append(_Item(len(out.items), line, element))


def _load_document(path: Path) -> _Loaded:
    out = _Loaded()
    try:
        data = path.read_bytes()
    except OSError as exc:
        out.problems.append((0, f"cannot open: {exc.strerror or exc}"))
        return out
    lines = _LineIndex(data)
    start = len(data) - len(data.lstrip())
    try:
        if data[start : start + 1] == b"[":
            raws = _LIST_OF_RAW.decode(data)
            _take_raw_elements(out, data, lines, raws, start)
        else:
            fields = _DICT_OF_RAW.decode(data)
            _take_raw_object(out, data, lines, fields)
    except (msgspec.DecodeError, RecursionError) as exc:
        _salvage(out, data, lines, start, exc)
        as_lines = _load_jsonl(path)
        if _good_items(as_lines) > _good_items(out):
            return as_lines  # JSONL whose first line is broken, not a broken document
    return out


def _good_items(loaded: _Loaded) -> int:
    return sum(1 for item in loaded.items if item.problem is None)


def _take_raw_elements(
    out: _Loaded, data: bytes, lines: _LineIndex, raws: list[msgspec.Raw], pos: int
) -> None:
    for raw in raws:
        chunk = bytes(raw)
        at = data.find(chunk, pos)
        pos = at + len(chunk) if at >= 0 else pos
        out.items.append(_decoded_item(len(out.items), lines.line_of(max(at, 0)), chunk))


def _take_raw_object(
    out: _Loaded, data: bytes, lines: _LineIndex, fields: dict[str, msgspec.Raw]
) -> None:
    if "system" in fields:
        chunk = bytes(fields["system"])
        at = data.find(chunk, max(data.find(b'"system"'), 0))
        out.system_line = lines.line_of(max(at, 0))
        try:
            out.system = decode_json(chunk)
        except ValueError as exc:
            out.problems.append((out.system_line, f"'system': {exc}"))
    if "messages" not in fields:
        out.problems.append((1, "a JSON object with no 'messages' list: not a message array"))
        return
    chunk = bytes(fields["messages"])
    at = data.find(chunk, max(data.find(b'"messages"'), 0))
    try:
        raws = _LIST_OF_RAW.decode(chunk)
    except (msgspec.DecodeError, RecursionError):
        value = _decoded_item(0, lines.line_of(max(at, 0)), chunk)
        reason = value.problem or f"is {_type_name(value.value)}"
        out.problems.append((value.line, f"'messages' {reason}, expected a list of messages"))
        return
    _take_raw_elements(out, data, lines, raws, max(at, 0))


def _decoded_item(index: int, line: int, chunk: bytes) -> _Item:
    try:
        return _Item(index, line, decode_json(chunk))
    except ValueError as exc:
        return _Item(index, line, problem=str(exc))


def _salvage(out: _Loaded, data: bytes, lines: _LineIndex, start: int, exc: BaseException) -> None:
    """Read the whole messages of a document that does not decode as a whole."""
    if isinstance(exc, RecursionError):
        where, why = start, "nested too deeply to read as a whole"
    else:
        msg = str(exc)
        found = _BYTE_OFFSET.search(msg)
        where = int(found.group(1)) if found else start
        why = "invalid UTF-8" if "utf-8" in msg.lower() else f"invalid JSON ({msg})"
    out.problems.append(
        (lines.line_of(where), f"the document is not whole JSON: {why}; reading each message")
    )
    if data[start : start + 1] == b"[":
        _take_spans(out, data, lines, start)
        return
    for span_start, span_end, _ in _split_spans(data, start):
        entry = data[span_start:span_end]
        key = _MESSAGES_KEY.match(entry)
        if key is not None:
            _take_spans(out, data, lines, span_start + key.end() - 1)
            continue
        try:
            value = decode_json(b"{" + entry + b"}")
        except ValueError as err:
            out.problems.append((lines.line_of(span_start), f"top-level field: {err}"))
            continue
        if isinstance(value, dict) and "system" in value:
            out.system = value["system"]
            out.system_line = lines.line_of(span_start)


def _take_spans(out: _Loaded, data: bytes, lines: _LineIndex, open_at: int) -> None:
    for span_start, span_end, whole in _split_spans(data, open_at):
        line = lines.line_of(span_start)
        if not whole:
            out.items.append(
                _Item(len(out.items), line, problem="truncated: the document ends inside it")
            )
            continue
        out.items.append(_decoded_item(len(out.items), line, data[span_start:span_end]))


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
    loaded = _load(path)
    for line, reason in loaded.problems:
        b.problem(line, reason)
    if loaded.system is not None:
        _system(b, loaded.system, loaded.system_line)
    summaries: list[_Summary] = []
    for item in loaded.items:
        if item.problem is not None:
            b.problem(item.line, f"message {item.index}: {item.problem}")
            continue
        _message(b, item, options.summary_index == item.index, summaries)
    if options.summary_index is not None and options.summary_index >= len(loaded.items):
        b.problem(
            0,
            f"--summary-index {options.summary_index} is past the last message "
            f"(the file holds {len(loaded.items)})",
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
    item: _Item,
    marked_summary: bool,
    summaries: list[_Summary],
) -> None:
    msg, line = item.value, item.line
    where = f"message {item.index}"
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
        summaries.append(_summary_events(b, item, speaker, text))
    prose = message_prose(msg) if role != "tool" else ""
    emitted = bool(blocks)
    if role != "tool" and (marked_summary or (prose and summary_opening_of(prose) is not None)):
        summaries.append(_summary_events(b, item, speaker, prose or message_text(msg)))
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


def _summary_events(b: SessionBuilder, item: _Item, speaker: str, text: str) -> _Summary:
    """A compaction start and an end carrying the summary, as every adapter writes them."""
    cid = f"message-{item.index}"
    start = b.add(EventKind.COMPACTION_START, line=item.line, source_id=cid)
    end = b.add(
        EventKind.COMPACTION_END,
        line=item.line,
        role=speaker,
        text=text,
        injected=SUMMARY_INJECTED,
        source_id=cid,
    )
    return _Summary(start.seq, end.seq, item.line, item.index, text)


def _compactions(b: SessionBuilder, summaries: list[_Summary]) -> None:
    previous: _Summary | None = None
    for number, summary in enumerate(summaries, start=1):
        after = previous.end_seq if previous else 0
        span = [
            e
            for e in b.events
            if after < e.seq < summary.start_seq
            and e.injected not in ("system-prompt", "developer")
            and e.kind not in _MARKERS
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
        with path.open("rb") as fh:
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
