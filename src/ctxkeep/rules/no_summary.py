"""CK009 no-summary."""

from __future__ import annotations

from collections.abc import Iterator

from ctxkeep.base.findings import Finding, Severity
from ctxkeep.log.model import CompactionStatus
from ctxkeep.rules.base import CompactionRule
from ctxkeep.rules.context import CompactionView

__all__ = ["NoSummary"]


class NoSummary(CompactionRule):
    """A compaction succeeded but left no summary that can be audited.

    Codex's server-side compaction keeps the summary encrypted (opaque); some harnesses
    log an empty one. Nothing can be said about what such a compaction kept, so it is
    reported as information, not as a loss.

    Example: a Codex ``compacted`` record with an empty ``message`` and an
    ``encrypted_content`` compaction item.
    """

    id = "CK009"
    name = "no-summary"
    level = Severity.INFO
    summary = "a compaction with no summary to audit (opaque or empty)"

    def check_compaction(self, view: CompactionView) -> Iterator[Finding]:
        c = view.compaction
        if c.status is not CompactionStatus.SUMMARISED:
            return
        if c.opaque:
            why = "its summary is opaque (encrypted by the provider)"
        elif not (c.summary or "").strip():
            why = "its summary is empty"
        else:
            return
        yield self.at_boundary(view, f"compaction {c.index} cannot be audited: {why}")
