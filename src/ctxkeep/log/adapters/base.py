"""What every adapter is, and the builder they share.

An adapter is a module-level object with a ``name``, a ``sniff(head)`` that says whether a
file looks like its format (from the first records only) and a ``read(path, ...)`` that
returns a :class:`~ctxkeep.log.model.Session`. ``read`` never raises on bad input: every
problem goes into ``Session.problems`` with its line.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, TypeVar

import msgspec

from ctxkeep.log.model import (
    Compaction,
    Event,
    EventKind,
    HookRun,
    ParseProblem,
    Prune,
    Session,
)
from ctxkeep.log.source import Head, Record, iter_records

__all__ = [
    "Adapter",
    "PrefixKinds",
    "ReadOptions",
    "SessionBuilder",
    "as_int",
    "as_str",
    "exit_code_failed",
    "iter_fields",
    "iter_objects",
    "json_text",
    "parts_text",
]


@dataclass(frozen=True, slots=True)
class ReadOptions:
    """Options the user can give on the command line that some adapters honour.

    ``summary_index`` (plain message arrays): the 0-based index of the message that is a
    compaction summary, when no known opening line marks it.
    """

    summary_index: int | None = None


class Adapter(Protocol):
    name: str

    def sniff(self, head: Head) -> bool:
        """True when the first records look like this format."""
        ...

    def read(self, path: Path, display_path: str, options: ReadOptions) -> Session:
        """Read the whole source; never raises on bad input."""
        ...


def as_str(value: Any) -> str | None:
    """``value`` if it is a string, else None (fields of the wrong type are ignored)."""
    return value if isinstance(value, str) else None


_LARGEST_COUNT = 2**53
"""No seq, line or token count is larger (JSON's safe integers); a 400-digit "count"
made the rules' float arithmetic raise OverflowError (issue 14, found by the fuzzer)."""


def as_int(value: Any) -> int | None:
    """``value`` if it is an integer (not a bool) of a plausible size, else None."""
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) <= _LARGEST_COUNT:
        return value
    return None


_encode_sorted = msgspec.json.Encoder(order="sorted").encode


def json_text(value: Any) -> str:
    """``value`` as JSON text with sorted keys: the text of a tool call's arguments or
    of a harness record kept as an event (the same value always gives the same text)."""
    return _encode_sorted(value).decode()


def exit_code_failed(code: Any) -> bool:
    """A shell exit code other than 0: a tool result that reports a failed command.

    OpenHands writes ``-1`` for a command that timed out or is still running: a failure
    to finish, so it counts too.
    """
    value = as_int(code)
    return value is not None and value != 0


def parts_text(content: Any, part_types: frozenset[str] | None = None) -> str | None:
    """The text of ``str | [part]`` content: string parts and the ``text`` of object
    parts (only of the given ``type`` names when ``part_types`` is set), joined by
    newlines. None when ``content`` is neither a string nor a list."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return None
    parts: list[str] = []
    for part in content:
        if isinstance(part, dict):
            if part_types is not None:
                kind = part.get("type")
                if not isinstance(kind, str) or kind not in part_types:
                    continue
            text = part.get("text")
            if isinstance(text, str):
                parts.append(text)
        elif isinstance(part, str):
            parts.append(part)
    return "\n".join(parts)


@dataclass(slots=True)
class SessionBuilder:
    """Collects events with increasing seqs, compactions, prunes and problems.

    Every adapter builds its events through :meth:`add` and nowhere else, so numbering
    and the Event's fields are decided in one place.
    """

    path: str
    format: str
    events: list[Event] = field(default_factory=list)
    compactions: list[Compaction] = field(default_factory=list)
    prunes: list[Prune] = field(default_factory=list)
    problems: list[ParseProblem] = field(default_factory=list)
    context_window: int | None = None
    hook_runs: list[HookRun] = field(default_factory=list)
    session_id: str | None = None
    history_incomplete: bool = False
    _next_seq: int = 1

    def add(
        self,
        kind: EventKind,
        *,
        line: int = 0,
        role: str | None = None,
        text: str = "",
        call_id: str | None = None,
        tool_name: str | None = None,
        injected: str | None = None,
        tokens: int | None = None,
        source_id: str | None = None,
        is_error: bool = False,
        context_window: int | None = None,
        seq: int | None = None,
    ) -> Event:
        """Append one event and return it; ``seq`` defaults to the next number (formats
        without seqs of their own: then event ``n`` sits at ``events[n - 1]``)."""
        if seq is None:
            seq = self._next_seq
        if seq >= self._next_seq:
            self._next_seq = seq + 1
        # Positional: keywords cost msgspec ~0.25 us an event, 6-13% of reading a log of
        # many small records (21.6 MB, 35k events; A/B in the commit message).
        event = Event(
            seq, kind, role, text, call_id, tool_name, injected, tokens, line, source_id,
            is_error, context_window,
        )  # fmt: skip
        self.events.append(event)
        return event

    def set_text(self, seq: int, text: str) -> None:
        """Replace the text of event ``seq`` (numbered by :meth:`add`): an adapter that
        merges the parts of one message learns the whole text only at the end."""
        index = seq - 1
        self.events[index] = msgspec.structs.replace(self.events[index], text=text)

    def hook_run(self, line: int, event: str, name: str, command: str) -> None:
        """Note a hook the log shows ran, after the last event added so far."""
        self.hook_runs.append(HookRun(self._next_seq - 1, line, event, name, command))

    def problem(self, line: int, reason: str) -> None:
        self.problems.append(ParseProblem(line, reason))

    def build(self) -> Session:
        return Session(
            path=self.path,
            format=self.format,
            events=tuple(self.events),
            compactions=tuple(self.compactions),
            prunes=tuple(self.prunes),
            problems=tuple(sorted(self.problems, key=lambda p: p.line)),
            context_window=self.context_window,
            hook_runs=tuple(self.hook_runs),
            session_id=self.session_id,
            history_incomplete=self.history_incomplete,
        )


_T = TypeVar("_T")
_S = TypeVar("_S", bound=msgspec.Struct)


def iter_objects(path: Path, builder: SessionBuilder) -> Iterator[tuple[int, dict[str, Any]]]:
    """Each JSON object of a JSONL file with its 1-based line; an unreadable line or a
    value that is not an object becomes a located problem in ``builder``."""
    return _iter_values(path, builder, None, dict)


def iter_fields(path: Path, builder: SessionBuilder, fields: type[_S]) -> Iterator[tuple[int, _S]]:
    """:func:`iter_objects` decoding only ``fields``: a ``msgspec.Struct`` of the
    top-level keys an adapter reads, each typed ``Any`` with default None (absent keys
    read None). The other keys are skipped unbuilt while decoding."""
    return _iter_values(path, builder, _lean_decoder(fields), fields)


def _iter_values(
    path: Path, builder: SessionBuilder, decoder: msgspec.json.Decoder[Any] | None, kind: type[_T]
) -> Iterator[tuple[int, _T]]:
    for item in iter_records(path, decoder):
        if not isinstance(item, Record):
            builder.problems.append(item)
        elif isinstance(item.value, kind):
            yield item.line, item.value
        else:
            builder.problem(item.line, "record is not a JSON object")


@functools.cache
def _lean_decoder(fields: type[msgspec.Struct]) -> msgspec.json.Decoder[Any]:
    return msgspec.json.Decoder(fields)


class PrefixKinds:
    """The kind of injected context a text is, told by how it opens.

    Harnesses write re-injected context (reminders, environment snapshots, command
    records) as ``user`` messages; each adapter lists the openings it knows, in order.
    A set of first characters rejects most real user text before any ``startswith``.
    """

    __slots__ = ("_first", "_prefixes")

    def __init__(self, prefixes: tuple[tuple[str, str], ...]) -> None:
        self._prefixes = prefixes
        self._first = frozenset(prefix[0] for prefix, _ in prefixes)

    def kind_of(self, text: str) -> str | None:
        """The kind of the first prefix ``text`` starts with, or None for real input."""
        if not text or text[0] not in self._first:
            return None
        for prefix, kind in self._prefixes:
            if text.startswith(prefix):
                return kind
        return None
