"""The restore ledger: ``CTXKEEP_HOME/restores.jsonl``, what ctxkeep's hooks put in context.

Harnesses do not record hook output in their transcripts, so what ctxkeep restored after
a compaction (and what it asked the summariser to preserve before one) would leave no
trace. Each hook run that acted appends one JSON line here: the session, the compaction,
the items (the user's own instructions, and summary items it cautioned about), the time.
Never tool output; secrets in an instruction are masked before it is written.

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
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ctxkeep.base.paths import append_lines, ctxkeep_home

__all__ = [
    "LEDGER_NAME",
    "LedgerItem",
    "LedgerRecord",
    "append_record",
    "ledger_lock",
    "ledger_path",
    "mask_secrets",
    "read_ledger",
]

LEDGER_NAME = "restores.jsonl"
_VERSION = 1
EVENTS = ("session-start", "pre-compact")


def ledger_path() -> Path:
    """Where the ledger lives: ``CTXKEEP_HOME/restores.jsonl``."""
    return ctxkeep_home() / LEDGER_NAME


# Named detectors, most specific first. A detector's ``keep`` group (the name a value is
# assigned to) stays; the rest of its match becomes MASK.
_SECRET_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "private-key",
        re.compile(
            r"-----BEGIN [A-Z ]*PRIVATE KEY-----.*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)", re.S
        ),
    ),
    ("openai-or-anthropic-key", re.compile(r"\bsk-[A-Za-z0-9_\-]{16,}")),
    ("github-token", re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})")),
    ("aws-access-key", re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b")),
    ("slack-token", re.compile(r"\bxox[abprs]-[A-Za-z0-9\-]{10,}")),
    ("google-api-key", re.compile(r"\bAIza[0-9A-Za-z_\-]{35}")),
    ("jwt", re.compile(r"\beyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}")),
    ("bearer-token", re.compile(r"(?i)(?P<keep>\bbearer\s{1,3})[A-Za-z0-9._~+/\-]{16,}=*")),
    (
        "assigned-secret",
        re.compile(
            r"(?i)(?P<keep>\b(?:password|passwd|secret|token|api[_-]?key|apikey)[\"']?\s{0,3}"
            r"[:=]\s{0,3})[\"']?[^\s\"',;]{6,}[\"']?"
        ),
    ),
)
MASK = "[secret masked]"


def _masked(match: re.Match[str]) -> str:
    keep = match.groupdict().get("keep")
    return (keep or "") + MASK


def mask_secrets(text: str) -> str:
    """``text`` with every value a detector recognises as a secret replaced by a marker."""
    for _name, pattern in _SECRET_PATTERNS:
        text = pattern.sub(_masked, text)
    return text


@dataclass(frozen=True, slots=True)
class LedgerItem:
    """One item of a record: an instruction (``kind`` its form) or a cautioned summary item."""

    text: str
    kind: str
    line: int = 0
    confidence: str = ""

    def as_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"text": mask_secrets(self.text), "kind": self.kind}
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
