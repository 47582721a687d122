"""The typed results of the MCP tools: the JSON report's shape as TypedDicts.

The SDK derives each tool's output schema from these, and checks every result against
it. They describe :func:`ctxkeep.report.data.result_to_dict` and
:func:`ctxkeep.report.diff.diff_to_dict` key for key; a test holds them to those
functions, so a key added there without being added here fails the tests.
"""

from __future__ import annotations

from typing import Literal

# pydantic needs typing_extensions' TypedDict on Python 3.11 for nested TypedDicts;
# typing_extensions comes with the mcp extra (through pydantic).
from typing_extensions import TypedDict

__all__ = [
    "AuditReport",
    "CompactionCountsDict",
    "ConstraintDict",
    "DiffReport",
    "FindingDict",
    "HookActivityDict",
    "ProblemDict",
    "SessionDict",
]

Level = Literal["error", "warn", "info"]


class CompactionCountsDict(TypedDict):
    """Compactions started and what became of them (a start with no end is failed)."""

    started: int
    summarised: int
    failed: int
    noop: int


class ConstraintCountsDict(TypedDict):
    """Constraints of the replaced histories, and how many survived their summary."""

    total: int
    kept: int


class PeakContextDict(TypedDict):
    """The largest context the log reports; None where the log does not say."""

    tokens: int | None
    window: int | None
    percent: float | None


class ItemDetailDict(TypedDict):
    """One item of a finding: its kind (CK002: ``path``, ``symbol``, ``count``, ``line``,
    ``quote``, ...), how sure the audit is, and why."""

    item: str
    kind: str
    confidence: Literal["high", "low"]
    why: str


class FindingDict(TypedDict):
    """One finding; ``items`` holds the exact text lost, invented or referenced;
    ``items_detail`` (CK002) the same items with their kind, confidence and reason."""

    rule_id: str
    rule: str
    level: Level
    message: str
    compaction: int | None
    seqs: list[int]
    lines: list[int]
    items: list[str]
    items_detail: list[ItemDetailDict]
    confidence: Literal["high", "low"]
    fingerprint: str
    restored_by_ctxkeep: list[str]


class HookActivityDict(TypedDict):
    """What ctxkeep's hooks did around one compaction (restore ledger): the instructions
    ``pre-compact`` asked its summariser to keep and those it kept (null: no summary),
    and what ``session-start`` found and restored right after it."""

    compaction: int
    asked: list[str]
    asked_kept: list[str] | None
    restore: str | None
    restored: list[str]
    cautioned: list[str]


class SessionDict(TypedDict):
    """The audit of one session."""

    path: str
    format: str
    events: int
    compactions: CompactionCountsDict
    compactions_by_trigger: dict[str, CompactionCountsDict]
    constraints: ConstraintCountsDict
    peak_context: PeakContextDict
    baselined: int
    findings: list[FindingDict]
    ctxkeep_hooks: list[HookActivityDict]


class ProblemDict(TypedDict):
    """A file, or a line of one, that could not be read."""

    path: str
    line: int
    reason: str


class TotalsDict(TypedDict):
    """Figures over every session of the report."""

    sessions: int
    compactions: CompactionCountsDict
    compactions_by_trigger: dict[str, CompactionCountsDict]
    constraints: ConstraintCountsDict
    findings: dict[str, int]


class AuditReport(TypedDict):
    """What ``ctxkeep audit --format json`` prints: sessions, problems and totals."""

    tool: str
    version: str
    sessions: list[SessionDict]
    problems: list[ProblemDict]
    totals: TotalsDict


class DiffCompactionDict(TypedDict):
    """The compaction taken apart: where it is in the log and what it reported."""

    index: int
    id: str
    trigger: str | None
    status: Literal["started", "summarised", "failed", "noop"]
    tokens_before: int | None
    tokens_after: int | None
    line: int
    summary_line: int
    error: str | None
    opaque: bool
    summary_chars: int | None


class ReplacedDict(TypedDict):
    """What the summary replaced, by event kind."""

    events: int
    by_kind: dict[str, int]
    user_messages: int
    previous_summary: bool


class ConstraintDict(TypedDict):
    """A constraint of the replaced history: its text, fate, and the line it stood on."""

    text: str
    kind: str
    survival: Literal["kept", "reworded", "lost"]
    seq: int
    line: int
    source: str
    origin: Literal["message", "rejection", "compact", "quoted", "restored"]
    inherited_from: int | None
    carried_as: str | None
    restored_after: int | None
    asked_by_ctxkeep: bool


class InventedDict(TypedDict):
    """An item or claim of the summary that no source it was written from bears out, how
    sure the audit is (``high``/``low``) and why."""

    text: str
    kind: str
    summary_line: int
    found_in: str | None
    confidence: str
    why: str


class DiffReport(TypedDict):
    """What ``ctxkeep diff --format json`` prints: one compaction in detail."""

    tool: str
    version: str
    path: str
    compaction: DiffCompactionDict
    has_history: bool
    replaced: ReplacedDict
    constraints: list[ConstraintDict]
    invented: list[InventedDict]
    ghost_references: list[str]
    findings: list[FindingDict]
    ctxkeep_hooks: HookActivityDict | None
