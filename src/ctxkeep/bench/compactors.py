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

from ctxkeep.messages import message_text
from ctxkeep.tokens import count_tokens

__all__ = [
    "Compactor",
    "available_compactors",
    "message_tokens",
    "recency_truncation",
]

Message = Any
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


def _ctxkeep(scorer_name: str, pinning: bool) -> tuple[CompactFn | None, str | None]:
    try:
        from ctxkeep.compactor import compact
        from ctxkeep.scorers import ScorerError, make_scorer
    except ImportError as exc:  # the compactor is being built in parallel
        return None, f"not importable: {exc}"
    try:
        scorer = make_scorer(scorer_name)
    except (KeyError, ImportError, ScorerError) as exc:
        return None, "not installed" if isinstance(exc, KeyError | ImportError) else str(exc)

    def run(messages: Sequence[Message], task: str, budget_tokens: int) -> list[Message]:
        result = compact(
            list(messages),
            task,
            target_tokens=budget_tokens,
            enable_pinning=pinning,
            scorer=scorer,
        )
        return list(result.messages)

    return run, None


def available_compactors() -> tuple[Compactor, ...]:
    """Every compactor of the benchmark, in table order; those that cannot run here say
    why (``not installed``) instead of being left out."""
    rows: list[Compactor] = [Compactor("recency-truncation", recency_truncation)]
    run, why = _langchain()
    rows.append(Compactor("langchain-trim", run, why))
    for scorer in ("recency", "lexical", "embedding"):
        for pinning in (True, False):
            name = f"ctxkeep/{scorer}" + ("" if pinning else "/no-pin")
            run, why = _ctxkeep(scorer, pinning)
            rows.append(Compactor(name, run, why))
    return tuple(rows)
