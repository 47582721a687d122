"""Step 8: receipts, one JSON line per message and a last line for the run.

A run's lines are appended as one block with one ``os.write`` on an ``O_APPEND`` file, so
concurrent writers never interleave inside a block, and on a fresh line after a torn one.
The run line carries the number of message lines and a SHA-256 of the message lines and
of the run line itself (written without its ``digest``); a reader trusts a run only when
its run line is whole and both match, so a crash that cuts the file (a torn last line, a
missing run line) or a corrupted setting in the run line leaves that run untrusted
instead of half-read. Version 1 receipts had a digest of the message lines only (a
corrupted run line was trusted): they are reported, not trusted. Receipts hold hashes,
sizes, scores and settings, never a key (the scorer is recorded by ``describe()``, whose
URL has no credentials or query), and no message text except one: the text an
abstractive summariser wrote (masked of secrets), which no replay could compute again
without calling the model.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ctxkeep.base.paths import append_lines
from ctxkeep.base.secrets import mask_secrets
from ctxkeep.compactor.result import Decision
from ctxkeep.log.source import cap_problems, read_regular

__all__ = [
    "RECEIPT_VERSION",
    "ReceiptFile",
    "ReceiptRun",
    "append_receipt",
    "read_receipts",
    "receipt_block",
    "without_credentials",
]

RECEIPT_VERSION = 2


_SECRET_WORDS = ("key", "token", "secret", "password", "authorization", "auth")


def without_credentials(described: Any) -> dict[str, Any]:
    """A scorer's or summariser's self-description (a mapping; anything else is empty)
    without the entries whose name looks like a credential's."""
    if not isinstance(described, Mapping):
        return {}
    return {
        str(k): v
        for k, v in described.items()
        if not any(word in str(k).lower() for word in _SECRET_WORDS)
    }


def _line(obj: Mapping[str, Any]) -> str:
    return json.dumps(obj, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def receipt_block(
    run_id: str,
    decisions: Sequence[Decision],
    *,
    scorer: Mapping[str, Any],
    settings: Mapping[str, Any],
    stats: Mapping[str, Any],
    summarizer: Mapping[str, Any] | None = None,
) -> bytes:
    """The lines of one run, ready to append (message lines, then the run line).

    A secret in the run id, a setting (a ``--pin`` holding a key) or the summariser's
    record is masked (:mod:`ctxkeep.base.secrets`); the mask is a literal pattern, so a masked
    pin matches nothing when the run is replayed, and a replay writes the mask where the
    summariser's text held a secret.
    """
    run_id = _masked(run_id)
    settings = _masked(dict(settings))
    lines = [
        _line({"v": RECEIPT_VERSION, "kind": "message", "run": run_id, **d.to_dict()})
        for d in decisions
    ]
    body = "".join(line + "\n" for line in lines)
    run = {
        "v": RECEIPT_VERSION,
        "kind": "run",
        "run": run_id,
        "messages": len(lines),
        "scorer": dict(scorer),
        "settings": dict(settings),
        "stats": dict(stats),
    }
    if summarizer is not None:
        run["summarizer"] = _masked(dict(summarizer))
    run["digest"] = _digest(body.encode("utf-8"), run)
    return (body + _line(run) + "\n").encode("utf-8")


def _masked(value: Any) -> Any:
    """``value`` with every string in it masked of secrets."""
    if isinstance(value, str):
        return mask_secrets(value)[0]
    if isinstance(value, dict):
        return {k: _masked(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_masked(v) for v in value]
    return value


def _digest(body: bytes, run: Mapping[str, Any]) -> str:
    """SHA-256 of the message lines and of the run line without its ``digest``."""
    unsigned = {k: v for k, v in run.items() if k != "digest"}
    return hashlib.sha256(body + _line(unsigned).encode("utf-8") + b"\n").hexdigest()


def append_receipt(path: str | os.PathLike[str], block: bytes) -> None:
    """Append ``block`` to ``path`` in one write, on a fresh line; raises OSError when it
    cannot (:func:`ctxkeep.base.paths.append_lines`)."""
    append_lines(path, block)


_V1_RUN = (
    "run of a version 1 receipt (an older ctxkeep): its run line is not covered by its "
    "digest, so it is not trusted; compact again to write a version 2 receipt"
)


@dataclass(frozen=True, slots=True)
class ReceiptRun:
    """One complete, verified run of a receipts file."""

    run_id: str
    records: tuple[Mapping[str, Any], ...]
    scorer: Mapping[str, Any]
    settings: Mapping[str, Any]
    stats: Mapping[str, Any]
    line: int
    """1-based line of its run line."""
    summarizer: Mapping[str, Any] = field(default_factory=dict)
    """The abstractive summariser's record (``SummaryRepair`` and its description, its
    text included); empty when the extractive summary was the only one."""


@dataclass(frozen=True, slots=True)
class ReceiptFile:
    """The trusted runs of a receipts file and the lines that could not be trusted."""

    path: str
    runs: tuple[ReceiptRun, ...]
    problems: tuple[tuple[int, str], ...] = field(default=())
    """(line, reason) of every line or block that was not trusted."""

    def run(self, run_id: str | None = None) -> ReceiptRun | None:
        """The run called ``run_id`` (its last occurrence), else the last run."""
        for run in reversed(self.runs):
            if run_id is None or run.run_id == run_id:
                return run
        return None


def read_receipts(path: str | os.PathLike[str]) -> ReceiptFile:
    """Read every trusted run of ``path``; never raises (an unreadable file has problems)."""
    shown = os.fspath(path)
    try:
        data = read_regular(path)  # a FIFO or a device is refused, never read (issue 14)
    except OSError as exc:
        return ReceiptFile(shown, (), ((0, f"cannot read: {exc.strerror or exc}"),))
    runs: list[ReceiptRun] = []
    problems: list[tuple[int, str]] = []
    pending: list[tuple[int, bytes, dict[str, Any]]] = []
    lines = data.split(b"\n")
    complete = data.endswith(b"\n")
    for lineno, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        if lineno == len(lines) and not complete:
            problems.append((lineno, "torn last line (no newline): not trusted"))
            continue
        try:
            obj = json.loads(raw)
        except (ValueError, RecursionError):
            problems.append((lineno, "not JSON: not trusted"))
            if pending:  # the run this line belonged to is broken
                problems.append((pending[0][0], "run holds a line that is not JSON: not trusted"))
                pending = []
            continue
        if isinstance(obj, dict) and obj.get("v") == 1 and obj.get("kind") == "run":
            problems.append((lineno, _V1_RUN))
            pending = []
            continue
        if not isinstance(obj, dict) or obj.get("v") not in (1, RECEIPT_VERSION):
            problems.append((lineno, f"not a ctxkeep receipt line (v {RECEIPT_VERSION})"))
            continue
        if obj.get("kind") == "message":
            if pending and pending[0][2].get("run") != obj.get("run"):
                problems.append((pending[0][0], "run has no run line (cut short): not trusted"))
                pending = []
            pending.append((lineno, raw, obj))
        elif obj.get("kind") == "run":
            run = _close_run(obj, pending, lineno)
            if isinstance(run, str):
                problems.append((lineno, run))
            else:
                runs.append(run)
            pending = []
        else:
            problems.append((lineno, f"unknown receipt kind {obj.get('kind')!r}"))
    if pending:
        problems.append((pending[0][0], "run has no run line (cut short): not trusted"))
    return ReceiptFile(shown, tuple(runs), tuple(cap_problems(problems)))


def _close_run(
    obj: dict[str, Any], pending: list[tuple[int, bytes, dict[str, Any]]], lineno: int
) -> ReceiptRun | str:
    run_id = obj.get("run")
    records = [rec for _, _, rec in pending if rec.get("run") == run_id]
    if not isinstance(run_id, str) or len(records) != len(pending):
        return "run line does not match the message lines before it: not trusted"
    if obj.get("messages") != len(records):
        return f"run {run_id} declares {obj.get('messages')} messages, found {len(records)}"
    body = b"".join(raw + b"\n" for _, raw, _ in pending)
    try:
        digest = _digest(body, obj)
    except (TypeError, ValueError, UnicodeEncodeError):
        digest = None
    if obj.get("digest") != digest:
        return f"run {run_id}: its lines do not match the run's digest (corrupted): not trusted"
    settings, scorer, stats = obj.get("settings"), obj.get("scorer"), obj.get("stats")
    summarizer = obj.get("summarizer")
    return ReceiptRun(
        run_id=run_id,
        records=tuple(records),
        scorer=scorer if isinstance(scorer, dict) else {},
        settings=settings if isinstance(settings, dict) else {},
        stats=stats if isinstance(stats, dict) else {},
        line=lineno,
        summarizer=summarizer if isinstance(summarizer, dict) else {},
    )
