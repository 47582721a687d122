"""The session model every adapter produces: frozen value types (Event a msgspec Struct,
the rest dataclasses), no I/O.

An adapter turns one harness's log into a :class:`Session`: an ordered tuple of
:class:`Event` (messages, tool calls and results, usage readings, compaction markers,
prunes), the :class:`Compaction` records that say what each summary replaced, the
:class:`Prune` records of tool output cleared without a summary, and every
:class:`ParseProblem` met on the way (a bad line is recorded and skipped, never fatal).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from functools import cached_property

import msgspec

__all__ = [
    "Compaction",
    "CompactionStatus",
    "Event",
    "EventKind",
    "HookRun",
    "ParseProblem",
    "Prune",
    "Session",
    "located",
    "ranges_to_seqs",
    "seqs_to_ranges",
]


class EventKind(StrEnum):
    MESSAGE = "message"
    TOOL_CALL = "tool_call"
    TOOL_RESULT = "tool_result"
    USAGE = "usage"
    COMPACTION_START = "compaction_start"
    COMPACTION_END = "compaction_end"
    PRUNE = "prune"
    OTHER = "other"


class CompactionStatus(StrEnum):
    """What became of a compaction that started.

    ``STARTED``: a start with no end in the log (counted as failed: the end never came).
    ``SUMMARISED``: it produced a summary (possibly opaque, see ``Compaction.opaque``).
    ``FAILED``: its end carries an error. ``NOOP``: the harness itself reported that
    nothing was compacted.
    """

    STARTED = "started"
    SUMMARISED = "summarised"
    FAILED = "failed"
    NOOP = "noop"


class Event(msgspec.Struct, frozen=True, gc=False):
    """One thing that happened in a session, in source order.

    A frozen ``msgspec.Struct`` rather than a frozen dataclass like the rest of the
    model: a log has one per line or more, and a frozen dataclass sets each of its
    twelve fields through ``object.__setattr__`` (1.3 us an event against 0.2 us: a
    fifth of reading a structure-dense log, see benchmarks/read_speed.py). It compares,
    hashes, pickles and prints as the dataclass did. Its fields are scalars, so an event
    can never be part of a reference cycle: it is left out of the cyclic garbage
    collector (``gc=False``), whose first pass after a read walked every event (26k-event
    log: read and audit 1.9% fewer instructions).

    ``seq`` is the event's position (strictly increasing; the ctxkeep format takes it from
    the file, other adapters number events from 1). ``line`` is the 1-based line of the
    source file it came from (for a JSON document, the line where the message starts; 0
    when no line is known).
    ``injected`` is None for real conversation, else the kind of context the harness
    injected (``system-reminder``, ``meta``, ``tool-result``, ``agents-md``, ...): such text
    is never a user's standing instruction. ``tokens`` is the context size for ``usage``
    events and the message's own size where the log states it.
    """

    seq: int
    kind: EventKind
    role: str | None = None
    text: str = ""
    call_id: str | None = None
    tool_name: str | None = None
    injected: str | None = None
    tokens: int | None = None
    line: int = 0
    source_id: str | None = None
    is_error: bool = False
    context_window: int | None = None


@dataclass(frozen=True, slots=True)
class Compaction:
    """One compaction: what the summary replaced and what it said.

    ``shadowed_seqs`` are the events the summary replaced, per the format's own rule (not
    "everything before it": from the second compaction on the earlier text was already
    folded into ``previous_summary``, which is a source of this summary too).
    ``summary`` is None when there is nothing to audit; ``opaque`` says the summary exists
    but cannot be read (Codex's server-side encrypted compaction). Token figures are None
    when the log does not give them.
    """

    index: int
    id: str
    start_seq: int
    end_seq: int | None
    status: CompactionStatus
    trigger: str | None = None
    summary: str | None = None
    opaque: bool = False
    shadowed_seqs: tuple[int, ...] = ()
    preserved_seqs: tuple[int, ...] = ()
    previous_summary: str | None = None
    tokens_before: int | None = None
    tokens_after: int | None = None
    error: str | None = None
    line: int = 0
    summary_line: int = 0
    instructions: str | None = None


@dataclass(frozen=True, slots=True)
class Prune:
    """Old tool output cleared without a summary (Claude Code's micro-compaction)."""

    seq: int
    line: int = 0
    trigger: str | None = None
    pruned_seqs: tuple[int, ...] = ()
    tokens_pruned: int | None = None
    tokens_before: int | None = None
    call_ids: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class HookRun:
    """A hook the harness ran, of which the log keeps only the trace (Claude Code's
    ``hook_progress`` record): what the hook printed, if anything, is not in the log.

    ``seq`` is the seq of the last event before it (0: none), so a compaction whose
    ``start_seq`` is greater came after it; ``event`` the hook event (``SessionStart``,
    ``PostToolUse``, ``Stop``, ...), ``name`` the harness's label with its matcher
    (``SessionStart:compact``, ``PostToolUse:Edit``), ``command`` the command it ran
    (``callback`` for Claude Code's own internal hooks). Which of them could have
    reached the model before a summary was written is the rules' call
    (:attr:`ctxkeep.rules.context.CompactionView.unrecorded_hooks`).
    """

    seq: int
    line: int = 0
    event: str = ""
    name: str = ""
    command: str = ""


@dataclass(frozen=True, slots=True)
class ParseProblem:
    """Something in the source that could not be read; the rest was read.

    ``line`` is 1-based; 0 means the problem is the whole file (missing, empty, a folder).
    """

    line: int
    reason: str


def located(path: str, line: int) -> str:
    """``path:line`` as editors and terminals link it, or just ``path`` for line 0."""
    return f"{path}:{line}" if line > 0 else path


@dataclass(frozen=True)
class Session:
    """A whole session log as read by one adapter.

    ``hook_runs`` are the hooks the log shows ran, whose output the harness did not
    record (Claude Code ``hook_progress``): an item that looks invented may come from
    one of them. ``history_incomplete`` is True when the log does not begin where the session
    began (Claude Code: the first record's ``parentUuid`` is not in the file): what the
    first summary in it was written from is partly before line 1. ``context_window`` is
    the model's window when the log states it.
    """

    path: str
    format: str
    events: tuple[Event, ...] = ()
    compactions: tuple[Compaction, ...] = ()
    prunes: tuple[Prune, ...] = ()
    problems: tuple[ParseProblem, ...] = ()
    context_window: int | None = None
    hook_runs: tuple[HookRun, ...] = ()
    session_id: str | None = None
    history_incomplete: bool = False

    @property
    def hooks_unrecorded(self) -> bool:
        """True when the log shows any hook ran whose output it does not hold."""
        return bool(self.hook_runs)

    @cached_property
    def by_seq(self) -> Mapping[int, Event]:
        """Events by seq (the last one wins where a broken log repeats a seq)."""
        return {e.seq: e for e in self.events}

    def events_at(self, seqs: Iterable[int]) -> list[Event]:
        """The events with these seqs, in seq order; unknown seqs are skipped."""
        table = self.by_seq
        return [table[s] for s in sorted(set(seqs)) if s in table]

    @property
    def readable(self) -> bool:
        """False when nothing at all could be read from the source."""
        return bool(self.events) or not self.problems


def seqs_to_ranges(seqs: Iterable[int]) -> list[list[int]]:
    """``[1, 2, 3, 7]`` -> ``[[1, 3], [7, 7]]`` (inclusive ranges, the ctxkeep format)."""
    out: list[list[int]] = []
    for s in sorted(set(seqs)):
        if out and out[-1][1] == s - 1:
            out[-1][1] = s
        else:
            out.append([s, s])
    return out


def ranges_to_seqs(ranges: Iterable[Iterable[int]], *, limit: int = 10_000_000) -> tuple[int, ...]:
    """Inverse of :func:`seqs_to_ranges`; ranges that are malformed raise ``ValueError``.

    ``limit`` caps the total expanded size so that a hostile range cannot exhaust memory.
    """
    out: list[int] = []
    for r in ranges:
        pair = list(r)
        if len(pair) != 2 or not all(isinstance(x, int) and not isinstance(x, bool) for x in pair):
            raise ValueError(f"range must be [first, last] integers, got {pair!r}")
        first, last = pair
        if last < first:
            raise ValueError(f"range [{first}, {last}] ends before it starts")
        if len(out) + (last - first + 1) > limit:
            raise ValueError("ranges cover too many events")
        out.extend(range(first, last + 1))
    return tuple(sorted(set(out)))
