"""compact() and replay(): segment -> protect -> score -> fit -> summarise -> assemble.

Each step is a function of its own module:

1. **segment** (:mod:`~ctxkeep.compactor.segment`): every message as text, size, tokens
   and hash; tool calls grouped with their results into units;
2. **protect** (:mod:`~ctxkeep.compactor.protect`): system messages, the last
   ``keep_recent``, pinned ones;
3. **score** (:mod:`~ctxkeep.compactor.score`): the scorer's value for the rest (replay
   reads the values from a receipt instead);
4. **fit** (:mod:`~ctxkeep.compactor.fit` for a soft budget,
   :mod:`~ctxkeep.compactor.hard` for a hard one): which units stay, and under a hard
   budget which are shortened to spans;
5. **summarise** (:mod:`~ctxkeep.compactor.summary`): the instructions and facts of what
   went, packed to the room left; or, with a ``summarizer``, its text audited and
   repaired (:mod:`~ctxkeep.compactor.abstractive`, :mod:`~ctxkeep.compactor.repair`);
6. **assemble** (here): the output list, one decision per message, the stats.

compact() and replay() share steps 1, 2 and 4-6, so a replay at the original budget
makes exactly the original decisions. Neither ever raises: invalid options become
``problems`` on the result, and an unexpected error leaves the input untouched with the
error named in ``problems``.
"""

from __future__ import annotations

import hashlib
import heapq
import math
import os
from collections import deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from itertools import compress
from typing import Any

from ctxkeep.base._gc import cyclic_gc_paused
from ctxkeep.base.messages import Messages
from ctxkeep.base.tokens import count_tokens, estimate_tokens, token_method
from ctxkeep.compactor.abstractive import AbstractiveStep, describe_summarizer, make_summarizer
from ctxkeep.compactor.facts import FactSource
from ctxkeep.compactor.fit import Budget, Classified, Plan, classify, soft_plan
from ctxkeep.compactor.hard import HardInput, fit_hard, mandatory_messages, why_not
from ctxkeep.compactor.protect import Protection, protect
from ctxkeep.compactor.receipts import (
    ReceiptFile,
    ReceiptRun,
    append_receipt,
    read_receipts,
    receipt_block,
    without_credentials,
)
from ctxkeep.compactor.result import (
    CompactionResult,
    CompactionStats,
    Decision,
    SummaryRepair,
    frozen_from_columns,
)
from ctxkeep.compactor.score import Scoring, resolve_scorer, score, scorer_name
from ctxkeep.compactor.segment import Segments, Unit, group_units, read_segments, unit_of_each
from ctxkeep.compactor.summary import (
    Summarizer,
    SummaryRequest,
    conversation_dialect,
    extractive_summary,
    held_to_caps,
    scan_limit,
    summary_message,
)
from ctxkeep.compactor.text import utf8_size
from ctxkeep.log.model import located
from ctxkeep.scorers import Candidate, Score, Scorer
from ctxkeep.scorers.recency import recency_score

__all__ = ["compact", "replay"]

BUDGET_MODES = ("soft", "hard")


@dataclass(frozen=True, slots=True)
class _Settings:
    target_bytes: int | None
    target_tokens: int | None
    keep_recent: int
    batch_size: int
    min_confidence: float
    summary_bytes: int
    summary_role: str
    state_message_bytes: int
    pin_patterns: tuple[str, ...]
    enable_pinning: bool
    pin_flags: str
    budget: str

    def to_dict(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self.__slots__}

    @property
    def limit(self) -> Budget:
        return Budget(self.target_bytes, self.target_tokens)


# --- option checking -----------------------------------------------------------------


def _opt_int(value: Any, name: str, default: int | None, problems: list[str]) -> int | None:
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        problems.append(f"{name}: expected a non-negative integer, got {value!r}; using {default}")
        return default
    return value


def _min_confidence(value: Any, problems: list[str]) -> float:
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or not math.isfinite(value)
        or not 0.0 <= value <= 1.0
    ):
        problems.append(f"min_confidence: expected a number in [0, 1], got {value!r}")
        return 0.35
    return float(value)


def _pin_patterns(patterns: Any, problems: list[str]) -> tuple[str, ...]:
    if isinstance(patterns, str):
        return (patterns,)
    try:
        return tuple(patterns or ())
    except TypeError:
        problems.append("pin_patterns: expected a sequence of regex strings")
        return ()


def _settings(options: Mapping[str, Any], problems: list[str]) -> _Settings:
    def number(name: str, default: int) -> int:
        value = _opt_int(options[name], name, default, problems)
        return default if value is None else value

    role = options["summary_role"]
    if not isinstance(role, str) or not role:
        problems.append(f"summary_role: expected a role name, got {role!r}; using 'system'")
        role = "system"
    flags = options["pin_flags"]
    if not isinstance(flags, str):
        problems.append(f"pin_flags: expected letters of 'imsx', got {flags!r}")
        flags = "i"
    mode = options.get("budget", "soft")
    if mode not in BUDGET_MODES:
        problems.append(f"budget: expected 'soft' or 'hard', got {mode!r}; using 'soft'")
        mode = "soft"
    return _Settings(
        target_bytes=_opt_int(options["target_bytes"], "target_bytes", None, problems),
        target_tokens=_opt_int(options["target_tokens"], "target_tokens", None, problems),
        keep_recent=number("keep_recent", 4),
        batch_size=max(1, number("batch_size", 8)),
        min_confidence=_min_confidence(options["min_confidence"], problems),
        summary_bytes=number("summary_bytes", 1024),
        summary_role=role,
        state_message_bytes=number("state_message_bytes", 2000),
        pin_patterns=_pin_patterns(options["pin_patterns"], problems),
        enable_pinning=bool(options["enable_pinning"]),
        pin_flags=flags,
        budget=mode,
    )


def _as_list(messages: Any, problems: list[str]) -> list[Any]:
    if isinstance(messages, str | bytes | bytearray | Mapping) or not isinstance(
        messages, Iterable
    ):
        problems.append(f"messages: expected a sequence of messages, got {type(messages).__name__}")
        return []
    try:
        return list(messages)
    except Exception as exc:  # a caller's iterator may raise anything
        problems.append(f"messages: could not be read ({type(exc).__name__}: {exc})")
        return []


# --- the pipeline ----------------------------------------------------------------------


ScoreStep = Callable[[Segments, list[int]], Scoring]
"""Step 3 as compact() and replay() do it: scores for the messages that may be scored."""


def _needs_compacting(segments: Segments, units: Sequence[Unit], budget: Budget) -> bool:
    """Whether the sendable messages exceed the budget (orphans are dropped anyway)."""
    unsendable = [i for u in units if u.broken and not u.pending for i in u.members]
    total_b = sum(segments.sizes) - sum(segments.sizes[i] for i in unsendable)
    total_t = sum(segments.tokens) - sum(segments.tokens[i] for i in unsendable)
    return budget.exceeded_by(total_b, total_t) != (0, 0)


def _to_score_order(units: Sequence[Unit], own: Sequence[str]) -> list[int]:
    """The messages that may be scored, in order of their unit's first message (a remote
    scorer's batches follow the conversation): a message alone unless it is protected; a
    tool unit when none of its members is."""
    order: list[int] = []
    for i, (reason, unit) in enumerate(zip(own, unit_of_each(units, len(own)), strict=True)):
        if unit is None:
            if not reason:
                order.append(i)
        elif i == unit.members[0] and not unit.broken and not any(own[k] for k in unit.members):
            order.extend(unit.members)
    return order


def _untouched_plan(n: int, units: Sequence[Unit]) -> Plan:
    """Nothing to compact: every message stays but orphans (no API accepts them)."""
    plan = Plan(kept=[True] * n, reasons=["under-budget"] * n, dropped=[])
    for unit in units:
        if unit.broken and not unit.pending:
            for i in unit.members:
                plan.kept[i], plan.reasons[i] = False, "orphan"
    return plan


def _run_id(segments: Segments, settings: _Settings, task: str, scorer: str) -> str:
    digest = hashlib.sha256("".join(segments.hashes).encode())
    digest.update(repr((settings.to_dict(), task, scorer)).encode("utf-8", "surrogatepass"))
    return digest.hexdigest()[:16]


@dataclass
class _Run:
    """One compaction: its inputs and what the steps found."""

    messages: list[Any]
    settings: _Settings
    segments: Segments
    units: list[Unit]
    protection: Protection
    scoring: Scoring
    task: str
    exact: bool
    problems: list[str]
    abstractive: AbstractiveStep | None = None
    repair: SummaryRepair | None = None
    """The summariser's record for the last summary written (step 5)."""


def _pipeline(
    messages: list[Any],
    settings: _Settings,
    score_step: ScoreStep,
    name_run: Callable[[Segments, Scoring], str],
    task: str,
    problems: list[str],
    abstractive: AbstractiveStep | None = None,
) -> CompactionResult:
    exact = settings.target_tokens is not None
    segments = read_segments(messages, exact_tokens=exact)  # 1. segment
    units = group_units(segments)
    protection = protect(  # 2. protect
        segments,
        keep_recent=settings.keep_recent,
        pin_patterns=settings.pin_patterns,
        enable_pinning=settings.enable_pinning,
        pin_flags=settings.pin_flags,
        problems=problems,
    )
    own = protection.reasons
    needed = _needs_compacting(segments, units, settings.limit)
    scoring = score_step(segments, _to_score_order(units, own) if needed else [])  # 3. score
    run = _Run(
        messages, settings, segments, units, protection, scoring, task, exact, problems,
        abstractive,
    )  # fmt: skip
    run_id = name_run(segments, scoring)
    if not needed:
        return _assemble(run, _untouched_plan(len(segments), units), None, run_id)
    classified = classify(segments, units, own, scoring.scores, settings.min_confidence)
    if settings.budget == "hard":
        return _hard(run, classified, run_id)
    plan = soft_plan(len(segments), classified, settings.limit, settings.summary_bytes)  # 4. fit
    return _assemble(run, plan, _summarise(run, plan), run_id)  # 5. summarise, 6. assemble


def _hard(run: _Run, classified: Classified, run_id: str) -> CompactionResult:
    """Fit, summarise and assemble under a hard budget, measured on the output: when the
    output is over (a summary's tokens, a shortened message's), plan again with the
    budget lowered by the excess; at worst only the mandatory part is left."""
    limit = run.settings.limit
    budget = limit
    for _attempt in range(12):
        inp = HardInput(
            run.messages, run.segments, run.protection, run.scoring.scores, budget,
            run.settings.summary_bytes, run.exact,
        )  # fmt: skip
        plan = fit_hard(inp, classified)
        if not plan.fits:
            run.problems.append(
                why_not(replace(inp, budget=limit), mandatory_messages(run.segments))
            )
            return _assemble(run, plan, None, run_id)
        result = _assemble(run, plan, _summarise(run, plan), run_id)
        over_b, over_t = limit.exceeded_by(result.stats.bytes_after, result.stats.tokens_after)
        if (over_b, over_t) == (0, 0):
            return result
        budget = Budget(
            None if budget.bytes is None else budget.bytes - over_b - 1 - budget.bytes // 50,
            None if budget.tokens is None else budget.tokens - over_t - 1 - budget.tokens // 50,
        )
    plan = fit_hard(
        replace(
            inp,
            budget=Budget(
                0 if limit.bytes is not None else None, 0 if limit.tokens is not None else None
            ),
        ),
        classified,
    )
    return _assemble(run, plan, None, run_id)


# --- summarise -------------------------------------------------------------------------


def _summary_sources(run: _Run, plan: Plan) -> tuple[FactSource, ...]:
    """The dropped texts and the elided parts of shortened messages, in reading order:
    what the user said first, then by the scorer's value, newer first. Every user text is
    listed (instructions are read from all of them); the others up to what the summary
    reads (:func:`~ctxkeep.compactor.summary.scan_limit`)."""
    segments = run.segments
    roles = segments.roles
    value = {i: score.value for i, score in run.scoring.scores.items()}
    texts = {i: segments.texts[i] for i in plan.dropped}
    texts.update((i, text) for i, text in plan.elided.items() if text)
    users = sorted((-value.get(i, 0.0), -i) for i in texts if roles[i] == "user")
    chosen = [-neg for _value, neg in users]
    read = sum(len(texts[i]) for i in chosen)
    # The others are read best first only until the scan limit: a heap, not a full sort
    # (a few hundred of thousands are read), and none when the user's words fill it.
    limit = scan_limit(plan.cap_bytes)
    others: list[tuple[float, int]] = []
    if read < limit:
        others = [(-value.get(i, 0.0), -i) for i in texts if roles[i] != "user"]
        heapq.heapify(others)
    while others and read < limit:
        i = -heapq.heappop(others)[1]
        chosen.append(i)
        read += len(texts[i])
    known = run.protection.instructions
    return tuple(
        FactSource(
            i,
            roles[i],
            texts[i],
            value.get(i, 0.0),
            None if i in plan.elided else known.get(i),  # judged whole, not an elided part
        )
        for i in chosen
    )


def _summarise(run: _Run, plan: Plan) -> str | None:
    """Step 5: the summary text, or None. The one place a summariser is called; its text
    is held to the plan's caps whoever wrote it. An abstractive summariser's text is
    repaired first; when it has none to give, the extractive summary stands in and the
    problems say why."""
    run.repair = None
    if not plan.summarise:
        return None
    request = SummaryRequest(
        sources=_summary_sources(run, plan),
        dropped_count=len(plan.dropped),
        dropped_bytes=sum(run.segments.sizes[i] for i in plan.dropped),
        total=len(run.segments),
        cap_bytes=plan.cap_bytes,
        cap_tokens=plan.cap_tokens,
        task=run.task,
    )
    if run.abstractive is not None:
        text, run.repair = run.abstractive.summarise(request, run.segments.texts)
        if text is not None:
            return text
        note = (
            f"summarizer {run.repair.summarizer} failed ({run.repair.failed}): "
            "the extractive summary was used"
        )
        if note not in run.problems:
            run.problems.append(note)
    return held_to_caps(extractive_summary(request), plan.cap_bytes, plan.cap_tokens)


# --- assemble --------------------------------------------------------------------------


def _summary_place(units: Sequence[Unit], kept: Sequence[bool], first: int) -> int:
    """Where the summary goes in the output: at the first message it stands for, moved
    past any kept tool unit that spans that place (a summary never splits a call from
    its result)."""
    place = first
    moved = True
    while moved:
        moved = False
        for unit in units:
            members = unit.members
            if len(members) > 1 and kept[members[0]] and members[0] < place <= members[-1]:
                place = members[-1] + 1
                moved = True
    return sum(1 for i in range(min(place, len(kept))) if kept[i])


def _assemble(run: _Run, plan: Plan, summary_text: str | None, run_id: str) -> CompactionResult:
    """Step 6: the output list, a decision per message, the stats."""
    segments, messages = run.segments, run.messages
    n = len(segments)
    out = [plan.replaced.get(i, messages[i]) for i in compress(range(n), plan.kept)]
    summary: Any | None = None
    summary_index: int | None = None
    summary_bytes = summary_tokens = 0
    if summary_text is not None:
        covered = [*plan.dropped, *plan.elided]
        first = min(covered) if covered else 0
        summary_index = _summary_place(run.units, plan.kept, first)
        seq = messages[first].get("seq") if isinstance(messages[first], Mapping) else None
        dialect = conversation_dialect(segments.dialects)
        summary = summary_message(summary_text, dialect, run.settings.summary_role, seq)
        out.insert(summary_index, summary)
        summary_bytes = utf8_size(summary_text)
        summary_tokens = count_tokens(summary_text) if run.exact else estimate_tokens(summary_text)
    decisions = _decisions(run, plan)
    bytes_after = sum(compress(segments.sizes, plan.kept))
    tokens_after = sum(compress(segments.tokens, plan.kept))
    for i, (size_b, size_t) in plan.sizes.items():  # the messages kept shortened
        if plan.kept[i]:
            bytes_after += size_b - segments.sizes[i]
            tokens_after += size_t - segments.tokens[i]
    own = run.protection.reasons
    kept_count = sum(plan.kept)
    pinned = sum(1 for reason in own if reason.startswith("pinned:"))
    scoring = run.scoring
    stats = CompactionStats(
        messages_before=n,
        messages_after=len(out),
        bytes_before=sum(segments.sizes),
        bytes_after=bytes_after + summary_bytes,
        tokens_before=sum(segments.tokens),
        tokens_after=tokens_after + summary_tokens,
        kept=kept_count,
        dropped=n - kept_count,
        pinned=pinned,
        protected=sum(1 for reason in compress(own, plan.kept) if reason),
        over_budget_bytes=plan.over_bytes,
        over_budget_tokens=plan.over_tokens,
        summary_bytes=summary_bytes,
        scorer=scoring.scorer,
        degraded=scoring.degraded_reason is not None,
        degraded_reason=scoring.degraded_reason,
        requests=scoring.requests,
        failed_requests=scoring.failed_requests,
        scorer_tokens=scoring.scorer_tokens,
        token_method=token_method() if run.exact else "estimate",
        budget=run.settings.budget,
        fits=plan.fits,
        shortened=len(plan.replaced),
    )
    return CompactionResult(
        messages=tuple(out),
        summary=summary,
        summary_index=summary_index,
        stats=stats,
        decisions=decisions,
        run_id=run_id,
        receipt_path=None,
        problems=tuple(run.problems),
        repair=run.repair if summary_text is not None else None,
    )


def _decisions(run: _Run, plan: Plan) -> tuple[Decision, ...]:
    segments, n = run.segments, len(run.segments)
    unit_of = list(range(n))
    for unit in run.units:
        for i in unit.members:
            unit_of[i] = unit.members[0]
    values: list[float | None] = [None] * n
    confidences: list[float | None] = [None] * n
    for i, found in run.scoring.scores.items():
        values[i], confidences[i] = found.value, found.confidence
    spans: list[tuple[tuple[int, int], ...] | None] = [None] * n
    for i, kept_spans in plan.spans.items():
        spans[i] = kept_spans
    columns = (
        range(n), segments.hashes, segments.roles, segments.sizes, segments.tokens, values,
        confidences, plan.kept, plan.reasons, unit_of, spans,
    )  # fmt: skip
    # Not Decision(...) per message: 10,000 frozen inits cost ~8% of a compaction.
    return frozen_from_columns(Decision, columns)


# --- the public functions --------------------------------------------------------------


def _safe_describe(scorer: Scorer) -> dict[str, Any]:
    """The scorer's self-description with anything that looks like a credential removed."""
    described: Any
    try:
        described = scorer.describe()
    except Exception:  # a caller's scorer may fail here too; the name is enough
        described = {}
    safe = without_credentials(described)
    safe.setdefault("name", scorer_name(scorer))
    return safe


def _untouched(messages: Any, why: str, problems: Sequence[str]) -> CompactionResult:
    """The input back, unchanged, with ``why`` as the last problem."""
    try:
        out = tuple(messages) if isinstance(messages, list | tuple) else ()
    except Exception:  # pragma: no cover - lists and tuples always convert
        out = ()
    stats = CompactionStats(
        messages_before=len(out),
        messages_after=len(out),
        bytes_before=0,
        bytes_after=0,
        tokens_before=0,
        tokens_after=0,
        kept=len(out),
        dropped=0,
        pinned=0,
        protected=0,
        over_budget_bytes=0,
        over_budget_tokens=0,
        summary_bytes=0,
        scorer="none",
        degraded=True,
        degraded_reason=why,
        requests=0,
        failed_requests=0,
        scorer_tokens=0,
        token_method="estimate",
    )
    return CompactionResult(
        messages=out,
        summary=None,
        summary_index=None,
        stats=stats,
        decisions=(),
        run_id="",
        receipt_path=None,
        problems=(*problems, why),
    )


def _internal_error(exc: Exception) -> str:
    return f"internal error ({type(exc).__name__}: {exc}): input unchanged"


def _with_receipt(
    result: CompactionResult,
    receipt_path: Any,
    scorer: Mapping[str, Any],
    settings: _Settings,
    task_hash: str,
    abstractive: AbstractiveStep | None = None,
) -> CompactionResult:
    """Append the run's receipt when it compacted something; problems never raise. The
    summariser's record (with its text, which a replay reuses) goes in the run line."""
    if receipt_path is None or not result.compacted:
        return result
    problems = list(result.problems)
    summarizer = None
    if result.repair is not None and abstractive is not None:
        summarizer = {**abstractive.described, **result.repair.to_dict()}
    try:
        path = os.fspath(receipt_path)
        block = receipt_block(
            result.run_id,
            result.decisions,
            scorer=scorer,
            settings={**settings.to_dict(), "task_sha256": task_hash},
            stats=result.stats.to_dict(),
            summarizer=summarizer,
        )
        append_receipt(path, block)
    except (OSError, TypeError, ValueError) as exc:
        problems.append(f"receipt not written: {exc}")
        return _replace(result, receipt_path=None, problems=tuple(problems))
    return _replace(result, receipt_path=str(path), problems=tuple(problems))


def _replace(result: CompactionResult, **changes: Any) -> CompactionResult:
    return replace(result, **changes)


def _task_text(task: Any, problems: list[str]) -> str:
    if isinstance(task, str):
        return task
    if task is None:
        return ""
    problems.append(f"task: expected a string, got {type(task).__name__}; using its str()")
    try:
        return str(task)
    except Exception:  # a caller's object may fail to print
        return ""


def compact(
    messages: Messages,
    task: str,
    *,
    target_bytes: int | None = None,
    target_tokens: int | None = None,
    keep_recent: int = 4,
    batch_size: int = 8,
    min_confidence: float = 0.35,
    summary_bytes: int = 1024,
    summary_role: str = "system",
    state_message_bytes: int = 2000,
    pin_patterns: Sequence[str] = (),
    enable_pinning: bool = True,
    pin_flags: str = "i",
    scorer: Scorer | str | None = None,
    receipt_path: str | os.PathLike[str] | None = None,
    run_id: str | None = None,
    budget: str = "soft",
    summarizer: Summarizer | str | None = None,
) -> CompactionResult:
    """Compact ``messages`` (OpenAI chat, Anthropic messages or ctxkeep events) for ``task``.

    Keeps system messages, the last ``keep_recent`` messages and pinned ones verbatim,
    scores the rest with ``scorer`` (a :class:`~ctxkeep.scorers.Scorer`, a registry name, or
    None for ``lexical``), keeps uncertain ones (confidence below ``min_confidence``), then
    keeps the most valuable tool units (ties: the newer) until ``target_bytes`` and/or
    ``target_tokens`` are spent, and puts an extractive summary where the first dropped
    message was. With no target nothing is dropped. Appends a receipt to ``receipt_path``
    when something was dropped. Never raises: see ``CompactionResult.problems``.

    ``budget="soft"`` (the default) keeps protected messages whole and reports what they
    put over the target in ``stats.over_budget_*``. ``budget="hard"`` never exceeds the
    target: protected content gives way (long tool output elided, messages cut to their
    pinned spans, then dropped; see :mod:`ctxkeep.compactor.hard`); only the system
    messages and the last user message are never cut, and when they alone are over the
    result has ``fits`` False, a reason in ``problems``, and only them.

    ``summarizer`` writes the summary instead: any :data:`~ctxkeep.compactor.summary.
    Summarizer` (a function of a ``SummaryRequest``), or ``"openai-chat"`` for an
    OpenAI-compatible endpoint configured by ``CTXKEEP_SUMMARY_URL`` / ``_MODEL`` /
    ``_KEY`` / ``_TIMEOUT`` (:class:`~ctxkeep.compactor.abstractive.OpenAIChatSummarizer`
    for explicit settings). Its text is audited before use
    (:mod:`~ctxkeep.compactor.repair`): standing instructions it lost are added
    verbatim, items it invented are removed, the budget holds; ``result.repair`` and the
    receipt record what changed. When it fails (an error, a timeout, no text), the
    extractive summary stands in and ``problems`` says so.
    """
    options = {
        "target_bytes": target_bytes,
        "target_tokens": target_tokens,
        "keep_recent": keep_recent,
        "batch_size": batch_size,
        "min_confidence": min_confidence,
        "summary_bytes": summary_bytes,
        "summary_role": summary_role,
        "state_message_bytes": state_message_bytes,
        "pin_patterns": pin_patterns,
        "enable_pinning": enable_pinning,
        "pin_flags": pin_flags,
        "budget": budget,
    }
    problems: list[str] = []
    try:
        with cyclic_gc_paused():
            return _compact(
                messages, task, options, scorer, receipt_path, run_id, problems, summarizer
            )
    except Exception as exc:  # the contract: never raise; the input comes back unchanged
        return _untouched(messages, _internal_error(exc), problems)


def _compact(
    messages: Any,
    task: Any,
    options: dict[str, Any],
    scorer: Any,
    receipt_path: Any,
    run_id: Any,
    problems: list[str],
    summarizer: Any = None,
) -> CompactionResult:
    settings = _settings(options, problems)
    msgs = _as_list(messages, problems)
    task_text = _task_text(task, problems)
    chosen = resolve_scorer(scorer, problems)
    abstractive = _abstractive_step(summarizer, problems)

    def score_step(segments: Segments, to_score: list[int]) -> Scoring:
        if not to_score:
            return Scoring(scorer=scorer_name(chosen))
        return score(
            chosen,
            task_text,
            segments,
            to_score,
            batch_size=settings.batch_size,
            keep_recent=settings.keep_recent,
            state_bytes=settings.state_message_bytes,
            problems=problems,
        )

    def name_run(segments: Segments, scoring: Scoring) -> str:
        if isinstance(run_id, str) and run_id:
            return run_id
        who = scoring.scorer if abstractive is None else f"{scoring.scorer}+{abstractive.name}"
        return _run_id(segments, settings, task_text, who)

    result = _pipeline(msgs, settings, score_step, name_run, task_text, problems, abstractive)
    task_hash = hashlib.sha256(task_text.encode("utf-8", "surrogatepass")).hexdigest()
    described = _safe_describe(chosen)
    return _with_receipt(result, receipt_path, described, settings, task_hash, abstractive)


def _abstractive_step(summarizer: Any, problems: list[str]) -> AbstractiveStep | None:
    """The summariser as step 5 uses it: a callable, or a name (``extractive``: None)."""
    if summarizer is None:
        return None
    if isinstance(summarizer, str):
        try:
            summarizer = make_summarizer(summarizer)
        except KeyError as exc:
            problems.append(f"summarizer: {exc.args[0]}; the extractive summary is used")
            return None
        if summarizer is None:
            return None
    if not callable(summarizer):
        problems.append(
            f"summarizer: expected a function of a SummaryRequest, got "
            f"{type(summarizer).__name__}; the extractive summary is used"
        )
        return None
    return AbstractiveStep(summarizer, describe_summarizer(summarizer))


def _recorded_step(run: ReceiptRun) -> AbstractiveStep | None:
    """What the recorded run's summariser wrote, as a step that calls no model."""
    record = run.summarizer
    digest = record.get("sources_sha256")
    if not record or not isinstance(digest, str):
        return None
    written = record.get("written")
    failed = record.get("failed")
    described = {"name": f"replay:{record.get('name', 'summarizer')}", "model": record.get("model")}
    return AbstractiveStep(
        None,
        described,
        recorded={digest: written} if isinstance(written, str) else {},
        recorded_failure=f"the recorded run's summarizer failed: {failed}"
        if isinstance(failed, str) and not isinstance(written, str)
        else None,
    )


def _load_run(receipts: Any, run_id: str | None) -> tuple[ReceiptRun | None, list[str]]:
    if isinstance(receipts, ReceiptRun):
        return receipts, []
    file = receipts if isinstance(receipts, ReceiptFile) else read_receipts(receipts)
    notes = [f"{located(str(file.path), line)}: {reason}" for line, reason in file.problems]
    run = file.run(run_id)
    if run is None:
        wanted = f"run {run_id!r}" if run_id else "trusted run"
        notes.append(f"{file.path}: no {wanted} in the receipts")
    return run, notes


def _recorded_scores(run: ReceiptRun, segments: Segments) -> tuple[dict[int, Score], set[int]]:
    """Scores from the receipt, matched to messages by content hash (in order of
    occurrence, so repeated texts match their own records), and the unmatched indexes.
    """
    by_hash: dict[str, deque[Mapping[str, Any]]] = {}
    for record in run.records:
        digest = record.get("hash")
        if isinstance(digest, str):
            by_hash.setdefault(digest, deque()).append(record)
    scores: dict[int, Score] = {}
    unmatched: set[int] = set()
    for position, content_hash in enumerate(segments.hashes):
        queue = by_hash.get(content_hash)
        if not queue:
            unmatched.add(position)
            continue
        record = queue.popleft()
        value, confidence = record.get("score"), record.get("confidence")
        if value is None or confidence is None:
            continue
        score = Score(value, confidence)
        if score.is_valid():
            scores[position] = Score(float(value), float(confidence))
    return scores, unmatched


def replay(
    messages: Any,
    receipts: str | os.PathLike[str] | ReceiptFile | ReceiptRun,
    *,
    target_bytes: int | None = None,
    target_tokens: int | None = None,
    min_confidence: float | None = None,
    keep_recent: int | None = None,
    summary_bytes: int | None = None,
    run_id: str | None = None,
    receipt_path: str | os.PathLike[str] | None = None,
) -> CompactionResult:
    """Re-run the selection of a recorded run at another budget or threshold, no scorer call.

    Scores come from the receipt (the run ``run_id``, else the last trusted run), matched
    to ``messages`` by content hash, so the list may have changed since: a message the
    receipt does not know is scored by recency (and the result is marked degraded). Every
    setting not given here is the recorded run's; targets given here replace both recorded
    targets. Never raises; with no trusted run the input is returned unchanged.
    """
    problems: list[str] = []
    try:
        with cyclic_gc_paused():
            return _replay(
                messages, receipts, target_bytes, target_tokens, min_confidence, keep_recent,
                summary_bytes, run_id, receipt_path, problems,
            )  # fmt: skip
    except Exception as exc:  # the contract: never raise
        return _untouched(messages, _internal_error(exc), problems)


def _replay(
    messages: Any,
    receipts: Any,
    target_bytes: int | None,
    target_tokens: int | None,
    min_confidence: float | None,
    keep_recent: int | None,
    summary_bytes: int | None,
    run_id: str | None,
    receipt_path: Any,
    problems: list[str],
) -> CompactionResult:
    run, notes = _load_run(receipts, run_id)
    problems.extend(notes)
    msgs = _as_list(messages, problems)
    if run is None:
        return _untouched(msgs, "no trusted run to replay: input unchanged", problems)
    recorded = dict(run.settings)
    options: dict[str, Any] = {
        "target_bytes": recorded.get("target_bytes"),
        "target_tokens": recorded.get("target_tokens"),
        "keep_recent": recorded.get("keep_recent", 4),
        "batch_size": recorded.get("batch_size", 8),
        "min_confidence": recorded.get("min_confidence", 0.35),
        "summary_bytes": recorded.get("summary_bytes", 1024),
        "summary_role": recorded.get("summary_role", "system"),
        "state_message_bytes": recorded.get("state_message_bytes", 2000),
        "pin_patterns": recorded.get("pin_patterns", ()),
        "enable_pinning": recorded.get("enable_pinning", True),
        "pin_flags": recorded.get("pin_flags", "i"),
        "budget": recorded.get("budget", "soft"),
    }
    if target_bytes is not None or target_tokens is not None:
        options["target_bytes"], options["target_tokens"] = target_bytes, target_tokens
    for name, value in (
        ("min_confidence", min_confidence),
        ("keep_recent", keep_recent),
        ("summary_bytes", summary_bytes),
    ):
        if value is not None:
            options[name] = value
    settings = _settings(options, problems)
    recorded_name = run.scorer.get("name", "unknown")

    def score_step(segments: Segments, to_score: list[int]) -> Scoring:
        scores, _unmatched = _recorded_scores(run, segments)
        scoring = Scoring(scorer=f"replay:{recorded_name}")
        scoring.scores = {i: scores[i] for i in to_score if i in scores}
        missing = [i for i in to_score if i not in scores]
        if missing:
            n = len(segments)
            scoring.scores.update((i, recency_score(Candidate(i, "", n))) for i in missing)
            scoring.degraded_reason = (
                f"{len(missing)} message(s) have no score in the receipt: scored by recency"
            )
        return scoring

    def name_run(segments: Segments, scoring: Scoring) -> str:
        return _run_id(segments, settings, f"replay:{run.run_id}", scoring.scorer)

    abstractive = _recorded_step(run)
    result = _pipeline(msgs, settings, score_step, name_run, "", problems, abstractive)
    described = {"name": f"replay:{recorded_name}", "replayed_run": run.run_id}
    task_hash = str(run.settings.get("task_sha256", ""))
    return _with_receipt(result, receipt_path, described, settings, task_hash, abstractive)
