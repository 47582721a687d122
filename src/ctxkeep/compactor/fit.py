"""Step 4 of the compactor: which messages stay, whole, within the budget (soft budget).

Messages are kept or dropped by tool unit (a call with its results; every other message
is a unit of its own). :func:`classify` sorts the units into those that must stay (a
protected member, a call still waiting for its result, a scorer unsure of them), those
that may go (candidates, with the value the scorer gave them) and orphans (a call without
its result or a result without its call: no API accepts them). :func:`fit_soft` keeps the
protected units whole and then the most valuable candidates (ties: the newer) while the
budget lasts; what protected units alone put over the budget is reported, not cut.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from ctxkeep.compactor.segment import Segments, Unit, unit_of_each
from ctxkeep.scorers import Score

__all__ = [
    "Budget",
    "Choice",
    "Classified",
    "Forced",
    "Plan",
    "Selection",
    "classify",
    "fit_soft",
    "soft_plan",
    "summary_caps",
]


@dataclass(frozen=True, slots=True)
class Budget:
    """The target: UTF-8 bytes and/or tokens (None: no limit on that measure)."""

    bytes: int | None
    tokens: int | None

    def exceeded_by(self, size_bytes: int, size_tokens: int) -> tuple[int, int]:
        over_b = max(0, size_bytes - self.bytes) if self.bytes is not None else 0
        over_t = max(0, size_tokens - self.tokens) if self.tokens is not None else 0
        return over_b, over_t


class Choice(NamedTuple):
    """A unit that may be dropped: its value (the best of its members'), last member.

    A named tuple: one is built per message of long sessions.
    """

    value: float
    last: int
    members: tuple[int, ...]
    bytes: int
    tokens: int


class Forced(NamedTuple):
    """A unit kept whatever its value, with the reason of each member (a named tuple, as
    :class:`Choice`)."""

    members: tuple[int, ...]
    reasons: tuple[str, ...]
    bytes: int
    tokens: int


@dataclass
class Classified:
    """Every message's unit sorted by what may happen to it."""

    forced: list[Forced] = field(default_factory=list)
    choices: list[Choice] = field(default_factory=list)
    """Best first: by value, ties by the newer (no two share a last member)."""
    orphans: list[int] = field(default_factory=list)


@dataclass
class Plan:
    """The fit step's answer, whichever the budget mode.

    ``dropped`` are the messages the summary stands in for; ``replaced`` holds the
    shortened copy of a message kept shortened (hard budget), with its kept ``spans``,
    its ``elided`` text (which the summary may draw on) and its ``(bytes, tokens)`` in
    ``sizes``. The summary may take ``cap_bytes`` (and ``cap_tokens``) when ``summarise``.
    """

    kept: list[bool]
    reasons: list[str]
    dropped: list[int]
    over_bytes: int = 0
    over_tokens: int = 0
    summarise: bool = False
    cap_bytes: int = 0
    cap_tokens: int | None = None
    fits: bool = True
    replaced: dict[int, Any] = field(default_factory=dict)
    spans: dict[int, tuple[tuple[int, int], ...]] = field(default_factory=dict)
    elided: dict[int, str] = field(default_factory=dict)
    sizes: dict[int, tuple[int, int]] = field(default_factory=dict)


@dataclass
class Selection:
    """What stays: a flag and a reason per message, and what went."""

    kept: list[bool]
    reasons: list[str]
    dropped: list[int]
    forced_bytes: int = 0
    forced_tokens: int = 0
    over_bytes: int = 0
    over_tokens: int = 0

    @property
    def over(self) -> bool:
        return (self.over_bytes, self.over_tokens) != (0, 0)


def _unit_reasons(members: Sequence[int], own: Sequence[str]) -> tuple[str, ...]:
    """Each member's reason in a forced unit: its own, else ``paired:`` the unit's."""
    unit_own = next((own[i] for i in members if own[i]), "")
    if not unit_own:
        return tuple("pending-call" for _ in members)
    alone = len(members) == 1
    return tuple(own[i] or unit_own if own[i] or alone else f"paired:{unit_own}" for i in members)


def classify(
    segments: Segments,
    units: Sequence[Unit],
    own: Sequence[str],
    scores: Mapping[int, Score],
    min_confidence: float,
) -> Classified:
    """Sort every unit into forced, choices and orphans (see the module docstring)."""
    sizes, tokens = segments.sizes, segments.tokens
    out = Classified()
    for i, unit in enumerate(unit_of_each(units, len(segments))):
        if unit is not None:
            if i == unit.members[0]:  # a unit is met at its first member
                _classify_unit(unit, own, scores, min_confidence, segments, out)
        elif own[i]:
            out.forced.append(Forced((i,), (own[i],), sizes[i], tokens[i]))
        else:
            found = scores[i]
            if found.confidence < min_confidence:
                out.forced.append(Forced((i,), ("unsure",), sizes[i], tokens[i]))
            else:
                out.choices.append(Choice(found.value, i, (i,), sizes[i], tokens[i]))
    out.choices.sort(reverse=True)  # by value, ties by the newer: a Choice starts (value, last)
    return out


def _classify_unit(
    unit: Unit,
    own: Sequence[str],
    scores: Mapping[int, Score],
    min_confidence: float,
    segments: Segments,
    out: Classified,
) -> None:
    members = unit.members
    if unit.broken and not unit.pending:
        out.orphans.extend(members)
        return
    size_b = size_t = 0
    protected = False
    for i in members:
        size_b += segments.sizes[i]
        size_t += segments.tokens[i]
        protected = protected or bool(own[i])
    if unit.pending or protected:
        out.forced.append(Forced(members, _unit_reasons(members, own), size_b, size_t))
        return
    member_scores = [scores[i] for i in members]
    if min(s.confidence for s in member_scores) < min_confidence:
        out.forced.append(Forced(members, ("unsure",) * len(members), size_b, size_t))
        return
    value = max(s.value for s in member_scores)
    out.choices.append(Choice(value, members[-1], members, size_b, size_t))


def fit_soft(n: int, classified: Classified, budget: Budget, summary_bytes: int) -> Selection:
    """Protected units whole, then the best candidates within what the summary leaves.

    The summary is reserved ``min(summary_bytes, left // 4)`` bytes (a quarter of the
    tokens left, for a token budget) of what the protected units leave.
    """
    selection = Selection(kept=[True] * n, reasons=[""] * n, dropped=[])
    for i in classified.orphans:
        selection.kept[i], selection.reasons[i] = False, "orphan"
    for unit in classified.forced:
        for i, reason in zip(unit.members, unit.reasons, strict=True):
            selection.reasons[i] = reason
        selection.forced_bytes += unit.bytes
        selection.forced_tokens += unit.tokens
    over = budget.exceeded_by(selection.forced_bytes, selection.forced_tokens)
    selection.over_bytes, selection.over_tokens = over
    room_b, room_t = _room(budget, selection, summary_bytes)
    dropped_reason = "over-budget" if selection.over else "budget"
    kept, reasons, dropped = selection.kept, selection.reasons, selection.dropped
    for choice in classified.choices:
        alone = len(choice.members) == 1
        if choice.bytes <= room_b and choice.tokens <= room_t:
            room_b -= choice.bytes
            room_t -= choice.tokens
            reason = "selected" if alone else "paired:selected"
            for i in choice.members:
                reasons[i] = reason
        else:
            reason = dropped_reason if alone else f"paired:{dropped_reason}"
            for i in choice.members:
                kept[i] = False
                reasons[i] = reason
            dropped.extend(choice.members)
    return selection


def summary_caps(
    budget: Budget, selection: Selection, summary_bytes: int
) -> tuple[int, int | None]:
    """The summary's byte and token caps under a soft budget: ``summary_bytes`` or a
    quarter of what the protected units leave, whichever is less."""
    if budget.bytes is None:
        cap_b = summary_bytes
    else:
        cap_b = min(summary_bytes, (budget.bytes - selection.forced_bytes) // 4)
    cap_t = None if budget.tokens is None else (budget.tokens - selection.forced_tokens) // 4
    return cap_b, cap_t


def _room(budget: Budget, selection: Selection, summary_bytes: int) -> tuple[float, float]:
    """Room left for candidates: unlimited without a target, none when over budget."""
    if selection.over:
        return -1, -1
    cap_b, cap_t = summary_caps(budget, selection, summary_bytes)
    room_b = math.inf if budget.bytes is None else budget.bytes - selection.forced_bytes - cap_b
    room_t = math.inf
    if budget.tokens is not None and cap_t is not None:
        room_t = budget.tokens - selection.forced_tokens - cap_t
    return room_b, room_t


def soft_plan(n: int, classified: Classified, budget: Budget, summary_bytes: int) -> Plan:
    """:func:`fit_soft` as a :class:`Plan`: a summary when something went and the
    protected units left room for one."""
    selection = fit_soft(n, classified, budget, summary_bytes)
    cap_b, cap_t = summary_caps(budget, selection, summary_bytes)
    return Plan(
        kept=selection.kept,
        reasons=selection.reasons,
        dropped=selection.dropped,
        over_bytes=selection.over_bytes,
        over_tokens=selection.over_tokens,
        summarise=bool(selection.dropped)
        and not selection.over
        and cap_b > 0
        and (cap_t is None or cap_t > 0),
        cap_bytes=cap_b,
        cap_tokens=cap_t,
    )
