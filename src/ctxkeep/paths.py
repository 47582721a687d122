"""The one place that knows ctxkeep's folders in the user's home.

Every path under ctxkeep's own data folder goes through :func:`ctxkeep_home`, which honours
``CTXKEEP_HOME`` first; tests point that variable at a temporary folder, so nothing a test
runs can reach the real home folder. :func:`harness_session_folders` names the folders the
harnesses write their session logs to, which ctxkeep only ever reads.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

__all__ = ["HarnessFolder", "ctxkeep_home", "harness_session_folders"]


def ctxkeep_home(*, create: bool = False) -> Path:
    """Return ctxkeep's data folder: ``$CTXKEEP_HOME``, else the per-user data folder.

    The per-user folder follows the XDG base directory rule (``$XDG_DATA_HOME/ctxkeep``,
    default ``~/.local/share/ctxkeep``). With ``create`` the folder is made if missing.
    """
    env = os.environ.get("CTXKEEP_HOME")
    if env:
        home = Path(env).expanduser()
    else:
        base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
        home = Path(base) / "ctxkeep"
    if create:
        home.mkdir(parents=True, exist_ok=True)
    return home


@dataclass(frozen=True, slots=True)
class HarnessFolder:
    """Where one harness keeps its session logs, and the file name pattern of one id."""

    harness: str
    root: Path
    pattern: str


def harness_session_folders(home: Path | None = None) -> tuple[HarnessFolder, ...]:
    """Claude Code's and Codex's session folders under ``home`` (default: the user's).

    Claude Code keeps ``~/.claude/projects/<project>/<session id>.jsonl``; Codex keeps
    ``~/.codex/sessions/<yyyy>/<mm>/<dd>/rollout-<time>-<session id>.jsonl``.
    """
    base = Path.home() if home is None else home
    return (
        HarnessFolder("claude-code", base / ".claude" / "projects", "*/{id}.jsonl"),
        HarnessFolder("codex", base / ".codex" / "sessions", "**/rollout-*-{id}.jsonl"),
    )
