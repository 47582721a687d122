"""``--format text``: the report for people, one block per session, worst first."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ctxkeep.base.findings import Confidence, Finding, Severity
from ctxkeep.log.model import located

if TYPE_CHECKING:  # the engine (and the extractors under it) load only when auditing
    from ctxkeep.engine import (
        AuditResult,
        CompactionCounts,
        HookActivity,
        PeakContext,
        SessionAudit,
    )

__all__ = ["hook_line", "render"]

_MAX_ITEMS = 20


def _counts(c: CompactionCounts) -> str:
    text = f"{c.started} started, {c.summarised} summarised, {c.failed} failed"
    return text + (f", {c.noop} no-op" if c.noop else "")


def _triggers(by_trigger: tuple[tuple[str, CompactionCounts], ...]) -> str:
    parts = [
        f"{t} {c.started} ({c.summarised} summarised, {c.failed} failed)"
        for t, c in by_trigger
        if c.started
    ]
    return "; ".join(parts) or "none"


def _peak(peak: PeakContext) -> str:
    if peak.tokens is None:
        return "not in the log"
    text = f"{peak.tokens:,} tokens"
    if peak.window and peak.percent is not None:
        text += f" ({peak.percent}% of {peak.window:,})"
    return text


def _finding(f: Finding) -> list[str]:
    where = []
    if f.compaction is not None:
        where.append(f"compaction {f.compaction}")
    if f.lines:
        shown = ", ".join(map(str, f.lines[:5])) + (", ..." if len(f.lines) > 5 else "")
        where.append(f"line{'s' if len(f.lines) > 1 else ''} {shown}")
    head = f"  {f.level.value:<5} {f.rule_id} {f.rule}"
    if where:
        head += f" [{'; '.join(where)}]"
    if f.confidence is Confidence.LOW:
        head += " (low confidence)"
    out = [head, f"        {f.message}"]
    if f.items_detail:
        out.extend(
            f"        - {d.item}  ({d.kind}, {d.confidence.value}: {d.why})"
            for d in f.items_detail[:_MAX_ITEMS]
        )
    else:
        restored = set(f.restored)
        out.extend(
            f"        - {item}" + ("  (restored by ctxkeep)" if item in restored else "")
            for item in f.items[:_MAX_ITEMS]
        )
    if len(f.items) > _MAX_ITEMS:
        out.append(f"        ... and {len(f.items) - _MAX_ITEMS} more")
    return out


def hook_line(h: HookActivity) -> str:
    """What ctxkeep's hooks did around one compaction, in a line."""
    parts = []
    if h.asked:
        parts.append(f"asked to keep {len(h.asked)} instruction{'s' if len(h.asked) != 1 else ''}")
        if h.asked_kept is not None:
            parts[-1] += f", the summary kept {len(h.asked_kept)}"
    if h.restored:
        parts.append(f"restored {len(h.restored)} after it")
    elif h.restore is not None:
        parts.append(f"after it: {h.restore}")
    if h.cautioned:
        parts.append(
            f"cautioned about {len(h.cautioned)} item{'s' if len(h.cautioned) != 1 else ''}"
        )
    return f"compaction {h.compaction}: " + "; ".join(parts)


def _session(s: SessionAudit) -> list[str]:
    out = [
        f"{s.path}  [{s.format}, {s.events:,} events]",
        f"  compactions: {_counts(s.compactions)}",
        f"  by trigger: {_triggers(s.by_trigger)}",
        f"  constraints: {s.constraints_kept} of {s.constraints_total} kept",
        f"  peak context: {_peak(s.peak)}",
    ]
    if s.hooks:
        out.append("  ctxkeep hooks (restore ledger):")
        out.extend(f"    {hook_line(h)}" for h in s.hooks)
    if s.baselined:
        out.append(f"  {s.baselined} finding(s) in the baseline, not shown")
    for f in s.findings:
        out.extend(_finding(f))
    if not s.findings:
        out.append("  no findings")
    return out


def render(result: AuditResult) -> str:
    lines: list[str] = []
    for s in result.sessions:
        lines.extend(_session(s))
        lines.append("")
    for p in result.problems:
        lines.append(f"problem: {located(p.path, p.line)}: {p.reason}")
    if result.problems:
        lines.append("")
    counts = {level: sum(s.count(level) for s in result.sessions) for level in Severity}
    n = len(result.sessions)
    lines.append(
        f"{n} session{'s' if n != 1 else ''}; compactions: {_counts(result.compactions)}; "
        f"by trigger: {_triggers(result.by_trigger)}"
    )
    lines.append(
        f"findings: {counts[Severity.ERROR]} error, {counts[Severity.WARN]} warn, "
        f"{counts[Severity.INFO]} info"
    )
    return "\n".join(lines) + "\n"
