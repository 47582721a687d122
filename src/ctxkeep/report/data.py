"""Plain-data views of an audit: the JSON contract, shared by every report.

The contract is written down in docs/design.md ("The JSON report").

Keys of the contract are never renamed; new keys may be added. No timestamps, paths as
given, findings in the engine's order.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ctxkeep._version import __version__
from ctxkeep.base.findings import Finding, Severity

if TYPE_CHECKING:
    from ctxkeep.engine import (
        AuditResult,
        CompactionCounts,
        HookActivity,
        PeakContext,
        SessionAudit,
    )

__all__ = [
    "counts_to_dict",
    "finding_to_dict",
    "hook_activity_to_dict",
    "items_detail",
    "result_to_dict",
    "session_to_dict",
]


def counts_to_dict(counts: CompactionCounts) -> dict[str, int]:
    return {
        "started": counts.started,
        "summarised": counts.summarised,
        "failed": counts.failed,
        "noop": counts.noop,
    }


def items_detail(finding: Finding) -> list[dict[str, str]]:
    """``[{item, kind, confidence, why}]`` of a finding (empty for rules that give none)."""
    return [
        {"item": d.item, "kind": d.kind, "confidence": d.confidence.value, "why": d.why}
        for d in finding.items_detail
    ]


def finding_to_dict(finding: Finding) -> dict[str, Any]:
    return {
        "rule_id": finding.rule_id,
        "rule": finding.rule,
        "level": finding.level.value,
        "message": finding.message,
        "compaction": finding.compaction,
        "seqs": list(finding.seqs),
        "lines": list(finding.lines),
        "items": list(finding.items),
        "items_detail": items_detail(finding),
        "confidence": finding.confidence.value,
        "fingerprint": finding.fingerprint,
        "restored_by_ctxkeep": list(finding.restored),
    }


def hook_activity_to_dict(h: HookActivity) -> dict[str, Any]:
    """What ctxkeep's hooks did around one compaction (restore ledger)."""
    return {
        "compaction": h.compaction,
        "asked": list(h.asked),
        "asked_kept": None if h.asked_kept is None else list(h.asked_kept),
        "restore": h.restore,
        "restored": list(h.restored),
        "cautioned": list(h.cautioned),
    }


def _peak_to_dict(peak: PeakContext) -> dict[str, Any]:
    return {"tokens": peak.tokens, "window": peak.window, "percent": peak.percent}


def session_to_dict(s: SessionAudit) -> dict[str, Any]:
    return {
        "path": s.path,
        "format": s.format,
        "events": s.events,
        "compactions": counts_to_dict(s.compactions),
        "compactions_by_trigger": {t: counts_to_dict(c) for t, c in s.by_trigger},
        "constraints": {"total": s.constraints_total, "kept": s.constraints_kept},
        "peak_context": _peak_to_dict(s.peak),
        "baselined": s.baselined,
        "findings": [finding_to_dict(f) for f in s.findings],
        "ctxkeep_hooks": [hook_activity_to_dict(h) for h in s.hooks],
    }


def result_to_dict(result: AuditResult) -> dict[str, Any]:
    """The whole ``--format json`` object."""
    return {
        "tool": "ctxkeep",
        "version": __version__,
        "sessions": [session_to_dict(s) for s in result.sessions],
        "problems": [{"path": p.path, "line": p.line, "reason": p.reason} for p in result.problems],
        "totals": {
            "sessions": len(result.sessions),
            "compactions": counts_to_dict(result.compactions),
            "compactions_by_trigger": {t: counts_to_dict(c) for t, c in result.by_trigger},
            "constraints": {
                "total": sum(s.constraints_total for s in result.sessions),
                "kept": sum(s.constraints_kept for s in result.sessions),
            },
            "findings": {
                level.value: sum(s.count(level) for s in result.sessions) for level in Severity
            },
        },
    }
