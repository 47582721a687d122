"""The statistics store: what recent compactions did, kept apart from test runs.

One SQLite file under :func:`~ctxkeep.base.paths.ctxkeep_home` (``$CTXKEEP_HOME``, else the
per-user data folder) holds the features of the last ``keep`` (default 50) compactions of
each provenance: tokens and messages before and after, the saved ratio, the kind of
summary, and how many of the constraints in the dropped messages the summary carried
(judged by the auditor's own extractor). Every record says where it came from: ``run``
(real use) or ``test``. :meth:`StatsStore.recommend` learns only from ``run`` records and
says how many it used, so parameters can never be tuned on test fixtures (the second
lie of issue 5: a test suite wrote its statistics into the user's home folder).
"""

from __future__ import annotations

import os
import sqlite3
import statistics
import time
from collections.abc import Callable, Sequence
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from ctxkeep.base.messages import message_prose, message_role, message_text, tool_result_ids
from ctxkeep.base.paths import ctxkeep_home
from ctxkeep.verify.measure import compare_messages

if TYPE_CHECKING:
    from ctxkeep.verify.result import GuardedResult

__all__ = [
    "STATS_FILE",
    "CompactionRecord",
    "Provenance",
    "Recommendation",
    "StatsStore",
    "StoredRecord",
    "compaction_record",
    "constraint_coverage",
    "resolve_provenance",
]

Provenance = Literal["run", "test"]
STATS_FILE = "stats.sqlite3"
PROVENANCE_ENV = "CTXKEEP_PROVENANCE"
_PROVENANCES: tuple[Provenance, ...] = ("run", "test")

# Below this share of dropped constraints carried by the summary, a compaction's ratio is
# not one to recommend: it saved tokens by losing instructions (CK003's threshold).
MIN_COVERAGE = 0.5

_SCHEMA = """
CREATE TABLE IF NOT EXISTS compactions (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    recorded_at REAL NOT NULL,
    provenance TEXT NOT NULL CHECK (provenance IN ('run', 'test')),
    success INTEGER NOT NULL,
    strategy TEXT,
    summary_kind TEXT,
    messages_before INTEGER NOT NULL,
    messages_after INTEGER NOT NULL,
    tokens_before INTEGER NOT NULL,
    tokens_after INTEGER NOT NULL,
    saved_ratio REAL NOT NULL,
    constraints_total INTEGER,
    constraints_kept INTEGER
)
"""
_COLUMNS = (
    "success, strategy, summary_kind, messages_before, messages_after, tokens_before, "
    "tokens_after, saved_ratio, constraints_total, constraints_kept"
)


def _running_under_pytest() -> bool:
    """pytest sets ``PYTEST_CURRENT_TEST`` while a test runs: a test suite that forgot
    ``CTXKEEP_PROVENANCE`` must still not pass its fixtures off as real use."""
    return "PYTEST_CURRENT_TEST" in os.environ


def resolve_provenance(explicit: str | None = None) -> Provenance:
    """``explicit`` if given, else ``$CTXKEEP_PROVENANCE``, else ``test`` under pytest,
    else ``run``. Any other value is a ``ValueError``: an unknown tag would be counted as
    neither and silently mislead."""
    value = explicit or os.environ.get(PROVENANCE_ENV) or None
    if value is None:
        return "test" if _running_under_pytest() else "run"
    for known in _PROVENANCES:
        if value == known:
            return known
    source = "provenance" if explicit else f"${PROVENANCE_ENV}"
    raise ValueError(f"{source} must be 'run' or 'test', not {value!r}")


@dataclass(frozen=True, slots=True)
class CompactionRecord:
    """The features of one guarded compaction (a failed one has after == before).

    ``constraints_total`` counts the constraints in the user messages the compaction
    dropped; ``constraints_kept`` how many of them the added text (the summary) carries.
    Both are None when the extractor is not available.
    """

    success: bool
    strategy: str | None
    summary_kind: str | None
    messages_before: int
    messages_after: int
    tokens_before: int
    tokens_after: int
    constraints_total: int | None = None
    constraints_kept: int | None = None

    @property
    def saved_ratio(self) -> float:
        """The share of tokens the compaction freed (0 when it freed none)."""
        if self.tokens_before <= 0:
            return 0.0
        return max(0.0, 1 - self.tokens_after / self.tokens_before)

    @property
    def coverage(self) -> float | None:
        """Kept / total constraints; None when there were none to keep (or no extractor)."""
        if not self.constraints_total or self.constraints_kept is None:
            return None
        return self.constraints_kept / self.constraints_total


@dataclass(frozen=True, slots=True)
class StoredRecord:
    """A record as the store holds it: with its provenance and when it was written."""

    id: int
    recorded_at: float
    provenance: Provenance
    record: CompactionRecord


@dataclass(frozen=True, slots=True)
class Recommendation:
    """What the real (``run``) records suggest, and how many of them it rests on.

    ``keep_fraction``: the median tokens-after / tokens-before of successful compactions
    whose summaries carried at least half the dropped constraints (or had none to carry).
    ``summary_kind``: the kind with the best mean constraint coverage. Either is None when
    there is no sample to base it on. ``ignored_test_records`` were seen and not used.
    """

    samples: int
    ignored_test_records: int
    keep_fraction: float | None
    summary_kind: str | None
    success_rate: float | None

    def keep_fraction_or(self, default: float, *, min_samples: int = 5) -> float:
        """The recommended ``keep_fraction`` when at least ``min_samples`` real compactions
        back it, else ``default``: a handful of runs is not evidence, and test runs never
        count. Feed it to a strategy, e.g. ``RoundGroupTruncation(keep_fraction=...)``."""
        if self.samples < min_samples or self.keep_fraction is None:
            return default
        return min(max(self.keep_fraction, 0.05), 0.95)

    def __str__(self) -> str:
        if not self.samples:
            return (
                f"no recommendation: no real compactions recorded "
                f"({self.ignored_test_records} test records ignored)"
            )
        parts = [f"from {self.samples} real compactions"]
        parts.append(f"({self.ignored_test_records} test records ignored)")
        if self.keep_fraction is not None:
            parts.append(f"keep_fraction={self.keep_fraction:.2f}")
        if self.summary_kind is not None:
            parts.append(f"summary_kind={self.summary_kind}")
        if self.success_rate is not None:
            parts.append(f"success_rate={self.success_rate:.0%}")
        return " ".join(parts)


class StatsStore:
    """The last ``keep`` compactions per provenance, in SQLite.

    ``path`` defaults to ``ctxkeep_home() / "stats.sqlite3"``, resolved when the store is
    made (so ``CTXKEEP_HOME`` decides). ``provenance`` tags what this store writes (see
    :func:`resolve_provenance`). Nothing is created until the first record is written.
    """

    def __init__(
        self,
        path: str | os.PathLike[str] | None = None,
        *,
        provenance: str | None = None,
        keep: int = 50,
        clock: Callable[[], float] = time.time,
    ) -> None:
        if keep < 1:
            raise ValueError("keep must be at least 1")
        self.path = Path(path) if path is not None else ctxkeep_home() / STATS_FILE
        self.provenance = resolve_provenance(provenance)
        self.keep = keep
        self._clock = clock

    def _connect(self) -> sqlite3.Connection:
        conn = sqlite3.connect(self.path, timeout=10)
        conn.execute(_SCHEMA)
        return conn

    def record(self, record: CompactionRecord) -> None:
        """Add one record tagged with this store's provenance; keep the newest ``keep``."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        row = (
            int(record.success),
            record.strategy,
            record.summary_kind,
            record.messages_before,
            record.messages_after,
            record.tokens_before,
            record.tokens_after,
            record.saved_ratio,
            record.constraints_total,
            record.constraints_kept,
        )
        with closing(self._connect()) as conn, conn:
            conn.execute(
                f"INSERT INTO compactions (recorded_at, provenance, {_COLUMNS}) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (self._clock(), self.provenance, *row),
            )
            # Per provenance, so that a test run can never push real records out.
            conn.execute(
                "DELETE FROM compactions WHERE provenance = ? AND id NOT IN "
                "(SELECT id FROM compactions WHERE provenance = ? ORDER BY id DESC LIMIT ?)",
                (self.provenance, self.provenance, self.keep),
            )

    def records(self, provenance: str | None = None) -> list[StoredRecord]:
        """Stored records, oldest first; only those of ``provenance`` when it is given."""
        if not self.path.exists():
            return []
        query = f"SELECT id, recorded_at, provenance, {_COLUMNS} FROM compactions"
        args: tuple[Any, ...] = ()
        if provenance is not None:
            query += " WHERE provenance = ?"
            args = (provenance,)
        with closing(self._connect()) as conn:
            rows = conn.execute(query + " ORDER BY id", args).fetchall()
        return [_stored(row) for row in rows]

    def recommend(self) -> Recommendation:
        """Parameters learnt from real compactions only (test records are counted, unused)."""
        stored = self.records()
        real = [s.record for s in stored if s.provenance == "run"]
        ignored = len(stored) - len(real)
        if not real:
            return Recommendation(0, ignored, None, None, None)
        succeeded = [r for r in real if r.success]
        faithful = [r for r in succeeded if r.coverage is None or r.coverage >= MIN_COVERAGE]
        keep_fraction = (
            statistics.median(r.tokens_after / r.tokens_before for r in faithful)
            if faithful
            else None
        )
        by_kind: dict[str, list[float]] = {}
        for r in succeeded:
            if r.summary_kind is not None and r.coverage is not None:
                by_kind.setdefault(r.summary_kind, []).append(r.coverage)
        best_kind = (
            max(sorted(by_kind), key=lambda k: statistics.fmean(by_kind[k])) if by_kind else None
        )
        return Recommendation(
            samples=len(real),
            ignored_test_records=ignored,
            keep_fraction=keep_fraction,
            summary_kind=best_kind,
            success_rate=len(succeeded) / len(real),
        )


def _stored(row: Sequence[Any]) -> StoredRecord:
    (rid, at, provenance, success, strategy, kind, mb, ma, tb, ta, _ratio, total, kept) = row
    return StoredRecord(
        id=rid,
        recorded_at=at,
        provenance=resolve_provenance(provenance),
        record=CompactionRecord(bool(success), strategy, kind, mb, ma, tb, ta, total, kept),
    )


def _is_user_instruction(message: Any) -> bool:
    """A user message that is not tool output: only such text holds standing instructions
    (in an agent session most user messages are tool results)."""
    return message_role(message) == "user" and not tool_result_ids(message)


def constraint_coverage(original: Sequence[Any], output: Sequence[Any]) -> tuple[int, int] | None:
    """(total, kept): constraints in the user messages ``output`` dropped, and how many of
    them the messages it added carry. None when the auditor's extractor is not installed."""
    try:
        from ctxkeep.extract import Survival, constraint_survives, extract_constraints
    except ImportError:
        return None
    diff = compare_messages(original, output)
    summary = "\n\n".join(message_text(output[i]) for i in diff.added)
    total = kept = 0
    for index in diff.dropped:
        message = original[index]
        if not _is_user_instruction(message):
            continue
        for constraint in extract_constraints(message_prose(message) or message_text(message)):
            total += 1
            if constraint_survives(constraint, summary) is not Survival.LOST:
                kept += 1
    return total, kept


def compaction_record(original: Sequence[Any], result: GuardedResult) -> CompactionRecord:
    """The features of one guarded call, ready for :meth:`StatsStore.record`."""
    attempt = result.attempts[-1] if result.attempts else None
    coverage = constraint_coverage(original, result.messages) if result.success else None
    return CompactionRecord(
        success=result.success,
        strategy=result.strategy,
        summary_kind=attempt.summary_kind if attempt is not None and result.success else None,
        messages_before=result.before.messages,
        messages_after=result.after.messages,
        tokens_before=result.before.tokens,
        tokens_after=result.after.tokens,
        constraints_total=coverage[0] if coverage else None,
        constraints_kept=coverage[1] if coverage else None,
    )
