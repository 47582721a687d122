"""``ctxkeep hook status``: where the hooks are, the harness version, and what it supports."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.hooks.harness import (
    CLAUDE_AFTER_COMPACTION_3,
    CLAUDE_EXAMPLE,
    CODEX_AFTER_COMPACTION_2,
    CODEX_EXAMPLE,
    Home,
    claude_transcript,
    codex_transcript,
    lines_of,
    make_home,
    run_ctxkeep,
)


def _status(home: Home, bin_dir: Path | None = None) -> list[dict[str, Any]]:
    """Status as JSON, with PATH holding only the interpreter and ``bin_dir``."""
    path = [str(Path(sys.executable).parent)] + ([str(bin_dir)] if bin_dir else [])
    done = subprocess.run(
        [sys.executable, "-m", "ctxkeep", "hook", "status", "--format", "json"],
        capture_output=True,
        text=True,
        env=home.env(PATH=os.pathsep.join(path)),
        cwd=home.project,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    rows: list[dict[str, Any]] = json.loads(done.stdout)
    return rows


def _row(rows: list[dict[str, Any]], harness: str, scope: str) -> dict[str, Any]:
    [row] = [r for r in rows if r["harness"] == harness and r["scope"] == scope]
    return row


def test_nothing_installed_and_no_harness_found(tmp_path: Path) -> None:
    home = make_home(tmp_path)
    rows = _status(home)
    assert len(rows) == 4
    for row in rows:
        assert row["installed"] == {}
        assert row["version"] is None
        assert row["compact"].startswith("unknown")


def test_installed_hooks_are_reported_per_scope(tmp_path: Path) -> None:
    home = make_home(tmp_path)
    assert run_ctxkeep(home, "hook", "install", "--harness", "claude-code").returncode == 0
    assert (
        run_ctxkeep(home, "hook", "install", "--harness", "codex", "--scope", "project").returncode
        == 0
    )
    rows = _status(home)
    assert sorted(_row(rows, "claude-code", "user")["installed"]) == ["PreCompact", "SessionStart"]
    assert _row(rows, "claude-code", "project")["installed"] == {}
    assert _row(rows, "codex", "user")["installed"] == {}
    assert sorted(_row(rows, "codex", "project")["installed"]) == ["PreCompact", "SessionStart"]
    assert "hooks = true" in _row(rows, "codex", "project")["flag"]


def test_the_version_comes_from_the_harness_command(tmp_path: Path) -> None:
    home = make_home(tmp_path)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name, says in (("claude", "2.1.39 (Claude Code)"), ("codex", "codex-cli 0.136.0")):
        script = bin_dir / name
        script.write_text(f"#!/bin/sh\necho '{says}'\n")
        script.chmod(0o755)
    rows = _status(home, bin_dir)
    claude = _row(rows, "claude-code", "user")
    assert claude["version"] == "2.1.39"
    assert claude["version_source"] == f"{bin_dir / 'claude'} --version"
    assert claude["compact"].startswith("yes")
    codex = _row(rows, "codex", "user")
    assert codex["version"] == "0.136.0"
    assert codex["compact"].startswith("unknown")


def test_the_version_comes_from_the_newest_session_log(tmp_path: Path) -> None:
    home = make_home(tmp_path)
    claude_transcript(home, lines_of(CLAUDE_EXAMPLE, CLAUDE_AFTER_COMPACTION_3))
    codex_transcript(home, lines_of(CODEX_EXAMPLE, CODEX_AFTER_COMPACTION_2))
    rows = _status(home)
    claude = _row(rows, "claude-code", "user")
    assert claude["version"] == "2.1.39"
    assert claude["version_source"].endswith(".jsonl")
    assert _row(rows, "codex", "user")["version"] == "0.63.0"  # its session_meta says so


def test_an_old_claude_code_is_unknown_not_unsupported(tmp_path: Path) -> None:
    home = make_home(tmp_path)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "claude").write_text("#!/bin/sh\necho '1.0.80 (Claude Code)'\n")
    (bin_dir / "claude").chmod(0o755)
    claude = _row(_status(home, bin_dir), "claude-code", "user")
    assert claude["compact"].startswith("unknown (older than 2.1.12")


def test_an_unparseable_settings_file_is_reported_not_fatal(tmp_path: Path) -> None:
    home = make_home(tmp_path)
    settings = home.root / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text("{ nope")
    row = _row(_status(home), "claude-code", "user")
    assert "not valid JSON" in row["problem"]
    text = run_ctxkeep(home, "hook", "status")
    assert text.returncode == 0
    assert "cannot tell:" in text.stdout


def test_text_status_names_every_place(tmp_path: Path) -> None:
    home = make_home(tmp_path)
    done = run_ctxkeep(home, "hook", "status")
    assert done.returncode == 0, done.stderr
    for place in (".claude/settings.json", ".codex/hooks.json", ".codex/config.toml"):
        assert place in done.stdout
