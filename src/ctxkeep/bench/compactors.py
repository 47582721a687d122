"""The compactors the quality benchmark compares, behind one signature.

A compactor takes the messages, the task and a token budget and returns the messages it
keeps. The field:

- ``recency-truncation``: what harnesses do natively. Keep the system messages and then
  the newest messages whose tokens fit, message by message. It is deliberately **not**
  tool-pair safe — a cut can fall between a tool call and its result, as naive harness
  truncation does — so its valid-sequence rate shows what that costs.
- ``langchain-trim``: LangChain's ``trim_messages(strategy="last", include_system=True,
  start_on="human")``, its documented recipe for a valid history, with the same token
  counter. langchain-core is installed in the benchmark environment only (``make
  bench``); without it the row says "not installed".
- ``ctxkeep/<scorer>`` and ``ctxkeep/<scorer>/no-pin``: :func:`ctxkeep.compact` with the
  ``recency``, ``lexical`` and (when installed) ``embedding`` scorers, with and without
  pinning.

Token counts are ctxkeep's (o200k over each message's text) for every compactor, so a
budget means the same thing in every row.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ctxkeep.base.messages import message_text
from ctxkeep.base.tokens import count_tokens

__all__ = [
    "COMPACTOR_NAMES",
    "Compactor",
    "available_compactors",
    "message_tokens",
    "recency_truncation",
]

Message = Any
_SCORERS = ("recency", "lexical", "embedding")
COMPACTOR_NAMES: tuple[str, ...] = (
    "recency-truncation",
    "langchain-trim",
    *(f"ctxkeep/{s}{pin}" for s in _SCORERS for pin in ("", "/no-pin")),
)
"""Every row of the quality benchmark, in table order."""
CompactFn = Callable[[Sequence[Message], str, int], list[Message]]


@dataclass(frozen=True, slots=True)
class Compactor:
    """One row of the benchmark: a name, and either a function or why it cannot run."""

    name: str
    run: CompactFn | None
    unavailable: str | None = None


def message_tokens(message: Message) -> int:
    """The o200k token count of everything a message puts in the context."""
    return count_tokens(message_text(message))


def recency_truncation(messages: Sequence[Message], task: str, budget_tokens: int) -> list[Message]:
    """System messages, then the newest messages that fit the budget, in order.

    Not tool-pair safe, on purpose (see the module docstring).
    """
    del task  # truncation does not read the task: that is the point of the baseline
    systems = [m for m in messages if isinstance(m, dict) and m.get("role") == "system"]
    room = budget_tokens - sum(message_tokens(m) for m in systems)
    kept: list[Message] = []
    for message in reversed(messages):
        if isinstance(message, dict) and message.get("role") == "system":
            continue
        size = message_tokens(message)
        if size > room:
            break
        room -= size
        kept.append(message)
    kept.reverse()
    return systems + kept


def _langchain() -> tuple[CompactFn | None, str | None]:
    try:
        lc = importlib.import_module("langchain_core.messages")
    except ImportError:
        return None, "not installed"
    # Typed as Any: langchain-core is not a dependency of ctxkeep, so its types must not
    # decide whether ctxkeep's own type check passes.
    trim: Any = lc.trim_messages
    to_lc: Any = lc.convert_to_messages
    to_openai: Any = lc.convert_to_openai_messages

    def run(messages: Sequence[Message], task: str, budget_tokens: int) -> list[Message]:
        del task
        converted = to_lc(list(messages))
        sizes = {id(lm): message_tokens(m) for lm, m in zip(converted, messages, strict=True)}

        def counter(batch: list[Any]) -> int:
            # The same o200k count as every other row; a message LangChain copied is
            # counted from its own text.
            return sum(
                sizes[id(m)] if id(m) in sizes else count_tokens(str(m.content)) for m in batch
            )

        trimmed = trim(
            converted,
            max_tokens=budget_tokens,
            token_counter=counter,
            strategy="last",
            include_system=True,
            start_on="human",
            allow_partial=False,
        )
        out = to_openai(trimmed)
        return list(out) if isinstance(out, list) else [out]

    return run, None


class _ScoreMemo:
    """A scorer that answers a request it has seen before from memory.

    The compactor asks the same question (same task, state and candidates) at every
    budget; the answer cannot differ, so the benchmark asks the real scorer once. Exact
    for any scorer whose answer depends only on the request, which the protocol requires.
    """

    def __init__(self, scorer: Any) -> None:
        self.inner = scorer
        self.name: str = scorer.name
        self.remote: bool = scorer.remote
        self._answers: dict[Any, Sequence[Any]] = {}

    def score(self, request: Any) -> Sequence[Any]:
        answer = self._answers.get(request)
        if answer is None:
            answer = self._answers[request] = tuple(self.inner.score(request))
        return answer

    def describe(self) -> dict[str, object]:
        described: dict[str, object] = self.inner.describe()
        return described


def _ctxkeep_rows(scorer_name: str) -> list[Compactor]:
    """``ctxkeep/<scorer>`` with and without pinning, sharing one memoised scorer."""
    names = (f"ctxkeep/{scorer_name}", f"ctxkeep/{scorer_name}/no-pin")
    try:
        from ctxkeep.compactor import compact
        from ctxkeep.scorers import make_scorer
        from ctxkeep.scorers.embedding import embedding_available
    except ImportError as exc:  # pragma: no cover - the compactor ships with ctxkeep
        return [Compactor(n, None, f"not importable: {exc}") for n in names]
    if scorer_name == "embedding" and not embedding_available():
        return [Compactor(n, None, "not installed") for n in names]
    try:
        scorer = _ScoreMemo(make_scorer(scorer_name))
    except KeyError:
        return [Compactor(n, None, "not installed") for n in names]

    def runner(pinning: bool) -> CompactFn:
        def run(messages: Sequence[Message], task: str, budget_tokens: int) -> list[Message]:
            result = compact(
                list(messages),
                task,
                target_tokens=budget_tokens,
                enable_pinning=pinning,
                scorer=scorer,
            )
            if any(p.startswith("scorer:") for p in result.problems):
                raise RuntimeError("; ".join(result.problems))
            if result.stats.degraded:
                # Scored by recency instead: the row would not measure the named scorer.
                raise RuntimeError(f"degraded: {result.stats.degraded_reason}")
            return list(result.messages)

        return run

    return [Compactor(names[0], runner(True)), Compactor(names[1], runner(False))]


def available_compactors() -> tuple[Compactor, ...]:
    """Every compactor of the benchmark, in table order; those that cannot run here say
    why (``not installed``) instead of being left out."""
    rows: list[Compactor] = [Compactor("recency-truncation", recency_truncation)]
    run, why = _langchain()
    rows.append(Compactor("langchain-trim", run, why))
    for scorer in _SCORERS:
        rows.extend(_ctxkeep_rows(scorer))
    return tuple(rows)
