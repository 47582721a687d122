"""OpenHands event streams (docs/formats.md section 3): V0 event lists and V1 event folders.

**V0** (a JSON array of events, ``{"trajectory": [...]}``, or JSONL one event a line):
events ``{id, timestamp, source, message, action | observation, args, content, extras,
cause, tool_call_metadata}``.

- ``action: "message"`` -> a message (``args.content``; role ``user`` from source
  ``user``, else ``assistant``); ``"finish"`` / ``"reject"`` -> an assistant message
  (they end the turn and never get an observation); ``"system"`` -> a system message
  injected ``system-prompt``.
- Every other action (``run``, ``read``, ``edit``, ``think``, ``mcp``, ...) -> a tool call
  (name = ``tool_call_metadata.function_name`` or the action; text = the JSON of
  ``args``); ``call_id`` = ``tool_call_metadata.tool_call_id``, else the event id.
- An observation -> the tool result (text = ``content``) of the action it answers:
  ``tool_call_metadata.tool_call_id``, else the call id of the action its ``cause``
  names. ``observation: "error"`` or a non-zero ``extras.metadata.exit_code`` marks an
  error. ``recall`` observations (workspace and microagent context) are system messages
  injected ``recall``; older ``condense`` observations are injected
  ``condensation-summary``.
- Skipped (not context): ``recall`` / ``change_agent_state`` / ``null`` actions,
  ``agent_state_changed`` / ``null`` observations, unknown records.

**V1** (a folder with ``events/event-NNNNN-<id>.json``, one event a file, with ``kind``):
``MessageEvent`` (``llm_message{role, content}``; ``extended_content`` is an injected
``skill-context`` message), ``SystemPromptEvent`` (injected ``system-prompt``),
``ActionEvent`` (tool call: ``tool_name``, ``tool_call_id``, text = JSON of ``action``),
``ObservationEvent`` / ``UserRejectObservation`` / ``AgentErrorEvent`` (tool result;
text from ``observation.content`` parts or ``output``; error from ``is_error``, a
non-zero ``exit_code``, ``error``, or the event kind). Files are read in NNNNN order; a
file's problem names the file in its reason (line 0, or 1 for undecodable JSON). Events
have line 0 and ``source_id`` = their id; ``Session.session_id`` is the folder's name.

**Compaction**: a ``condensation`` action (V0) or ``Condensation`` event (V1) is one
:class:`Compaction` whose shadowed events are those it forgets:
``forgotten_event_ids`` and, in V0, the inclusive ``forgotten_events_start_id`` ..
``forgotten_events_end_id`` range (both forms are honoured when both are given). Events
forgotten by an earlier condensation are left out: they were no longer in context, their
text was in the earlier summary, which is ``previous_summary`` (the latest non-empty one:
OpenHands shows only the latest summary). Ids of events that are not context (state
changes, condensations themselves, ids absent from the log, events after the
condensation) are ignored. A bad range
(end before start, wrong types) is a problem on that line and the rest is read; a huge
range costs nothing (ids are looked up, not enumerated). ``summary`` None means the
condenser forgot events without a summary (nothing to audit). A ``condensation_request``
(V0 action, V1 ``CondensationRequest``) starts a compaction with trigger ``manual``; the
next condensation ends it (one with no request before it has trigger ``auto``: the
condenser ran on its own size limit). A request never followed by a condensation is a
compaction that started and did not end. (OpenHands also adds a request of source
``agent`` when the model's context overflows; it is labelled ``manual`` all the same, as
the log does not tell it from the agent's own request tool.) No token figures are read
(OpenHands writes none per request that has been verified).
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ctxkeep.log.adapters.base import (
    ReadOptions,
    SessionBuilder,
    as_int,
    as_str,
    exit_code_failed,
    json_text,
    parts_text,
)
from ctxkeep.log.model import Compaction, CompactionStatus, EventKind, ParseProblem, Session
from ctxkeep.log.source import Head, Record, iter_records, open_regular, read_whole

__all__ = ["ADAPTER", "NAME"]

NAME = "openhands"

_EVENT_FILE = re.compile(r"^event-(\d+)(?:-.*)?\.json$")

_V0_SKIPPED_ACTIONS = frozenset({"recall", "change_agent_state", "null"})
_V0_SKIPPED_OBSERVATIONS = frozenset({"agent_state_changed", "null"})
_V0_MESSAGE_ACTIONS = frozenset({"message", "finish", "reject"})
_V1_RESULT_KINDS = frozenset({"ObservationEvent", "UserRejectObservation", "AgentErrorEvent"})
_V1_ERROR_KINDS = frozenset({"UserRejectObservation", "AgentErrorEvent"})


def _text_of(content: Any) -> str:
    """The text of ``str | [{type: "text", text}]`` content ("" when there is none)."""
    return parts_text(content) or ""


@dataclass(slots=True)
class _Condensation:
    """A compaction while events are read; frozen into a Compaction at the end."""

    start_seq: int
    line: int
    source_id: str | None
    trigger: str
    end_seq: int | None = None
    end_line: int = 0
    summary: str | None = None
    forgotten_ids: list[Any] = field(default_factory=list)
    forgotten_ranges: list[tuple[int, int]] = field(default_factory=list)


@dataclass
class _Builder:
    """What V0 and V1 share: events, id -> seq of context events, condensations."""

    b: SessionBuilder
    seq_of_id: dict[Any, int] = field(default_factory=dict)
    int_ids: list[tuple[int, int]] = field(default_factory=list)  # (event id, seq) of context
    condensations: list[_Condensation] = field(default_factory=list)
    open_request: _Condensation | None = None
    where: str = ""  # names the event in problems where the line cannot (array, file)

    def problem(self, line: int, reason: str) -> None:
        self.b.problem(line, f"{self.where}: {reason}" if self.where else reason)

    def context(
        self,
        kind: EventKind,
        event_id: Any,
        line: int,
        *,
        role: str | None,
        text: str,
        injected: str | None = None,
        call_id: str | None = None,
        tool_name: str | None = None,
        is_error: bool = False,
    ) -> None:
        """Add an event the model sees; a condensation may forget it by its id."""
        event = self.b.add(
            kind,
            line=line,
            role=role,
            text=text,
            injected=injected,
            call_id=call_id,
            tool_name=tool_name,
            is_error=is_error,
            source_id=None if event_id is None else str(event_id),
        )
        if event_id is not None:
            self.seq_of_id[event_id] = event.seq
            if isinstance(event_id, int) and not isinstance(event_id, bool):
                self.int_ids.append((event_id, event.seq))

    def request(self, event_id: Any, line: int) -> None:
        if self.open_request is not None:
            return  # a second request before the condensation asks for the same one
        source_id = None if event_id is None else str(event_id)
        start = self.b.add(EventKind.COMPACTION_START, line=line, source_id=source_id)
        self.open_request = _Condensation(start.seq, line, source_id, "manual")
        self.condensations.append(self.open_request)

    def condensation(
        self,
        event_id: Any,
        line: int,
        summary: Any,
        forgotten_ids: Any,
        start_id: Any = None,
        end_id: Any = None,
    ) -> None:
        b = self.b
        source_id = None if event_id is None else str(event_id)
        cond = self.open_request
        if cond is None:
            start = b.add(EventKind.COMPACTION_START, line=line, source_id=source_id)
            cond = _Condensation(start.seq, line, source_id, "auto")
            self.condensations.append(cond)
        self.open_request = None
        text = summary if isinstance(summary, str) and summary.strip() else None
        if summary is not None and not isinstance(summary, str):
            self.problem(line, "condensation summary is not a string")
        end = b.add(EventKind.COMPACTION_END, line=line, source_id=source_id, text=text or "")
        cond.end_seq = end.seq
        cond.summary = text
        cond.end_line = line
        if forgotten_ids is not None:
            if isinstance(forgotten_ids, list):
                cond.forgotten_ids = [i for i in forgotten_ids if _usable_id(i)]
                if len(cond.forgotten_ids) != len(forgotten_ids):
                    self.problem(line, "condensation: forgotten_event_ids holds non-id values")
            else:
                self.problem(line, "condensation: forgotten_event_ids is not a list")
        if start_id is not None or end_id is not None:
            first, last = as_int(start_id), as_int(end_id)
            if first is None or last is None:
                self.problem(
                    line,
                    "condensation: forgotten_events_start_id/end_id must both be integers",
                )
            elif last < first:
                self.problem(
                    line,
                    f"condensation: forgotten range [{first}, {last}] ends before it starts",
                )
            else:
                cond.forgotten_ranges.append((first, last))

    def build(self) -> Session:
        self.int_ids.sort()
        ids_sorted = [i for i, _ in self.int_ids]
        forgotten_before: set[int] = set()
        previous: str | None = None
        for index, cond in enumerate(self.condensations, start=1):
            seqs = set(self._seqs_of(cond, ids_sorted))
            shadowed = tuple(sorted(seqs - forgotten_before))
            forgotten_before |= seqs
            ended = cond.end_seq is not None
            self.b.compactions.append(
                Compaction(
                    index=index,
                    id=cond.source_id or f"condensation-{index}",
                    start_seq=cond.start_seq,
                    end_seq=cond.end_seq,
                    status=CompactionStatus.SUMMARISED if ended else CompactionStatus.STARTED,
                    trigger=cond.trigger,
                    summary=cond.summary,
                    shadowed_seqs=shadowed,
                    previous_summary=previous,
                    line=cond.line,
                    summary_line=cond.end_line,
                )
            )
            if cond.summary is not None:
                previous = cond.summary
        return self.b.build()

    def _seqs_of(self, cond: _Condensation, ids_sorted: list[int]) -> Iterator[int]:
        """Seqs of the context events ``cond`` forgets; only events before it count."""
        end = cond.end_seq if cond.end_seq is not None else 0
        for event_id in cond.forgotten_ids:
            seq = self.seq_of_id.get(event_id)
            if seq is not None and seq < end:
                yield seq
        for first, last in cond.forgotten_ranges:
            lo = bisect.bisect_left(ids_sorted, first)
            hi = bisect.bisect_right(ids_sorted, last)
            for _, seq in self.int_ids[lo:hi]:
                if seq < end:
                    yield seq


def _usable_id(value: Any) -> bool:
    """An event id as OpenHands writes them: an integer (V0) or a string (V1 uuid)."""
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


# -- V0 ---------------------------------------------------------------------------------


def _is_v0_event(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and "id" in value
        and "source" in value
        and ("action" in value or "observation" in value)
    )


def _v0_events(path: Path, b: SessionBuilder) -> Iterator[tuple[int, Any]]:
    """(line, event) pairs of a V0 file: a JSON array (line 0), a trajectory, or JSONL."""
    try:
        with open_regular(path) as fh:  # never blocks on a FIFO (issue 14)
            start = fh.read(4096).lstrip()[:1]
    except OSError:
        start = b""
    if start in {b"[", b"{"}:
        whole, problem = read_whole(path)
        if problem is None:
            if isinstance(whole, dict) and isinstance(whole.get("trajectory"), list):
                whole = whole["trajectory"]
            if isinstance(whole, list):
                yield from ((0, event) for event in whole)
                return
        elif start == b"[":
            b.problems.append(problem)  # a broken array: its lines are not events
            return
    for item in iter_records(path):
        if isinstance(item, Record):
            yield item.line, item.value
        else:
            b.problems.append(item)


def _read_v0(path: Path, display_path: str) -> Session:
    st = _Builder(SessionBuilder(display_path, NAME))
    b = st.b
    call_id_of_action: dict[Any, str] = {}
    for position, (line, event) in enumerate(_v0_events(path, b)):
        st.where = "" if line else f"event #{position}"
        if not isinstance(event, dict):
            st.problem(line, "event is not a JSON object")
            continue
        event_id = event.get("id")
        if not _usable_id(event_id):
            event_id = None
        action = event.get("action")
        observation = event.get("observation")
        args = event.get("args")
        if action is not None:
            if not isinstance(action, str):
                st.problem(line, "'action' is not a string")
                continue
            if args is None:
                args = {}
            if not isinstance(args, dict):
                st.problem(line, f"{action}: 'args' is not an object")
                continue
            _v0_action(st, event, event_id, action, args, line, call_id_of_action)
        elif observation is not None:
            if not isinstance(observation, str):
                st.problem(line, "'observation' is not a string")
                continue
            _v0_observation(st, event, event_id, observation, line, call_id_of_action)
    st.where = ""
    return st.build()


def _tool_metadata(event: dict[str, Any]) -> tuple[str | None, str | None]:
    meta = event.get("tool_call_metadata")
    if not isinstance(meta, dict):
        return None, None
    return as_str(meta.get("tool_call_id")), as_str(meta.get("function_name"))


def _v0_action(
    st: _Builder,
    event: dict[str, Any],
    event_id: Any,
    action: str,
    args: dict[str, Any],
    line: int,
    call_id_of_action: dict[Any, str],
) -> None:
    if action in _V0_SKIPPED_ACTIONS:
        return
    if action == "condensation":
        st.condensation(
            event_id,
            line,
            args.get("summary"),
            args.get("forgotten_event_ids"),
            args.get("forgotten_events_start_id"),
            args.get("forgotten_events_end_id"),
        )
    elif action == "condensation_request":
        st.request(event_id, line)
    elif action == "system":
        text = as_str(args.get("content")) or as_str(event.get("message")) or ""
        st.context(
            EventKind.MESSAGE, event_id, line, role="system", text=text, injected="system-prompt"
        )
    elif action in _V0_MESSAGE_ACTIONS:
        key = "final_thought" if action == "finish" else "content"
        text = as_str(args.get(key)) or as_str(args.get("reason")) or ""
        if not text:
            text = as_str(event.get("message")) or ""
        role = "user" if event.get("source") == "user" and action == "message" else "assistant"
        st.context(EventKind.MESSAGE, event_id, line, role=role, text=text)
    else:
        tool_call_id, function_name = _tool_metadata(event)
        call_id = tool_call_id or (None if event_id is None else str(event_id))
        if event_id is not None and call_id is not None:
            call_id_of_action[event_id] = call_id
        st.context(
            EventKind.TOOL_CALL,
            event_id,
            line,
            role="assistant",
            text=json_text(args),
            call_id=call_id,
            tool_name=function_name or action,
        )


def _v0_observation(
    st: _Builder,
    event: dict[str, Any],
    event_id: Any,
    observation: str,
    line: int,
    call_id_of_action: dict[Any, str],
) -> None:
    if observation in _V0_SKIPPED_OBSERVATIONS:
        return
    content = as_str(event.get("content")) or ""
    extras = event.get("extras")
    extras = extras if isinstance(extras, dict) else {}
    if observation == "recall":
        parts = [content] + [
            text
            for key in ("repo_instructions", "additional_agent_instructions")
            if (text := as_str(extras.get(key)))
        ]
        text = "\n".join(p for p in parts if p)
        st.context(EventKind.MESSAGE, event_id, line, role="system", text=text, injected="recall")
        return
    if observation == "condense":
        st.context(
            EventKind.MESSAGE,
            event_id,
            line,
            role="system",
            text=content,
            injected="condensation-summary",
        )
        return
    tool_call_id, _ = _tool_metadata(event)
    cause = event.get("cause")
    call_id = tool_call_id
    if call_id is None and _usable_id(cause):
        call_id = call_id_of_action.get(cause, str(cause))
    metadata = extras.get("metadata")
    failed = (
        observation == "error"
        or exit_code_failed(extras.get("exit_code"))
        or (isinstance(metadata, dict) and exit_code_failed(metadata.get("exit_code")))
    )
    st.context(
        EventKind.TOOL_RESULT,
        event_id,
        line,
        role="tool",
        text=content,
        call_id=call_id,
        is_error=failed,
    )


# -- V1 ---------------------------------------------------------------------------------


def _events_folder(path: Path) -> Path:
    events = path / "events"
    return events if events.is_dir() else path


def _event_files(folder: Path) -> list[tuple[int, str, Path]]:
    """The ``event-NNNNN-<id>.json`` files of a folder in NNNNN order."""
    found: list[tuple[int, str, Path]] = []
    try:
        entries = list(folder.iterdir())
    except OSError:
        return found
    for entry in entries:
        match = _EVENT_FILE.match(entry.name)
        if match is not None:
            found.append((int(match.group(1)), entry.name, entry))
    found.sort()
    return found


def _read_v1(path: Path, display_path: str) -> Session:
    st = _Builder(SessionBuilder(display_path, NAME))
    b = st.b
    b.session_id = path.name
    files = _event_files(_events_folder(path))
    if not files:
        b.problem(0, "folder holds no events/event-*.json file")
    for _, name, file in files:
        st.where = name
        value, problem = read_whole(file)
        if problem is not None:
            st.problem(problem.line, problem.reason)
            continue
        if not isinstance(value, dict):
            st.problem(0, "event is not a JSON object")
            continue
        reason = _v1_event(st, value)
        if reason is not None:
            st.problem(0, reason)
    st.where = ""
    return st.build()


def _v1_event(st: _Builder, event: dict[str, Any]) -> str | None:
    """Add one V1 event; returns the reason when it cannot be read."""
    kind = event.get("kind")
    event_id = event.get("id")
    if not _usable_id(event_id):
        event_id = None
    if not isinstance(kind, str):
        return "event without a string 'kind'"
    if kind == "MessageEvent":
        message = event.get("llm_message")
        if not isinstance(message, dict):
            return "MessageEvent without an llm_message object"
        role = as_str(message.get("role")) or (
            "user" if event.get("source") == "user" else "assistant"
        )
        st.context(EventKind.MESSAGE, event_id, 0, role=role, text=_text_of(message.get("content")))
        extended = _text_of(event.get("extended_content"))
        if extended:
            st.context(
                EventKind.MESSAGE, None, 0, role=role, text=extended, injected="skill-context"
            )
    elif kind == "SystemPromptEvent":
        prompt = event.get("system_prompt")
        text = _text_of([prompt]) if isinstance(prompt, dict) else as_str(prompt) or ""
        st.context(
            EventKind.MESSAGE, event_id, 0, role="system", text=text, injected="system-prompt"
        )
    elif kind == "ActionEvent":
        action = event.get("action")
        st.context(
            EventKind.TOOL_CALL,
            event_id,
            0,
            role="assistant",
            text=json_text(action) if action is not None else "",
            call_id=as_str(event.get("tool_call_id")),
            tool_name=as_str(event.get("tool_name")),
        )
    elif kind in _V1_RESULT_KINDS:
        text, failed = _v1_result(event)
        st.context(
            EventKind.TOOL_RESULT,
            event_id,
            0,
            role="tool",
            text=text,
            call_id=as_str(event.get("tool_call_id")),
            tool_name=as_str(event.get("tool_name")),
            is_error=failed or kind in _V1_ERROR_KINDS,
        )
    elif kind == "Condensation":
        st.condensation(event_id, 0, event.get("summary"), event.get("forgotten_event_ids"))
    elif kind == "CondensationRequest":
        st.request(event_id, 0)
    return None  # other kinds (state updates, pauses, ...) are not context


def _v1_result(event: dict[str, Any]) -> tuple[str, bool]:
    if event.get("kind") == "AgentErrorEvent":
        return as_str(event.get("error")) or "", True
    if event.get("kind") == "UserRejectObservation":
        return as_str(event.get("rejection_reason")) or "", True
    obs = event.get("observation")
    if not isinstance(obs, dict):
        return "", False
    text = _text_of(obs.get("content")) or as_str(obs.get("output")) or ""
    failed = (
        obs.get("is_error") is True
        or exit_code_failed(obs.get("exit_code"))
        or bool(as_str(obs.get("error")))
    )
    return text, failed


class _OpenHandsAdapter:
    name = NAME

    def sniff(self, head: Head) -> bool:
        if head.is_dir:
            return bool(_event_files(_events_folder(head.path)))
        whole = head.whole
        if whole is None and len(head.records) == 1:
            whole = head.records[0]  # one document on one line
        if isinstance(whole, dict) and isinstance(whole.get("trajectory"), list):
            whole = whole["trajectory"]
        if isinstance(whole, list):
            return any(_is_v0_event(e) for e in _first(whole, 5))
        return any(_is_v0_event(r) for r in _first(head.records, 5))

    def read(self, path: Path, display_path: str, options: ReadOptions) -> Session:
        if path.is_dir():
            return _read_v1(path, display_path)
        if not path.exists():
            return Session(display_path, NAME, problems=(ParseProblem(0, "no such file"),))
        return _read_v0(path, display_path)


def _first(values: Iterable[Any], n: int) -> list[Any]:
    out: list[Any] = []
    for value in values:
        if len(out) >= n:
            break
        out.append(value)
    return out


ADAPTER = _OpenHandsAdapter()
