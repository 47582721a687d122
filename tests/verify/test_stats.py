from __future__ import annotations

import os
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from ctxkeep.base.paths import ctxkeep_home
from ctxkeep.verify import (
    CompactionRecord,
    RoundGroupTruncation,
    StatsStore,
    guard,
    resolve_provenance,
)
from tests.verify.sessions import openai_session


def record(before: int, after: int, *, kind: str = "extractive", kept: int = 4) -> CompactionRecord:
    return CompactionRecord(
        success=after < before,
        strategy="s",
        summary_kind=kind,
        messages_before=40,
        messages_after=20 if after < before else 40,
        tokens_before=before,
        tokens_after=after,
        constraints_total=4,
        constraints_kept=kept,
    )


def test_the_default_store_lives_under_ctxkeep_home(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, isolated_home: Path
) -> None:
    assert StatsStore().path == isolated_home / "stats.sqlite3"
    monkeypatch.setenv("CTXKEEP_HOME", str(tmp_path / "home"))
    store = StatsStore()
    assert store.path == ctxkeep_home() / "stats.sqlite3" == tmp_path / "home" / "stats.sqlite3"
    assert store.provenance == "test"  # conftest sets CTXKEEP_PROVENANCE=test
    assert store.records() == []  # reading creates nothing
    assert not store.path.exists()


def test_every_record_carries_its_provenance(tmp_path: Path) -> None:
    path = tmp_path / "stats.sqlite3"
    StatsStore(path, provenance="run").record(record(1000, 400))
    StatsStore(path).record(record(1000, 900))  # from CTXKEEP_PROVENANCE
    rows = StatsStore(path).records()
    assert [r.provenance for r in rows] == ["run", "test"]
    assert [r.record.tokens_after for r in rows] == [400, 900]
    with closing(sqlite3.connect(path)) as conn:
        stored = conn.execute("SELECT provenance, saved_ratio FROM compactions").fetchall()
    assert stored == [("run", pytest.approx(0.6)), ("test", pytest.approx(0.1))]


def test_recommend_ignores_test_records_and_says_how_many_real_ones_it_used(
    tmp_path: Path,
) -> None:
    path = tmp_path / "stats.sqlite3"
    tests = StatsStore(path, provenance="test")
    for _ in range(30):  # fixtures that would teach "keep 5%"
        tests.record(record(1000, 50, kind="notice"))
    assert StatsStore(path).recommend().samples == 0
    assert StatsStore(path).recommend().keep_fraction_or(0.66) == 0.66  # they teach nothing
    assert "no real compactions recorded (30 test records ignored)" in str(
        StatsStore(path).recommend()
    )

    real = StatsStore(path, provenance="run")
    real.record(record(1000, 600))
    real.record(record(1000, 500))
    real.record(record(1000, 700))
    real.record(record(1000, 100, kind="notice", kept=0))  # lost every constraint
    real.record(record(1000, 1000))  # a failed one
    advice = real.recommend()
    assert advice.samples == 5
    assert advice.ignored_test_records == 30
    assert advice.keep_fraction == pytest.approx(0.6)  # median of 0.6, 0.5, 0.7
    assert advice.summary_kind == "extractive"
    assert advice.success_rate == pytest.approx(0.8)
    assert str(advice).startswith("from 5 real compactions (30 test records ignored)")
    assert advice.keep_fraction_or(0.66) == pytest.approx(0.6)
    assert advice.keep_fraction_or(0.66, min_samples=6) == 0.66


def test_only_the_last_n_per_provenance_are_kept(tmp_path: Path) -> None:
    path = tmp_path / "stats.sqlite3"
    real = StatsStore(path, provenance="run", keep=3)
    for after in (100, 200, 300, 400):
        real.record(record(1000, after))
    tests = StatsStore(path, provenance="test", keep=3)
    for _ in range(10):  # a test run cannot push real records out
        tests.record(record(1000, 999))
    assert [r.record.tokens_after for r in real.records("run")] == [200, 300, 400]
    assert len(real.records("test")) == 3


def test_provenance_comes_from_the_argument_then_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert resolve_provenance("run") == "run"
    monkeypatch.setenv("CTXKEEP_PROVENANCE", "run")
    assert resolve_provenance() == "run"
    assert resolve_provenance("test") == "test"
    monkeypatch.delenv("CTXKEEP_PROVENANCE")
    assert os.environ.get("PYTEST_CURRENT_TEST")
    assert resolve_provenance() == "test"  # a forgotten variable under pytest is still test
    monkeypatch.delenv("PYTEST_CURRENT_TEST")
    assert resolve_provenance() == "run"
    monkeypatch.setenv("CTXKEEP_PROVENANCE", "prod")
    with pytest.raises(ValueError, match=r"\$CTXKEEP_PROVENANCE must be 'run' or 'test'"):
        resolve_provenance()


def test_the_guard_records_what_it_measured(tmp_path: Path) -> None:
    store = StatsStore(tmp_path / "stats.sqlite3")
    guarded = guard(RoundGroupTruncation(), fallbacks=(), stats=store)
    result = guarded(openai_session(rounds=12))
    guard(lambda m: m, fallbacks=(), stats=store)(openai_session())
    done, failed = (r.record for r in store.records())
    assert done.success
    assert done.strategy == "truncate-at-round-groups"
    assert done.summary_kind == "notice"
    assert (done.tokens_before, done.tokens_after) == (result.before.tokens, result.after.tokens)
    assert done.messages_after == result.after.messages
    # the task's constraints were dropped and the notice does not carry them
    assert done.constraints_total is not None
    assert done.constraints_total >= 2
    assert done.constraints_kept == 0
    assert not failed.success
    assert failed.tokens_after == failed.tokens_before
    assert failed.strategy is None
