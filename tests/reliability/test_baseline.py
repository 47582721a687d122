"""Issue 14, baselines as a new user writes them: the path's spelling does not matter."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from tests.conftest import EXAMPLES, run_cli


def _logs(tmp_path: Path) -> Path:
    logs = tmp_path / "repo" / "logs"
    logs.mkdir(parents=True)
    for log in (EXAMPLES / "claude-code").glob("*.jsonl"):
        shutil.copy(log, logs / log.name)
    shutil.copy(next((EXAMPLES / "openai").glob("*.json")), logs / "plain.json")
    return logs


def test_a_baseline_matches_however_the_logs_are_named(tmp_path: Path) -> None:
    # a baseline written with `audit logs/` matched nothing as `audit /abs/logs` or from
    # inside logs/ (the fingerprint held the path as typed)
    logs = _logs(tmp_path)
    repo = logs.parent
    baseline = repo / "baseline.json"
    written = run_cli("audit", "logs/", "--write-baseline", str(baseline), cwd=repo)
    assert written.returncode == 0, written.stderr
    assert json.loads(baseline.read_text())["fingerprint_scheme"] == 2
    for args, cwd in (
        (["logs/"], repo),
        ([str(logs.resolve())], repo),
        (["."], logs),
        (["plain.json", *sorted(p.name for p in logs.glob("*.jsonl"))], logs),
    ):
        done = run_cli("audit", *args, "--baseline", str(baseline), "--format", "json", cwd=cwd)
        report = json.loads(done.stdout)
        assert report["totals"]["findings"] == {"error": 0, "info": 0, "warn": 0}, (args, cwd)
        assert sum(s["baselined"] for s in report["sessions"]) > 0
        assert done.returncode == 0


def test_a_baseline_of_the_old_scheme_says_it_matches_nothing(tmp_path: Path) -> None:
    logs = _logs(tmp_path)
    old = tmp_path / "old.json"
    old.write_text(json.dumps({"tool": "ctxkeep", "version": "0.1", "fingerprints": ["0" * 16]}))
    done = run_cli("audit", str(logs), "--baseline", str(old))
    assert "older ctxkeep (fingerprint scheme 1" in done.stderr
    assert "write it again with --write-baseline" in done.stderr
    assert done.returncode == 1  # its findings are all reported, not silently dropped
