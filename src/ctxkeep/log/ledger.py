"""The restore ledger: ``CTXKEEP_HOME/restores.jsonl``, what ctxkeep's hooks put in context.

It lives beside the session model because the audit reads it with a session (the rules
weigh what the hooks restored); the hooks that write it are in :mod:`ctxkeep.hooks`.

Harnesses do not record hook output in their transcripts, so what ctxkeep restored after
a compaction (and what it asked the summariser to preserve before one) would leave no
trace. Each hook run that acted appends one JSON line here: the session, the compaction,
the items (the user's own instructions, and summary items it cautioned about), the time.
Never tool output; secrets in an instruction are masked before it is written
(:func:`ctxkeep.base.secrets.mask_secrets`, the masker of every report).

Crash safety: a record is one ``write`` of one line ending in a newline, under an
exclusive lock where the platform has one; an append that finds the file not ending in a
newline (a writer died mid-line) starts with one, so the torn fragment stays a line of
its own. A reader takes only complete lines that decode to a record of a known shape:
a torn fragment is never read as a record (a proper prefix of a JSON object is not JSON).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from ctxkeep.base.paths import append_lines, ctxkeep_home
from ctxkeep.base.secrets import mask_secrets

__all__ = [
    "LEDGER_NAME",
    "Ledger",
    "LedgerItem",
    "LedgerRecord",
    "SessionLedger",
    "append_record",
    "instruction_line",
    "is_ctxkeep_command",
    "ledger_lock",
    "ledger_path",
    "read_ledger",
]


# ctxkeep's hook commands: ``ctxkeep hook session-start`` / ``pre-compact`` as `ctxkeep
# hook install` writes them (any path to ctxkeep, or ``python -m ctxkeep``), and the
# plugin's launcher (``python3 ".../hooks/run_ctxkeep.py" hook session-start``).
_CTXKEEP_COMMAND = re.compile(
    r"(?:\bctxkeep\b|\brun_ctxkeep\.py\b).*\bhook\s+(?:session-start|pre-compact)\b"
)


def is_ctxkeep_command(command: str) -> bool:
    """A hook command that runs ctxkeep's own ``session-start`` or ``pre-compact``."""
    return _CTXKEEP_COMMAND.search(command) is not None


def instruction_line(text: str, line: int) -> str:
    """One restored or asked instruction as the hooks print it, with where the user said
    it (``line`` 0: an instruction ctxkeep restored earlier, whose line is not known)."""
    where = f"transcript line {line}" if line else "restored earlier"
    return f"- [{where}] {text}"


LEDGER_NAME = "restores.jsonl"
_VERSION = 1
EVENTS = ("session-start", "pre-compact")


def ledger_path() -> Path:
    """Where the ledger lives: ``CTXKEEP_HOME/restores.jsonl``."""
    return ctxkeep_home() / LEDGER_NAME


@dataclass(frozen=True, slots=True)
class LedgerItem:
    """One item of a record: an instruction (``kind`` its form) or a cautioned summary item."""

    text: str
    kind: str
    line: int = 0
    confidence: str = ""

    def as_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"text": mask_secrets(self.text)[0], "kind": self.kind}
        if self.line:
            out["line"] = self.line
        if self.confidence:
            out["confidence"] = self.confidence
        return out


@dataclass(frozen=True, slots=True)
class LedgerRecord:
    """One hook run that acted.

    ``event`` is ``session-start`` (after compaction ``compaction``: ``items`` restored,
    ``cautions`` named) or ``pre-compact`` (before compaction ``compaction``: ``items``
    the summariser was asked to preserve). ``status`` says what the run found:
    ``restored``, ``nothing-lost``, ``not-auditable`` or ``asked``.
    """

    event: str
    session_id: str
    transcript: str
    compaction: int
    status: str
    items: tuple[LedgerItem, ...] = ()
    cautions: tuple[LedgerItem, ...] = ()
    time: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    def as_json(self) -> dict[str, Any]:
        return {
            "v": _VERSION,
            "event": self.event,
            "session_id": self.session_id,
            "transcript": self.transcript,
            "compaction": self.compaction,
            "status": self.status,
            "items": [i.as_json() for i in self.items],
            "cautions": [c.as_json() for c in self.cautions],
            "time": self.time,
            **self.extra,
        }


def _items(raw: Any) -> tuple[LedgerItem, ...] | None:
    if not isinstance(raw, list):
        return None
    out: list[LedgerItem] = []
    for item in raw:
        if not isinstance(item, dict):
            return None
        text, kind = item.get("text"), item.get("kind")
        line, confidence = item.get("line", 0), item.get("confidence", "")
        if not (isinstance(text, str) and isinstance(kind, str) and isinstance(line, int)):
            return None
        out.append(LedgerItem(text, kind, line, confidence if isinstance(confidence, str) else ""))
    return tuple(out)


def record_from_json(raw: Any) -> LedgerRecord | None:
    """The record a decoded line holds, or None when it is not one of a known shape."""
    if not isinstance(raw, dict) or raw.get("v") != _VERSION or raw.get("event") not in EVENTS:
        return None
    items, cautions = _items(raw.get("items", [])), _items(raw.get("cautions", []))
    strings = [raw.get(k) for k in ("session_id", "transcript", "status", "time")]
    compaction = raw.get("compaction")
    if items is None or cautions is None or not all(isinstance(s, str) for s in strings):
        return None
    if not isinstance(compaction, int) or isinstance(compaction, bool):
        return None
    known = {"v", "event", "session_id", "transcript", "compaction", "status", "items"}
    known |= {"cautions", "time"}
    return LedgerRecord(
        event=raw["event"],
        session_id=raw["session_id"],
        transcript=raw["transcript"],
        compaction=compaction,
        status=raw["status"],
        items=items,
        cautions=cautions,
        time=raw["time"],
        extra={k: v for k, v in raw.items() if k not in known},
    )


@contextlib.contextmanager
def _exclusive(fd: int) -> Iterator[None]:
    """An exclusive advisory lock on ``fd`` where the platform has ``fcntl`` (POSIX)."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows: O_APPEND single writes only
        yield
        return
    fcntl.flock(fd, fcntl.LOCK_EX)
    try:
        yield
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)


@contextlib.contextmanager
def ledger_lock(path: Path | None = None) -> Iterator[None]:
    """Hold the ledger's lock: one hook run at a time reads the ledger, judges and appends.

    Claude Code runs the hooks of one event in parallel, and a user may have ctxkeep's
    hook both in settings and through the plugin: without the lock both runs would find
    the compaction unhandled and restore it twice.
    """
    target = path or ledger_path()
    target.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(target.with_name(target.name + ".lock"), os.O_RDWR | os.O_CREAT, 0o600)
    try:
        with _exclusive(fd):
            yield
    finally:
        os.close(fd)


def append_record(record: LedgerRecord, path: Path | None = None) -> Path:
    """Append ``record`` as one line; the line starts fresh even after a torn one."""
    target = path or ledger_path()
    target.parent.mkdir(parents=True, exist_ok=True)
    data = (json.dumps(record.as_json(), ensure_ascii=False, sort_keys=True) + "\n").encode()
    append_lines(target, data, mode=0o600, lock=True)
    return target


def read_ledger(
    path: Path | None = None, *, session_id: str | None = None
) -> tuple[list[LedgerRecord], list[tuple[int, str]]]:
    """The ledger's records in order (only ``session_id``'s when given), and its bad lines.

    A bad line is ``(line number, reason)``: not JSON, not a record, or the unterminated
    tail a writer left when it died (never read as a record). A missing ledger is empty.
    """
    target = path or ledger_path()
    try:
        data = target.read_bytes()
    except FileNotFoundError:
        return [], []
    lines = data.split(b"\n")
    tail = lines.pop()  # what follows the last newline: empty, or a torn write
    records: list[LedgerRecord] = []
    problems: list[tuple[int, str]] = []
    wanted = None if session_id is None else json.dumps(session_id, ensure_ascii=False).encode()
    for number, raw in enumerate(lines, 1):
        if not raw.strip() or (wanted is not None and wanted not in raw):
            continue
        try:
            record = record_from_json(json.loads(raw))
        except (ValueError, UnicodeDecodeError):
            problems.append((number, "not JSON (a torn or foreign line); skipped"))
            continue
        if record is None:
            problems.append((number, "not a ledger record of a known shape; skipped"))
        elif session_id is None or record.session_id == session_id:
            records.append(record)
    if tail.strip():
        problems.append((len(lines) + 1, "unterminated last line (a write that died); skipped"))
    return records, problems


# ------------------------------------------------------------------ the audit's side


@dataclass(frozen=True, slots=True)
class SessionLedger:
    """The ledger records of one session, as the audit reads them: what ctxkeep's hooks
    put in the session's context, which its transcript does not hold.

    Compactions are numbered as the audit numbers them (the hooks read the transcript
    with the same reader). ``session-start`` records of compaction M: what was restored
    and cautioned about right after M (in context until the next compaction replaced
    it); ``pre-compact`` records of compaction N: what its summariser was asked to keep.
    """

    records: tuple[LedgerRecord, ...] = ()

    def _items(self, event: str, compaction: int, cautions: bool = False) -> list[LedgerItem]:
        found: dict[str, LedgerItem] = {}
        for record in self.records:
            if record.event == event and record.compaction == compaction:
                for item in record.cautions if cautions else record.items:
                    found.setdefault(item.text, item)
        return list(found.values())

    def restored_after(self, compaction: int) -> list[LedgerItem]:
        """The instructions ``session-start`` restored right after ``compaction``."""
        return self._items("session-start", compaction)

    def cautioned_after(self, compaction: int) -> list[LedgerItem]:
        """The summary items ``session-start`` cautioned about right after ``compaction``."""
        return self._items("session-start", compaction, cautions=True)

    def asked_before(self, compaction: int) -> list[LedgerItem]:
        """The instructions ``pre-compact`` asked the summariser of ``compaction`` to keep."""
        return self._items("pre-compact", compaction)

    def restore_status(self, compaction: int) -> str | None:
        """What ``session-start`` found after ``compaction`` (the last record's status:
        ``restored``, ``cautioned``, ``nothing-lost``, ``not-auditable``), None if it did
        not run or left no record."""
        statuses = [
            r.status
            for r in self.records
            if r.event == "session-start" and r.compaction == compaction
        ]
        return statuses[-1] if statuses else None

    def texts_after(self, compaction: int) -> list[str]:
        """What ``session-start`` printed after ``compaction``, line by line as printed:
        the restored instructions and the cautioned items (a source of the next summary)."""
        lines = [instruction_line(i.text, i.line) for i in self.restored_after(compaction)]
        return lines + [i.text for i in self.cautioned_after(compaction)]

    def texts_before(self, compaction: int) -> list[str]:
        """What ``pre-compact`` printed before ``compaction``, as printed (a source of its
        summary: the directive is given to the summariser)."""
        return [instruction_line(i.text, i.line) for i in self.asked_before(compaction)]

    def compactions(self) -> list[int]:
        """The compactions some record is about, in order."""
        return sorted({r.compaction for r in self.records})


def _real(path: str) -> str:
    return os.path.realpath(os.path.expanduser(path))


@dataclass(frozen=True)
class Ledger:
    """A whole restore ledger read once, its records grouped by session for the audit.

    ``skipped`` counts the lines that are not a record (a torn write, a foreign line, a
    record of an unknown shape): they are never an error for the audit.
    """

    path: str
    records: tuple[LedgerRecord, ...] = ()
    skipped: int = 0

    @classmethod
    def read(cls, path: str | os.PathLike[str]) -> Ledger:
        """Read the ledger at ``path``; raises ``OSError`` when it is missing or cannot
        be read (a torn or foreign line is skipped, never raised)."""
        target = Path(path)
        if not target.is_file():
            raise FileNotFoundError(f"{target}: no such ledger file")
        records, problems = read_ledger(target)
        return cls(str(target), tuple(records), len(problems))

    @cached_property
    def _by_id(self) -> Mapping[str, tuple[LedgerRecord, ...]]:
        grouped: dict[str, list[LedgerRecord]] = {}
        for record in self.records:
            grouped.setdefault(record.session_id, []).append(record)
        return {k: tuple(v) for k, v in grouped.items()}

    @cached_property
    def _by_transcript(self) -> Mapping[str, tuple[LedgerRecord, ...]]:
        """Records a hook wrote without a session id (keyed by its transcript path)."""
        grouped: dict[str, list[LedgerRecord]] = {}
        for record in self.records:
            if record.session_id == record.transcript:
                grouped.setdefault(_real(record.transcript), []).append(record)
        return {k: tuple(v) for k, v in grouped.items()}

    def for_session(self, session_id: str | None, path: str) -> SessionLedger:
        """The records of one session: those of its session id, or, when the session
        or the hook had none, those of its transcript file."""
        if session_id:
            found = self._by_id.get(session_id, ())
            if found:
                return SessionLedger(found)
        return SessionLedger(self._by_transcript.get(_real(path), ()))
