"""Issue 14: a short, seeded, bounded fuzz run in the suite (the long runs are
``benchmarks/fuzz.py --minutes N``; docs/reliability.md has their figures)."""

from __future__ import annotations

from pathlib import Path

from tests.reliability.fuzzing import SEEDS, fuzz, inputs


def test_a_short_seeded_run_meets_no_uncaught_exception(tmp_path: Path) -> None:
    outcome = fuzz(tmp_path, seed=14, count=120, probe_every=60)
    assert outcome.failures == [], outcome.failures[0][1]
    assert sum(outcome.inputs.values()) == 120
    assert set(outcome.inputs) == {fmt for fmt, _ in SEEDS}  # every format was fuzzed


def test_inputs_are_reproducible_from_their_seed() -> None:
    first = [i.data for _, i in zip(range(20), inputs(7), strict=False)]
    again = [i.data for _, i in zip(range(20), inputs(7), strict=False)]
    assert first == again
