"""CK010 no-history."""

from __future__ import annotations

from collections.abc import Iterator

from ctxkeep.base.findings import Finding, Severity
from ctxkeep.rules.base import CompactionRule
from ctxkeep.rules.context import CompactionView

__all__ = ["NoHistory"]


class NoHistory(CompactionRule):
    """A compaction has a summary but nothing it replaced is in the log.

    With no replaced events and no previous summary there is nothing to compare the
    summary with: every item in it would look invented and no constraint could be lost.
    The summary is not judged, and this says why.

    Example: a log that starts with a compaction (the history before it was in another
    file), or a message array whose only message is the summary.
    """

    id = "CK010"
    name = "no-history"
    level = Severity.INFO
    summary = "a compaction with nothing before it to compare"

    def check_compaction(self, view: CompactionView) -> Iterator[Finding]:
        if view.summary is None or view.has_history:
            return
        yield self.at_boundary(
            view,
            f"compaction {view.compaction.index} has a summary but none of the history it "
            "replaced is in the log",
        )
