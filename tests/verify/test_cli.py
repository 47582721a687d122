from __future__ import annotations

import json
from pathlib import Path

import pytest

from ctxkeep.verify import CompactionRecord, StatsStore
from tests.conftest import run_cli
from tests.verify.sessions import incident_session, openai_session


def test_check_messages_counts_the_incidents_safe_split_points(tmp_path: Path) -> None:
    path = tmp_path / "session.json"
    path.write_text(json.dumps({"messages": incident_session()}), encoding="utf-8")
    proc = run_cli("check-messages", str(path))
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].startswith(f"{path}: 156 messages, ")
    assert lines[0].endswith("anthropic API: valid")
    assert lines[1] == "safe split points: 79 (first 1, last 155)"


def test_check_messages_locates_what_the_api_would_reject(tmp_path: Path) -> None:
    broken = openai_session()
    del broken[3]  # the result of the first call
    path = tmp_path / "broken.jsonl"
    path.write_text("".join(json.dumps(m) + "\n" for m in broken), encoding="utf-8")
    proc = run_cli("check-messages", str(path), "--format", "json")
    assert proc.returncode == 1
    report = json.loads(proc.stdout)
    assert report["valid"] is False
    assert report["api"] == "openai"
    assert [(p["code"], p["index"], p["subject"]) for p in report["problems"]] == [
        ("unanswered-call", 2, "call_0")
    ]
    text = run_cli("check-messages", str(path)).stdout
    assert f"{path}: message 2: [unanswered-call] tool call 'call_0' has no result after it" in text


def test_check_messages_on_an_unreadable_file_is_a_usage_error(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text('{"role": "user", "content": "hi"}\n{not json\n', encoding="utf-8")
    proc = run_cli("check-messages", str(path))
    assert proc.returncode == 2
    assert proc.stderr.startswith(f"ctxkeep: error: {path}:2: ")


def test_guard_stats_shows_what_real_records_recommend(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CTXKEEP_HOME", str(tmp_path))
    done = CompactionRecord(True, "s", "extractive", 40, 20, 1000, 400, 2, 2)
    StatsStore(provenance="run").record(done)
    StatsStore(provenance="test").record(done)
    proc = run_cli("guard-stats", "--format", "json")
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert report["path"] == str(tmp_path / "stats.sqlite3")
    assert report["records"] == {"run": 1, "test": 1}
    assert report["recommendation"]["samples"] == 1
    assert report["recommendation"]["ignored_test_records"] == 1
    text = run_cli("guard-stats").stdout.splitlines()
    assert text == [
        f"{tmp_path / 'stats.sqlite3'}: 1 run, 1 test records",
        "from 1 real compactions (1 test records ignored) keep_fraction=0.40 "
        "summary_kind=extractive success_rate=100%",
    ]
