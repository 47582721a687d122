"""The public API: what ``import ctxkeep`` promises, held by a test (as httpx does)."""

from __future__ import annotations

import inspect
import subprocess
import sys

import ctxkeep
import ctxkeep.compactor
import ctxkeep.log

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
    "OpenAIChatSummarizer",
    "ParseProblem",
    "Prune",
    "ReadOptions",
    "Score",
    "ScoreRequest",
    "Scorer",
    "ScorerError",
    "Session",
    "Severity",
    "StatsStore",
    "SummaryRepair",
    "SummaryRequest",
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


def test_the_scorer_types_are_exported_beside_scorer() -> None:
    from ctxkeep.scorers import Score, ScoreRequest, ScorerError

    assert (ctxkeep.Score, ctxkeep.ScoreRequest, ctxkeep.ScorerError) == (
        Score,
        ScoreRequest,
        ScorerError,
    )


def test_compact_is_the_compactor_with_typed_arguments() -> None:
    typed = inspect.signature(ctxkeep.compact)
    core = inspect.signature(ctxkeep.compactor.compact)
    assert [(p.name, p.kind, p.default) for p in typed.parameters.values()] == [
        (p.name, p.kind, p.default) for p in core.parameters.values()
    ]
    assert typed.parameters["messages"].annotation == "Messages"
    assert typed.parameters["task"].annotation == "str"
    messages = [{"role": "user", "content": "hello " * 50}] * 6
    assert ctxkeep.compact(messages, "greet", target_bytes=400) == ctxkeep.compactor.compact(
        messages, "greet", target_bytes=400
    )


def test_every_lazy_package_lists_what_it_can_import() -> None:
    for package in (ctxkeep, ctxkeep.log):
        assert package.__all__ == sorted(package.__all__)
        assert set(package.__all__) <= set(dir(package))
        for name in package.__all__:
            assert getattr(package, name) is not None, (package.__name__, name)
