"""The audit engine: runs the rules over sessions and adds what rules must not decide.

Rules only yield findings. Here they are selected (``select`` / ``ignore`` and the
config), fingerprinted, compared with a baseline, sorted deterministically, and put next
to the figures a reader needs to weigh them: compactions started / summarised / failed
(overall and by trigger), constraints total / kept, the peak context usage.
``sweep`` audits many sessions in parallel processes and ranks them by damage; ``diff``
takes one compaction apart.

The engine walks each session: every session rule once, then every compaction rule on
each compaction in order (rules declare their unit, :mod:`ctxkeep.rules.base`). With
``detail=True`` a session's audit also holds everything a report shows of it beyond its
figures and findings (:class:`SessionDetail`: each compaction taken apart, the token
curve), so no report reads a log again or calls back here. A compaction taken apart is
a view of the findings and of what the rules' context judged, not a second judgement:
its constraints are the ones CK003 judged, its invented items CK002's, its ghost
references CK006's.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field

from ctxkeep.base._gc import cyclic_gc_paused
from ctxkeep.base.findings import Confidence, Finding, Severity
from ctxkeep.config import AuditConfig
from ctxkeep.extract import Survival, judge_survival
from ctxkeep.log.adapters import ReadOptions
from ctxkeep.log.ledger import Ledger, LedgerItem, SessionLedger
from ctxkeep.log.model import Compaction, CompactionStatus, Event, EventKind, Session
from ctxkeep.log.reader import discover, read_session
from ctxkeep.rules import (
    RULES,
    CompactionRule,
    Rule,
    RuleContext,
    SessionRule,
    select_rules,
)
from ctxkeep.rules.context import CompactionView, JudgedConstraint, ledger_constraint

__all__ = [
    "TRIGGERS",
    "AuditResult",
    "CompactionCounts",
    "CompactionDiff",
    "ConstraintRow",
    "HookActivity",
    "InventedItem",
    "NoSuchCompactionError",
    "PeakContext",
    "Problem",
    "SessionAudit",
    "SessionDetail",
    "audit",
    "audit_session",
    "diff",
    "sweep",
    "trigger_of",
]

TRIGGERS = ("auto", "manual", "reactive", "unknown")
"""Compaction triggers as reported; any other value a log gives counts as ``unknown``."""


@dataclass(frozen=True, slots=True)
class CompactionCounts:
    """Compactions started, and what became of them (a start with no end is failed)."""

    started: int = 0
    summarised: int = 0
    failed: int = 0
    noop: int = 0

    @classmethod
    def of(cls, compactions: Iterable[Compaction]) -> CompactionCounts:
        statuses = Counter(c.status for c in compactions)
        return cls(
            started=sum(statuses.values()),
            summarised=statuses[CompactionStatus.SUMMARISED],
            failed=statuses[CompactionStatus.FAILED] + statuses[CompactionStatus.STARTED],
            noop=statuses[CompactionStatus.NOOP],
        )

    def __add__(self, other: CompactionCounts) -> CompactionCounts:
        return CompactionCounts(
            self.started + other.started,
            self.summarised + other.summarised,
            self.failed + other.failed,
            self.noop + other.noop,
        )


def trigger_of(compaction: Compaction) -> str:
    """The compaction's trigger as one of :data:`TRIGGERS`."""
    return compaction.trigger if compaction.trigger in TRIGGERS else "unknown"


@dataclass(frozen=True, slots=True)
class PeakContext:
    """The largest context the log reports, and the window when the log states it."""

    tokens: int | None = None
    window: int | None = None

    @property
    def percent(self) -> float | None:
        """Peak as a percentage of the window, one decimal; None when either is unknown."""
        if self.tokens is None or not self.window:
            return None
        return round(100 * self.tokens / self.window, 1)

    @classmethod
    def of(cls, session: Session) -> PeakContext:
        peak: int | None = None
        window = session.context_window
        for event in session.events:
            usage = event.tokens if event.kind is EventKind.USAGE else None
            if usage is not None and (peak is None or usage > peak):
                peak = usage
                window = window or event.context_window
        for c in session.compactions:
            if c.tokens_before is not None and (peak is None or c.tokens_before > peak):
                peak = c.tokens_before
        if window is None:
            window = next((e.context_window for e in session.events if e.context_window), None)
        return cls(peak, window)


@dataclass(frozen=True, slots=True)
class Problem:
    """A file, or a line of one, that could not be read."""

    path: str
    line: int
    reason: str


@dataclass(frozen=True, slots=True)
class HookActivity:
    """What ctxkeep's hooks did around one compaction, from the restore ledger.

    ``asked``: the instructions the ``pre-compact`` hook asked this compaction's
    summariser to keep verbatim; ``asked_kept``: those its summary kept (verbatim or
    reworded), None when there is no summary to judge (prevention, measured).
    ``restore``: what ``session-start`` found right after it (``restored``,
    ``cautioned``, ``nothing-lost``, ``not-auditable``; None: no record), ``restored``
    the instructions it put back and ``cautioned`` the summary items it named.
    """

    compaction: int
    asked: tuple[str, ...] = ()
    asked_kept: tuple[str, ...] | None = None
    restore: str | None = None
    restored: tuple[str, ...] = ()
    cautioned: tuple[str, ...] = ()


def _asked_kept(view: CompactionView, asked: Sequence[LedgerItem]) -> tuple[str, ...] | None:
    """Which of the ``asked`` instructions ``view``'s summary kept; None: no summary."""
    summary = view.summary
    if summary is None:
        return None
    kept: list[str] = []
    for item in asked:
        judged = view.judged_as(item.text)
        if judged is not None:
            survived = judged.kept
        else:  # its message is still in context: judged by its words alone
            verdict = judge_survival(ledger_constraint(item), summary)
            survived = verdict.survival is not Survival.LOST
        if survived:
            kept.append(item.text)
    return tuple(kept)


def hook_activity(ctx: RuleContext) -> tuple[HookActivity, ...]:
    """What ctxkeep's hooks did around each compaction of ``ctx``'s session, from its
    ledger records (empty without a ledger); records of a compaction the log does not
    hold (yet) are left out."""
    ledger = ctx.ledger
    if ledger is None:
        return ()
    by_index = {c.index: c for c in ctx.session.compactions}
    out: list[HookActivity] = []
    for index in ledger.compactions():
        compaction = by_index.get(index)
        if compaction is None:
            continue
        asked = ledger.asked_before(index)
        out.append(
            HookActivity(
                compaction=index,
                asked=tuple(i.text for i in asked),
                asked_kept=_asked_kept(ctx.view(compaction), asked) if asked else None,
                restore=ledger.restore_status(index),
                restored=tuple(i.text for i in ledger.restored_after(index)),
                cautioned=tuple(i.text for i in ledger.cautioned_after(index)),
            )
        )
    return tuple(out)


@dataclass(frozen=True, slots=True)
class ConstraintRow:
    """One standing instruction judged at a compaction, what became of it, where it stood.

    ``origin``: ``message``, ``rejection`` (typed while rejecting a tool call) or
    ``compact`` (``/compact`` arguments; ``seq`` and ``line`` are then the compaction's).
    ``inherited_from``: None when the compaction replaced the text it stood in, else the
    compaction that did (every summary since carried it). ``carried_as``: the summary
    sentence that carries it (None when lost). ``restored_after``: the compaction after
    which ctxkeep's hook restored it; ``asked``: ctxkeep's ``pre-compact`` hook asked
    this summariser to keep it (both from the restore ledger; origin ``restored`` when
    only the ledger holds it).
    """

    text: str
    kind: str
    survival: Survival
    seq: int
    line: int
    source: str
    origin: str = "message"
    inherited_from: int | None = None
    carried_as: str | None = None
    restored_after: int | None = None
    asked: bool = False


@dataclass(frozen=True, slots=True)
class InventedItem:
    """An item or claim of the summary that no source bears out; ``summary_line`` is
    1-based; ``confidence`` and ``why`` as in the CK002 finding's ``items_detail``."""

    text: str
    kind: str
    summary_line: int
    confidence: Confidence = Confidence.HIGH
    why: str = ""


@dataclass(frozen=True, slots=True)
class CompactionDiff:
    """One compaction in detail: what it replaced, kept, lost, invented and pointed at.

    ``replaced``: the events the summary replaced that the log holds, in seq order.
    ``constraints``: every instruction judged at it (kept, reworded, lost), as the rules'
    context judged them for CK003; ``invented``: the items of its CK002 findings, in the
    order they stand in the summary; ``ghost_references``: the items of its CK006
    finding; ``findings``: the findings about it that the audit reports; ``hooks``: what
    ctxkeep's hooks did around it (from the restore ledger; None without a record).
    """

    path: str
    compaction: Compaction
    replaced: tuple[Event, ...]
    replaced_by_kind: tuple[tuple[str, int], ...]
    replaced_user_messages: int
    constraints: tuple[ConstraintRow, ...]
    invented: tuple[InventedItem, ...]
    ghost_references: tuple[str, ...]
    findings: tuple[Finding, ...]
    has_history: bool
    hooks: HookActivity | None = None


@dataclass(frozen=True, slots=True)
class SessionDetail:
    """What a report shows of a session beyond its figures and findings.

    ``compactions``: each compaction taken apart, in order. ``token_series``: the
    (seq, context tokens) readings of the session, in order: its usage events, else the
    token figures its compactions report. ``first_seq`` / ``last_seq``: the lowest and
    highest event seq (0 when the session has no events).
    """

    compactions: tuple[CompactionDiff, ...]
    token_series: tuple[tuple[int, int], ...]
    first_seq: int
    last_seq: int


@dataclass(frozen=True, slots=True)
class SessionAudit:
    """The audit of one session: its figures and its sorted findings, and, when the
    audit was asked for it, its :class:`SessionDetail`.

    ``hooks``: what ctxkeep's hooks did around its compactions, and ``ledger`` its
    records in the restore ledger, when the audit read one (else empty and None).
    """

    path: str
    format: str
    events: int
    compactions: CompactionCounts
    by_trigger: tuple[tuple[str, CompactionCounts], ...]
    constraints_total: int
    constraints_kept: int
    peak: PeakContext
    findings: tuple[Finding, ...]
    baselined: int = 0
    detail: SessionDetail | None = None
    hooks: tuple[HookActivity, ...] = ()
    ledger: SessionLedger | None = None

    @property
    def constraints_lost(self) -> int:
        return self.constraints_total - self.constraints_kept

    def count(self, level: Severity) -> int:
        """How many findings of exactly this level."""
        return sum(1 for f in self.findings if f.level is level)

    def damage_key(self) -> tuple[int, int, int, int, str]:
        """Sort key, most damaged first: errors, constraints lost, warnings, then path."""
        return (
            -self.count(Severity.ERROR),
            -self.constraints_lost,
            -self.count(Severity.WARN),
            -self.count(Severity.INFO),
            self.path,
        )


@dataclass(frozen=True, slots=True)
class AuditResult:
    """The audit of every session asked for, and every source that could not be read."""

    sessions: tuple[SessionAudit, ...]
    problems: tuple[Problem, ...] = ()
    rules: tuple[Rule, ...] = field(default=RULES)

    @property
    def findings(self) -> tuple[Finding, ...]:
        return tuple(f for s in self.sessions for f in s.findings)

    @property
    def readable(self) -> bool:
        """False when not one session could be read."""
        return bool(self.sessions)

    def at_or_above(self, level: Severity | str) -> int:
        """How many findings are at or above ``level`` (a Severity or its name, ``"warn"``)."""
        rank = _severity(level).rank
        return sum(1 for f in self.findings if f.level.rank >= rank)

    @property
    def compactions(self) -> CompactionCounts:
        total = CompactionCounts()
        for s in self.sessions:
            total += s.compactions
        return total

    @property
    def by_trigger(self) -> tuple[tuple[str, CompactionCounts], ...]:
        totals = dict.fromkeys(TRIGGERS, CompactionCounts())
        for s in self.sessions:
            for trigger, counts in s.by_trigger:
                totals[trigger] += counts
        return tuple(totals.items())


def _by_trigger(session: Session) -> tuple[tuple[str, CompactionCounts], ...]:
    return tuple(
        (t, CompactionCounts.of(c for c in session.compactions if trigger_of(c) == t))
        for t in TRIGGERS
    )


# The rules whose findings a compaction taken apart lists item by item: what its summary
# invented (CK002) and where the summary points at text it replaced (CK006). A detailed
# audit runs them whatever the selection, as the detail shows every compaction whole.
_INVENTED = "CK002"
_GHOSTS = "CK006"


def _run_rules(ctx: RuleContext, rules: Sequence[Rule]) -> list[Finding]:
    """Every finding of ``rules`` on ``ctx``'s session, unsorted: each session rule once,
    then each compaction rule on each compaction, in order. The views, and what their
    context judged, are cached in ``ctx`` and shared by the rules."""
    found: list[Finding] = []
    for rule in rules:
        if isinstance(rule, SessionRule):
            found.extend(rule.check_session(ctx.session))
    per_compaction = [rule for rule in rules if isinstance(rule, CompactionRule)]
    if per_compaction:
        for view in ctx.views():
            for rule in per_compaction:
                found.extend(rule.check_compaction(view))
    return found


def audit_session(
    session: Session,
    rules: Sequence[Rule] = RULES,
    *,
    baseline: frozenset[str] = frozenset(),
    detail: bool = False,
    ledger: SessionLedger | None = None,
) -> SessionAudit:
    """Run ``rules`` over one session; findings in ``baseline`` are left out (counted).
    ``detail``: also take every compaction apart (:class:`SessionDetail`). ``ledger``: the
    session's records in ctxkeep's restore ledger, read with it."""
    ctx = RuleContext(session, ledger)
    selected = {rule.id for rule in rules}
    unselected = [r for r in RULES if r.id in {_INVENTED, _GHOSTS} - selected] if detail else []
    with cyclic_gc_paused():  # the rules allocate many small acyclic objects (see _gc)
        found = _run_rules(ctx, [*rules, *unselected])
    reported = [f for f in found if f.rule_id in selected]
    kept = sorted((f for f in reported if f.fingerprint not in baseline), key=Finding.sort_key)
    constraints_total, constraints_kept = ctx.constraint_counts()
    hooks = hook_activity(ctx)
    return SessionAudit(
        path=session.path,
        format=session.format,
        events=len(session.events),
        compactions=CompactionCounts.of(session.compactions),
        by_trigger=_by_trigger(session),
        constraints_total=constraints_total,
        constraints_kept=constraints_kept,
        peak=PeakContext.of(session),
        findings=tuple(kept),
        baselined=len(reported) - len(kept),
        detail=_session_detail(ctx, found, kept, hooks) if detail else None,
        hooks=hooks,
        ledger=ledger,
    )


LedgerSource = str | os.PathLike[str] | Ledger
"""A restore ledger: its path, or one already read (:class:`~ctxkeep.log.ledger.Ledger`)."""


def _read_ledger(ledger: LedgerSource | None) -> tuple[Ledger | None, list[Problem]]:
    """The ledger to audit with, or None and the problem when it cannot be read."""
    if ledger is None or isinstance(ledger, Ledger):
        return ledger, []
    try:
        return Ledger.read(ledger), []
    except (OSError, UnicodeDecodeError) as exc:
        return None, [Problem(os.fspath(ledger), 0, f"restore ledger not read: {exc}")]


def _of_session(ledger: Ledger | None, session: Session) -> SessionLedger | None:
    return None if ledger is None else ledger.for_session(session.session_id, session.path)


Source = str | os.PathLike[str] | Session


def _sessions(
    sources: Source | Iterable[Source],
    log_format: str | None,
    options: ReadOptions | None,
) -> Iterator[Session | Problem]:
    if isinstance(sources, str | os.PathLike | Session):
        sources = [sources]
    for source in sources:
        if isinstance(source, Session):
            yield source
            continue
        for found in discover([os.fspath(source)]):
            if isinstance(found, tuple):
                path, problem = found
                yield Problem(str(path), problem.line, problem.reason)
            else:
                yield read_session(found, format=log_format, options=options)


def _problems(session: Session) -> list[Problem]:
    return [Problem(session.path, p.line, p.reason) for p in session.problems]


def _severity(level: Severity | str) -> Severity:
    """``level`` as a Severity: a name is accepted, anything else is a clear TypeError."""
    if isinstance(level, Severity):
        return level
    if isinstance(level, str):
        try:
            return Severity(level.strip().lower())
        except ValueError:
            raise ValueError(f"unknown level {level!r}; known: info, warn, error") from None
    raise TypeError(f"level must be a Severity or one of 'info', 'warn', 'error', not {level!r}")


def _rule_names(value: str | Iterable[str] | None, what: str) -> list[str]:
    """Rule names given as one string (``"CK003"``, ``"CK003,CK004"``) or an iterable of
    them: a string was read letter by letter as ``["C", "K", ...]``."""
    if value is None:
        return []
    if isinstance(value, str):
        return [v.strip() for v in value.split(",") if v.strip()]
    names = list(value)
    for name in names:
        if not isinstance(name, str):
            raise TypeError(f"{what} must hold rule ids or names (strings), not {name!r}")
    return names


def _rules(
    select: str | Sequence[str] | None,
    ignore: str | Sequence[str] | None,
    config: AuditConfig | None,
) -> tuple[Rule, ...]:
    cfg = config or AuditConfig()
    selected = _rule_names(select, "select")
    return select_rules(
        selected if selected else list(cfg.select),
        [*cfg.ignore, *_rule_names(ignore, "ignore")],
    )


def audit(
    path_or_session: Source | Iterable[Source],
    *,
    select: str | Sequence[str] | None = None,
    ignore: str | Sequence[str] | None = None,
    config: AuditConfig | None = None,
    log_format: str | None = None,
    options: ReadOptions | None = None,
    baseline: frozenset[str] = frozenset(),
    detail: bool = False,
    ledger: LedgerSource | None = None,
) -> AuditResult:
    """Audit one session, a log file, a folder of logs, or several of these.

    ``select`` replaces the config's selection; ``ignore`` adds to the config's. Rule ids,
    names, id prefixes and ``ALL`` are accepted; an unknown one raises
    :class:`~ctxkeep.rules.UnknownRuleError`. Sessions come back in the order given
    (folders in path order); unreadable sources are in ``problems``, never raised.
    ``detail``: each session's audit also holds its :class:`SessionDetail` (what the
    HTML report shows; it keeps the events each summary replaced in memory). ``ledger``:
    ctxkeep's restore ledger (``CTXKEEP_HOME/restores.jsonl``, written by its hooks;
    docs/hooks.md) to read what the hooks put in each session's context; none by default.
    One that cannot be read is a problem; its torn or foreign lines are skipped.
    """
    rules = _rules(select, ignore, config)
    sessions: list[SessionAudit] = []
    book, problems = _read_ledger(ledger)
    # Paused from reading to verdict: a session read is millions of acyclic objects, freed
    # by reference counting once audited; with the collector on, they would first be
    # walked by each collection the audit triggers (300 MB log: 1.96 -> 1.62 s audit).
    item: Session | Problem | None = None
    with cyclic_gc_paused():
        for item in _sessions(path_or_session, log_format, options):
            if isinstance(item, Problem):
                problems.append(item)
                continue
            problems.extend(_problems(item))
            if item.readable:
                of_session = _of_session(book, item)
                sessions.append(
                    audit_session(item, rules, baseline=baseline, detail=detail, ledger=of_session)
                )
        item = None  # the last session goes before the collector is back
    return AuditResult(tuple(sessions), tuple(problems), rules)


def _audit_one(
    path: str,
    rule_ids: tuple[str, ...],
    log_format: str | None,
    summary_index: int | None,
    baseline: frozenset[str],
    detail: bool,
    ledger: Ledger | None = None,
) -> tuple[SessionAudit | None, list[Problem]]:
    """One session in a worker process (plain arguments, so it pickles cheaply)."""
    with cyclic_gc_paused():  # as in audit(): the session is freed before it resumes
        session = read_session(path, format=log_format, options=ReadOptions(summary_index))
        rules = tuple(r for r in RULES if r.id in rule_ids)
        audited = None
        if session.readable:
            of_session = _of_session(ledger, session)
            audited = audit_session(
                session, rules, baseline=baseline, detail=detail, ledger=of_session
            )
        problems = _problems(session)
        del session
    return audited, problems


@dataclass(slots=True)
class _Worker:
    """What a sweep's worker process is given once, when it starts: the ledger (passed
    with every session, it would be pickled once per session)."""

    ledger: Ledger | None = None


_worker = _Worker()


def _start_worker(ledger: Ledger | None) -> None:
    _worker.ledger = ledger


def _audit_in_worker(
    path: str,
    rule_ids: tuple[str, ...],
    log_format: str | None,
    summary_index: int | None,
    baseline: frozenset[str],
    detail: bool,
) -> tuple[SessionAudit | None, list[Problem]]:
    return _audit_one(path, rule_ids, log_format, summary_index, baseline, detail, _worker.ledger)


def sweep(
    folders: Iterable[str | os.PathLike[str]],
    *,
    select: str | Sequence[str] | None = None,
    ignore: str | Sequence[str] | None = None,
    config: AuditConfig | None = None,
    log_format: str | None = None,
    options: ReadOptions | None = None,
    baseline: frozenset[str] = frozenset(),
    jobs: int | None = None,
    on_found: Callable[[int], None] | None = None,
    on_done: Callable[[SessionAudit | None], None] | None = None,
    detail: bool = False,
    ledger: LedgerSource | None = None,
) -> AuditResult:
    """Audit every session under ``folders``, ``jobs`` processes at a time (default: one
    per core; 1 runs in this process), ranked by damage: errors first, then constraints
    lost, then warnings. ``on_found(n)`` is told how many sources there are and
    ``on_done`` is called as each finishes (for a progress bar; the library prints
    nothing). ``detail`` and ``ledger`` as in :func:`audit`."""
    rules = _rules(select, ignore, config)
    rule_ids = tuple(r.id for r in rules)
    summary_index = (options or ReadOptions()).summary_index
    book, problems = _read_ledger(ledger)
    paths: list[str] = []
    for found in discover(os.fspath(f) for f in folders):
        if isinstance(found, tuple):
            problems.append(Problem(str(found[0]), found[1].line, found[1].reason))
        else:
            paths.append(str(found))
    if on_found is not None:
        on_found(len(paths))
    audits: list[SessionAudit] = []
    workers = jobs if jobs is not None else (os.cpu_count() or 1)

    def collect(outcome: tuple[SessionAudit | None, list[Problem]]) -> None:
        audited, its_problems = outcome
        problems.extend(its_problems)
        if audited is not None:
            audits.append(audited)
        if on_done is not None:
            on_done(audited)

    if workers <= 1 or len(paths) <= 1:
        for path in paths:
            collect(_audit_one(path, rule_ids, log_format, summary_index, baseline, detail, book))
    else:
        # imported here: an audit in one process does not pay for the process pool
        from concurrent.futures import ProcessPoolExecutor, as_completed

        with ProcessPoolExecutor(
            max_workers=min(workers, len(paths)), initializer=_start_worker, initargs=(book,)
        ) as pool:
            args = (rule_ids, log_format, summary_index, baseline, detail)
            futures = [pool.submit(_audit_in_worker, p, *args) for p in paths]
            for future in as_completed(futures):
                collect(future.result())
    audits.sort(key=SessionAudit.damage_key)
    problems.sort(key=lambda p: (p.path, p.line, p.reason))
    return AuditResult(tuple(audits), tuple(problems), rules)


class NoSuchCompactionError(LookupError):
    """``diff`` was asked for a compaction the session does not have."""


def _source_line(text: str, start: int) -> str:
    """The line of ``text`` holding offset ``start``, stripped."""
    begin = text.rfind("\n", 0, start) + 1
    end = text.find("\n", start)
    return text[begin : end if end != -1 else len(text)].strip()


def _constraint_row(j: JudgedConstraint, compaction: Compaction) -> ConstraintRow:
    event = j.event
    where = j.source.offset + j.constraint.start
    return ConstraintRow(
        text=j.constraint.text,
        kind=j.constraint.kind,
        survival=j.survival,
        seq=compaction.start_seq if event is None else event.seq,
        line=j.source.line if event is None else event.line,
        source=_source_line(j.source.text if event is None else event.text, where),
        origin=j.source.origin.value,
        inherited_from=j.inherited_from,
        carried_as=j.carrier,
        restored_after=j.restored_after,
        asked=j.asked,
    )


def _invented(compaction: Compaction, findings: Iterable[Finding]) -> tuple[InventedItem, ...]:
    """The items of the compaction's CK002 findings, in the order they stand in its
    summary, each with its line in the summary."""
    summary = compaction.summary or ""
    details = [d for f in findings if f.rule_id == _INVENTED for d in f.items_detail]
    details.sort(key=lambda d: d.span or (0, 0))
    return tuple(
        InventedItem(
            d.item,
            d.kind,
            summary.count("\n", 0, d.span[0] if d.span else 0) + 1,
            d.confidence,
            d.why,
        )
        for d in details
    )


def _compaction_diff(
    view: CompactionView,
    found: Sequence[Finding],
    reported: Sequence[Finding],
    hooks: HookActivity | None,
) -> CompactionDiff:
    """``view``'s compaction taken apart: ``found`` are every finding the rules made about
    it, ``reported`` those the audit reports (selected, not in the baseline), ``hooks``
    what ctxkeep's hooks did around it."""
    c = view.compaction
    kinds = Counter(e.kind.value for e in view.shadowed)
    return CompactionDiff(
        path=view.session.path,
        compaction=c,
        replaced=view.shadowed,
        replaced_by_kind=tuple(sorted(kinds.items())),
        replaced_user_messages=sum(
            1 for e in view.shadowed if e.kind is EventKind.MESSAGE and e.role == "user"
        ),
        constraints=tuple(_constraint_row(j, c) for j in view.constraints),
        invented=_invented(c, found),
        ghost_references=tuple(item for f in found if f.rule_id == _GHOSTS for item in f.items),
        findings=tuple(reported),
        has_history=view.has_history,
        hooks=hooks,
    )


def _token_series(session: Session) -> tuple[tuple[int, int], ...]:
    """(seq, context tokens) readings of the session, in order: its usage events, else
    the token figures its compactions report."""
    usage = tuple(
        (e.seq, e.tokens)
        for e in session.events
        if e.kind is EventKind.USAGE and e.tokens is not None
    )
    if usage:
        return usage
    points: list[tuple[int, int]] = []
    for c in session.compactions:
        if c.tokens_before is not None:
            points.append((c.start_seq, c.tokens_before))
        if c.tokens_after is not None:
            points.append((c.end_seq or c.start_seq, c.tokens_after))
    return tuple(sorted(points))


def _session_detail(
    ctx: RuleContext,
    found: Sequence[Finding],
    reported: Sequence[Finding],
    hooks: Sequence[HookActivity],
) -> SessionDetail:
    """Every compaction of ``ctx``'s session taken apart, and its token curve."""
    hooks_of = {h.compaction: h for h in hooks}
    by_compaction: dict[int | None, list[Finding]] = {}
    for f in found:
        by_compaction.setdefault(f.compaction, []).append(f)
    shown: dict[int | None, list[Finding]] = {}
    for f in reported:
        shown.setdefault(f.compaction, []).append(f)
    seqs = [e.seq for e in ctx.session.events]
    return SessionDetail(
        compactions=tuple(
            _compaction_diff(
                view,
                by_compaction.get(view.compaction.index, []),
                shown.get(view.compaction.index, []),
                hooks_of.get(view.compaction.index),
            )
            for view in ctx.views()
        ),
        token_series=_token_series(ctx.session),
        first_seq=min(seqs, default=0),
        last_seq=max(seqs, default=0),
    )


def _unreadable(session: Session) -> str:
    """Why nothing could be read from ``session``'s source, in one line."""
    first = session.problems[0]
    return (
        first.reason if first.line == 0 else f"cannot be read (line {first.line}: {first.reason})"
    )


def diff(
    path_or_session: str | os.PathLike[str] | Session,
    compaction: int,
    *,
    log_format: str | None = None,
    options: ReadOptions | None = None,
    ledger: LedgerSource | SessionLedger | None = None,
) -> CompactionDiff:
    """Take compaction number ``compaction`` (1-based) of one session apart: the session
    is audited with every rule and its detail kept (:func:`audit_session`). ``ledger``:
    ctxkeep's restore ledger, as for :func:`audit` (or the session's records in it); one
    that cannot be read raises ``OSError``.

    Raises :class:`NoSuchCompactionError` when the session has no such compaction (the
    message says how many it has, and the problems met reading it).
    """
    if isinstance(path_or_session, Session):
        session = path_or_session
    else:
        session = read_session(os.fspath(path_or_session), format=log_format, options=options)
    if not any(c.index == compaction for c in session.compactions):
        if not session.readable:  # a missing file is missing, not compaction-less
            raise NoSuchCompactionError(f"{session.path}: {_unreadable(session)}")
        why = "; ".join(f"line {p.line}: {p.reason}" for p in session.problems[:3])
        raise NoSuchCompactionError(
            f"{session.path}: no compaction {compaction}; the log has "
            f"{len(session.compactions)}" + (f" ({why})" if why else "")
        )
    if isinstance(ledger, SessionLedger) or ledger is None:
        of_session = ledger
    else:
        book = ledger if isinstance(ledger, Ledger) else Ledger.read(ledger)
        of_session = book.for_session(session.session_id, session.path)
    detail = audit_session(session, detail=True, ledger=of_session).detail
    assert detail is not None  # asked for
    return next(d for d in detail.compactions if d.compaction.index == compaction)
