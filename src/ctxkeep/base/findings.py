"""What the auditor reports: a severity, a confidence and a finding with its evidence.

A :class:`Finding` names the rule that made it, the session and compaction it is about,
the event seqs and source lines involved, and the exact text items lost, invented or
referenced. Its fingerprint leaves out seqs and line numbers (lines drift when a log is
re-read or re-written; the lost constraint does not), and the path as it was typed: it
holds the session's identity instead (:func:`session_identity`), so a baseline of
fingerprints keeps matching the same finding across runs, from any folder, in a fresh
checkout in CI (scheme 2; scheme 1 held the path as typed: ``audit logs/`` and
``audit /abs/logs`` gave two fingerprints).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import PurePath

__all__ = [
    "FINGERPRINT_SCHEME",
    "Confidence",
    "Finding",
    "ItemDetail",
    "Severity",
    "fingerprint_of",
    "session_identity",
]

FINGERPRINT_SCHEME = 2
"""What a fingerprint is made of; written into baselines so an old one is recognised."""


class Severity(StrEnum):
    """How bad a finding is; ordered ``info < warn < error``."""

    INFO = "info"
    WARN = "warn"
    ERROR = "error"

    @property
    def rank(self) -> int:
        """0 for info, 1 for warn, 2 for error: compare severities with this."""
        return _RANK[self]


_RANK = {Severity.INFO: 0, Severity.WARN: 1, Severity.ERROR: 2}


class Confidence(StrEnum):
    """How sure the rule is, given what the log can show (the second axis, as in bandit)."""

    HIGH = "high"
    LOW = "low"


def session_identity(path: str, session_id: str | None = None) -> str:
    """Who a session is, whatever the spelling of its path: the harness's session id when
    the log states one, else the log's file name (``logs/a.jsonl``, ``/abs/logs/a.jsonl``
    and ``./a.jsonl`` are all ``a.jsonl``)."""
    return session_id or PurePath(path).name or path


def fingerprint_of(
    identity: str, rule_id: str, compaction: int | None, items: tuple[str, ...]
) -> str:
    """A 16-hex-digit hash of what a finding is about (its rule, compaction and items) and
    of the session's :func:`session_identity`, leaving out seqs, lines and the path."""
    h = hashlib.sha256()
    for part in (identity, rule_id, "" if compaction is None else str(compaction), *items):
        h.update(part.encode("utf-8", "surrogatepass"))
        h.update(b"\x00")
    return h.hexdigest()[:16]


@dataclass(frozen=True, slots=True)
class ItemDetail:
    """One item of a finding: what kind of item it is, how sure the rule is that it is
    wrong, and why (CK002: ``path``, ``symbol``, ... or a claim kind such as ``count``;
    a LOW item's reason says what hidden text could explain it). The JSON report holds
    ``item``, ``kind``, ``confidence`` and ``why``."""

    item: str
    kind: str
    confidence: Confidence
    why: str
    span: tuple[int, int] | None = None
    """Where the item stands in the text it was found in (CK002: its character offsets in
    the summary, which ``ctxkeep diff`` turns into a line); None when it has no place."""


@dataclass(frozen=True, slots=True)
class Finding:
    """One thing a rule found in one session.

    ``compaction`` is the 1-based index of the compaction it is about (None for findings
    about the whole session or the log). ``items`` holds the exact text of each lost
    constraint, invented identifier or ghost reference, as it stands in the source or the
    summary. ``confidence`` is LOW when the log cannot show enough to be sure, and the
    message then says why. ``items_detail`` (CK002) gives each item its kind, confidence
    and reason, in the order of ``items``; rules with no more to say leave it empty.
    ``restored`` (CK003) holds the items ctxkeep's hooks had put back in context (the
    restore ledger): reports mark them "restored by ctxkeep".
    """

    rule_id: str
    rule: str
    level: Severity
    message: str
    path: str
    compaction: int | None = None
    seqs: tuple[int, ...] = ()
    lines: tuple[int, ...] = ()
    items: tuple[str, ...] = ()
    confidence: Confidence = Confidence.HIGH
    fingerprint: str = field(default="", compare=False)
    items_detail: tuple[ItemDetail, ...] = ()
    restored: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not self.fingerprint:  # rules pass the session id; else the file name stands
            identity = session_identity(self.path)
            fp = fingerprint_of(identity, self.rule_id, self.compaction, self.items)
            object.__setattr__(self, "fingerprint", fp)

    def sort_key(self) -> tuple[str, int, tuple[int, ...], tuple[str, ...], str]:
        """Deterministic order: by rule id (CK001, the log's own health, first), then
        compaction, seqs, items and message."""
        return (
            self.rule_id,
            -1 if self.compaction is None else self.compaction,
            self.seqs,
            self.items,
            self.message,
        )
