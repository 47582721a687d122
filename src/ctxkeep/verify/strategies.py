"""What the guard can run: any compactor, ctxkeep's own, and safe truncation.

A compactor is any callable that takes a message list and returns the compacted list, or
an object holding it (``.messages`` or ``["messages"]``, like ctxkeep's
``CompactionResult``). Anything else such a result says about itself, a ``success``
flag above all, is ignored: the guard measures.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from ctxkeep.base.messages import message_role, message_text
from ctxkeep.base.tokens import count_tokens
from ctxkeep.verify.split import split_points
from ctxkeep.verify.validity import Api, detect_api

__all__ = [
    "TRUNCATION_NOTICE",
    "Compactor",
    "CtxkeepCompaction",
    "RoundGroupTruncation",
    "output_messages",
    "strategy_name",
    "summary_kind",
]

Compactor = Callable[[list[Any]], Any]
"""Takes a message list; returns a list, or an object with ``.messages`` / ``["messages"]``."""

TRUNCATION_NOTICE = (
    "[ctxkeep] Earlier messages of this conversation were removed to fit the context "
    "window; no summary of them was kept. Ask the user for anything you need from them."
)

_LEADING_ROLES = frozenset({"system", "developer"})


def output_messages(value: Any) -> list[Any] | None:
    """The message list a compactor returned, or None when it returned none."""
    if isinstance(value, list | tuple):
        return list(value)
    if isinstance(value, Mapping):
        inner = value.get("messages")
    else:
        inner = getattr(value, "messages", None)
    if isinstance(inner, list | tuple):
        return list(inner)
    return None


def strategy_name(compactor: Any) -> str:
    """A readable name: the ``strategy_name`` attribute, else the function's own name."""
    named = getattr(compactor, "strategy_name", None)
    if isinstance(named, str):
        return named
    for attr in ("__name__", "__qualname__"):
        value = getattr(compactor, attr, None)
        if isinstance(value, str):
            return value
    return type(compactor).__qualname__


def summary_kind(compactor: Any) -> str:
    """What stands in for dropped messages: ``extractive``, ``notice``, or ``custom`` for a
    caller's own function (it may set a ``summary_kind`` attribute to say more)."""
    kind = getattr(compactor, "summary_kind", None)
    return kind if isinstance(kind, str) else "custom"


@dataclass(frozen=True, slots=True)
class CtxkeepCompaction:
    """ctxkeep's relevance-scored compactor (``ctxkeep.compact``) as a guard strategy.

    Without a ``target_tokens`` the budget is ``keep_fraction`` of the input's tokens.
    ``summary_role`` is passed on when given (``user`` for plain-text Anthropic lists,
    which have no system role after the start).
    """

    task: str = ""
    target_tokens: int | None = None
    keep_fraction: float = 2 / 3
    keep_recent: int = 4
    summary_role: str | None = None

    strategy_name: ClassVar[str] = "ctxkeep.compact"
    summary_kind: ClassVar[str] = "extractive"

    def __post_init__(self) -> None:
        _check_fraction(self.keep_fraction)

    def __call__(self, messages: list[Any]) -> Any:
        from ctxkeep.compactor import compact  # lazy: the guard works without it

        target = self.target_tokens
        if target is None:
            total = sum(count_tokens(message_text(m)) for m in messages)
            target = max(1, int(total * self.keep_fraction))
        if self.summary_role is None:
            return compact(messages, self.task, target_tokens=target, keep_recent=self.keep_recent)
        return compact(
            messages,
            self.task,
            target_tokens=target,
            keep_recent=self.keep_recent,
            summary_role=self.summary_role,
        )


@dataclass(frozen=True, slots=True)
class RoundGroupTruncation:
    """Drop the oldest round groups, cutting only at :func:`split_points`.

    Leading system/developer messages are kept. The cut keeps the longest tail whose
    tokens are at most ``keep_fraction`` of the conversation's (or, when no tail is that
    small, the shortest tail there is), and puts :data:`TRUNCATION_NOTICE` as a user
    message in place of what was dropped, so the model knows history is gone. For
    Anthropic the tail must then start with an assistant message (user and assistant
    alternate). With no usable cut the input is returned unchanged: an honest no-op.
    """

    keep_fraction: float = 2 / 3
    api: Api | None = None

    strategy_name: ClassVar[str] = "truncate-at-round-groups"
    summary_kind: ClassVar[str] = "notice"

    def __post_init__(self) -> None:
        _check_fraction(self.keep_fraction)

    def __call__(self, messages: list[Any]) -> list[Any]:
        api = self.api or detect_api(messages)
        lead = 0
        while lead < len(messages) and message_role(messages[lead]) in _LEADING_ROLES:
            lead += 1
        sizes = [count_tokens(message_text(m)) for m in messages]
        tail_tokens = [0] * (len(messages) + 1)
        for i in range(len(messages) - 1, -1, -1):
            tail_tokens[i] = tail_tokens[i + 1] + sizes[i]
        budget = tail_tokens[lead] * self.keep_fraction
        # dropping one message for one notice would shrink nothing
        cuts = [i for i in split_points(messages) if i >= lead + 2 and _joins(messages[i], api)]
        if not cuts:
            return list(messages)
        cut = next((i for i in cuts if tail_tokens[i] <= budget), cuts[-1])
        notice = _notice(messages, cut, api)
        return [*messages[:lead], notice, *messages[cut:]]


def _check_fraction(keep_fraction: float) -> None:
    if not 0 < keep_fraction < 1:
        raise ValueError(f"keep_fraction must be between 0 and 1, not {keep_fraction!r}")


def _joins(first_kept: Any, api: Api) -> bool:
    """The tail can follow a user notice: for Anthropic it must open with the assistant."""
    role = message_role(first_kept)
    if api == "anthropic":
        return role == "assistant"
    return role != "tool"


def _notice(messages: Sequence[Any], cut: int, api: Api) -> dict[str, Any]:
    if api == "ctxkeep":
        last_dropped = messages[cut - 1]
        seq = last_dropped.get("seq") if isinstance(last_dropped, Mapping) else None
        return {
            "type": "message",
            "seq": seq,
            "role": "user",
            "text": TRUNCATION_NOTICE,
            "injected": "ctxkeep-notice",
        }
    return {"role": "user", "content": TRUNCATION_NOTICE}
