"""What the rules read: a session and, per compaction, what its summary was written from.

Several rules look at the same compaction (invented items, lost constraints, ghost
references, sizes), so the work they share — finding the shadowed events, gathering the
sources, extracting and judging constraints — is done once here, lazily, and cached.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from enum import StrEnum
from functools import cached_property
from itertools import pairwise

from ctxkeep.extract import (
    Constraint,
    ConstraintKind,
    SourceIndex,
    Survival,
    extract_constraints,
    judge_survival,
    rejection_feedback,
)
from ctxkeep.extract._words import about
from ctxkeep.extract.choices import chosen_labels, option_title
from ctxkeep.extract.constraints import extract_instructions, is_negative
from ctxkeep.extract.filters import is_omission_request
from ctxkeep.extract.survival import normal_form, text_carried
from ctxkeep.extract.user_text import quoted_user_messages
from ctxkeep.log.ledger import LedgerItem, SessionLedger
from ctxkeep.log.model import Compaction, CompactionStatus, Event, EventKind, HookRun, Session
from ctxkeep.rules.hook_runs import could_reach_the_model

__all__ = [
    "CompactionView",
    "JudgedConstraint",
    "RuleContext",
    "UserText",
    "is_user_instruction",
    "ledger_constraint",
]


_MARKERS = frozenset({EventKind.COMPACTION_START, EventKind.COMPACTION_END, EventKind.PRUNE})


def is_user_instruction(event: Event) -> bool:
    """A message the user typed, as opposed to context the harness injected.

    Injected context (system reminders, runtime snapshots, AGENTS.md / CLAUDE.md, meta
    records, earlier summaries) is re-injected every turn; counting it made 219 of 488
    "losses" noise on a real log (docs/design.md, "The rules"), so it is never a standing
    instruction.
    """
    return (
        event.kind is EventKind.MESSAGE
        and event.role == "user"
        and event.injected is None
        and bool(event.text.strip())
    )


class Origin(StrEnum):
    """Where a piece of user text was read."""

    MESSAGE = "message"
    """A message the user typed (queued input included)."""
    REJECTION = "rejection"
    """What the user typed while rejecting a tool call (inside its tool result)."""
    COMPACT = "compact"
    """The arguments of a manual ``/compact``: instructions to that summary."""
    QUOTED = "quoted"
    """A message the previous summary quotes that the log does not hold (typed before
    the log's first line): it was carried by that summary."""
    RESTORED = "restored"
    """An instruction ctxkeep's hooks put back in context (the restore ledger) that no
    summary or message in context held: its message was replaced by an earlier
    compaction."""


@dataclass(frozen=True, slots=True)
class UserText:
    """A piece of user text read for standing instructions.

    ``event`` is the event it stands in, and ``text`` starts at ``offset`` in
    ``event.text``; without an event (``/compact`` arguments, quoted messages) ``line``
    is where the log holds it.
    """

    text: str
    origin: Origin
    event: Event | None = None
    offset: int = 0
    line: int = 0


@dataclass(frozen=True, slots=True)
class JudgedConstraint:
    """A standing instruction judged at one compaction, and what became of it.

    ``inherited_from`` is None when the instruction stood in the text this compaction
    replaced; else the index of the compaction whose replaced text held it (0: a summary
    older than the log quoted it), which every summary since carried (kept or reworded).
    ``carrier`` is the summary sentence that carries it reworded (None when kept
    verbatim or lost). ``restored_after``: the compaction after which ctxkeep's
    ``session-start`` hook restored it (restore ledger; kept while summaries carry it);
    ``asked``: ctxkeep's ``pre-compact`` hook asked this compaction's summariser to keep
    it.
    """

    constraint: Constraint
    source: UserText
    survival: Survival
    inherited_from: int | None = None
    carrier: str | None = None
    referent: str | None = None
    restored_after: int | None = None
    asked: bool = False

    @property
    def event(self) -> Event | None:
        return self.source.event

    @property
    def line(self) -> int:
        """The log line where the instruction stands (0 when the log does not say)."""
        return self.source.event.line if self.source.event is not None else self.source.line

    @property
    def kept(self) -> bool:
        """Kept verbatim or reworded: either way, it survived."""
        return self.survival is not Survival.LOST

    @property
    def inherited(self) -> bool:
        return self.inherited_from is not None

    @property
    def by_ctxkeep(self) -> bool:
        """ctxkeep's hooks restored it, or asked this summariser to keep it."""
        return self.restored_after is not None or self.asked


def user_texts(events: tuple[Event, ...], skip: frozenset[str] = frozenset()) -> Iterator[UserText]:
    """The user text among ``events``: typed messages, and the feedback typed while
    rejecting a tool call (:func:`~ctxkeep.extract.rejection_feedback`). ``skip``: texts
    that are a ``/compact`` command's arguments (judged with their own compaction)."""
    for event in events:
        if is_user_instruction(event):
            if event.text.strip() not in skip:
                yield UserText(event.text, Origin.MESSAGE, event)
        elif event.kind is EventKind.TOOL_RESULT:
            feedback = rejection_feedback(event.text)
            if feedback is not None:
                yield UserText(feedback[1], Origin.REJECTION, event, feedback[0])


class CompactionView:
    """One compaction seen from its sources: shadowed events, sources, constraints."""

    def __init__(
        self,
        session: Session,
        compaction: Compaction,
        visible: tuple[Event, ...],
        previous: Compaction | None = None,
        judged: Callable[[int], tuple[JudgedConstraint, ...]] | None = None,
        ledger: SessionLedger | None = None,
    ) -> None:
        self.session = session
        self.compaction = compaction
        self._visible = visible
        self._previous = previous
        self._judged = judged
        self.ledger = ledger

    @cached_property
    def shadowed(self) -> tuple[Event, ...]:
        """The events the summary replaced that are present in the log, in seq order."""
        return tuple(self.session.events_at(self.compaction.shadowed_seqs))

    @property
    def visible(self) -> tuple[Event, ...]:
        """Events before the compaction that no earlier compaction replaced and that this
        one does not replace: still on screen when the summary was written
        (:meth:`RuleContext._visible`).

        OpenHands keeps the first events (the task) in context and condenses only the
        middle: the summary quotes the task, which is in none of the shadowed events.
        """
        return self._visible

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

    @cached_property
    def previous_summarised(self) -> Compaction | None:
        """The last compaction before this one that replaced the context (summarised):
        found for every compaction in one pass (:meth:`RuleContext._previous`)."""
        return self._previous

    @property
    def ledger_texts(self) -> list[str]:
        """What ctxkeep's hooks put in context before this summary was written (restore
        ledger): what ``session-start`` printed after the previous compaction, and the
        ``pre-compact`` directive given to this summariser. Empty without a ledger."""
        if self.ledger is None:
            return []
        previous = self.previous_summarised
        after = self.ledger.texts_after(previous.index) if previous is not None else []
        return after + self.ledger.texts_before(self.compaction.index)

    def _source_tier(self, *, results: bool) -> Iterator[str]:
        """The conversation's texts (``results=False``) or the tool results' (``True``)."""
        if not results:
            if self.compaction.previous_summary:
                yield self.compaction.previous_summary
            if self.compaction.instructions:
                yield self.compaction.instructions
            yield from self.ledger_texts
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
        kept beside the summary, a manual compaction's instructions, and what ctxkeep's
        hooks put in context (:attr:`ledger_texts`, with a ledger). Text that an
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
        previous = self.previous_summarised
        return previous is not None and previous.opaque

    @property
    def _ledger_holds_session(self) -> bool:
        """The ledger read holds records of this session: it is the one ctxkeep's hooks
        wrote to for it (they leave a record at every compaction they run after)."""
        return self.ledger is not None and bool(self.ledger.records)

    @cached_property
    def unrecorded_hooks(self) -> tuple[HookRun, ...]:
        """The hooks that ran in this compaction's window (after the previous summarised
        compaction began, before this one) whose output could have reached the model and
        which neither the log nor the restore ledger holds
        (:func:`~ctxkeep.rules.hook_runs.could_reach_the_model`). A hook run before the
        previous compaction is not one: what the previous summary kept of it is a
        source, the rest was gone before this summary was written."""
        previous = self.previous_summarised
        first = previous.start_seq if previous is not None else 0
        start = self.compaction.start_seq
        return tuple(
            run
            for run in self.session.hook_runs
            if first <= run.seq < start
            and could_reach_the_model(run, self.session, ledger_read=self._ledger_holds_session)
        )

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

    def own_texts(self, compact_arguments: frozenset[str] = frozenset()) -> Iterator[UserText]:
        """The user text this compaction replaced, and its ``/compact`` arguments.

        Injected context (system reminders, AGENTS.md, earlier summaries) is re-injected
        every turn and is never a loss; text before the previous compaction was that
        summary's to keep (it comes back here only as an inherited constraint).
        """
        if self.compaction.instructions and self.compaction.instructions.strip():
            yield UserText(self.compaction.instructions, Origin.COMPACT, line=self.compaction.line)
        yield from user_texts(self.shadowed, compact_arguments)

    def judged_as(self, text: str) -> JudgedConstraint | None:
        """The instruction judged at this compaction whose text is ``text`` (compared
        case- and space-insensitively), or None."""
        key = normal_form(text)
        return next((j for j in self.constraints if normal_form(j.constraint.text) == key), None)

    @property
    def constraints(self) -> tuple[JudgedConstraint, ...]:
        """The standing instructions judged at this compaction, each once: those of the
        user text it replaced, then those earlier summaries carried into it (inherited).
        Empty when there is no summary to judge (see :meth:`RuleContext.judged`)."""
        if self._judged is None:
            return ()
        return self._judged(self.compaction.index)


_Found = tuple[Constraint, UserText, "str | None"]
# How many of the agent's messages before an answer may hold the options it picks from.
_ANSWERED = 5


def _own_constraints(
    view: CompactionView,
    compact_arguments: frozenset[str],
    agent_before: Callable[[int], list[str]],
) -> list[_Found]:
    """The instructions of the user text ``view`` replaced, each normal form once, with
    what each chosen option chose."""
    seen: set[str] = set()
    found: list[_Found] = []
    for text in view.own_texts(compact_arguments):
        # /compact arguments are all instructions, markers or not
        extract = extract_instructions if text.origin is Origin.COMPACT else extract_constraints
        for constraint in extract(text.text):
            if text.origin is Origin.COMPACT and is_omission_request(constraint.text):
                continue  # "drop the debugging details": followed by leaving it out
            key = normal_form(constraint.text)
            if key in seen:
                continue
            seen.add(key)
            referent = None
            if constraint.kind == ConstraintKind.CHOICE and text.event is not None:
                referent = _chosen(constraint.text, agent_before(text.event.seq))
            found.append((constraint, text, referent))
    return found


def _chosen(answer: str, agent_texts: list[str]) -> str | None:
    titles = [option_title(agent_texts, label) for label in chosen_labels(answer)]
    return "; ".join(t for t in titles if t) or None


def _carried(j: JudgedConstraint, index: int) -> JudgedConstraint:
    """``j``, kept by compaction ``index``'s summary, as the next compaction inherits it:
    from where its text was replaced; what ctxkeep asked of this summariser is done."""
    if j.inherited and not j.asked:
        return j
    return replace(
        j, inherited_from=index if j.inherited_from is None else j.inherited_from, asked=False
    )


def ledger_constraint(item: LedgerItem) -> Constraint:
    """A ledger item as the instruction it is: the hooks record an extracted
    instruction's own text, so extracting it again gives it back; else (say, a secret in
    it was masked) the whole text stands, with its kind from the ledger."""
    key = normal_form(item.text)
    for constraint in extract_constraints(item.text):
        if normal_form(constraint.text) == key:
            return constraint
    keys, words = about(item.text)
    return Constraint(item.text, item.kind, 0, len(item.text), is_negative(item.text), keys, words)


def _judge(found: _Found, summary: str, carrier: str | None, since: int | None) -> JudgedConstraint:
    constraint, text, referent = found
    verdict = judge_survival(constraint, summary, also=(referent,) if referent else ())
    if verdict.survival is Survival.LOST and carrier is not None and text_carried(carrier, summary):
        # the later summary copies the earlier summary's wording of the instruction
        return JudgedConstraint(constraint, text, Survival.REWORDED, since, carrier, referent)
    return JudgedConstraint(constraint, text, verdict.survival, since, verdict.carrier, referent)


class RuleContext:
    """The session under audit, with a cached :class:`CompactionView` per compaction.

    ``ledger``: the session's records in ctxkeep's restore ledger, when the audit reads
    one (docs/hooks.md): what ctxkeep's hooks put in context is then a source of the
    next summary, and a restored instruction is judged there.
    """

    def __init__(self, session: Session, ledger: SessionLedger | None = None) -> None:
        self.session = session
        self.ledger = ledger
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

    def _on_screen(self, event: Event, compaction: Compaction) -> bool:
        """Whether ``event`` was still on screen when ``compaction``'s summary was written:
        before it, and replaced by no compaction up to it (an event first replaced by this
        compaction is its own, shadowed; one replaced by an earlier one is gone)."""
        first = self._replaced_by.get(event.seq, compaction.index + 1)
        return event.seq < compaction.start_seq and first > compaction.index

    @cached_property
    def _visible(self) -> dict[int, tuple[Event, ...]]:
        """:attr:`CompactionView.visible` of every compaction, by index, in one pass.

        Each event is on screen for a run of consecutive compactions: from the first
        that starts after it (found by bisection) to the one that replaces it. Walking
        the compactions in order, an event joins the screen where its run begins and
        leaves where it ends, so the work is the events, the compactions and what the
        screens hold, not compactions x events (a log whose repeated slice holds a
        compaction has thousands: docs/reliability.md). A log whose compactions or events
        are out of order is filtered event by event, for every compaction.
        """
        compactions = self.session.compactions
        events = self.session.events
        starts = [c.start_seq for c in compactions]
        indexes = [c.index for c in compactions]
        seqs = [e.seq for e in events]
        in_order = (
            starts == sorted(starts)
            and all(a < b for a, b in pairwise(indexes))
            and seqs == sorted(seqs)
        )
        if not in_order:
            return {c.index: tuple(e for e in events if self._on_screen(e, c)) for c in compactions}
        joins: list[list[int]] = [[] for _ in compactions]
        leaves: list[list[int]] = [[] for _ in compactions]
        never = indexes[-1] + 1 if indexes else 0  # past every compaction: never replaced
        for n, e in enumerate(events):
            first = bisect_right(starts, e.seq)  # the first compaction starting after it
            last = bisect_left(indexes, self._replaced_by.get(e.seq, never))
            if first < last:  # on screen for compactions first .. last - 1
                joins[first].append(n)
                if last < len(compactions):
                    leaves[last].append(n)
        screen: dict[int, Event] = {}  # by position in the log, in log order
        visible: dict[int, tuple[Event, ...]] = {}
        for at, compaction in enumerate(compactions):
            for n in leaves[at]:
                del screen[n]
            screen.update((n, events[n]) for n in joins[at])
            visible[compaction.index] = tuple(screen.values())
        return visible

    @cached_property
    def _previous(self) -> dict[int, Compaction | None]:
        """For each compaction index, the last summarised compaction before it (one pass,
        not a scan of the compactions per compaction)."""
        previous: dict[int, Compaction | None] = {}
        last: Compaction | None = None
        for c in sorted(self.session.compactions, key=lambda c: c.index):
            previous[c.index] = last
            if c.status is CompactionStatus.SUMMARISED:
                last = c
        return previous

    def view(self, compaction: Compaction) -> CompactionView:
        """The (cached) view of one of this session's compactions."""
        view = self._views.get(compaction.index)
        if view is None:
            view = CompactionView(
                self.session,
                compaction,
                self._visible[compaction.index],
                self._previous[compaction.index],
                self.judged,
                self.ledger,
            )
            self._views[compaction.index] = view
        return view

    def constraint_counts(self) -> tuple[int, int]:
        """``(total, kept)`` over the session: each standing instruction counted once,
        however many compactions judged it; kept when no summary ever lost it."""
        lost: dict[str, bool] = {}
        for judged in self._timeline.values():
            for j in judged:
                key = normal_form(j.constraint.text)
                lost[key] = lost.get(key, False) or not j.kept
        return len(lost), sum(1 for was_lost in lost.values() if not was_lost)

    @cached_property
    def _agent_messages(self) -> tuple[list[int], list[str]]:
        seqs: list[int] = []
        texts: list[str] = []
        for e in self.session.events:
            if e.kind is EventKind.MESSAGE and e.role == "assistant" and e.injected is None:
                seqs.append(e.seq)
                texts.append(e.text)
        return seqs, texts

    def _agent_text_before(self, seq: int) -> list[str]:
        """The agent's last few messages before event ``seq``, latest first: what a
        user's answer answers."""
        seqs, texts = self._agent_messages
        at = bisect_right(seqs, seq - 1)
        return texts[max(0, at - _ANSWERED) : at][::-1]

    @cached_property
    def _typed(self) -> tuple[str, ...]:
        """Every piece of user text the log holds, in normal form."""
        return tuple(normal_form(t.text) for t in user_texts(self.session.events))

    def _quoted(
        self, compaction: Compaction, previous: Compaction | None
    ) -> list[JudgedConstraint]:
        """Instructions of the messages the previous summary quotes that the log does not
        hold: typed before a mid-session log's first line, carried by that summary."""
        text = compaction.previous_summary
        if not text:
            return []
        since = previous.index if previous is not None else compaction.index - 1
        line = previous.summary_line if previous is not None else 0
        found: list[JudgedConstraint] = []
        for _, quote in quoted_user_messages(text):
            key = normal_form(quote.strip(" .…"))
            if not key or any(key in typed or typed in key for typed in self._typed if typed):
                continue
            source = UserText(quote, Origin.QUOTED, line=line)
            found.extend(
                JudgedConstraint(c, source, Survival.KEPT, since)
                for c in extract_constraints(quote)
            )
        return found

    def judged(self, index: int) -> tuple[JudgedConstraint, ...]:
        """The standing instructions judged at compaction ``index`` (see :attr:`_timeline`)."""
        return self._timeline.get(index, ())

    @cached_property
    def _timeline(self) -> dict[int, tuple[JudgedConstraint, ...]]:
        """Every compaction's judged instructions, following them across compactions.

        Walking the compactions in order: the instructions a summary carried (kept or
        reworded) are judged again at the next compaction beside those of the text it
        replaced, until a summary drops one (lost there: real instructions decay that
        way, kept by the first summary and gone after the second) or the session ends.
        A repeated instruction counts once, from where it was last said. Instructions
        whose message is still in context at a compaction (kept beside the summary, or
        never replaced) are not judged there. A compaction without a readable summary
        (encrypted, empty, failed) judges nothing and passes everything on. ``/compact``
        arguments are judged at their own compaction only: they steer that summary.
        """
        arguments = frozenset(
            c.instructions.strip() for c in self.session.compactions if c.instructions
        )
        carried: list[JudgedConstraint] = []
        timeline: dict[int, tuple[JudgedConstraint, ...]] = {}
        previous: Compaction | None = None
        for compaction in self.session.compactions:
            if compaction.status is not CompactionStatus.SUMMARISED:
                continue
            view = self.view(compaction)
            own = _own_constraints(view, arguments, self._agent_text_before)
            summary = view.summary
            own_keys = {normal_form(c.text) for c, _, _ in own}
            inherited = [j for j in carried if normal_form(j.constraint.text) not in own_keys]
            known = own_keys | {normal_form(j.constraint.text) for j in inherited}
            inherited += [
                j
                for j in self._quoted(compaction, previous)
                if normal_form(j.constraint.text) not in known
            ]
            previous = compaction
            if summary is None:
                carried = inherited + [
                    JudgedConstraint(c, t, Survival.KEPT, compaction.index, referent=r)
                    for c, t, r in own
                    if t.origin is not Origin.COMPACT
                ]
                continue
            in_context = {e.seq for e in view.visible} | set(compaction.preserved_seqs)
            judged = [_judge(found, summary, None, None) for found in own]
            still: list[JudgedConstraint] = []
            for j in inherited:
                if j.event is not None and j.event.seq in in_context:
                    still.append(j)
                    continue
                found = (j.constraint, j.source, j.referent)
                judged.append(_judge(found, summary, j.carrier, j.inherited_from))
            judged = self._with_ledger(view, judged, summary, still)
            # in the order they were given: the oldest inherited first, then this one's own
            order = {id(j): n for n, j in enumerate(judged)}
            judged.sort(key=lambda j: (j.inherited_from or compaction.index, order[id(j)]))
            timeline[compaction.index] = tuple(judged)
            carried = still + [
                _carried(j, compaction.index)
                for j in judged
                if j.kept and j.source.origin is not Origin.COMPACT
            ]
        return timeline

    def _with_ledger(
        self,
        view: CompactionView,
        judged: list[JudgedConstraint],
        summary: str,
        in_context: list[JudgedConstraint],
    ) -> list[JudgedConstraint]:
        """``judged`` with what ctxkeep's hooks put in context before ``view``'s summary
        (restore ledger): an instruction already judged is marked restored (or asked
        for); one that is not is judged too, in force though no message in context holds
        it (its message was replaced earlier), unless its message is still in context
        (``in_context``: not the summary's to keep). Unchanged without a ledger."""
        if self.ledger is None:
            return judged
        previous = view.previous_summarised
        marks: dict[str, tuple[LedgerItem, int | None, bool]] = {}
        if previous is not None:
            for item in self.ledger.restored_after(previous.index):
                marks.setdefault(normal_form(item.text), (item, previous.index, False))
        for item in self.ledger.asked_before(view.compaction.index):
            key = normal_form(item.text)
            old = marks.get(key)
            marks[key] = (item, old[1] if old else None, True)
        for j in in_context:
            marks.pop(normal_form(j.constraint.text), None)
        if not marks:
            return judged
        out: list[JudgedConstraint] = []
        for j in judged:
            mark = marks.pop(normal_form(j.constraint.text), None)
            if mark is None:
                out.append(j)
                continue
            restored_after = j.restored_after if mark[1] is None else mark[1]
            out.append(replace(j, restored_after=restored_after, asked=mark[2]))
        for item, restored_after, asked in marks.values():
            source = UserText(item.text, Origin.RESTORED, line=item.line)
            found = (ledger_constraint(item), source, None)
            j = _judge(found, summary, None, restored_after)
            out.append(replace(j, restored_after=restored_after, asked=asked))
        return out

    def views(self) -> Iterator[CompactionView]:
        """Views of every compaction, in order."""
        for compaction in self.session.compactions:
            yield self.view(compaction)
