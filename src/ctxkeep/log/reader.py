"""Finding session logs, telling their format and reading them into a Session."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path

from ctxkeep._gc import cyclic_gc_paused
from ctxkeep.log.adapters import ADAPTERS, Adapter, ReadOptions, adapter_named
from ctxkeep.log.model import ParseProblem, Session
from ctxkeep.log.source import iter_records, read_head, read_whole

__all__ = ["discover", "read_session", "sniff"]

_SESSION_SUFFIXES = (".jsonl", ".json")
_WHOLE_DOCUMENT_BYTES = 64 << 20


def sniff(path: Path) -> Adapter | None:
    """The first adapter whose ``sniff`` accepts the head of ``path``, or None."""
    head = read_head(path)
    for adapter in ADAPTERS:
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
    if adapter is None:
        if not p.exists():
            return Session(display, "unknown", problems=(ParseProblem(0, "no such file"),))
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
            return adapter.read(p, display, opts)
    except Exception as exc:  # a bug in an adapter must not lose the other files
        reason = (
            f"internal error in the {adapter.name} adapter ({type(exc).__name__}: {exc}); "
            "nothing was read from this file - please report it"
        )
        return Session(display, adapter.name, problems=(ParseProblem(0, reason),))


def _unreadable_reason(path: Path) -> ParseProblem | None:
    try:
        with path.open("rb") as fh:
            first = fh.read(8192)
    except IsADirectoryError:
        return None
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
    events = path / "events" if (path / "events").is_dir() else path
    return events.is_dir() and any(events.glob("event-*.json"))


def discover(paths: Iterable[str | Path]) -> Iterator[Path | tuple[Path, ParseProblem]]:
    """Expand the paths a user gave into session sources, in a stable order.

    A file is itself; a folder holding OpenHands V1 events is one session; any other
    folder is searched recursively for ``*.jsonl`` and ``*.json`` files (hidden folders
    skipped). A path that does not exist, or a folder with no session, yields a problem.
    """
    for given in paths:
        p = Path(given)
        if not p.exists():
            yield p, ParseProblem(0, "no such file or directory")
        elif p.is_file() or _is_event_folder(p):
            yield p
        else:
            found = False
            for child in sorted(_walk(p)):
                found = True
                yield child
            if not found:
                yield p, ParseProblem(0, "folder holds no *.jsonl or *.json session log")


def _walk(folder: Path) -> Iterator[Path]:
    try:
        entries = list(folder.iterdir())
    except OSError:
        return
    for entry in entries:
        if entry.name.startswith("."):
            continue
        if entry.is_dir():
            if _is_event_folder(entry):
                yield entry
            elif entry.name != "events":
                yield from _walk(entry)
        elif entry.suffix in _SESSION_SUFFIXES and entry.is_file():
            yield entry
