"""CK011 prune-only-session."""

from __future__ import annotations

from collections.abc import Iterator

from ctxkeep.base.findings import Finding, Severity
from ctxkeep.log.model import Session
from ctxkeep.rules.base import SessionRule

__all__ = ["PruneOnlySession"]


class PruneOnlySession(SessionRule):
    """The session only micro-pruned tool output and never compacted with a summary.

    Pruning clears old tool results without writing anything in their place; there is
    no summary whose faithfulness could be audited. Worth knowing when a long session
    never reached (or never ran) threshold compaction.

    Example: a Claude Code session with three ``microcompact_boundary`` records and no
    ``compact_boundary``.
    """

    id = "CK011"
    name = "prune-only-session"
    level = Severity.INFO
    summary = "only micro-pruning, no summary compaction"

    def check_session(self, session: Session) -> Iterator[Finding]:
        if session.prunes and not session.compactions:
            n = len(session.prunes)
            yield self.finding(
                session,
                f"the session pruned tool output {n} time{'s' if n != 1 else ''} and "
                "never compacted with a summary",
                seqs=[p.seq for p in session.prunes],
                lines=[p.line for p in session.prunes],
            )
