"""The quality benchmark on the small corpus: every number computed and well-formed.

Values are not checked (they are what the benchmark is for); shape and consistency are.
"""

from __future__ import annotations

import json
import math

import pytest

from ctxkeep.bench.compactors import (
    COMPACTOR_NAMES,
    Compactor,
    available_compactors,
    recency_truncation,
)
from ctxkeep.bench.corpus import CORPORA, SessionSpec, generate_session
from ctxkeep.bench.quality import BUDGETS, QualityReport, judge, run_quality, steps, to_json
from ctxkeep.bench.render import quality_table


def _compactors() -> tuple[Compactor, ...]:
    # The embedding rows embed every message at ~78/s on 2 cores: minutes per run, which
    # the benchmark can afford and the test suite cannot. They are the same code path.
    return tuple(c for c in available_compactors() if "embedding" not in c.name)


@pytest.fixture(scope="module")
def report() -> QualityReport:
    return run_quality("small", compactors=_compactors())


def _unit(x: float | None) -> bool:
    return x is not None and math.isfinite(x) and 0.0 <= x <= 1.0


def test_every_compactor_and_budget_has_a_row(report: QualityReport) -> None:
    assert tuple(c.name for c in available_compactors()) == COMPACTOR_NAMES
    names = [c.name for c in _compactors()]
    assert [(r.compactor, r.budget) for r in report.rows] == [
        (n, b) for n in names for b in BUDGETS
    ]
    assert report.sessions == tuple(s.name for s in CORPORA["small"])


def test_rows_that_ran_have_well_formed_numbers(report: QualityReport) -> None:
    ran = [r for r in report.rows if r.unavailable is None]
    assert {r.compactor for r in ran} >= {"recency-truncation", "ctxkeep/lexical"}
    for row in ran:
        assert row.runs == len(CORPORA["small"])
        assert row.errors == 0, row
        for value in (
            row.constraint_survival,
            row.auditor_constraint_survival,
            row.identifier_survival,
            row.valid_rate,
        ):
            assert _unit(value), row
        assert row.bytes_saved is not None
        assert row.tokens_saved is not None
        assert row.bytes_saved <= 1
        assert row.tokens_saved <= 1
        assert row.invented >= 0
        assert 0 <= row.over_budget <= row.runs


def test_unavailable_rows_say_why(report: QualityReport) -> None:
    for row in report.rows:
        if row.unavailable is not None:
            assert row.runs == 0
            assert row.unavailable


def test_runs_are_consistent_with_their_sessions(report: QualityReport) -> None:
    for run in report.runs:
        assert 0 <= run.constraints_kept <= run.constraints_total
        assert 0 <= run.auditor_constraints_kept <= run.auditor_constraints_total
        assert 0 <= run.identifiers_kept <= run.identifiers_total
        assert run.bytes_before > 0
        assert run.tokens_before > 0
        assert run.budget_tokens == max(1, int(run.tokens_before * run.budget))
        assert run.valid == (run.sequence_problems == ())
    assert report.extractor_found_constraints <= report.planted_constraints
    assert report.extractor_found_identifiers <= report.planted_identifiers


def test_json_and_table_carry_every_row(report: QualityReport) -> None:
    data = json.loads(to_json(report))
    assert len(data["rows"]) == len(report.rows)
    assert len(data["runs"]) == len(report.runs)
    assert to_json(report) == to_json(report)
    text = quality_table(report)
    for row in report.rows:
        assert row.compactor in text
    assert quality_table(report, markdown=True).startswith("| compactor |")


def test_steps_counts_every_run() -> None:
    ticks: list[int] = []
    only = (Compactor("recency-truncation", recency_truncation),)
    run_quality("small", compactors=only, budgets=(0.5,), on_step=lambda: ticks.append(1))
    assert len(ticks) == steps("small", budgets=(0.5,), compactors=1)


def test_keeping_everything_keeps_every_plant() -> None:
    session = generate_session(SessionSpec(9, "zh", 120))
    metrics = judge(session, list(session.messages), "identity", 1.0, 10**9)
    assert metrics.constraints_kept == metrics.constraints_total > 0
    assert metrics.identifiers_kept == metrics.identifiers_total > 0
    assert metrics.invented == ()
    assert metrics.valid


def test_a_naive_cut_that_orphans_a_tool_result_is_invalid() -> None:
    session = generate_session(SessionSpec(9, "en", 120))
    messages = list(session.messages)
    first_result = next(i for i, m in enumerate(messages) if m["role"] == "tool")
    metrics = judge(session, messages[first_result:], "cut", 0.5, 1)
    assert not metrics.valid
    assert "orphan-result" in metrics.sequence_problems


def test_a_failing_compactor_is_recorded_not_raised() -> None:
    def broken(messages: object, task: str, budget: int) -> list[object]:
        raise RuntimeError("boom")

    spec = CORPORA["small"][0]
    result = run_quality(specs=[spec], compactors=(Compactor("broken", broken),), budgets=(0.25,))
    assert result.rows[0].errors == 1
    assert result.runs[0].error == "RuntimeError: boom"
