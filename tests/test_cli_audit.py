"""The audit commands as a user runs them: real subprocesses, real files in tmp_path."""

from __future__ import annotations

import hashlib
import json
import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import run_cli
from tests.rules.build import write_log

LOSSY: list[list[object]] = [
    ["user", "Never push to main. Do not touch src/db.py. Only edit docs/."],
    ["usage", 150_000, 200_000],
    ["compact", {"summary": "Working on the docs as mentioned above.", "tokens_before": 160_000}],
]
CLEAN: list[list[object]] = [["user", "hi"], ["compact", {"summary": "The user said hi."}]]


def _digest(folder: Path) -> dict[str, str]:
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def test_audit_json_contract_and_logs_are_never_written(tmp_path: Path) -> None:
    write_log(tmp_path / "lossy.jsonl", LOSSY)
    before = _digest(tmp_path)
    proc = run_cli("audit", "--format", "json", "lossy.jsonl", cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr
    assert _digest(tmp_path) == before
    data = json.loads(proc.stdout)
    assert list(data) == sorted(data)
    assert data["tool"] == "ctxkeep"
    assert data["problems"] == []
    (session,) = data["sessions"]
    assert session["path"] == "lossy.jsonl"
    assert session["format"] == "ctxkeep"
    assert session["events"] == 4
    assert session["compactions"] == {"started": 1, "summarised": 1, "failed": 0, "noop": 0}
    assert session["constraints"] == {"total": 3, "kept": 0}
    assert session["peak_context"] == {"tokens": 160_000, "window": 200_000, "percent": 80.0}
    assert session["compactions_by_trigger"]["auto"]["started"] == 1
    lost = next(f for f in session["findings"] if f["rule_id"] == "CK003")
    # The contract keys of docs/design.md ("The JSON report"), plus the keys added
    # (confidence, items_detail, restored_by_ctxkeep); none renamed.
    contract = {"rule_id", "rule", "level", "message", "compaction", "seqs", "lines", "items"}
    added = {"fingerprint", "confidence", "items_detail", "restored_by_ctxkeep"}
    for finding in session["findings"]:
        assert set(finding) == contract | added
    assert set(data) >= {"tool", "version", "sessions", "problems"}
    assert set(session) >= {"path", "format", "events", "compactions", "constraints", "findings"}
    assert lost["level"] == "error"
    assert lost["message"] == "3 of 3 standing instructions did not survive compaction 1 (0% kept)"
    assert lost["lines"] == [1]
    assert "Do not touch src/db.py" in lost["items"]


@pytest.mark.parametrize(
    ("steps", "fail_on", "code"),
    [
        (CLEAN, "info", 0),
        (LOSSY, "error", 1),
        ([["user", "hi"], ["compact", {"summary": " "}]], "warn", 0),
        ([["user", "hi"], ["compact", {"summary": " "}]], "info", 1),
    ],
)
def test_exit_codes_follow_fail_on(
    tmp_path: Path, steps: list[list[object]], fail_on: str, code: int
) -> None:
    write_log(tmp_path / "s.jsonl", steps)
    proc = run_cli("audit", "--fail-on", fail_on, "s.jsonl", cwd=tmp_path)
    assert proc.returncode == code, proc.stdout + proc.stderr


def test_usage_errors_and_unreadable_input_exit_2(tmp_path: Path) -> None:
    write_log(tmp_path / "s.jsonl", CLEAN)
    bad_rule = run_cli("audit", "--select", "CK999", "s.jsonl", cwd=tmp_path)
    assert bad_rule.returncode == 2
    assert "unknown rule 'CK999'" in bad_rule.stderr
    (tmp_path / "junk.json").write_text('{"not": "a log"}', encoding="utf-8")
    junk = run_cli("audit", "junk.json", "missing.jsonl", cwd=tmp_path)
    assert junk.returncode == 2
    assert "problem: junk.json: not a session log" in junk.stdout
    assert "problem: missing.jsonl: no such file or directory" in junk.stdout
    (tmp_path / "ctxkeep.toml").write_text("fail_on = 'error'\n", encoding="utf-8")
    bad_config = run_cli("audit", "s.jsonl", cwd=tmp_path)
    assert bad_config.returncode == 2
    assert "ctxkeep.toml: unknown key fail_on" in bad_config.stderr
    refused = run_cli("audit", "--write-baseline", "s.jsonl", "s.jsonl", cwd=tmp_path)
    assert refused.returncode == 2


def test_config_file_sets_fail_on_and_ignore(tmp_path: Path) -> None:
    write_log(tmp_path / "s.jsonl", LOSSY)
    (tmp_path / "pyproject.toml").write_text(
        '[tool.ctxkeep]\nignore = ["CK003", "ghost-reference"]\nfail-on = "error"\n',
        encoding="utf-8",
    )
    proc = run_cli("audit", "--format", "json", "s.jsonl", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout
    rules = {f["rule_id"] for f in json.loads(proc.stdout)["sessions"][0]["findings"]}
    assert rules.isdisjoint({"CK003", "CK006"})


def test_baseline_round_trip_reports_only_new_findings(tmp_path: Path) -> None:
    write_log(tmp_path / "s.jsonl", LOSSY)
    wrote = run_cli("audit", "--write-baseline", "base.json", "s.jsonl", cwd=tmp_path)
    assert wrote.returncode == 0, wrote.stderr
    assert "wrote" in wrote.stderr
    again = run_cli("audit", "--baseline", "base.json", "--format", "json", "s.jsonl", cwd=tmp_path)
    assert again.returncode == 0
    session = json.loads(again.stdout)["sessions"][0]
    assert session["findings"] == []
    assert session["baselined"] >= 2
    assert "baseline matched no finding" not in again.stderr
    write_log(tmp_path / "s.jsonl", [*LOSSY, ["call", "t9", "Bash", {}]])
    new = run_cli("audit", "--baseline", "base.json", "--format", "json", "s.jsonl", cwd=tmp_path)
    assert new.returncode == 1
    assert [f["rule_id"] for f in json.loads(new.stdout)["sessions"][0]["findings"]] == ["CK001"]
    write_log(tmp_path / "clean.jsonl", CLEAN)
    stale = run_cli("audit", "--baseline", "base.json", "clean.jsonl", cwd=tmp_path)
    assert stale.returncode == 0
    assert "the baseline matched no finding" in stale.stderr


def test_log_check_reports_only_ck001(tmp_path: Path) -> None:
    write_log(tmp_path / "s.jsonl", [*LOSSY, ["call", "t1", "Bash", {}]])
    proc = run_cli("log-check", "--format", "json", "s.jsonl", cwd=tmp_path)
    assert proc.returncode == 1
    findings = json.loads(proc.stdout)["sessions"][0]["findings"]
    assert [f["rule_id"] for f in findings] == ["CK001"]
    write_log(tmp_path / "ok.jsonl", LOSSY)
    assert run_cli("log-check", "ok.jsonl", cwd=tmp_path).returncode == 0


def test_sweep_defaults_to_the_users_harness_folders(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    none = run_cli("sweep", cwd=tmp_path)
    assert none.returncode == 2
    assert "~/.claude/projects" in none.stderr
    project = tmp_path / ".claude" / "projects" / "-w"
    project.mkdir(parents=True)
    write_log(project / "a.jsonl", CLEAN)
    codex = tmp_path / ".codex" / "sessions" / "2026" / "11" / "29"
    codex.mkdir(parents=True)
    write_log(codex / "b.jsonl", LOSSY)
    proc = run_cli("sweep", "--format", "json", "--jobs", "2", cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr
    data = json.loads(proc.stdout)
    assert [Path(s["path"]).name for s in data["sessions"]] == ["b.jsonl", "a.jsonl"]
    assert data["totals"]["compactions_by_trigger"]["auto"] == {
        "started": 2,
        "summarised": 2,
        "failed": 0,
        "noop": 0,
    }
    assert proc.stderr == ""


def test_sweep_text_ranks_and_shows_no_progress_bar_off_a_terminal(tmp_path: Path) -> None:
    write_log(tmp_path / "a.jsonl", CLEAN)
    write_log(tmp_path / "b.jsonl", LOSSY)
    proc = run_cli("sweep", ".", cwd=tmp_path)
    assert proc.returncode == 1
    assert proc.stdout.index("b.jsonl") < proc.stdout.index("a.jsonl")
    assert "2 sessions; compactions: 2 started, 2 summarised, 0 failed" in proc.stdout
    assert proc.stderr == ""


def _sweep_with_terminal_stderr(tmp_path: Path, fmt: str) -> str:
    leader, follower = pty.openpty()
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "ctxkeep", "sweep", "--format", fmt, "--jobs", "1", "."],
            cwd=tmp_path,
            stdout=subprocess.PIPE,
            stderr=follower,
            timeout=120,
            check=False,
        )
        os.close(follower)
        follower = -1
        chunks = []
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:
                break
            if not chunk:
                break
            chunks.append(chunk)
        assert proc.returncode == 1
        return b"".join(chunks).decode("utf-8", "replace")
    finally:
        os.close(leader)
        if follower != -1:
            os.close(follower)


def test_progress_bar_on_a_terminal_only_for_text(tmp_path: Path) -> None:
    write_log(tmp_path / "a.jsonl", CLEAN)
    write_log(tmp_path / "b.jsonl", LOSSY)
    assert "auditing" in _sweep_with_terminal_stderr(tmp_path, "text")
    assert "auditing" not in _sweep_with_terminal_stderr(tmp_path, "json")


def test_diff_text_side_by_side(tmp_path: Path) -> None:
    write_log(
        tmp_path / "s.jsonl",
        [
            ["user", "Never push to the main branch. Do not touch src/db.py."],
            ["compact", {"summary": "Never push to the main branch. We edited lib/new.py."}],
        ],
    )
    proc = run_cli("diff", "s.jsonl", "--compaction", "1", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "replaced: message 1" in out
    assert "kept      Never push to the main branch  [prohibition]\n" in out
    assert "LOST      Do not touch src/db.py  [prohibition]\n" in out
    assert "from line 1: Never push to the main branch. Do not touch src/db.py." in out
    assert (
        "lib/new.py  [path] summary line 1; high confidence: in no source, in any spelling" in out
    )
    data = json.loads(
        run_cli("diff", "s.jsonl", "-c", "1", "--format", "json", cwd=tmp_path).stdout
    )
    assert data["replaced"]["by_kind"] == {"message": 1}
    assert [c["survival"] for c in data["constraints"]] == ["kept", "lost"]
    missing = run_cli("diff", "s.jsonl", "--compaction", "3", cwd=tmp_path)
    assert missing.returncode == 2
    assert "no compaction 3" in missing.stderr


def test_config_with_a_bad_fail_on_and_a_missing_sweep_folder(tmp_path: Path) -> None:
    write_log(tmp_path / "s.jsonl", CLEAN)
    (tmp_path / "ctxkeep.toml").write_text('fail-on = "fatal"\n', encoding="utf-8")
    bad = run_cli("audit", "s.jsonl", cwd=tmp_path)
    assert bad.returncode == 2
    assert "fail-on must be one of error, warn, info" in bad.stderr
    (tmp_path / "ctxkeep.toml").unlink()
    proc = run_cli("sweep", "--format", "json", "nowhere", "s.jsonl", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert [s["path"] for s in data["sessions"]] == ["s.jsonl"]
    assert data["problems"] == [
        {"path": "nowhere", "line": 0, "reason": "no such file or directory"}
    ]
