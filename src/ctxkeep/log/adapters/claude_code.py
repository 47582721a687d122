"""Claude Code session logs (docs/formats.md section 1): ``~/.claude/projects/*/<uuid>.jsonl``.

One pass over the records, in file order, which is the conversation order except for
abandoned branches (a rewind forks the ``parentUuid`` chain): those are kept as events
but left out of what a compaction replaced, by walking the chain back from the
boundary's ``logicalParentUuid``.

What becomes what:

- A record whose ``uuid`` was already seen is skipped (a second ``/compact`` re-appends
  old records with their original uuid); the first copy keeps its place.
- Assistant records of one ``message.id`` (one record per content block) become ONE
  assistant message holding the text and thinking blocks, one ``usage`` event (input +
  cache read + cache creation tokens, counted once per ``message.id``) placed before it,
  and one ``tool_call`` event per ``tool_use`` block (text = the JSON of ``input``).
  Sidechain (subagent) records are injected ``sidechain`` and give no usage reading.
- A ``tool_result`` block becomes a ``tool_result`` event (injected ``tool-result``);
  ``<system-reminder>`` blocks inside it are cut out into their own message event
  (injected ``system-reminder``) so that the result's text is the tool's own output.
- ``compact_boundary`` + the ``isCompactSummary`` record after it are one
  :class:`Compaction` (a start event and an end event carrying the summary). A manual
  ``/compact``'s ``<command-args>``, written after the summary, are its
  ``instructions``. A boundary whose summary record is missing is still a compaction
  that happened (Claude Code writes the boundary only after a summary was made): it is
  reported summarised with no summary to audit, and the missing record is a problem.
- What a compaction replaced (``shadowed_seqs``; docs/formats.md section 1, compaction
  step 4): the events since the previous summary (the first compaction: since the start
  of the file, which may begin mid-session) and the events the previous compaction
  preserved, which stayed in context until this one; less this compaction's preserved
  segment, tool results a micro-compaction had already cleared (the model no longer saw
  them), events on an abandoned branch, and the compaction/prune markers. The previous
  summary is a source through ``previous_summary``, not a shadowed event.
- ``microcompact_boundary`` is a :class:`Prune` of the named tool results (and of the
  reminders cut out of them).
- Slash-command records are injected ``command``; the text of their
  ``<command-args>`` is real user input and becomes its own user message.
- ``queue-operation`` enqueues are real user input (typed while the agent was busy).
- ``progress`` of ``data.type`` ``hook_progress`` is a :class:`HookRun` in
  ``Session.hook_runs`` (its ``hookEvent``, ``hookName`` and ``command``, after the last
  event read): the hook's output is not in the log.
- A first record whose ``parentUuid`` names a record (which cannot be in the file, as
  parents come first) sets ``Session.history_incomplete``: the file begins mid-session.
- Legacy ``summary`` records are session titles; other record types are skipped.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgspec

from ctxkeep.log.adapters.base import (
    PrefixKinds,
    ReadOptions,
    SessionBuilder,
    as_int,
    as_str,
    iter_fields,
)
from ctxkeep.log.model import (
    Compaction,
    CompactionStatus,
    EventKind,
    Prune,
    Session,
)
from ctxkeep.log.source import Head

__all__ = ["ADAPTER", "NAME", "injected_kind_of_user_text"]

NAME = "claude-code"

# A tool_use input keeps the key order the model wrote it in (base.json_text sorts keys).
_encode_json = msgspec.json.Encoder().encode

# Record types a Claude Code log starts with; with a session id or uuid they identify it.
_SNIFF_TYPES = frozenset(
    {
        "user",
        "assistant",
        "system",
        "progress",
        "summary",
        "file-history-snapshot",
        "queue-operation",
        "attachment",
        "ai-title",
        "custom-title",
        "mode",
        "permission-mode",
    }
)

# User text that the harness wrote, never a person's instruction (docs/formats.md section 1),
# by opening string: (prefix, the injected kind name recorded on the Event).
_INJECTED_PREFIXES: tuple[tuple[str, str], ...] = (
    ("<system-reminder>", "system-reminder"),
    ("<task-notification>", "task-notification"),
    ("<local-command-stdout>", "local-command"),
    ("<local-command-stderr>", "local-command"),
    ("<local-command-caveat>", "local-command"),
    ("<command-name>", "command"),
    ("<command-message>", "command"),
    ("[Request interrupted by user", "interrupted"),
    ("<bash-stdout>", "bash-output"),
    ("<bash-stderr>", "bash-output"),
)
_INJECTED = PrefixKinds(_INJECTED_PREFIXES)

# The keys of a hook_progress record's data, in HookRun's order (event, name, command).
_HOOK_FIELDS = ("hookEvent", "hookName", "command")

_REMINDER_OPEN = "<system-reminder>"
_REMINDER_CLOSE = "</system-reminder>"
_ARGS_OPEN = "<command-args>"
_ARGS_CLOSE = "</command-args>"
_COMPACT_COMMAND = "<command-name>/compact</command-name>"


def injected_kind_of_user_text(text: str) -> str | None:
    """The injected kind of a user string by its opening tag, or None for real input.

    The harness writes slash-command records, local command output, task notifications,
    interruption notes and system reminders as ``user`` records; counting them as the
    person's words made re-injected reminders look like lost constraints.
    """
    return _INJECTED.kind_of(text)


def command_args(text: str) -> str | None:
    """The text inside ``<command-args>`` of a slash-command record, None when empty."""
    start = text.find(_ARGS_OPEN)
    if start < 0:
        return None
    start += len(_ARGS_OPEN)
    end = text.find(_ARGS_CLOSE, start)
    args = (text[start:] if end < 0 else text[start:end]).strip()
    return args or None


def split_system_reminders(text: str) -> tuple[str, list[str]]:
    """``text`` without its ``<system-reminder>`` blocks, and those blocks.

    Claude Code appends reminders (malware caution on Read, todo nudges) to tool output;
    they are harness context, not what the tool returned.
    """
    reminders: list[str] = []
    kept: list[str] = []
    pos = 0
    while True:
        start = text.find(_REMINDER_OPEN, pos)
        if start < 0:
            break
        end = text.find(_REMINDER_CLOSE, start)
        end = len(text) if end < 0 else end + len(_REMINDER_CLOSE)
        kept.append(text[pos:start])
        reminders.append(text[start:end])
        pos = end
    if not reminders:
        return text, reminders
    kept.append(text[pos:])
    return "".join(kept).rstrip(), reminders


def _block_text(content: Any) -> str:
    """The text of a ``str | [block]`` content value (tool results, summaries)."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    parts: list[str] = []
    for block in content:
        if isinstance(block, dict):
            kind = block.get("type")
            if kind == "text":
                text = block.get("text")
                if isinstance(text, str):
                    parts.append(text)
            elif kind == "image":
                parts.append("[image]")
        elif isinstance(block, str):
            parts.append(block)
    return "\n".join(parts)


def _usage_tokens(usage: Any) -> int | None:
    """Context size of one API call: input + cache read + cache creation tokens."""
    if not isinstance(usage, dict):
        return None
    total = 0
    seen = False
    for key in ("input_tokens", "cache_read_input_tokens", "cache_creation_input_tokens"):
        value = as_int(usage.get(key))
        if value is not None:
            total += value
            seen = True
    return total if seen else None


@dataclass(slots=True)
class _Boundary:
    """A compaction while the file is read; turned into a Compaction at the end."""

    start_seq: int
    line: int
    uuid: str | None
    trigger: str | None = None
    pre_tokens: int | None = None
    post_tokens: int | None = None
    logical_parent: str | None = None
    preserved_spec: Any = None
    has_boundary: bool = True
    summary: str | None = None
    summary_seq: int | None = None
    summary_line: int = 0
    instructions: str | None = None
    first_usage_after: int | None = None


@dataclass(slots=True)
class _State:
    """What one read accumulates besides the events themselves."""

    b: SessionBuilder
    # uuid -> parentUuid of every record read (first copy), for dedup and chain walks.
    parents: dict[str, str | None]
    # seq - 1 -> uuid of the record the event came from (None: no uuid, e.g. queue ops).
    event_uuid: list[str | None]
    # message.id -> seq of its message event (0: seen, no text block yet)
    message_event: dict[str, int]
    # seq of a merged assistant message -> the text of its later blocks
    more_text: dict[int, list[str]]
    result_seqs: dict[str, list[int]]
    boundaries: list[_Boundary]
    awaiting_usage: list[_Boundary]
    # The compaction whose summary was just read, open for its /compact command records.
    open_for_command: _Boundary | None = None
    # A /compact command seen before any boundary (older write order), with its args.
    pending_compact_args: str | None = None
    pending_compact: bool = False


class _Fields(msgspec.Struct):
    """The top-level keys :meth:`_ClaudeCodeAdapter.read` looks at; every other key is
    skipped while decoding. ``toolUseResult`` above all: a second copy of each tool's
    output (a whole file per Read, the original file per Edit), up to half of a real
    log's bytes, never needed (benchmarks/read_speed.py)."""

    type: Any = None
    subtype: Any = None
    uuid: Any = None
    parentUuid: Any = None
    logicalParentUuid: Any = None
    sessionId: Any = None
    isSidechain: Any = None
    isMeta: Any = None
    isCompactSummary: Any = None
    message: Any = None
    content: Any = None
    data: Any = None
    operation: Any = None
    compactMetadata: Any = None
    microcompactMetadata: Any = None


class _ClaudeCodeAdapter:
    name = NAME

    def sniff(self, head: Head) -> bool:
        for rec in head.records[:10]:
            if not isinstance(rec, dict):
                return False
            kind = rec.get("type")
            if not isinstance(kind, str) or kind not in _SNIFF_TYPES:
                continue
            if isinstance(rec.get("sessionId"), str) or isinstance(rec.get("leafUuid"), str):
                return True
            if isinstance(rec.get("uuid"), str) and "parentUuid" in rec:
                return True
        return False

    def read(self, path: Path, display_path: str, options: ReadOptions) -> Session:
        st = _State(
            b=SessionBuilder(display_path, NAME),
            parents={},
            event_uuid=[],
            message_event={},
            more_text={},
            result_seqs={},
            boundaries=[],
            awaiting_usage=[],
        )
        b = st.b
        parents = st.parents
        for line, rec in iter_fields(path, b, _Fields):
            uuid = rec.uuid
            if isinstance(uuid, str):
                if uuid in parents:
                    continue  # re-appended copy of a record already read
                parent = rec.parentUuid
                if not parents and isinstance(parent, str):
                    b.history_incomplete = True  # the first record's parent is not here
                parents[uuid] = parent if isinstance(parent, str) else None
            else:
                uuid = None
            kind = rec.type
            if kind == "assistant":
                _assistant(st, rec, line, uuid)
            elif kind == "user":
                _user(st, rec, line, uuid)
            elif kind == "system":
                subtype = rec.subtype
                if subtype == "compact_boundary":
                    _compact_boundary(st, rec, line, uuid)
                elif subtype == "microcompact_boundary":
                    _microcompact(st, rec, line, uuid)
            elif kind == "progress":
                data = rec.data
                if isinstance(data, dict) and data.get("type") == "hook_progress":
                    b.hook_run(line, *(as_str(data.get(k)) or "" for k in _HOOK_FIELDS))
            elif kind == "queue-operation":
                _queued(st, rec, line)
            if b.session_id is None:
                b.session_id = as_str(rec.sessionId)
        _join_merged_messages(st)
        _finish_compactions(st)
        return b.build()


def _add(
    st: _State,
    kind: EventKind,
    uuid: str | None,
    *,
    line: int,
    role: str | None = None,
    text: str = "",
    call_id: str | None = None,
    tool_name: str | None = None,
    injected: str | None = None,
    tokens: int | None = None,
    source_id: str | None = None,
    is_error: bool = False,
) -> int:
    """Add one event through the builder and remember its record's uuid (what a
    compaction replaced is told by walking the uuid chain); returns the event's seq."""
    seq = st.b.add(
        kind,
        line=line,
        role=role,
        text=text,
        call_id=call_id,
        tool_name=tool_name,
        injected=injected,
        tokens=tokens,
        source_id=source_id,
        is_error=is_error,
    ).seq
    st.event_uuid.append(uuid)
    if tokens is not None and kind is EventKind.USAGE and st.awaiting_usage:
        for boundary in st.awaiting_usage:
            boundary.first_usage_after = tokens
        st.awaiting_usage.clear()
    return seq


def _assistant(st: _State, rec: _Fields, line: int, uuid: str | None) -> None:
    st.open_for_command = None
    st.pending_compact = False
    st.pending_compact_args = None
    msg = rec.message
    if not isinstance(msg, dict):
        st.b.problem(line, "assistant record has no 'message' object")
        return
    injected = "sidechain" if rec.isSidechain is True else None
    message_id = as_str(msg.get("id")) or uuid or f"line-{line}"
    if message_id not in st.message_event:
        st.message_event[message_id] = 0  # seen, no message event yet
        # A subagent's usage measures its own context, not this session's.
        tokens = None if injected else _usage_tokens(msg.get("usage"))
        if tokens is not None:
            _add(st, EventKind.USAGE, uuid, line=line, tokens=tokens, source_id=message_id)
    content = msg.get("content")
    if isinstance(content, str):
        content = [{"type": "text", "text": content}]
    elif not isinstance(content, list):
        st.b.problem(line, "assistant message content is neither a string nor a list")
        return
    for block in content:
        if not isinstance(block, dict):
            continue
        block_type = block.get("type")
        if block_type == "text":
            text = block.get("text")
        elif block_type == "thinking":
            text = block.get("thinking")
        elif block_type == "tool_use":
            tool_input = block.get("input")
            _add(
                st,
                EventKind.TOOL_CALL,
                uuid,
                line=line,
                role="assistant",
                text=_encode_json(tool_input).decode() if tool_input is not None else "",
                call_id=as_str(block.get("id")),
                tool_name=as_str(block.get("name")),
                injected=injected,
                source_id=uuid,
            )
            continue
        else:
            continue
        if not isinstance(text, str) or not text:
            continue
        message_seq = st.message_event.get(message_id, 0)
        if message_seq:
            # Another block of a response already seen: one message per message.id,
            # joined once at the end of the read.
            st.more_text.setdefault(message_seq, []).append(text)
        else:
            seq = _add(
                st,
                EventKind.MESSAGE,
                uuid,
                line=line,
                role="assistant",
                text=text,
                injected=injected,
                source_id=uuid,
            )
            st.message_event[message_id] = seq


def _join_merged_messages(st: _State) -> None:
    events = st.b.events
    for seq, parts in st.more_text.items():
        st.b.set_text(seq, "\n\n".join([events[seq - 1].text, *parts]))


def _user(st: _State, rec: _Fields, line: int, uuid: str | None) -> None:
    msg = rec.message
    if not isinstance(msg, dict):
        st.b.problem(line, "user record has no 'message' object")
        return
    content = msg.get("content")
    if rec.isCompactSummary is True:
        _compact_summary(st, rec, line, uuid, _block_text(content))
        return
    if rec.isSidechain is True:
        record_kind: str | None = "sidechain"
    elif rec.isMeta is True:
        record_kind = "meta"
    else:
        record_kind = None
    if isinstance(content, str):
        _user_text(st, content, line, uuid, record_kind)
        return
    if not isinstance(content, list):
        st.b.problem(line, "user message content is neither a string nor a list")
        return
    holds_result = any(isinstance(x, dict) and x.get("type") == "tool_result" for x in content)
    for block in content:
        if not isinstance(block, dict):
            continue
        block_type = block.get("type")
        if block_type == "tool_result":
            _tool_result(st, block, line, uuid, record_kind or "tool-result")
        elif block_type == "text":
            text = block.get("text")
            if isinstance(text, str) and text:
                kind = record_kind or ("tool-result" if holds_result else None)
                _user_text(st, text, line, uuid, kind)


def _user_text(st: _State, text: str, line: int, uuid: str | None, kind: str | None) -> None:
    injected = kind or injected_kind_of_user_text(text)
    _add(
        st,
        EventKind.MESSAGE,
        uuid,
        line=line,
        role="user",
        text=text,
        injected=injected,
        source_id=uuid,
    )
    if injected == "command":
        args = command_args(text)
        if args is not None:
            # What the person typed after the command name is their own input.
            _add(st, EventKind.MESSAGE, uuid, line=line, role="user", text=args, source_id=uuid)
        if _COMPACT_COMMAND in text:
            _compact_command(st, args)


def _compact_command(st: _State, args: str | None) -> None:
    """Tie a ``/compact`` command record to its compaction (written after the summary)."""
    boundary = st.open_for_command
    if boundary is not None:
        if boundary.instructions is None:
            boundary.instructions = args
        return
    st.pending_compact = True
    st.pending_compact_args = args


def _tool_result(
    st: _State, block: dict[str, Any], line: int, uuid: str | None, injected: str
) -> None:
    call_id = as_str(block.get("tool_use_id"))
    text = _block_text(block.get("content"))
    reminders: list[str] = []
    if _REMINDER_OPEN in text:
        text, reminders = split_system_reminders(text)
    seq = _add(
        st,
        EventKind.TOOL_RESULT,
        uuid,
        line=line,
        role="tool",
        text=text,
        call_id=call_id,
        injected=injected,
        source_id=uuid,
        is_error=block.get("is_error") is True,
    )
    seqs = [seq]
    for reminder in reminders:
        seqs.append(
            _add(
                st,
                EventKind.MESSAGE,
                uuid,
                line=line,
                role="user",
                text=reminder,
                injected="system-reminder",
                source_id=uuid,
            )
        )
    if call_id is not None:
        st.result_seqs.setdefault(call_id, []).extend(seqs)


def _queued(st: _State, rec: _Fields, line: int) -> None:
    if rec.operation != "enqueue":
        return
    text = _block_text(rec.content)
    if not text:
        return
    # Typed while the agent was busy: real input unless the harness queued it.
    _add(
        st,
        EventKind.MESSAGE,
        None,
        line=line,
        role="user",
        text=text,
        injected=injected_kind_of_user_text(text),
    )


def _compact_boundary(st: _State, rec: _Fields, line: int, uuid: str | None) -> None:
    meta = rec.compactMetadata
    if not isinstance(meta, dict):
        meta = {}
    seq = _add(st, EventKind.COMPACTION_START, uuid, line=line, source_id=uuid)
    boundary = _Boundary(
        start_seq=seq,
        line=line,
        uuid=uuid,
        trigger=as_str(meta.get("trigger")),
        pre_tokens=as_int(meta.get("preTokens")),
        post_tokens=as_int(meta.get("postTokens")),
        logical_parent=as_str(rec.logicalParentUuid),
        preserved_spec=meta.get("preservedSegment") or meta.get("preservedMessages"),
    )
    if st.pending_compact:
        boundary.instructions = st.pending_compact_args
        st.pending_compact = False
        st.pending_compact_args = None
    st.boundaries.append(boundary)
    st.open_for_command = None
    if boundary.post_tokens is None:
        st.awaiting_usage.append(boundary)


def _compact_summary(st: _State, rec: _Fields, line: int, uuid: str | None, text: str) -> None:
    open_boundary = next(
        (x for x in reversed(st.boundaries) if x.has_boundary and x.summary_seq is None), None
    )
    seq = _add(
        st,
        EventKind.COMPACTION_END,
        uuid,
        line=line,
        role="user",
        text=text,
        injected="compact-summary",
        source_id=open_boundary.uuid if open_boundary else uuid,
    )
    if open_boundary is None:
        # A summary with no boundary before it (a log that starts from a continued
        # session): a compaction whose start is the summary itself.
        open_boundary = _Boundary(start_seq=seq, line=line, uuid=uuid, has_boundary=False)
        st.boundaries.append(open_boundary)
        st.awaiting_usage.append(open_boundary)
    open_boundary.summary = text
    open_boundary.summary_seq = seq
    open_boundary.summary_line = line
    st.open_for_command = open_boundary


def _microcompact(st: _State, rec: _Fields, line: int, uuid: str | None) -> None:
    meta = rec.microcompactMetadata
    if not isinstance(meta, dict):
        meta = {}
    ids = meta.get("compactedToolIds")
    call_ids = tuple(x for x in ids if isinstance(x, str)) if isinstance(ids, list) else ()
    pruned = sorted({s for cid in call_ids for s in st.result_seqs.get(cid, ())})
    tokens_saved = as_int(meta.get("tokensSaved"))
    seq = _add(
        st,
        EventKind.PRUNE,
        uuid,
        line=line,
        text=as_str(rec.content) or "",
        tokens=tokens_saved,
        source_id=uuid,
    )
    st.b.prunes.append(
        Prune(
            seq=seq,
            line=line,
            trigger=as_str(meta.get("trigger")),
            pruned_seqs=tuple(pruned),
            tokens_pruned=tokens_saved,
            tokens_before=as_int(meta.get("preTokens")),
            call_ids=call_ids,
        )
    )


def _chain(parents: dict[str, str | None], tip: str | None) -> set[str] | None:
    """The uuids from ``tip`` back to the start of its chain, or None when the chain
    cannot be followed whole (``tip`` or an ancestor is absent from the file, or a loop)."""
    if tip is None or tip not in parents:
        return None
    chain: set[str] = set()
    node: str | None = tip
    while node is not None:
        if node in chain or node not in parents:
            return None
        chain.add(node)
        node = parents[node]
    return chain


def _seqs_of_uuids(st: _State, uuids: set[str]) -> set[int]:
    return {i + 1 for i, u in enumerate(st.event_uuid) if u is not None and u in uuids}


def _preserved_seqs(st: _State, spec: Any) -> set[int]:
    """Events a compaction kept verbatim (``preservedSegment`` / ``preservedMessages``)."""
    if not isinstance(spec, dict):
        return set()
    listed = spec.get("uuids")
    if isinstance(listed, list):
        return _seqs_of_uuids(st, {u for u in listed if isinstance(u, str)})
    head = as_str(spec.get("headUuid"))
    tail = as_str(spec.get("tailUuid"))
    if head is None or tail is None:
        return set()
    # The segment is the chain from tail back to head; failing that, the file range.
    segment: set[str] = set()
    node: str | None = tail
    while node is not None and node in st.parents and node not in segment:
        segment.add(node)
        if node == head:
            return _seqs_of_uuids(st, segment)
        node = st.parents[node]
    positions = [i for i, u in enumerate(st.event_uuid) if u in (head, tail)]
    if not positions:
        return set()
    return set(range(min(positions) + 1, max(positions) + 2))


_MARKERS = frozenset({EventKind.COMPACTION_START, EventKind.COMPACTION_END, EventKind.PRUNE})


def _finish_compactions(st: _State) -> None:
    events = st.b.events
    pruned_before: list[tuple[int, tuple[int, ...]]] = [(p.seq, p.pruned_seqs) for p in st.b.prunes]
    previous_summary: str | None = None
    previous_preserved: set[int] = set()
    low = 0  # seqs <= low were replaced by an earlier compaction
    for index, bd in enumerate(st.boundaries, start=1):
        if bd.has_boundary and bd.summary_seq is None:
            st.b.problem(
                bd.line,
                "compact_boundary has no isCompactSummary record after it: "
                "the summary is missing from the log",
            )
        preserved = _preserved_seqs(st, bd.preserved_spec)
        chain = _chain(st.parents, bd.logical_parent)
        cleared: set[int] = set()
        for prune_seq, seqs in pruned_before:
            if prune_seq < bd.start_seq:
                cleared.update(seqs)
        shadowed: set[int] = set(previous_preserved)
        for seq in range(low + 1, bd.start_seq):
            uuid = st.event_uuid[seq - 1]
            if chain is not None and uuid is not None and uuid not in chain:
                continue  # an abandoned branch: not in context when compacted
            shadowed.add(seq)
        shadowed = {s for s in shadowed if events[s - 1].kind not in _MARKERS and s not in cleared}
        shadowed -= preserved
        tokens_after = bd.post_tokens if bd.post_tokens is not None else bd.first_usage_after
        st.b.compactions.append(
            Compaction(
                index=index,
                id=bd.uuid or f"line-{bd.line}",
                start_seq=bd.start_seq,
                end_seq=bd.summary_seq,
                status=CompactionStatus.SUMMARISED,
                trigger=bd.trigger,
                summary=bd.summary,
                shadowed_seqs=tuple(sorted(shadowed)),
                preserved_seqs=tuple(sorted(preserved)),
                previous_summary=previous_summary,
                tokens_before=bd.pre_tokens,
                tokens_after=tokens_after,
                line=bd.line,
                summary_line=bd.summary_line,
                instructions=bd.instructions,
            )
        )
        if bd.summary is not None:
            previous_summary = bd.summary
        previous_preserved = preserved
        low = bd.summary_seq if bd.summary_seq is not None else bd.start_seq


ADAPTER = _ClaudeCodeAdapter()
