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
    "iter_fields",
    "iter_objects",
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


def as_int(value: Any) -> int | None:
    """``value`` if it is an integer (not a bool), else None."""
    return value if isinstance(value, int) and not isinstance(value, bool) else None


@dataclass
class SessionBuilder:
    """Collects events with increasing seqs, compactions, prunes and problems."""

    path: str
    format: str
    events: list[Event] = field(default_factory=list)
    compactions: list[Compaction] = field(default_factory=list)
    prunes: list[Prune] = field(default_factory=list)
    problems: list[ParseProblem] = field(default_factory=list)
    context_window: int | None = None
    hooks_unrecorded: bool = False
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
        """Append one event; ``seq`` defaults to the next number (formats without seqs)."""
        if seq is None:
            seq = self._next_seq
        self._next_seq = max(self._next_seq, seq + 1)
        event = Event(
            seq=seq,
            kind=kind,
            role=role,
            text=text,
            call_id=call_id,
            tool_name=tool_name,
            injected=injected,
            tokens=tokens,
            line=line,
            source_id=source_id,
            is_error=is_error,
            context_window=context_window,
        )
        self.events.append(event)
        return event

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
            hooks_unrecorded=self.hooks_unrecorded,
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
