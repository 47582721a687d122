"""CK007 compaction-noop."""

from __future__ import annotations

from collections.abc import Iterator

from ctxkeep.base.findings import Finding, Severity
from ctxkeep.log.model import CompactionStatus
from ctxkeep.rules.base import CompactionRule
from ctxkeep.rules.context import CompactionView

__all__ = ["CompactionNoop"]


class CompactionNoop(CompactionRule):
    """A compaction was reported as done, yet the context did not shrink.

    Success of a compaction is a measured difference, never a declared one. Reported when
    the harness itself logged the compaction as a no-op, or when a summarised compaction's
    tokens after are at or above its tokens before (where the log gives both; the logs
    read so far state no message counts before and after). The session goes on at the
    same size and usually compacts again at once.

    Example: ``tokens_before`` 180,000 and ``tokens_after`` 181,200 for a compaction that
    ended "summarised".
    """

    id = "CK007"
    name = "compaction-noop"
    level = Severity.ERROR
    summary = "a compaction reported as done did not shrink the context"

    def check_compaction(self, view: CompactionView) -> Iterator[Finding]:
        c = view.compaction
        if c.status is CompactionStatus.NOOP:
            reason = "the harness reported that it compacted nothing"
        elif c.status is CompactionStatus.SUMMARISED:
            before, after = c.tokens_before, c.tokens_after
            if before is None or after is None or after < before:
                return
            reason = f"tokens went from {before:,} to {after:,}"
        else:
            return
        yield self.at_boundary(view, f"compaction {c.index} did not shrink the context: {reason}")
