"""Step 4 under a hard budget: the target is never exceeded.

Only the *mandatory* part is never cut: the system messages and the last message the
user wrote. When it alone exceeds the budget, the plan keeps it alone and says it does
not fit. Otherwise protected content gives way, step by step, until it leaves the
summary its floor (a quarter of the room, at most ``summary_bytes``):

1. units kept only because the scorer was unsure become candidates like any other;
2. long tool output in protected units keeps its head, its tail and the lines that
   matter (error lines, the traceback's last frames), oldest message first;
3. pinned messages keep only the spans that triggered their pins (the sentence with the
   path, the constraint, the error line) and their identity (role, tool-call ids);
4. recent messages keep their first and last span and their pinned spans;
5. pinned units are dropped, oldest first (the summary may still carry their facts);
6. recent units, and a call still waiting for its result, are dropped, oldest first;
7. the summary's floor goes.

Then the candidates (unprotected units, best value first, whole) fill what the summary
does not take: the summary is given ``max(floor, min(dropped / 20, max(summary_bytes,
8 KB)))`` of the room left, and everything the candidates leave.
"""

from __future__ import annotations

import bisect
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ctxkeep.base.messages import message_text
from ctxkeep.base.tokens import count_tokens
from ctxkeep.compactor.fit import Budget, Choice, Classified, Forced, Plan
from ctxkeep.compactor.protect import SYSTEM_ROLES, Protection, last_user_message
from ctxkeep.compactor.reshape import Shortened, shortened
from ctxkeep.compactor.segment import Segments
from ctxkeep.compactor.text import utf8_size
from ctxkeep.extract import extract_constraints
from ctxkeep.scorers import Score

__all__ = ["GIVE_WAY", "HardInput", "fit_hard", "mandatory_messages", "why_not"]

GIVE_WAY = (
    "unsure",
    "elide-long-output",
    "pinned-to-spans",
    "recent-to-spans",
    "drop-pinned",
    "drop-recent",
    "summary-floor",
)
"""The order in which protected content gives way (see the module docstring)."""

LONG_OUTPUT_LINES = 60
LONG_OUTPUT_BYTES = 8192
_HEAD_LINES = 10
_TAIL_LINES = 10
_MATTER_LINES = 20
_SUMMARY_CEILING = 8192
_ERROR_WORDS = ("error", "fail", "exception", "fatal", "panic", "denied", "not found",
                "warning", "错误", "失败", "异常")  # fmt: skip


@dataclass(frozen=True, slots=True)
class HardInput:
    """What the hard fit reads."""

    messages: Sequence[Any]
    segments: Segments
    protection: Protection
    scores: Mapping[int, Score]
    budget: Budget
    summary_bytes: int
    exact_tokens: bool


def mandatory_messages(segments: Segments) -> list[int]:
    """The system messages and the last message the user wrote: never cut."""
    chosen = [i for i, role in enumerate(segments.roles) if role in SYSTEM_ROLES]
    last = last_user_message(segments)
    if last is not None and last not in chosen:
        chosen.append(last)
    return sorted(chosen)


def _matter(
    text: str, spans: Sequence[tuple[int, int]], hits: Sequence[tuple[int, int, str]]
) -> list[int]:
    """Spans that matter in tool output: the error lines and the traceback's last frames."""
    starts = [a for a, _ in spans]
    chosen: list[int] = []
    trace = [h for h in hits if h[2] == "trace"]
    for start, _end, _name in trace[-3:]:
        k = bisect.bisect_right(starts, start) - 1
        chosen.extend((k, k + 1))
    for start, _end, name in hits:
        if name != "trace":
            chosen.append(bisect.bisect_right(starts, start) - 1)
    for k, (a, b) in enumerate(spans):
        if len(chosen) >= _MATTER_LINES:
            break
        lowered = text[a:b].lower()
        if any(word in lowered for word in _ERROR_WORDS):
            chosen.append(k)
    return [k for k in dict.fromkeys(chosen) if 0 <= k < len(spans)][: _MATTER_LINES + 6]


class _Forms:
    """The shortened forms of messages, each built once."""

    def __init__(self, inp: HardInput) -> None:
        self.inp = inp
        self._cache: dict[tuple[int, str], Shortened | None] = {}

    def _pinned(
        self, i: int, text: str, spans: Sequence[tuple[int, int]], prose: bool
    ) -> list[int]:
        protection = self.inp.protection
        hits = protection.pins.hit_offsets(text, prose=prose and bool(protection.prose[i]))
        if prose and self.inp.segments.roles[i] == "user" and protection.prose[i]:
            hits.extend((c.start, c.end, "constraint") for c in extract_constraints(text))
        starts = [a for a, _ in spans]
        chosen: set[int] = set()
        for start, end, _name in hits:
            first = bisect.bisect_right(starts, start) - 1
            last = bisect.bisect_right(starts, max(start, end - 1)) - 1
            chosen.update(range(max(first, 0), last + 1))
        if not prose:
            chosen.update(_matter(text, spans, hits))
        return sorted(chosen)

    def get(self, i: int, form: str) -> Shortened | None:
        key = (i, form)
        if key not in self._cache:
            self._cache[key] = self._build(i, form)
        return self._cache[key]

    def _build(self, i: int, form: str) -> Shortened | None:
        message = self.inp.messages[i]
        full = self.inp.segments.texts[i]

        def choose(text: str, spans: Sequence[tuple[int, int]], prose: bool) -> list[int]:
            everything = list(range(len(spans)))
            if form == "elided":
                long = len(spans) > LONG_OUTPUT_LINES or utf8_size(text) > LONG_OUTPUT_BYTES
                if prose or not long:
                    return everything
                head = list(range(min(_HEAD_LINES, len(spans))))
                tail = list(range(max(0, len(spans) - _TAIL_LINES), len(spans)))
                return [
                    *head,
                    *tail,
                    *_matter(text, spans, self.inp.protection.pins.hit_offsets(text, prose=False)),
                ]
            pinned = self._pinned(i, text, spans, prose)
            if form == "recent-spans" and spans:
                return [0, len(spans) - 1, *pinned]
            return pinned

        return shortened(message, full, choose)


_INF = float("inf")
Room = tuple[float, float]


class _State:
    """Each protected member's current form: whole, elided, spans, recent-spans or gone."""

    def __init__(self, inp: HardInput, forced: Sequence[Forced]) -> None:
        self.inp = inp
        self.forms = _Forms(inp)
        self.form = {i: "whole" for unit in forced for i in unit.members}

    def size(self, i: int) -> tuple[int, int]:
        form = self.form[i]
        if form == "gone":
            return 0, 0
        short = None if form == "whole" else self.forms.get(i, form)
        if short is None:
            return self.inp.segments.sizes[i], self.inp.segments.tokens[i]
        return _measure(self.inp, short.message)

    def cost(self, units: Sequence[Forced]) -> tuple[int, int]:
        size_b = size_t = 0
        for unit in units:
            for i in unit.members:
                b, t = self.size(i)
                size_b += b
                size_t += t
        return size_b, size_t

    def downgrade(self, unit: Forced, to: str) -> None:
        for i in unit.members:
            if self.form[i] == "gone":
                continue
            if to == "gone" or self.forms.get(i, to) is not None:
                self.form[i] = to


def _measure(inp: HardInput, message: Any) -> tuple[int, int]:
    text = message_text(message)
    size = utf8_size(text)
    return size, count_tokens(text) if inp.exact_tokens else (size + 3) // 4


def _within(size: tuple[int, int], room: Room) -> bool:
    return size[0] <= room[0] and size[1] <= room[1]


def _sizes(inp: HardInput, members: Sequence[int]) -> tuple[int, int]:
    return (
        sum(inp.segments.sizes[i] for i in members),
        sum(inp.segments.tokens[i] for i in members),
    )


def _kind(unit: Forced) -> str:
    reasons = [r.removeprefix("paired:") for r in unit.reasons]
    if all(r == "unsure" for r in reasons):
        return "unsure"
    if any(r in ("recent", "pending-call") for r in reasons):
        return "recent"
    return "pinned"


_STEPS: tuple[tuple[str, str], ...] = (
    ("unsure", "release"),
    ("any", "elided"),
    ("pinned", "spans"),
    ("recent", "recent-spans"),
    ("pinned", "gone"),
    ("recent", "gone"),
)
"""(which protected units, what they become): GIVE_WAY's first six steps."""


def _give_way(state: _State, forced: list[Forced], room: Room) -> list[Forced]:
    """Downgrade protected units, step by step and oldest first, until they fit ``room``,
    then give back, newest change first, what still fits (dropping a whole unit may free
    more than was needed); returns the units released to the candidates (those only the
    scorer's doubt kept)."""
    released: list[Forced] = []
    changes: list[tuple[Forced, dict[int, str]]] = []
    # The units' cost, updated by each change rather than summed again before each unit
    # (measuring a shortened form counts its tokens): 2,000 real messages under a token
    # budget took minutes summed, quadratic in the protected units.
    total = state.cost(forced)
    for kind, to in _STEPS:
        for unit in sorted(forced, key=lambda u: u.members[0]):
            if _within(total, room):
                break
            if kind not in ("any", _kind(unit)):
                continue
            was = state.cost([unit])
            if to == "release":
                released.append(unit)
                forced.remove(unit)
                total = _changed(total, was, (0, 0))
                continue
            before = {i: state.form[i] for i in unit.members}
            state.downgrade(unit, to)
            if before != {i: state.form[i] for i in unit.members}:
                changes.append((unit, before))
                total = _changed(total, was, state.cost([unit]))
    for unit, before in reversed(changes):
        after = {i: state.form[i] for i in unit.members}
        was = state.cost([unit])
        state.form.update(before)
        restored = _changed(total, was, state.cost([unit]))
        if _within(restored, room):
            total = restored
        else:
            state.form.update(after)
    return released


def _changed(total: tuple[int, int], was: tuple[int, int], now: tuple[int, int]) -> tuple[int, int]:
    """``total`` with one part's cost changed from ``was`` to ``now``."""
    return total[0] - was[0] + now[0], total[1] - was[1] + now[1]


def _not_fitting(inp: HardInput, classified: Classified, mandatory: Sequence[int]) -> Plan:
    n = len(inp.segments)
    plan = Plan(kept=[False] * n, reasons=["over-budget"] * n, dropped=[], fits=False)
    for i in classified.orphans:
        plan.reasons[i] = "orphan"
    for i in mandatory:
        plan.kept[i] = True
        plan.reasons[i] = _own_reason(classified, i, inp)
    plan.over_bytes, plan.over_tokens = inp.budget.exceeded_by(*_sizes(inp, mandatory))
    return plan


def _own_reason(classified: Classified, i: int, inp: HardInput) -> str:
    """A mandatory message's reason: its protection, else ``mandatory``."""
    for unit in classified.forced:
        if i in unit.members:
            return unit.reasons[unit.members.index(i)]
    return "system" if inp.segments.roles[i] in SYSTEM_ROLES else "mandatory"


def why_not(inp: HardInput, mandatory: Sequence[int]) -> str:
    """The one-line reason a hard budget cannot hold."""
    size_b, size_t = _sizes(inp, mandatory)
    over_b, over_t = inp.budget.exceeded_by(size_b, size_t)
    parts = []
    if over_b:
        parts.append(f"{size_b} bytes for a budget of {inp.budget.bytes}")
    if over_t:
        parts.append(f"{size_t} tokens for a budget of {inp.budget.tokens}")
    return (
        "hard budget cannot hold: the system messages and the last user message alone are "
        + " and ".join(parts)
        + " (fits=False: only they are kept)"
    )


def fit_hard(inp: HardInput, classified: Classified) -> Plan:
    """The plan under a hard budget (``fits`` False when the mandatory part is over)."""
    mandatory = mandatory_messages(inp.segments)
    used = _sizes(inp, mandatory)
    if inp.budget.exceeded_by(*used) != (0, 0):
        return _not_fitting(inp, classified, mandatory)
    room = _room(inp.budget, used)
    floor = (
        min(inp.summary_bytes, int(room[0]) // 4) if room[0] != _INF else 0,
        int(room[1]) // 4 if room[1] != _INF else 0,
    )
    must = set(mandatory)
    forced = [u for u in classified.forced if not set(u.members) <= must]
    choices = [c for c in classified.choices if not set(c.members) <= must]
    state = _State(inp, forced)
    released = _give_way(state, forced, (room[0] - floor[0], room[1] - floor[1]))
    plan = _plan(inp, classified, mandatory, forced, state)
    spent = state.cost(forced)
    left = (room[0] - spent[0], room[1] - spent[1])
    _select(inp, plan, [*choices, *(_as_choice(inp, u) for u in released)], left, floor)
    return plan


def _room(budget: Budget, used: tuple[int, int]) -> Room:
    return (
        _INF if budget.bytes is None else budget.bytes - used[0],
        _INF if budget.tokens is None else budget.tokens - used[1],
    )


def _as_choice(inp: HardInput, unit: Forced) -> Choice:
    value = max(inp.scores[i].value if i in inp.scores else 0.0 for i in unit.members)
    return Choice(value, unit.members[-1], unit.members, unit.bytes, unit.tokens)


def _plan(
    inp: HardInput,
    classified: Classified,
    mandatory: Sequence[int],
    forced: Sequence[Forced],
    state: _State,
) -> Plan:
    n = len(inp.segments)
    plan = Plan(kept=[True] * n, reasons=[""] * n, dropped=[])
    for i in classified.orphans:
        plan.kept[i], plan.reasons[i] = False, "orphan"
    for i in mandatory:
        plan.reasons[i] = _own_reason(classified, i, inp)
    for unit in forced:
        for i, reason in zip(unit.members, unit.reasons, strict=True):
            form = state.form[i]
            plan.reasons[i] = reason
            if form == "gone":
                plan.kept[i] = False
                plan.reasons[i] = f"gave-way:{reason}"
                plan.dropped.append(i)
            elif form != "whole":
                short = state.forms.get(i, form)
                if short is not None:
                    plan.replaced[i] = short.message
                    plan.spans[i] = short.kept
                    plan.elided[i] = short.elided
                    plan.sizes[i] = _measure(inp, short.message)
    return plan


def _summary_share(
    inp: HardInput, choices: Sequence[Choice], left: Room, floor: tuple[int, int]
) -> Room:
    """What the summary is kept: its floor, or a twentieth of what may go (at most
    ``max(summary_bytes, 8 KB)``), within what is left."""
    total_b = sum(c.bytes for c in choices)
    total_t = sum(c.tokens for c in choices)
    ceiling = max(inp.summary_bytes, _SUMMARY_CEILING)
    share_b = min(left[0], max(floor[0], min(total_b // 20, ceiling)))
    share_t = min(left[1], max(floor[1], min(total_t // 20, ceiling // 4)))
    return share_b, share_t


def _select(
    inp: HardInput, plan: Plan, choices: list[Choice], left: Room, floor: tuple[int, int]
) -> None:
    """Candidates by value into what the summary does not take; the summary gets the rest."""
    choices.sort(key=lambda c: (c.value, c.last), reverse=True)
    share = _summary_share(inp, choices, left, floor)
    room_b, room_t = left[0] - share[0], left[1] - share[1]
    spent_b = spent_t = 0
    for choice in choices:
        alone = len(choice.members) == 1
        if spent_b + choice.bytes <= room_b and spent_t + choice.tokens <= room_t:
            spent_b += choice.bytes
            spent_t += choice.tokens
            for i in choice.members:
                plan.reasons[i] = "selected" if alone else "paired:selected"
        else:
            for i in choice.members:
                plan.kept[i] = False
                plan.reasons[i] = "budget" if alone else "paired:budget"
            plan.dropped.extend(choice.members)
    cap_b = inp.summary_bytes if left[0] == _INF else int(left[0]) - spent_b
    plan.cap_bytes = max(0, cap_b)
    plan.cap_tokens = None if left[1] == _INF else max(0, int(left[1]) - spent_t)
    plan.summarise = bool(plan.dropped or plan.elided) and plan.cap_bytes > 0
