"""Which harness release is installed, and whether it is known to fire ``source: "compact"``.

The version comes from the harness itself: its command (``claude --version``,
``codex --version``) when it is on ``PATH``, else the newest session log it wrote (Claude
Code records ``version`` on every record, Codex ``cli_version`` in ``session_meta``).
"Known to support" is what evidence here shows, never a guess: Claude Code logs from
2.1.12 on record ``SessionStart:compact`` hook runs (real sessions, docs/hooks.md); for
Codex no release here shows it, so the answer is "unknown".
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "HarnessVersion",
    "claude_config_dir",
    "codex_home",
    "compact_support",
    "find_version",
]

_VERSION = re.compile(r"\b(\d+)\.(\d+)\.(\d+)\b")
_TAIL_BYTES = 64 << 10
_RUN_TIMEOUT = 5.0
# The oldest release whose real logs show a SessionStart hook run with source "compact".
_CLAUDE_CODE_COMPACT_SEEN = (2, 1, 12)


def claude_config_dir(home: Path) -> Path:
    """Claude Code's folder: ``$CLAUDE_CONFIG_DIR``, else ``~/.claude``."""
    env = os.environ.get("CLAUDE_CONFIG_DIR")
    return Path(env).expanduser() if env else home / ".claude"


def codex_home(home: Path) -> Path:
    """Codex's folder: ``$CODEX_HOME``, else ``~/.codex``."""
    env = os.environ.get("CODEX_HOME")
    return Path(env).expanduser() if env else home / ".codex"


@dataclass(frozen=True, slots=True)
class HarnessVersion:
    """A harness release and where it was read from (None: not found)."""

    version: str | None
    source: str


def _parse(text: str) -> str | None:
    match = _VERSION.search(text)
    return match.group(0) if match else None


def _from_command(name: str) -> HarnessVersion | None:
    exe = shutil.which(name)
    if exe is None:
        return None
    try:
        done = subprocess.run(
            [exe, "--version"],
            capture_output=True,
            text=True,
            timeout=_RUN_TIMEOUT,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    version = _parse(done.stdout)
    return HarnessVersion(version, f"{exe} --version") if version else None


def _newest(paths: list[Path]) -> Path | None:
    dated: list[tuple[float, Path]] = []
    for path in paths:
        try:
            dated.append((path.stat().st_mtime, path))
        except OSError:
            continue
    return max(dated)[1] if dated else None


def _claude_log_version(root: Path) -> HarnessVersion | None:
    newest = _newest(list((root / "projects").glob("*/*.jsonl")))
    if newest is None:
        return None
    with newest.open("rb") as fh:
        size = fh.seek(0, os.SEEK_END)
        fh.seek(max(0, size - _TAIL_BYTES))
        tail = fh.read().decode("utf-8", "replace")
    found = re.findall(r'"version"\s*:\s*"(\d+\.\d+\.\d+)', tail)
    return HarnessVersion(found[-1], str(newest)) if found else None


def _codex_log_version(root: Path) -> HarnessVersion | None:
    newest = _newest(list((root / "sessions").glob("**/rollout-*.jsonl")))
    if newest is None:
        return None
    with newest.open("rb") as fh:
        first = fh.readline(1 << 20)
    try:
        meta = json.loads(first)
        version = meta["payload"]["cli_version"]
    except (ValueError, KeyError, TypeError):
        return None
    return HarnessVersion(version, str(newest)) if isinstance(version, str) else None


def find_version(harness: str, home: Path) -> HarnessVersion:
    """The installed release of ``harness`` (``claude-code`` or ``codex``)."""
    if harness == "claude-code":
        found = _from_command("claude") or _claude_log_version(claude_config_dir(home))
    else:
        found = _from_command("codex") or _codex_log_version(codex_home(home))
    return found or HarnessVersion(None, "not found (no command on PATH, no session log)")


def compact_support(harness: str, version: str | None) -> str:
    """``yes``, or ``unknown``, with the reason: whether ``source: "compact"`` fires."""
    if harness == "claude-code" and version is not None:
        parts = _VERSION.search(version)
        if parts and tuple(int(p) for p in parts.groups()) >= _CLAUDE_CODE_COMPACT_SEEN:
            return "yes (real Claude Code logs from 2.1.12 on record SessionStart:compact runs)"
        return "unknown (older than 2.1.12, the oldest release seen running it)"
    if harness == "claude-code":
        return "unknown (version not found)"
    return (
        'unknown (no Codex release here is seen sending source "compact"; check your '
        "release's SessionStart sources)"
    )
