"""The quality benchmark: what survives compaction at a budget, compactor by compactor.

For every generated session, every compactor and every budget (50%, 25%, 10% of the
session's tokens) the compacted messages are judged by ctxkeep's own extractors and
auditor:

- **constraint survival**: of the constraints the generator planted, the share that the
  compacted context still carries — each planted constraint is found with
  :func:`~ctxkeep.extract.extract_constraints` in the message that holds it and judged
  with :func:`~ctxkeep.extract.constraint_survives` (verbatim or reworded with its entity
  words) against the whole compacted context;
- **auditor constraints**: the same question asked of the auditor, which finds the
  constraints itself (every user instruction it recognises, not only the planted ones):
  the compacted context is audited as the summary of a compaction that replaced the
  session (rules CK002 and CK003);
- **identifier survival**: of the identifiers planted in tool output, the share still
  present (:class:`~ctxkeep.extract.SourceIndex`);
- **invented items**: identifiers in the compacted context found in no source message
  (CK002's items);
- **valid sequence**: no orphan tool call or result, per
  :func:`~ctxkeep.verify.validity.sequence_problems` for the OpenAI API;
- **bytes and tokens saved**: 1 - after / before, summed over sessions.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import msgspec

from ctxkeep.base.messages import (
    message_prose,
    message_role,
    message_text,
    tool_calls,
    tool_results,
)
from ctxkeep.base.tokens import count_tokens
from ctxkeep.bench.compactors import Compactor, available_compactors
from ctxkeep.bench.corpus import GeneratedSession, SessionSpec, corpus, generate_session

__all__ = [
    "BUDGETS",
    "QualityReport",
    "QualityRow",
    "RunMetrics",
    "judge",
    "run_quality",
    "steps",
    "to_json",
]

BUDGETS: tuple[float, ...] = (0.50, 0.25, 0.10)
_encode = msgspec.json.Encoder(order="sorted").encode


@dataclass(frozen=True, slots=True)
class RunMetrics:
    """One compactor on one session at one budget."""

    session: str
    compactor: str
    budget: float
    constraints_total: int
    constraints_kept: int
    auditor_constraints_total: int
    auditor_constraints_kept: int
    identifiers_total: int
    identifiers_kept: int
    invented: tuple[str, ...]
    valid: bool
    sequence_problems: tuple[str, ...]
    bytes_before: int
    bytes_after: int
    tokens_before: int
    tokens_after: int
    budget_tokens: int
    error: str | None = None


@dataclass(frozen=True, slots=True)
class QualityRow:
    """One compactor at one budget, over the whole corpus (micro-averaged)."""

    compactor: str
    budget: float
    runs: int
    constraint_survival: float | None
    auditor_constraint_survival: float | None
    identifier_survival: float | None
    invented: int
    valid_rate: float | None
    bytes_saved: float | None
    tokens_saved: float | None
    over_budget: int
    errors: int
    unavailable: str | None = None


@dataclass(frozen=True, slots=True)
class QualityReport:
    """The whole benchmark: its rows, every run, and how the corpus was cross-checked."""

    corpus: str
    sessions: tuple[str, ...]
    budgets: tuple[float, ...]
    rows: tuple[QualityRow, ...]
    runs: tuple[RunMetrics, ...]
    planted_constraints: int
    extractor_found_constraints: int
    planted_identifiers: int
    extractor_found_identifiers: int
    token_method: str
    notes: tuple[str, ...] = field(default=())


class _Sizer:
    """JSON bytes and o200k tokens of message lists, token counts memoised by text for one
    benchmark run (every compactor at every budget hands back the same messages)."""

    def __init__(self) -> None:
        self._tokens: dict[str, int] = {}

    def tokens(self, message: Any) -> int:
        text = message_text(message)
        n = self._tokens.get(text)
        if n is None:
            n = self._tokens[text] = count_tokens(text)
        return n

    def __call__(self, messages: Sequence[Any]) -> tuple[int, int]:
        nbytes = sum(len(_encode(m)) for m in messages)
        return nbytes, sum(self.tokens(m) for m in messages)


def _planted_constraint_objects(session: GeneratedSession) -> list[tuple[str, Any]]:
    """Each planted constraint paired with the Constraint ctxkeep's extractor finds at its
    place (None where the extractor does not find it)."""
    from ctxkeep.extract import extract_constraints

    out: list[tuple[str, Any]] = []
    found_by_message: dict[int, list[Any]] = {}
    for planted in session.constraints:
        text = message_prose(session.messages[planted.message_index])
        found = found_by_message.setdefault(planted.message_index, list(extract_constraints(text)))
        start = text.find(planted.text)
        end = start + len(planted.text)
        match = next((c for c in found if c.start < end and start < c.end), None)
        out.append((planted.text, match))
    return out


def _events_session(session: GeneratedSession, compacted: Sequence[Any]) -> Any:
    """The session as the auditor sees it: every message an event, then one compaction
    whose summary is the whole compacted context and which replaced everything."""
    from ctxkeep.log.model import Compaction, CompactionStatus, Event, EventKind, Session

    events: list[Any] = []
    seq = 0
    for message in session.messages:
        role = message_role(message)
        prose = message_prose(message)
        if role in ("system", "user", "assistant") and prose:
            seq += 1
            events.append(
                Event(
                    seq,
                    EventKind.MESSAGE,
                    role=role,
                    text=prose,
                    injected="system" if role == "system" else None,
                )
            )
        for call in tool_calls(message):
            seq += 1
            # The tool's name is on screen too (message_text shows it): without it in the
            # sources, a kept call's name would count as invented.
            events.append(
                Event(
                    seq,
                    EventKind.TOOL_CALL,
                    role="assistant",
                    text=f"{call.name or ''} {call.arguments}".strip(),
                    call_id=call.id,
                    tool_name=call.name,
                )
            )
        for result in tool_results(message):
            seq += 1
            events.append(
                Event(
                    seq,
                    EventKind.TOOL_RESULT,
                    role="tool",
                    text=result.text,
                    call_id=result.id,
                    injected="tool-result",
                )
            )
    shadowed = tuple(e.seq for e in events)
    summary = "\n\n".join(message_text(m) for m in compacted)
    events.append(Event(seq + 1, EventKind.COMPACTION_START))
    events.append(Event(seq + 2, EventKind.COMPACTION_END))
    compaction = Compaction(
        index=1,
        id="bench",
        start_seq=seq + 1,
        end_seq=seq + 2,
        status=CompactionStatus.SUMMARISED,
        trigger="manual",
        summary=summary,
        shadowed_seqs=shadowed,
    )
    return Session(session.spec.name, "bench", events=tuple(events), compactions=(compaction,))


def judge(
    session: GeneratedSession,
    compacted: Sequence[Any],
    compactor: str,
    budget: float,
    budget_tokens: int,
    planted: Sequence[tuple[str, Any]] | None = None,
    sizes: _Sizer | None = None,
) -> RunMetrics:
    """Every metric of one compacted output, by ctxkeep's own extractors and auditor."""
    from ctxkeep.engine import audit_session
    from ctxkeep.extract import SourceIndex, Survival, constraint_survives
    from ctxkeep.rules import select_rules
    from ctxkeep.verify.validity import sequence_problems

    planted = planted if planted is not None else _planted_constraint_objects(session)
    context = "\n\n".join(message_text(m) for m in compacted)
    kept = 0
    for text, constraint in planted:
        if constraint is None:
            # The extractor missed it (counted in the cross-check): judge it verbatim.
            kept += text in context
        else:
            kept += constraint_survives(constraint, context) is not Survival.LOST
    index = SourceIndex([message_text(m) for m in compacted])
    ids_kept = sum(index.contains(i.text, i.kind) for i in session.identifiers)
    audited = audit_session(
        _events_session(session, compacted), select_rules(["CK002", "CK003"], [])
    )
    invented = tuple(item for f in audited.findings if f.rule_id == "CK002" for item in f.items)
    problems = sequence_problems(list(compacted), "openai")
    sizes = sizes if sizes is not None else _Sizer()
    bytes_before, tokens_before = sizes(session.messages)
    bytes_after, tokens_after = sizes(compacted)
    return RunMetrics(
        session=session.spec.name,
        compactor=compactor,
        budget=budget,
        constraints_total=len(planted),
        constraints_kept=kept,
        auditor_constraints_total=audited.constraints_total,
        auditor_constraints_kept=audited.constraints_kept,
        identifiers_total=len(session.identifiers),
        identifiers_kept=ids_kept,
        invented=invented,
        valid=not problems,
        sequence_problems=tuple(sorted({p.code for p in problems})),
        bytes_before=bytes_before,
        bytes_after=bytes_after,
        tokens_before=tokens_before,
        tokens_after=tokens_after,
        budget_tokens=budget_tokens,
    )


def _ratio(num: int, den: int) -> float | None:
    return num / den if den else None


def _aggregate(compactor: Compactor, budget: float, runs: Sequence[RunMetrics]) -> QualityRow:
    if compactor.run is None:
        return QualityRow(
            compactor.name,
            budget,
            0,
            None,
            None,
            None,
            0,
            None,
            None,
            None,
            0,
            0,
            compactor.unavailable or "unavailable",
        )
    ok = [r for r in runs if r.error is None]
    return QualityRow(
        compactor=compactor.name,
        budget=budget,
        runs=len(runs),
        constraint_survival=_ratio(
            sum(r.constraints_kept for r in ok), sum(r.constraints_total for r in ok)
        ),
        auditor_constraint_survival=_ratio(
            sum(r.auditor_constraints_kept for r in ok),
            sum(r.auditor_constraints_total for r in ok),
        ),
        identifier_survival=_ratio(
            sum(r.identifiers_kept for r in ok), sum(r.identifiers_total for r in ok)
        ),
        invented=sum(len(r.invented) for r in ok),
        valid_rate=_ratio(sum(r.valid for r in ok), len(ok)),
        bytes_saved=(1 - r)
        if (r := _ratio(sum(x.bytes_after for x in ok), sum(x.bytes_before for x in ok)))
        is not None
        else None,
        tokens_saved=(1 - r)
        if (r := _ratio(sum(x.tokens_after for x in ok), sum(x.tokens_before for x in ok)))
        is not None
        else None,
        over_budget=sum(r.tokens_after > r.budget_tokens for r in ok),
        errors=len(runs) - len(ok),
    )


def run_quality(
    corpus_name: str = "small",
    *,
    specs: Iterable[SessionSpec] | None = None,
    budgets: Sequence[float] = BUDGETS,
    compactors: Sequence[Compactor] | None = None,
    on_step: Callable[[], None] | None = None,
) -> QualityReport:
    """Run every compactor on every session of the corpus at every budget.

    ``on_step`` is called after each (session, compactor, budget) run, for a progress bar.
    A compactor that raises is recorded as an error on that run, never fatal: the
    benchmark reports what it measured.
    """
    from ctxkeep.base.tokens import token_method
    from ctxkeep.extract import extract_identifiers

    chosen = list(specs) if specs is not None else list(corpus(corpus_name))
    rows_of = list(compactors) if compactors is not None else list(available_compactors())
    runs: list[RunMetrics] = []
    sizes = _Sizer()
    planted_c = found_c = planted_i = found_i = 0
    for spec in chosen:
        session = generate_session(spec)
        planted = _planted_constraint_objects(session)
        planted_c += len(planted)
        found_c += sum(c is not None for _, c in planted)
        for ident in session.identifiers:
            planted_i += 1
            holder = message_text(session.messages[ident.message_index])
            found_i += _extractor_finds(ident.text, holder, extract_identifiers)
        _, tokens_before = sizes(session.messages)
        for compactor in rows_of:
            for budget in budgets:
                if compactor.run is not None:
                    budget_tokens = max(1, int(tokens_before * budget))
                    try:
                        out = compactor.run(session.messages, session.task, budget_tokens)
                        runs.append(
                            judge(
                                session, out, compactor.name, budget, budget_tokens, planted, sizes
                            )
                        )
                    except Exception as exc:  # a failing compactor is a result, not a crash
                        runs.append(_failed(session, compactor.name, budget, budget_tokens, exc))
                if on_step is not None:
                    on_step()
    rows = tuple(
        _aggregate(c, b, [r for r in runs if r.compactor == c.name and r.budget == b])
        for c in rows_of
        for b in budgets
    )
    return QualityReport(
        corpus=corpus_name if specs is None else "custom",
        sessions=tuple(s.name for s in chosen),
        budgets=tuple(budgets),
        rows=rows,
        runs=tuple(runs),
        planted_constraints=planted_c,
        extractor_found_constraints=found_c,
        planted_identifiers=planted_i,
        extractor_found_identifiers=found_i,
        token_method=token_method(),
    )


def _extractor_finds(planted: str, holder: str, extract: Callable[[str], Any]) -> bool:
    """Whether the extractor reports the planted identifier, allowing its own span: a path
    with its line number (``src/a.py:12``), a call with its parenthesis (``f(``)."""
    return any(planted in i.text or i.text in planted for i in extract(holder))


def _failed(
    session: GeneratedSession, compactor: str, budget: float, budget_tokens: int, exc: Exception
) -> RunMetrics:
    bytes_before, tokens_before = _Sizer()(session.messages)
    return RunMetrics(
        session.spec.name,
        compactor,
        budget,
        0,
        0,
        0,
        0,
        0,
        0,
        (),
        False,
        (),
        bytes_before,
        0,
        tokens_before,
        0,
        budget_tokens,
        error=f"{type(exc).__name__}: {exc}",
    )


def steps(
    corpus_name: str, budgets: Sequence[float] = BUDGETS, compactors: int | None = None
) -> int:
    """How many runs :func:`run_quality` makes (for a progress bar's length)."""
    n = compactors if compactors is not None else len(available_compactors())
    return len(corpus(corpus_name)) * len(budgets) * n


def to_json(report: QualityReport) -> bytes:
    """The report as sorted-key JSON (no timestamps: the same run gives the same bytes)."""
    return msgspec.json.format(_encode(report), indent=2) + b"\n"
