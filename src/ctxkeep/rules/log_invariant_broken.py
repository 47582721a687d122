"""CK001 log-invariant-broken."""

from __future__ import annotations

from collections.abc import Iterator

from ctxkeep.base.findings import Finding, Severity
from ctxkeep.log.model import Event, EventKind, Session
from ctxkeep.rules.base import SessionRule

__all__ = ["LogInvariantBroken"]


def _call_label(event: Event) -> str:
    return f"{event.tool_name or 'tool'} {event.call_id}"


class LogInvariantBroken(SessionRule):
    """The log itself is not whole, so every other conclusion about it is suspect.

    Catches a tool call with no result, a tool result with no call, a gap or a duplicate
    in the event sequence numbers, and every line that could not be read. A log with a
    hole may be missing the very constraint another rule reports as lost, or the tool
    output that would explain an "invented" path: this rule is reported first.

    Example: a ctxkeep event log whose seqs run 1, 2, 5 (events 3 and 4 are missing),
    or a Claude Code transcript cut in the middle of its last line.
    """

    id = "CK001"
    name = "log-invariant-broken"
    level = Severity.ERROR
    summary = "the log is truncated or inconsistent (orphan tool call/result, seq gap, bad line)"

    def check_session(self, session: Session) -> Iterator[Finding]:
        if session.problems:
            n = len(session.problems)
            yield self.finding(
                session,
                f"{n} line{'s' if n != 1 else ''} of the log could not be read",
                lines=(p.line for p in session.problems),
                items=dict.fromkeys(p.reason for p in session.problems),
            )
        yield from self._orphans(session)
        yield from self._sequence(session)

    def _orphans(self, session: Session) -> Iterator[Finding]:
        calls: list[Event] = []
        results: list[Event] = []
        for e in session.events:  # one pass: a log has tens of thousands of events
            if e.kind is EventKind.TOOL_CALL:
                calls.append(e)
            elif e.kind is EventKind.TOOL_RESULT:
                results.append(e)
        call_ids = {e.call_id for e in calls if e.call_id}
        result_ids = {e.call_id for e in results if e.call_id}
        no_result = [e for e in calls if e.call_id not in result_ids]
        no_call = [e for e in results if e.call_id not in call_ids]
        if no_result:
            n = len(no_result)
            yield self.finding(
                session,
                f"{n} tool call{'s have' if n != 1 else ' has'} no result",
                events=no_result,
                items=dict.fromkeys(_call_label(e) for e in no_result),
            )
        if no_call:
            n = len(no_call)
            yield self.finding(
                session,
                f"{n} tool result{'s have' if n != 1 else ' has'} no call",
                events=no_call,
                items=dict.fromkeys(f"result {e.call_id}" for e in no_call),
            )

    def _sequence(self, session: Session) -> Iterator[Finding]:
        gaps: list[Event] = []
        gap_items: list[str] = []
        duplicates: list[Event] = []
        dup_items: list[str] = []
        previous: Event | None = None
        for event in session.events:
            if previous is not None:
                if event.seq <= previous.seq:
                    duplicates.append(event)
                    how = "repeated" if event.seq == previous.seq else "out of order"
                    dup_items.append(f"seq {event.seq} {how}")
                elif event.seq > previous.seq + 1:
                    gaps.append(event)
                    gap_items.append(f"seq {previous.seq + 1}..{event.seq - 1} missing")
            if previous is None or event.seq > previous.seq:
                previous = event
        if gaps:
            n = len(gaps)
            yield self.finding(
                session,
                f"{n} gap{'s' if n != 1 else ''} in the event sequence: events are missing",
                events=gaps,
                items=gap_items,
            )
        if duplicates:
            n = len(duplicates)
            yield self.finding(
                session,
                f"{n} event{'s repeat' if n != 1 else ' repeats'} or go{'es' if n == 1 else ''} "
                "back in the sequence",
                events=duplicates,
                items=dict.fromkeys(dup_items),
            )
