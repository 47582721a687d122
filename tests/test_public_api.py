"""The public API: what ``import ctxkeep`` promises, held by a test (as httpx does)."""

from __future__ import annotations

import subprocess
import sys

import ctxkeep

PUBLIC = [
    "AuditResult",
    "Compaction",
    "CompactionResult",
    "CompactionStatus",
    "Decision",
    "Event",
    "EventKind",
    "Finding",
    "GuardedResult",
    "ParseProblem",
    "Prune",
    "ReadOptions",
    "Scorer",
    "Session",
    "Severity",
    "StatsStore",
    "__version__",
    "audit",
    "compact",
    "count_tokens",
    "estimate_tokens",
    "guard",
    "read_session",
    "replay",
    "split_points",
]


def test_all_is_sorted_and_complete() -> None:
    assert ctxkeep.__all__ == PUBLIC
    for name in PUBLIC:
        assert getattr(ctxkeep, name) is not None, name
    assert callable(ctxkeep.compact)
    assert callable(ctxkeep.audit)
    assert callable(ctxkeep.guard)


def test_unknown_name_is_an_attribute_error() -> None:
    try:
        ctxkeep.no_such_thing  # noqa: B018
    except AttributeError as exc:
        assert "no_such_thing" in str(exc)  # noqa: PT017
    else:
        raise AssertionError("expected AttributeError")


def test_import_is_lazy() -> None:
    code = (
        "import sys, ctxkeep\n"
        "heavy = [m for m in ('ctxkeep.engine', 'ctxkeep.compactor', 'ctxkeep.verify')"
        " if m in sys.modules]\n"
        "print(','.join(heavy))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    assert proc.stdout.strip() == ""
