"""The fact-survival benchmark: which compaction keeps what a long chat established.

For every generated chat (:mod:`ctxkeep.bench.fact_corpus`), every *zone* (the oldest 5,
25, 50, 75 or 98% of its bytes, ending before a user message) and every *budget* (0.2,
0.5, 1, 2 or 5% of the zone's bytes), each method replaces the zone by at most that many
bytes of message text, and the replacement is searched for the keywords of the facts and
instructions planted in the zone:

- ``recency-truncation``: the zone's last bytes — the newest messages that fit whole, and
  the tail of the one before (what a harness that truncates keeps);
- ``langchain-trim``: LangChain's ``trim_messages(strategy="last", start_on="human")``
  with a byte counter (whole messages; langchain-core is installed for benchmarks only);
- ``ctxkeep/soft`` and ``ctxkeep/hard``: :func:`ctxkeep.compact` with its defaults, given
  the zone followed by the message that comes next (the request the compaction is for,
  which is also the task) and a target of the budget plus that message; the
  replacement is everything but that message. Soft keeps protected messages whole and
  may go over; hard may not;
- ``llm-summary``: a model's summary of the zone within the budget
  (:mod:`ctxkeep.bench.llm_summary`), when an endpoint is configured.

A fact counts as kept when every keyword is in the replacement (any accepted spelling,
not inside a longer word); a changed fact only by its newer value (the older one alone
is counted as *stale*). Every run records the bytes it produced against its target.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import msgspec

from ctxkeep.base.messages import message_role, message_text
from ctxkeep.bench.fact_corpus import CHAT_CORPORA, ChatSpec, FactChat, generate_chat, keyword_found
from ctxkeep.bench.llm_summary import LLMEndpoint, llm_summary
from ctxkeep.compactor.text import utf8_size
from ctxkeep.extract import extract_constraints

__all__ = [
    "BUDGETS",
    "METHOD_NAMES",
    "ZONES",
    "FactReport",
    "FactRow",
    "FactRun",
    "Method",
    "Produced",
    "fact_methods",
    "judge_replacement",
    "run_facts",
    "to_json",
    "zone_end",
]

ZONES: tuple[float, ...] = (0.05, 0.25, 0.50, 0.75, 0.98)
BUDGETS: tuple[float, ...] = (0.002, 0.005, 0.01, 0.02, 0.05)
METHOD_NAMES: tuple[str, ...] = (
    "recency-truncation",
    "langchain-trim",
    "ctxkeep/soft",
    "ctxkeep/hard",
    "llm-summary",
)
_encode = msgspec.json.Encoder(order="sorted").encode
Message = Any


@dataclass(frozen=True, slots=True)
class Produced:
    """What a method put in place of the zone; ``fits`` is the compactor's own verdict
    (None for methods that have none)."""

    messages: tuple[Message, ...]
    fits: bool | None = None


ReplaceFn = Callable[[Sequence[Message], Message, int], Produced]
"""(zone, the message after it, target bytes) -> the replacement."""


@dataclass(frozen=True, slots=True)
class Method:
    """One row of the benchmark: a name, and either a function or why it cannot run."""

    name: str
    run: ReplaceFn | None
    unavailable: str | None = None


@dataclass(frozen=True, slots=True)
class FactRun:
    """One method on one chat, zone and budget."""

    chat: str
    zone: float
    budget: float
    method: str
    zone_bytes: int
    target_bytes: int
    bytes_out: int
    fits: bool | None
    facts_total: int
    facts_kept: int
    changed_total: int
    changed_kept: int
    stale: int
    instructions_total: int
    instructions_kept: int
    kinds: dict[str, tuple[int, int]]
    """kind -> (planted in the zone, kept)."""
    error: str | None = None


@dataclass(frozen=True, slots=True)
class FactRow:
    """One method at one budget share, over every chat and zone (micro-averaged)."""

    method: str
    budget: float
    runs: int
    fact_survival: float | None
    changed_survival: float | None
    stale: int
    instruction_survival: float | None
    within_target: int
    worst_ratio: float | None
    """The largest bytes out / target of its runs."""
    not_fits: int
    errors: int
    unavailable: str | None = None


@dataclass(frozen=True, slots=True)
class FactReport:
    """The whole benchmark: rows, every run, and the corpus."""

    corpus: str
    chats: tuple[str, ...]
    chat_bytes: tuple[int, ...]
    zones: tuple[float, ...]
    budgets: tuple[float, ...]
    rows: tuple[FactRow, ...]
    runs: tuple[FactRun, ...]
    facts_planted: int
    instructions_planted: int
    instructions_found: int
    """Planted instructions that ctxkeep's extractor (``extract_constraints``) finds."""
    llm: str | None


# --- the zone and the judge ------------------------------------------------------------


def zone_end(messages: Sequence[Message], share: float) -> int:
    """The index of the first message after the zone: the zone holds the oldest messages
    up to ``share`` of the bytes, extended to end before a user message (or cut back to
    end before the last one); at least one message is left after it."""
    sizes = [utf8_size(message_text(m)) for m in messages]
    goal = share * sum(sizes)
    end = 0
    covered = 0
    while end < len(messages) - 1 and covered < goal:
        covered += sizes[end]
        end += 1
    while end < len(messages) - 1 and message_role(messages[end]) != "user":
        end += 1
    while end > 1 and message_role(messages[end]) != "user":
        end -= 1  # no user message after the share: the zone ends before the last one
    return max(end, 1)


def judge_replacement(
    chat: FactChat, end: int, replacement: Sequence[Message]
) -> tuple[dict[str, tuple[int, int]], int, int, int, int, int]:
    """(kinds, changed total, changed kept, stale, instructions total, instructions kept)
    of what the replacement still holds of what was planted before message ``end``."""
    text = "\n".join(message_text(m) for m in replacement)
    kinds: dict[str, tuple[int, int]] = {}
    changed_total = changed_kept = stale = 0
    for fact in chat.facts:
        if fact.message_index >= end:
            continue
        kept = all(keyword_found(k, text) for k in fact.keywords)
        total_k = kinds.get(fact.kind, (0, 0))
        kinds[fact.kind] = (total_k[0] + 1, total_k[1] + kept)
        if fact.old_keywords:
            changed_total += 1
            changed_kept += kept
            stale += not kept and all(keyword_found(k, text) for k in fact.old_keywords)
    instructions = [c for c in chat.instructions if c.message_index < end]
    kept_i = sum(all(keyword_found(k, text) for k in c.keywords) for c in instructions)
    return kinds, changed_total, changed_kept, stale, len(instructions), kept_i


# --- the methods ----------------------------------------------------------------------


def _text_bytes(messages: Iterable[Message]) -> int:
    return sum(utf8_size(message_text(m)) for m in messages)


def recency_truncation(zone: Sequence[Message], following: Message, target: int) -> Produced:
    """The zone's last ``target`` bytes: the newest messages whole, then the tail of the
    message before them."""
    del following  # truncation reads nothing but the bytes: that is the baseline
    kept: list[Message] = []
    room = target
    for message in reversed(zone):
        text = message_text(message)
        size = utf8_size(text)
        if size <= room:
            kept.append(message)
            room -= size
            continue
        if room > 0:
            raw = text.encode("utf-8", "surrogatepass")
            tail = raw[len(raw) - room :].decode("utf-8", "ignore")
            if tail:
                kept.append({"role": message_role(message) or "user", "content": tail})
        break
    kept.reverse()
    return Produced(tuple(kept))


def _langchain() -> tuple[ReplaceFn | None, str | None]:
    try:
        lc = importlib.import_module("langchain_core.messages")
    except ImportError:
        return None, "not installed"
    # Typed as Any: langchain-core is not a dependency of ctxkeep.
    trim: Any = lc.trim_messages
    to_lc: Any = lc.convert_to_messages
    to_openai: Any = lc.convert_to_openai_messages

    def run(zone: Sequence[Message], following: Message, target: int) -> Produced:
        del following
        if not zone:
            return Produced(())
        converted = to_lc(list(zone))

        def counter(batch: list[Any]) -> int:
            return sum(utf8_size(str(m.content)) for m in batch)

        trimmed = trim(
            converted,
            max_tokens=target,
            token_counter=counter,
            strategy="last",
            start_on="human",
            allow_partial=False,
        )
        if not trimmed:
            return Produced(())
        out = to_openai(trimmed)
        return Produced(tuple(out) if isinstance(out, list) else (out,))

    return run, None


def _ctxkeep(mode: str) -> ReplaceFn:
    from ctxkeep.compactor import compact

    def run(zone: Sequence[Message], following: Message, target: int) -> Produced:
        task = message_text(following)
        result = compact(
            [*zone, following],
            task,
            target_bytes=target + utf8_size(task),
            budget=mode,
        )
        if any(p.startswith("internal error") for p in result.problems):
            raise RuntimeError("; ".join(result.problems))
        replacement = tuple(m for m in result.messages if m is not following)
        return Produced(replacement, result.fits)

    return run


def _llm(endpoint: LLMEndpoint) -> ReplaceFn:
    def run(zone: Sequence[Message], following: Message, target: int) -> Produced:
        del following
        return Produced(tuple(llm_summary(endpoint, zone, target)))

    return run


def fact_methods(llm: LLMEndpoint | None = None) -> tuple[Method, ...]:
    """Every method of the benchmark in table order; those that cannot run say why."""
    lc, why = _langchain()
    return (
        Method("recency-truncation", recency_truncation),
        Method("langchain-trim", lc, why),
        Method("ctxkeep/soft", _ctxkeep("soft")),
        Method("ctxkeep/hard", _ctxkeep("hard")),
        Method("llm-summary", _llm(llm) if llm is not None else None, "not configured"),
    )


# --- the run --------------------------------------------------------------------------


def _one_run(
    method: Method, chat: FactChat, end: int, zone: float, budget: float, zone_bytes: int
) -> FactRun:
    assert method.run is not None
    target = max(1, int(zone_bytes * budget))
    where = (chat.spec.name, zone, budget, method.name, zone_bytes, target)
    try:
        produced = method.run(chat.messages[:end], chat.messages[end], target)
    except Exception as exc:  # a failing method is a result, not a crash
        return FactRun(
            *where, bytes_out=0, fits=None, facts_total=0, facts_kept=0, changed_total=0,
            changed_kept=0, stale=0, instructions_total=0, instructions_kept=0, kinds={},
            error=f"{type(exc).__name__}: {exc}",
        )  # fmt: skip
    kinds, changed_total, changed_kept, stale, instr_total, instr_kept = judge_replacement(
        chat, end, produced.messages
    )
    return FactRun(
        *where,
        bytes_out=_text_bytes(produced.messages),
        fits=produced.fits,
        facts_total=sum(t for t, _ in kinds.values()),
        facts_kept=sum(k for _, k in kinds.values()),
        changed_total=changed_total,
        changed_kept=changed_kept,
        stale=stale,
        instructions_total=instr_total,
        instructions_kept=instr_kept,
        kinds=kinds,
    )


def _ratio(num: int, den: int) -> float | None:
    return num / den if den else None


def _row(method: Method, budget: float, runs: Sequence[FactRun]) -> FactRow:
    if method.run is None:
        return FactRow(
            method.name, budget, 0, None, None, 0, None, 0, None, 0, 0,
            method.unavailable or "unavailable",
        )  # fmt: skip
    ok = [r for r in runs if r.error is None]
    return FactRow(
        method=method.name,
        budget=budget,
        runs=len(runs),
        fact_survival=_ratio(sum(r.facts_kept for r in ok), sum(r.facts_total for r in ok)),
        changed_survival=_ratio(sum(r.changed_kept for r in ok), sum(r.changed_total for r in ok)),
        stale=sum(r.stale for r in ok),
        instruction_survival=_ratio(
            sum(r.instructions_kept for r in ok), sum(r.instructions_total for r in ok)
        ),
        within_target=sum(r.bytes_out <= r.target_bytes for r in ok),
        worst_ratio=max((r.bytes_out / r.target_bytes for r in ok), default=None),
        not_fits=sum(r.fits is False for r in ok),
        errors=len(runs) - len(ok),
    )


def steps(
    specs: Sequence[ChatSpec], zones: Sequence[float], budgets: Sequence[float], methods: int
) -> int:
    """How many runs :func:`run_facts` makes (for a progress bar)."""
    return len(specs) * len(zones) * len(budgets) * methods


def run_facts(
    corpus_name: str = "smoke",
    *,
    specs: Sequence[ChatSpec] | None = None,
    zones: Sequence[float] = ZONES,
    budgets: Sequence[float] = BUDGETS,
    methods: Sequence[Method] | None = None,
    llm: LLMEndpoint | None = None,
    on_step: Callable[[], None] | None = None,
) -> FactReport:
    """Every method on every chat, zone and budget. ``on_step`` is called after each
    run; a method that raises is recorded as that run's error."""
    chosen = list(specs) if specs is not None else list(CHAT_CORPORA[corpus_name])
    rows_of = list(methods) if methods is not None else list(fact_methods(llm))
    runs: list[FactRun] = []
    sizes: list[int] = []
    planted_f = planted_i = found_i = 0
    for spec in chosen:
        chat = generate_chat(spec)
        planted_f += len(chat.facts)
        planted_i += len(chat.instructions)
        found_i += sum(bool(extract_constraints(c.text)) for c in chat.instructions)
        sizes.append(_text_bytes(chat.messages))
        for zone in zones:
            end = zone_end(chat.messages, zone)
            zone_bytes = _text_bytes(chat.messages[:end])
            for budget in budgets:
                for method in rows_of:
                    if method.run is not None:
                        runs.append(_one_run(method, chat, end, zone, budget, zone_bytes))
                    if on_step is not None:
                        on_step()
    rows = tuple(
        _row(m, b, [r for r in runs if r.method == m.name and r.budget == b])
        for m in rows_of
        for b in budgets
    )
    return FactReport(
        corpus=corpus_name if specs is None else "custom",
        chats=tuple(s.name for s in chosen),
        chat_bytes=tuple(sizes),
        zones=tuple(zones),
        budgets=tuple(budgets),
        rows=rows,
        runs=tuple(runs),
        facts_planted=planted_f,
        instructions_planted=planted_i,
        instructions_found=found_i,
        llm=llm.describe() if llm is not None else None,
    )


def to_json(report: FactReport) -> bytes:
    """The report as sorted-key JSON (no timestamps: the same run gives the same bytes)."""
    return msgspec.json.format(_encode(report), indent=2) + b"\n"
