"""The report of ``ctxkeep diff``: one compaction taken apart, as text or as JSON."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from ctxkeep._version import __version__
from ctxkeep.report.data import finding_to_dict, hook_activity_to_dict
from ctxkeep.report.text import hook_line

if TYPE_CHECKING:
    from ctxkeep.engine import CompactionDiff

__all__ = ["ctxkeep_note", "diff_to_dict", "render_diff_json", "render_diff_text"]

_SURVIVAL_MARK = {"kept": "kept    ", "reworded": "reworded", "lost": "LOST    "}


def diff_to_dict(d: CompactionDiff) -> dict[str, Any]:
    c = d.compaction
    return {
        "tool": "ctxkeep",
        "version": __version__,
        "path": d.path,
        "compaction": {
            "index": c.index,
            "id": c.id,
            "trigger": c.trigger,
            "status": c.status.value,
            "tokens_before": c.tokens_before,
            "tokens_after": c.tokens_after,
            "line": c.line,
            "summary_line": c.summary_line,
            "error": c.error,
            "opaque": c.opaque,
            "summary_chars": None if c.summary is None else len(c.summary),
        },
        "has_history": d.has_history,
        "replaced": {
            "events": sum(n for _, n in d.replaced_by_kind),
            "by_kind": dict(d.replaced_by_kind),
            "user_messages": d.replaced_user_messages,
            "previous_summary": c.previous_summary is not None,
        },
        "constraints": [
            {
                "text": r.text,
                "kind": r.kind,
                "survival": r.survival.value,
                "seq": r.seq,
                "line": r.line,
                "source": r.source,
                "origin": r.origin,
                "inherited_from": r.inherited_from,
                "carried_as": r.carried_as,
                "restored_after": r.restored_after,
                "asked_by_ctxkeep": r.asked,
            }
            for r in d.constraints
        ],
        "invented": [
            {
                "text": i.text,
                "kind": i.kind,
                "summary_line": i.summary_line,
                "found_in": None,
                "confidence": i.confidence.value,
                "why": i.why,
            }
            for i in d.invented
        ],
        "ghost_references": list(d.ghost_references),
        "findings": [finding_to_dict(f) for f in d.findings],
        "ctxkeep_hooks": None if d.hooks is None else hook_activity_to_dict(d.hooks),
    }


def render_diff_json(d: CompactionDiff) -> str:
    return json.dumps(diff_to_dict(d), indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def _tokens(n: int | None) -> str:
    return "?" if n is None else f"{n:,}"


_ORIGIN_NOTE = {
    "rejection": " (typed rejecting a tool call)",
    "compact": " (/compact arguments)",
    "quoted": " (quoted by the previous summary; typed before the log begins)",
    "restored": " (in context only through ctxkeep's restore)",
}


def ctxkeep_note(restored_after: int | None, asked: bool) -> str:
    """How ctxkeep's hooks put an instruction in context, as the reports say it."""
    notes = []
    if restored_after is not None:
        notes.append(f"restored by ctxkeep after compaction {restored_after}")
    if asked:
        notes.append("ctxkeep asked the summariser to keep it")
    return "; ".join(notes)


def render_diff_text(d: CompactionDiff) -> str:
    c = d.compaction
    kinds = ", ".join(f"{k} {n}" for k, n in d.replaced_by_kind) or "nothing"
    lines = [
        f"{d.path}  compaction {c.index} ({c.trigger or 'unknown trigger'}, {c.status.value})",
        f"  tokens: {_tokens(c.tokens_before)} -> {_tokens(c.tokens_after)}",
        f"  replaced: {kinds}" + (" + the previous summary" if c.previous_summary else ""),
    ]
    if c.opaque:
        lines.append("  summary: opaque (encrypted by the provider): nothing to judge it on")
    elif c.summary is None or not c.summary.strip():
        lines.append("  summary: none: nothing to judge")
    else:
        lines.append(f"  summary: {len(c.summary):,} characters")
    if c.error:
        lines.append(f"  error: {c.error}")
    if not d.has_history:
        lines.append("  nothing it replaced is in the log: nothing to compare")
    lines.append("")
    inherited = sum(1 for r in d.constraints if r.inherited_from is not None)
    note = f", {inherited} inherited from earlier summaries" if inherited else ""
    lines.append(f"constraints ({len(d.constraints)}{note}):")
    if not d.constraints:
        lines.append("  none")
    for r in d.constraints:
        where = f"line {r.line}" if r.line else f"seq {r.seq}"
        lines.append(f"  {_SURVIVAL_MARK[r.survival.value]}  {r.text}  [{r.kind}]")
        origin = _ORIGIN_NOTE.get(r.origin, "")
        if r.inherited_from:
            origin += f", inherited: replaced by compaction {r.inherited_from}"
        elif r.inherited_from == 0:
            origin += ", inherited from a summary older than the log"
        lines.append(f"            from {where}{origin}: {r.source}")
        note = ctxkeep_note(r.restored_after, r.asked)
        if note:
            lines.append(f"            {note}")
        if r.survival.value == "reworded" and r.carried_as:
            lines.append(f"            as: {r.carried_as}")
    if d.hooks is not None:
        lines.append(f"ctxkeep hooks (restore ledger): {hook_line(d.hooks)}")
    lines.append("")
    lines.append(f"invented items ({len(d.invented)}):")
    if not d.invented:
        lines.append("  none")
    for i in d.invented:
        lines.append(
            f"  {i.text}  [{i.kind}] summary line {i.summary_line}; "
            f"{i.confidence.value} confidence: {i.why}"
        )
    lines.append("")
    lines.append(f"ghost references ({len(d.ghost_references)}):")
    lines.extend(f"  {g}" for g in d.ghost_references)
    if not d.ghost_references:
        lines.append("  none")
    return "\n".join(lines) + "\n"
