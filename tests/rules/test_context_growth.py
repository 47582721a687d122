"""The rules' per-compaction views cost what they hold, not compactions x events.

A log whose repeated slice holds a compaction becomes a session of thousands of
compactions (docs/reliability.md). Timing would be flaky on a shared machine, so the work
is counted: the lines of ``ctxkeep/rules/context.py`` executed while every view is built,
a deterministic figure for a given input. Twice the input must cost about twice the
lines; compactions x events would cost four times as many.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from types import FrameType
from typing import Any

import ctxkeep.rules.context as context_module
from ctxkeep.log.model import Compaction, CompactionStatus, Event, EventKind, Session
from ctxkeep.rules.context import RuleContext

_CONTEXT_FILE = context_module.__file__


def _session(compactions: int) -> Session:
    """Per compaction ``k``: a user message ``a``, a tool result ``b`` and the compaction.

    Compaction ``k`` replaces its own ``a``, and the ``b`` and the compaction of window
    ``k - 1``: every ``b`` outlives the compaction after it (a candidate for every later
    screen) yet is on one screen only. What the screens hold stays linear, the
    candidates do not.
    """
    events: list[Event] = []
    made: list[Compaction] = []
    for k in range(1, compactions + 1):
        a, b, start = 3 * k - 2, 3 * k - 1, 3 * k
        events.append(Event(a, EventKind.MESSAGE, "user", f"step {k}: keep going"))
        events.append(Event(b, EventKind.TOOL_RESULT, "tool", f"output {k}", call_id=f"c{k}"))
        events.append(Event(start, EventKind.COMPACTION_START))
        shadowed = (a,) if k == 1 else (b - 3, start - 3, a)
        status = CompactionStatus.SUMMARISED
        made.append(
            Compaction(k, f"c{k}", start, start, status, summary=f"s{k}", shadowed_seqs=shadowed)
        )
    return Session("growth.jsonl", "ctxkeep", events=tuple(events), compactions=tuple(made))


def _lines_executed(work: Callable[[], object]) -> int:
    """How many lines of rules/context.py ``work`` executes (a deterministic count)."""
    count = 0

    def tracer(frame: FrameType, event: str, arg: Any) -> Any:
        nonlocal count
        if frame.f_code.co_filename != _CONTEXT_FILE:
            return None  # no line events for frames outside the module
        if event == "line":
            count += 1
        return tracer

    previous = sys.gettrace()
    sys.settrace(tracer)
    try:
        work()
    finally:
        sys.settrace(previous)
    return count


def _build_every_view(session: Session) -> object:
    ctx = RuleContext(session)
    return [
        (view.visible, view.previous_opaque, view.unanswered_calls, view.source_index())
        for view in ctx.views()
    ]


def test_screens_hold_what_the_session_says() -> None:
    session = _session(5)
    ctx = RuleContext(session)
    visible = {view.compaction.index: [e.seq for e in view.visible] for view in ctx.views()}
    # compaction k (k >= 2) sees the b of window k and nothing else: ``a`` is its own,
    # the b before it was replaced by the compaction before it
    assert visible == {1: [2], 2: [5], 3: [8], 4: [11], 5: [14]}


def test_views_grow_linearly_with_the_compactions() -> None:
    small = _lines_executed(lambda: _build_every_view(_session(300)))
    large = _lines_executed(lambda: _build_every_view(_session(600)))
    # linear: about 2x; compactions x events: about 4x
    assert large / small < 2.4, (small, large)
