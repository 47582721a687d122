"""CK008 compaction-failed."""

from __future__ import annotations

from collections.abc import Iterator

from ctxkeep.base.findings import Finding, Severity
from ctxkeep.log.model import CompactionStatus, Session
from ctxkeep.rules.base import SessionRule

__all__ = ["NEVER_ENDED", "CompactionFailed"]

NEVER_ENDED = "started and never ended"
"""The item standing for compactions whose end is not in the log."""


class CompactionFailed(SessionRule):
    """Compactions started but failed: counted as started, summarised and failed.

    A compaction that fails (a provider error, an overloaded API) leaves the context as
    full as before, and the harness retries, often for hours. One number hides this:
    a log with 291 compaction starts, 287 provider errors and 4 summaries must say 291
    started, 4 summarised, 287 failed. A start whose end never came counts as failed.
    One finding per session; its items are the distinct errors, in order of first
    appearance.

    Example: "291 compactions started: 4 summarised, 287 failed".
    """

    id = "CK008"
    name = "compaction-failed"
    level = Severity.WARN
    summary = "compactions started but failed; counted as started / summarised / failed"

    def check_session(self, session: Session) -> Iterator[Finding]:
        compactions = session.compactions
        failed = [
            c
            for c in compactions
            if c.status in {CompactionStatus.FAILED, CompactionStatus.STARTED}
        ]
        if not failed:
            return
        summarised = sum(1 for c in compactions if c.status is CompactionStatus.SUMMARISED)
        errors = dict.fromkeys(
            NEVER_ENDED if c.status is CompactionStatus.STARTED else (c.error or "failed")
            for c in failed
        )
        yield self.finding(
            session,
            f"{len(compactions)} compaction{'s' if len(compactions) != 1 else ''} started: "
            f"{summarised} summarised, {len(failed)} failed",
            seqs=[c.start_seq for c in failed],
            lines=[c.line for c in failed],
            items=errors,
        )
