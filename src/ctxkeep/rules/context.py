"""What the rules read: a session and, per compaction, what its summary was written from.

Several rules look at the same compaction (invented items, lost constraints, ghost
references, sizes), so the work they share — finding the shadowed events, gathering the
sources, extracting and judging constraints — is done once here, lazily, and cached.
"""

from __future__ import annotations

import unicodedata
from bisect import bisect_right
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from functools import cached_property

from ctxkeep.extract import (
    Constraint,
    SourceIndex,
    Survival,
    constraint_survives,
    extract_constraints,
)
from ctxkeep.log.model import Compaction, CompactionStatus, Event, EventKind, Session

__all__ = ["CompactionView", "JudgedConstraint", "RuleContext", "is_user_instruction"]


_MARKERS = frozenset({EventKind.COMPACTION_START, EventKind.COMPACTION_END, EventKind.PRUNE})


def is_user_instruction(event: Event) -> bool:
    """A message the user typed, as opposed to context the harness injected.

    Injected context (system reminders, runtime snapshots, AGENTS.md / CLAUDE.md, meta
    records, earlier summaries) is re-injected every turn; counting it made 219 of 488
    "losses" noise on a real log (DESIGN.md), so it is never a standing instruction.
    """
    return (
        event.kind is EventKind.MESSAGE
        and event.role == "user"
        and event.injected is None
        and bool(event.text.strip())
    )


def _normal_form(text: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


@dataclass(frozen=True, slots=True)
class JudgedConstraint:
    """A constraint from a user message the summary replaced, and what became of it."""

    constraint: Constraint
    event: Event
    survival: Survival

    @property
    def kept(self) -> bool:
        """Kept verbatim or reworded (entity words co-occur): either way, it survived."""
        return self.survival is not Survival.LOST


class CompactionView:
    """One compaction seen from its sources: shadowed events, sources, constraints."""

    def __init__(
        self,
        session: Session,
        compaction: Compaction,
        replaced_by: Mapping[int, int],
        outliving: tuple[Event, ...],
    ) -> None:
        self.session = session
        self.compaction = compaction
        self._replaced_by = replaced_by
        self._outliving = outliving

    @cached_property
    def shadowed(self) -> tuple[Event, ...]:
        """The events the summary replaced that are present in the log, in seq order."""
        return tuple(self.session.events_at(self.compaction.shadowed_seqs))

    @cached_property
    def visible(self) -> tuple[Event, ...]:
        """Events before the compaction that no earlier compaction replaced and that this
        one does not replace: still on screen when the summary was written.

        OpenHands keeps the first events (the task) in context and condenses only the
        middle: the summary quotes the task, which is in none of the shadowed events.
        """
        c = self.compaction
        first_replaced = self._replaced_by
        # An event first replaced by this compaction is its own (shadowed); one replaced
        # by an earlier compaction is gone. Only events that outlive the compaction after
        # them can be visible (see RuleContext._outliving), which keeps this linear.
        return tuple(
            e
            for e in self._outliving
            if e.seq < c.start_seq and first_replaced.get(e.seq, c.index + 1) > c.index
        )

    @cached_property
    def preserved(self) -> tuple[Event, ...]:
        """Events the harness kept verbatim beside the summary."""
        return tuple(self.session.events_at(self.compaction.preserved_seqs))

    @property
    def summary(self) -> str | None:
        """The summary text when there is one to audit, else None (failed, opaque, empty)."""
        c = self.compaction
        if c.status is not CompactionStatus.SUMMARISED or c.opaque or c.summary is None:
            return None
        return c.summary if c.summary.strip() else None

    @property
    def has_history(self) -> bool:
        """False when nothing the summary could have been written from is in the log."""
        return bool(self.shadowed) or bool(self.compaction.previous_summary)

    def _source_tier(self, *, results: bool) -> Iterator[str]:
        """The conversation's texts (``results=False``) or the tool results' (``True``)."""
        if not results:
            if self.compaction.previous_summary:
                yield self.compaction.previous_summary
            if self.compaction.instructions:
                yield self.compaction.instructions
        for events in (self.shadowed, self.visible, self.preserved, self.cleared):
            for event in events:
                if (event.kind is EventKind.TOOL_RESULT) is not results:
                    continue
                if event.kind in _MARKERS:
                    # an earlier compaction's summary: only the previous one is a source
                    # (above), the ones before it were replaced by it
                    continue
                yield event.text
                if event.tool_name:
                    # the tool's name is on screen with its call ("read_file {...}")
                    yield event.tool_name

    def source_index(self) -> SourceIndex:
        """An index of everything on screen when the summary was written.

        The shadowed events, tool calls and results included (most file names enter
        through tool output), injected context included (it was on screen), the events
        still in context that it did not replace (:attr:`visible`), the previous summary
        (a summary is written on a screen that already holds the one before), the events
        kept beside the summary, and a manual compaction's instructions. Text that an
        earlier compaction replaced is not a source: only the previous summary carries it.

        The order only decides how soon a lookup ends (a match never spans two texts):
        the previous summary and the instructions first, as most of a summary's items
        are inherited; then the conversation (what was said, and the tool calls that say
        which file and command); tool results last. A summary names what the
        conversation named, and the results are the bulk of the bytes (five sixths of the
        26k-event benchmark log): a lookup that meets its item in the conversation ends
        there instead of scanning megabytes of tool output (26k-event log: lookups
        0.42 -> 0.10 s; see benchmarks/audit_speed.py).

        Built anew on each call and not kept: it holds a copy of every source text
        (two, once a lookup ignores case), and kept for every compaction it doubled the
        memory an audit needs.
        """
        return SourceIndex(self._source_tier(results=False), bulk=self._source_tier(results=True))

    # ------------------------------------------------------- what the log cannot show

    @property
    def history_before_file(self) -> bool:
        """The summary may draw on history before the log's first line: the log begins
        mid-session (:attr:`Session.history_incomplete`) and no earlier summary in it
        carries what came before."""
        return self.session.history_incomplete and not self.compaction.previous_summary

    @property
    def previous_opaque(self) -> bool:
        """The compaction before this one produced a summary nobody can read (Codex's
        encrypted compaction): what it carried into this summary's sources is hidden."""
        earlier = [
            c
            for c in self.session.compactions
            if c.index < self.compaction.index and c.status is CompactionStatus.SUMMARISED
        ]
        return bool(earlier) and earlier[-1].opaque

    @cached_property
    def unanswered_calls(self) -> tuple[Event, ...]:
        """Tool calls the summary replaced whose result the log never records before the
        compaction: whatever they returned, if anything, may be in the summary."""
        start = self.compaction.start_seq
        answered = {
            e.call_id
            for events in (self.shadowed, self.visible, self.preserved, self.cleared)
            for e in events
            if e.kind is EventKind.TOOL_RESULT and e.seq < start
        }
        return tuple(
            e
            for e in self.shadowed
            if e.kind is EventKind.TOOL_CALL and e.call_id and e.call_id not in answered
        )

    @cached_property
    def cleared(self) -> tuple[Event, ...]:
        """Tool results a micro-compaction cleared before this compaction, in its window:
        the model read them before they were cleared, so they ground what the summary
        names, though they were no longer on screen when it was written."""
        shadowed = set(self.compaction.shadowed_seqs)
        first = min(shadowed, default=self.compaction.start_seq)
        seqs = {
            seq
            for prune in self.session.prunes
            if prune.seq < self.compaction.start_seq
            for seq in prune.pruned_seqs
            if seq >= first and seq not in shadowed
        }
        return tuple(self.session.events_at(seqs))

    @cached_property
    def constraints(self) -> tuple[JudgedConstraint, ...]:
        """Constraints of the user messages this summary replaced, each judged once.

        Only non-injected user messages among the shadowed events count: earlier text was
        folded into the previous summary and is not this summary's to lose (one real log
        reported 561 constraints where the compaction replaced 141). A manual
        compaction's instructions are not counted: they steer the summary ("focus on the
        parser") rather than stand for the session. A constraint repeated verbatim is
        counted once, at its first appearance. Empty when there is no summary to judge.
        """
        summary = self.summary
        if summary is None:
            return ()
        seen: set[str] = set()
        judged: list[JudgedConstraint] = []
        for event in self.shadowed:
            if not is_user_instruction(event):
                continue
            for constraint in extract_constraints(event.text):
                key = _normal_form(constraint.text)
                if key in seen:
                    continue
                seen.add(key)
                survival = constraint_survives(constraint, summary)
                judged.append(JudgedConstraint(constraint, event, survival))
        return tuple(judged)


class RuleContext:
    """The session under audit, with a cached :class:`CompactionView` per compaction."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self._views: dict[int, CompactionView] = {}

    @cached_property
    def _replaced_by(self) -> dict[int, int]:
        """For each event seq, the index of the first summarised compaction replacing it."""
        first: dict[int, int] = {}
        for c in self.session.compactions:
            if c.status is CompactionStatus.SUMMARISED:
                for seq in c.shadowed_seqs:
                    first.setdefault(seq, c.index)
        return first

    @cached_property
    def _outliving(self) -> tuple[Event, ...]:
        """Events not replaced by the first compaction that starts after them.

        The bulk of a log is replaced by the next compaction and is never visible to any
        compaction's summary beside its own shadowed set; the few that outlive it (the
        task OpenHands keeps, summaries, messages a harness carries over) are the only
        candidates for :attr:`CompactionView.visible`.
        """
        starts = [c.start_seq for c in self.session.compactions]
        if starts != sorted(starts):
            return self.session.events  # out of order: no shortcut, every event counts
        indexes = [c.index for c in self.session.compactions]
        first_replaced = self._replaced_by
        out: list[Event] = []
        for e in self.session.events:
            at = bisect_right(starts, e.seq)
            if at == len(starts):
                continue  # no compaction after it: never on a summary's screen
            if first_replaced.get(e.seq) != indexes[at]:
                out.append(e)
        return tuple(out)

    def view(self, compaction: Compaction) -> CompactionView:
        """The (cached) view of one of this session's compactions."""
        view = self._views.get(compaction.index)
        if view is None:
            view = CompactionView(self.session, compaction, self._replaced_by, self._outliving)
            self._views[compaction.index] = view
        return view

    def views(self) -> Iterator[CompactionView]:
        """Views of every compaction, in order."""
        for compaction in self.session.compactions:
            yield self.view(compaction)
