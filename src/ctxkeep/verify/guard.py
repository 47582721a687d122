"""The guard: a compaction succeeds when the measured context shrank, not when it says so.

``guard(compactor)`` wraps any compactor. Each call runs a chain of strategies (the given
compactor, then its fallbacks) on a copy of the input and takes the first result that

1. is a message list at all (a compactor that raises, or returns something else, failed);
2. is a sequence the target API accepts (:mod:`ctxkeep.verify.validity`), with no problem
   the input did not already have, and still ends with the input's newest message;
3. is measurably smaller: fewer messages *and* fewer tokens.

A result that fails 1 or 2 is rolled back (the input is kept) and the reason reported; a
no-op falls through to the next strategy. When every strategy fails the input is returned
unchanged. After ``max_failures`` consecutive failed calls a circuit breaker opens: calls
return the input untouched, without running anything, until :meth:`Guard.reset` (or, with
``probe_every``, a trial call succeeds). :func:`settle` is the one decision of what a caller
may tell the user and the model.
"""

from __future__ import annotations

import copy
import dataclasses
import os
import sqlite3
from collections.abc import Sequence
from typing import Any

from ctxkeep.verify.eventlog import EventLog
from ctxkeep.verify.measure import Size, measure
from ctxkeep.verify.result import Attempt, GuardedResult
from ctxkeep.verify.stats import StatsStore, compaction_record
from ctxkeep.verify.strategies import (
    Compactor,
    CtxkeepCompaction,
    RoundGroupTruncation,
    output_messages,
    strategy_name,
    summary_kind,
)
from ctxkeep.verify.validity import (
    Api,
    SequenceProblem,
    detect_api,
    new_problems,
    sequence_problems,
)

__all__ = ["DEFAULT_FALLBACKS", "Guard", "guard"]

DEFAULT_FALLBACKS: tuple[Compactor, ...] = (CtxkeepCompaction(), RoundGroupTruncation())
"""ctxkeep's relevance-scored compactor, then truncation at round-group boundaries."""


class Guard:
    """A compactor wrapped in measurement, validation, fallbacks and a circuit breaker.

    Build it with :func:`guard`. One instance holds the breaker state of one conversation
    (or one harness); it is not meant to be shared between threads.
    """

    def __init__(
        self,
        compactor: Compactor,
        *,
        fallbacks: Sequence[Compactor] = DEFAULT_FALLBACKS,
        max_failures: int = 3,
        event_log: EventLog | str | os.PathLike[str] | None = None,
        stats: StatsStore | None = None,
        api: Api | None = None,
        probe_every: int | None = None,
    ) -> None:
        if max_failures < 1:
            raise ValueError("max_failures must be at least 1")
        if probe_every is not None and probe_every < 1:
            raise ValueError("probe_every must be at least 1 (or None)")
        if fallbacks is DEFAULT_FALLBACKS:
            # guard(CtxkeepCompaction(task=...)) should not rerun it with an empty task
            fallbacks = tuple(f for f in fallbacks if type(f) is not type(compactor))
        chain: list[Compactor] = []
        for strategy in (compactor, *fallbacks):
            if not any(strategy is s or _same_strategy(strategy, s) for s in chain):
                chain.append(strategy)
        self.strategies: tuple[Compactor, ...] = tuple(chain)
        self.max_failures = max_failures
        self.event_log = (
            event_log
            if isinstance(event_log, EventLog) or event_log is None
            else EventLog(event_log)
        )
        self.stats = stats
        self.api = api
        self.probe_every = probe_every
        self.consecutive_failures = 0
        self._refused = 0
        self._last_failure = ""

    @property
    def breaker_open(self) -> bool:
        """True after ``max_failures`` consecutive failed calls, until a success or reset."""
        return self.consecutive_failures >= self.max_failures

    def reset(self) -> None:
        """Close the circuit breaker and forget the failures counted so far."""
        self.consecutive_failures = 0
        self._refused = 0
        self._last_failure = ""

    def __call__(self, messages: Sequence[Any]) -> GuardedResult:
        original = list(messages)
        counts: dict[str, int] = {}
        before = measure(original, counts)
        if self.breaker_open and not self._probe_due():
            return GuardedResult(
                success=False,
                messages=original,
                before=before,
                after=before,
                strategy=None,
                reason=(
                    f"the circuit breaker is open after {self.consecutive_failures} "
                    f"consecutive failures (last: {self._last_failure}); the input is "
                    "returned unchanged until a compaction succeeds or reset() is called"
                ),
                breaker_open=True,
            )
        api = self.api or detect_api(original)
        known = sequence_problems(original, api)
        attempts: list[Attempt] = []
        taken: list[Any] | None = None
        for strategy in self.strategies:
            attempt, output = _try(strategy, original, before, api, known, counts)
            attempts.append(attempt)
            if output is not None:
                taken = output
                break
        result = self._conclude(original, before, attempts, taken)
        problems: list[str] = []
        if self.event_log is not None:
            try:
                self.event_log.record(original, result)
            except OSError as exc:
                problems.append(f"event log {self.event_log.path} not written: {exc}")
        if self.stats is not None:
            try:
                self.stats.record(compaction_record(original, result))
            except (OSError, sqlite3.Error) as exc:
                problems.append(f"statistics {self.stats.path} not recorded: {exc}")
        return dataclasses.replace(result, problems=tuple(problems)) if problems else result

    def _probe_due(self) -> bool:
        self._refused += 1
        return self.probe_every is not None and self._refused % self.probe_every == 0

    def _conclude(
        self,
        original: list[Any],
        before: Size,
        attempts: list[Attempt],
        taken: list[Any] | None,
    ) -> GuardedResult:
        last = attempts[-1]
        if taken is not None and last.after is not None:
            self.reset()
            failed = [a.reason for a in attempts[:-1]]
            reason = last.reason + (f" (after: {'; '.join(failed)})" if failed else "")
            return GuardedResult(
                success=True,
                messages=taken,
                before=before,
                after=last.after,
                strategy=last.strategy,
                reason=reason,
                breaker_open=False,
                attempts=tuple(attempts),
            )
        self.consecutive_failures += 1
        self._last_failure = "; ".join(a.reason for a in attempts)
        return GuardedResult(
            success=False,
            messages=original,
            before=before,
            after=before,
            strategy=None,
            reason=f"no strategy compacted, the input is kept: {self._last_failure}",
            breaker_open=self.breaker_open,
            attempts=tuple(attempts),
        )


def guard(
    compactor: Compactor,
    *,
    fallbacks: Sequence[Compactor] = DEFAULT_FALLBACKS,
    max_failures: int = 3,
    event_log: EventLog | str | os.PathLike[str] | None = None,
    stats: StatsStore | None = None,
    api: Api | None = None,
    probe_every: int | None = None,
) -> Guard:
    """Wrap ``compactor`` (any callable taking and returning a message list) in a guard.

    ``fallbacks`` run in order when the compactor fails (default: ctxkeep's compactor,
    then truncation at round-group boundaries; ``()`` for none). ``event_log`` is a path
    (or :class:`EventLog`) to which every guarded compaction is appended as ctxkeep events;
    ``stats`` records each compaction's features. ``api`` (``openai``, ``anthropic``,
    ``ctxkeep``) is the API whose rules a result must meet; by default it is read from
    the input. With ``probe_every=N`` an open breaker lets every N-th call try again.
    """
    return Guard(
        compactor,
        fallbacks=fallbacks,
        max_failures=max_failures,
        event_log=event_log,
        stats=stats,
        api=api,
        probe_every=probe_every,
    )


def _same_strategy(a: Compactor, b: Compactor) -> bool:
    """Equal strategy values (two ``RoundGroupTruncation()``) run once, not twice."""
    try:
        return type(a) is type(b) and bool(a == b)
    except Exception:  # a user's __eq__ may do anything; treat it as different
        return False


def _keeps_newest_message(original: list[Any], output: list[Any]) -> bool:
    """The message the model must answer next is still last, unchanged.

    Compaction replaces *older* history; a result that lost or rewrote the newest message
    would make the model answer something else than what was asked.
    """
    return not original or (bool(output) and output[-1] == original[-1])


def _try(
    strategy: Compactor,
    original: list[Any],
    before: Size,
    api: Api,
    known: Sequence[SequenceProblem],
    counts: dict[str, int],
) -> tuple[Attempt, list[Any] | None]:
    """Run one strategy on a copy of the input; its output only if it really compacted."""
    name = strategy_name(strategy)
    kind = summary_kind(strategy)
    try:
        # A copy: a compactor that edits its input in place must not spoil the rollback.
        raw = strategy(copy.deepcopy(original))
    except Exception as exc:  # a compactor that raises is a failed strategy, never an escape
        reason = f"{name} raised {type(exc).__name__}: {exc}"
        return Attempt(name, "raised", reason, summary_kind=kind), None
    output = output_messages(raw)
    if output is None:
        reason = f"{name} returned {type(raw).__name__}, not a message list"
        return Attempt(name, "not-a-list", reason, summary_kind=kind), None
    after = measure(output, counts)
    problems = new_problems(known, sequence_problems(output, api))
    if problems:
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        reason = f"{name} returned a sequence the {api} API rejects, rolled back: {problems[0]}"
        return Attempt(name, "invalid", reason + more, after, problems, kind), None
    if not _keeps_newest_message(original, output):
        reason = f"{name} dropped or changed the newest message, rolled back"
        return Attempt(name, "invalid", reason, after, (), kind), None
    if not after.smaller_than(before):
        reason = f"{name} did not shrink the context ({before} -> {after})"
        return Attempt(name, "noop", reason, after, (), kind), None
    reason = f"{name} compacted {before} -> {after}"
    return Attempt(name, "compacted", reason, after, (), kind), output
