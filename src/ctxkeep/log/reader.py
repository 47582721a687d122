"""Finding session logs, telling their format and reading them into a Session."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable, Iterator
from dataclasses import replace
from pathlib import Path

from ctxkeep.base._gc import cyclic_gc_paused
from ctxkeep.log.adapters import Adapter, ReadOptions, adapter_named, format_names
from ctxkeep.log.model import ParseProblem, Session
from ctxkeep.log.source import (
    MAX_PROBLEMS_PER_FILE,
    NotAFileError,
    cap_problems,
    iter_records,
    not_a_file_reason,
    open_regular,
    read_head,
    read_whole,
)

__all__ = ["discover", "read_session", "sniff"]

_SESSION_SUFFIXES = (".jsonl", ".json")
_WHOLE_DOCUMENT_BYTES = 64 << 20


def sniff(path: Path) -> Adapter | None:
    """The first adapter whose ``sniff`` accepts the head of ``path``, or None. Each
    adapter is imported when its turn comes, so a Claude Code log does not load the
    readers of the formats tried after it."""
    head = read_head(path)
    for name in format_names():
        adapter = adapter_named(name)
        try:
            if adapter.sniff(head):
                return adapter
        except Exception:  # a sniffer that breaks on odd records says no, not crash all
            continue
    return None


def read_session(
    path: str | Path,
    *,
    format: str | None = None,
    options: ReadOptions | None = None,
) -> Session:
    """Read one session log. Never raises on bad input: problems land in the Session.

    ``format`` overrides sniffing (one of :func:`~ctxkeep.log.adapters.format_names`;
    an unknown name raises ``KeyError``, which is a usage error, not bad input).
    """
    display = str(path)
    p = Path(path)
    opts = options or ReadOptions()
    adapter = adapter_named(format) if format else None
    refused = _refused(p)
    if refused is not None:
        return Session(display, "unknown", problems=(refused,))
    if p.is_dir() and not _is_event_folder(p):
        inside = _one_session_in(p)
        if isinstance(inside, ParseProblem):
            return Session(display, "unknown", problems=(inside,))
        p, display = inside, str(inside)
    if adapter is None:
        adapter = sniff(p)
    if adapter is None:
        reason = (
            "is a directory with no session log in it"
            if p.is_dir()
            else "not a session log of any known format (use --log-format to choose one)"
        )
        problem = _unreadable_reason(p) or ParseProblem(0, reason)
        return Session(display, "unknown", problems=(problem,))
    try:
        with cyclic_gc_paused():
            session = adapter.read(p, display, opts)
    except Exception as exc:  # a bug in an adapter must not lose the other files
        reason = (
            f"internal error in the {adapter.name} adapter ({type(exc).__name__}: {exc}); "
            "nothing was read from this file - please report it"
        )
        return Session(display, adapter.name, problems=(ParseProblem(0, reason),))
    if len(session.problems) > MAX_PROBLEMS_PER_FILE:
        capped = cap_problems([(p.line, p.reason) for p in session.problems])
        session = replace(session, problems=tuple(ParseProblem(*p) for p in capped))
    return session


def _refused(path: Path) -> ParseProblem | None:
    """Why ``path`` is not read at all: it does not exist, or is a FIFO, a device..."""
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        return ParseProblem(0, "broken symbolic link" if path.is_symlink() else "no such file")
    except OSError as exc:
        return ParseProblem(0, f"cannot read: {exc.strerror or exc}")
    if stat.S_ISDIR(mode):
        return None
    reason = not_a_file_reason(mode)
    return None if reason is None else ParseProblem(0, reason)


def _one_session_in(folder: Path) -> Path | ParseProblem:
    """The one session log under ``folder`` (``read_session("examples/codex")``), or why
    there is not exactly one."""
    found = [f for f in discover([folder]) if isinstance(f, Path)]
    if len(found) == 1:
        return found[0]
    if not found:
        return ParseProblem(0, "is a directory with no session log in it")
    names = ", ".join(str(f) for f in found[:5]) + (", ..." if len(found) > 5 else "")
    return ParseProblem(
        0, f"is a directory holding {len(found)} session logs ({names}): give one of them"
    )


def _unreadable_reason(path: Path) -> ParseProblem | None:
    try:
        with open_regular(path) as fh:
            first = fh.read(8192)
    except NotAFileError as exc:
        return None if path.is_dir() else ParseProblem(0, exc.strerror or str(exc))
    except OSError as exc:
        return ParseProblem(0, f"cannot open: {exc.strerror or exc}")
    if not first:
        return ParseProblem(0, "empty file")
    if b"\x00" in first:
        return ParseProblem(1, "binary file (NUL bytes), not a JSON log")
    return _undecodable_reason(path)


def _undecodable_reason(path: Path) -> ParseProblem | None:
    """Why a file no adapter recognised cannot be read, when the reason is its JSON."""
    first = next(iter_records(path), None)
    if not isinstance(first, ParseProblem):
        return None
    problem: ParseProblem | None = first
    if path.stat().st_size <= _WHOLE_DOCUMENT_BYTES:
        whole, problem = read_whole(path)  # a pretty-printed document is valid JSON
        if problem is None and whole is not None:
            return None
    problem = problem or first
    return ParseProblem(problem.line, f"{problem.reason}; not readable as any known format")


def _is_event_folder(path: Path) -> bool:
    """An OpenHands V1 conversation: a folder of ``events/event-*.json`` files."""
    try:
        events = path / "events" if (path / "events").is_dir() else path
        return events.is_dir() and any(events.glob("event-*.json"))
    except OSError:  # a folder we may not list is walked, and its problem reported, there
        return False


Found = Path | tuple[Path, ParseProblem]


def discover(paths: Iterable[str | Path]) -> Iterator[Found]:
    """Expand the paths a user gave into session sources, in a stable order.

    The one walker of ctxkeep. A file is itself; a folder holding OpenHands V1 events is
    one session; any other folder is searched recursively for ``*.jsonl`` and ``*.json``
    files (hidden entries skipped). Symbolic links are followed, each folder and file
    read once however many links lead to it; a link back to a folder being walked (a
    loop), a folder that cannot be listed, a broken link and a FIFO, device or socket are
    each a located problem, and the walk goes on. A path that does not exist, or a folder
    with no session, yields a problem too.
    """
    walker = _Walker()
    for given in paths:
        p = Path(given)
        try:
            info = p.stat()
        except FileNotFoundError:
            reason = "broken symbolic link" if p.is_symlink() else "no such file or directory"
            yield p, ParseProblem(0, reason)
            continue
        except OSError as exc:
            yield p, ParseProblem(0, f"cannot read: {exc.strerror or exc}")
            continue
        if stat.S_ISDIR(info.st_mode) and not _is_event_folder(p):
            before = walker.sessions
            walked = sorted(walker.walk(p, ()), key=_found_key)
            if walker.sessions == before:
                walked.append((p, ParseProblem(0, "folder holds no *.jsonl or *.json session log")))
            yield from walked
            continue
        refused = None if stat.S_ISDIR(info.st_mode) else not_a_file_reason(info.st_mode)
        if refused is not None:
            yield p, ParseProblem(0, refused)
        elif walker.first_time(info):
            yield p


def _found_key(found: Found) -> tuple[Path, int]:
    return (found, 0) if isinstance(found, Path) else (found[0], 1)


class _Walker:
    """One walk over the paths a user gave: what it has seen (by device and inode, so a
    file or folder reached through several links is read once) and how many sessions it
    met, read or already seen."""

    def __init__(self) -> None:
        self.seen: set[tuple[int, int]] = set()
        self.sessions = 0

    def first_time(self, info: os.stat_result) -> bool:
        """Count a session source; True the first time it is met."""
        self.sessions += 1
        key = (info.st_dev, info.st_ino)
        if key in self.seen:
            return False
        self.seen.add(key)
        return True

    def walk(self, folder: Path, ancestors: tuple[Path, ...]) -> Iterator[Found]:
        """The sources under ``folder`` (unsorted); ``ancestors`` are the real paths of
        the folders being walked above it, so a link back to one of them is a loop."""
        here = (*ancestors, folder.resolve())
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError as exc:
            yield folder, ParseProblem(0, f"cannot list folder: {exc.strerror or exc}")
            return
        for entry in entries:
            if not entry.name.startswith("."):
                yield from self._entry(Path(entry.path), entry, here)

    def _entry(
        self, path: Path, entry: os.DirEntry[str], here: tuple[Path, ...]
    ) -> Iterator[Found]:
        try:
            info = entry.stat()  # follows links
        except FileNotFoundError:
            if entry.is_symlink():
                yield path, ParseProblem(0, "broken symbolic link")
            return
        except OSError as exc:
            yield path, ParseProblem(0, f"cannot read: {exc.strerror or exc}")
            return
        if stat.S_ISDIR(info.st_mode):
            target = path.resolve()
            if target in here:
                yield (
                    path,
                    ParseProblem(0, f"symbolic link loop: leads back to {target}, not followed"),
                )
            elif _is_event_folder(path):
                if self.first_time(info):
                    yield path
            elif entry.name != "events" and (info.st_dev, info.st_ino) not in self.seen:
                self.seen.add((info.st_dev, info.st_ino))
                yield from self.walk(path, here)
        elif path.suffix in _SESSION_SUFFIXES:
            reason = not_a_file_reason(info.st_mode)
            if reason is not None:
                yield path, ParseProblem(0, reason)
            elif self.first_time(info):
                yield path
