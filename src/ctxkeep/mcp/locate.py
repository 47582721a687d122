"""Finding a session log from what an agent knows: a path, or its harness's session id.

Claude Code keeps ``~/.claude/projects/<project>/<session id>.jsonl``; Codex keeps
``~/.codex/sessions/<yyyy>/<mm>/<dd>/rollout-<time>-<session id>.jsonl``. Nothing here
imports the MCP SDK.
"""

from __future__ import annotations

import re
from pathlib import Path

from ctxkeep.base.paths import harness_session_folders

__all__ = ["SessionNotFoundError", "harness_session_folders", "locate_session"]

# A session id is a uuid in both harnesses; anything else with glob characters or path
# separators is refused rather than expanded.
_SESSION_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{3,127}")


class SessionNotFoundError(LookupError):
    """Neither a readable path nor the id of a session under the harness folders."""


def locate_session(session: str, home: Path | None = None) -> str:
    """The path of ``session``: itself when it names an existing file or folder, else the
    one log whose harness session id it is. Raises :class:`SessionNotFoundError` saying
    where it looked (or which logs share the id)."""
    if not session.strip():
        raise SessionNotFoundError("no session given: pass a log path or a session id")
    if Path(session).exists():
        return session
    folders = harness_session_folders(home)
    where = " or ".join(str(f.root) for f in folders)
    if not _SESSION_ID.fullmatch(session):
        raise SessionNotFoundError(f"{session}: no such file, and not a session id to look up")
    found = sorted(
        {p for f in folders if f.root.is_dir() for p in f.root.glob(f.pattern.format(id=session))}
    )
    if not found:
        raise SessionNotFoundError(
            f"{session}: no such file, and no session with this id under {where}"
        )
    if len(found) > 1:
        listed = ", ".join(str(p) for p in found)
        raise SessionNotFoundError(f"session id {session} names several logs: {listed}")
    return str(found[0])
