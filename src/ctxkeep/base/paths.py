"""The one place that knows ctxkeep's folders in the user's home, and the one appender.

Every path under ctxkeep's own data folder goes through :func:`ctxkeep_home`, which honours
``CTXKEEP_HOME`` first; tests point that variable at a temporary folder, so nothing a test
runs can reach the real home folder. :func:`harness_session_folders` names the folders the
harnesses write their session logs to, which ctxkeep only ever reads.
:func:`append_lines` is how every JSONL file ctxkeep writes grows (the guard's event log,
receipts).
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path

__all__ = ["HarnessFolder", "append_lines", "ctxkeep_home", "harness_session_folders"]


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


TORN_LINE_END = b"~\n"
"""Closes a line a writer left unfinished: no JSON text ends with ``~``, so whatever
prefix of a record was written, the line never parses as a record."""


def append_lines(
    path: str | os.PathLike[str], block: bytes, *, mode: int = 0o644, lock: bool = False
) -> None:
    """Append ``block`` (whole lines) to the regular file ``path`` in one ``O_APPEND``
    write, starting on a fresh line; raises OSError when it cannot.

    A writer that died mid-line left no newline at the end: without one, the first line
    of this block was glued onto the torn one and both were lost to a reader (the guard's
    event log, issue 14). The torn line is closed with :data:`TORN_LINE_END`, so that it
    stays unreadable even where the writer died right before its newline (a whole JSON
    object with ``\n`` added would read as a record that was never finished).
    A FIFO or a device is refused, never opened to block. ``mode``
    is the new file's permissions; ``lock`` holds an exclusive ``flock`` while checking
    the last byte and writing (for several processes appending to one file).
    """
    flags = os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_NONBLOCK | os.O_CLOEXEC
    fd = os.open(path, flags, mode)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise OSError(f"{os.fspath(path)} is not a regular file: nothing appended")
        os.set_blocking(fd, True)
        if lock:
            import fcntl

            fcntl.flock(fd, fcntl.LOCK_EX)  # released when the file is closed
            info = os.fstat(fd)
        if info.st_size and os.pread(fd, 1, info.st_size - 1) != b"\n":
            block = TORN_LINE_END + block
        view = memoryview(block)
        while view:
            written = os.write(fd, view)
            view = view[written:]
    finally:
        os.close(fd)
