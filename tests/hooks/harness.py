"""Run ctxkeep's hooks the way Claude Code and Codex do, in a temporary home.

A harness runs a hook command from its settings through the shell, in the session's
folder, with the hook's JSON on stdin and its own environment (``CLAUDE_PROJECT_DIR`` for
Claude Code; SessionStart hooks also get ``CLAUDE_ENV_FILE``). These helpers install the
hooks with the real ``ctxkeep hook install`` into a fake HOME, read the command back from
the settings file it wrote, and run it exactly so. Transcripts are the bundled real-format
examples, cut where the harness would call the hook (right after a compaction).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.conftest import EXAMPLES

CLAUDE_EXAMPLE = EXAMPLES / "claude-code" / "tinyparse-three-compactions.jsonl"
CLAUDE_SESSION = "4f7c2a9e-3b1d-4e8a-9c5f-0d2e6b7a1c34"
CODEX_SESSION = "019a9c4e-5b21-7d13-9f0e-3c8a1d6b2e47"
CODEX_EXAMPLE = EXAMPLES / "codex" / f"rollout-2026-11-18T14-02-11-{CODEX_SESSION}.jsonl"
# Where each example is cut so that its newest compaction is the one the hook is about:
# Claude Code compaction 3 (a manual /compact: its command records follow the summary)
# lost one instruction; Codex compaction 2 lost three.
CLAUDE_AFTER_COMPACTION_3 = 150
CODEX_AFTER_COMPACTION_2 = 75
SCHEMA = Path(__file__).resolve().parent / "session_start_output.schema.json"


@dataclass(frozen=True, slots=True)
class Home:
    """A temporary user home, ctxkeep's data folder in it, and a project folder."""

    root: Path
    ctxkeep: Path
    project: Path

    def env(self, **extra: str) -> dict[str, str]:
        """The environment a harness gives its hooks, pointed at this home."""
        env = {
            "HOME": str(self.root),
            "CTXKEEP_HOME": str(self.ctxkeep),
            "PATH": os.pathsep.join([str(Path(sys.executable).parent), "/usr/bin", "/bin"]),
            "LANG": "C.UTF-8",
        }
        env.update(extra)
        return env


def make_home(tmp_path: Path) -> Home:
    root = tmp_path / "home"
    project = tmp_path / "project"
    root.mkdir()
    project.mkdir()
    return Home(root, tmp_path / "ctxkeep-home", project)


def lines_of(path: Path, upto: int) -> list[str]:
    """The first ``upto`` lines of ``path``, each with its newline."""
    return path.read_text(encoding="utf-8").splitlines(keepends=True)[:upto]


def claude_transcript(home: Home, lines: list[str]) -> Path:
    """Write ``lines`` where Claude Code keeps this session's transcript."""
    folder = home.root / ".claude" / "projects" / "-home-maya-code-tinyparse"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{CLAUDE_SESSION}.jsonl"
    path.write_text("".join(lines), encoding="utf-8")
    return path


def codex_transcript(home: Home, lines: list[str]) -> Path:
    """Write ``lines`` where Codex keeps this session's rollout."""
    folder = home.root / ".codex" / "sessions" / "2026" / "11" / "18"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / CODEX_EXAMPLE.name
    path.write_text("".join(lines), encoding="utf-8")
    return path


def run_ctxkeep(
    home: Home, *args: str, stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    """``ctxkeep ARGS`` as a subprocess with this home's environment."""
    return subprocess.run(
        [sys.executable, "-m", "ctxkeep", *args],
        capture_output=True,
        text=True,
        input=stdin,
        env=home.env(),
        cwd=home.project,
        timeout=300,
        check=False,
    )


def installed_command(settings: Path, event: str) -> str:
    """The command of ctxkeep's hook for ``event`` in a settings / hooks.json file."""
    doc = json.loads(settings.read_text(encoding="utf-8"))
    for group in doc["hooks"][event]:
        for hook in group["hooks"]:
            if "ctxkeep" in hook["command"]:
                return str(hook["command"])
    raise AssertionError(f"no ctxkeep hook for {event} in {settings}")


def run_as_harness(
    home: Home, command: str, payload: dict[str, Any], **env: str
) -> subprocess.CompletedProcess[str]:
    """Run a hook command as the harness does: ``sh -c``, JSON on stdin, in the project."""
    return subprocess.run(
        ["/bin/sh", "-c", command],
        capture_output=True,
        text=True,
        input=json.dumps(payload),
        env=home.env(**env),
        cwd=home.project,
        timeout=300,
        check=False,
    )


def ledger_lines(home: Home) -> list[dict[str, Any]]:
    path = home.ctxkeep / "restores.jsonl"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
