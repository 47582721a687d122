"""The overview of a Session that ``ctxkeep show`` prints, as plain data."""

from __future__ import annotations

from collections import Counter
from typing import Any

from ctxkeep.log.model import Session

__all__ = ["session_overview"]


def session_overview(session: Session) -> dict[str, Any]:
    """The ``ctxkeep show --format json`` object for one session (a stable contract)."""
    by_kind = Counter(e.kind.value for e in session.events)
    return {
        "path": session.path,
        "format": session.format,
        "events": len(session.events),
        "by_kind": dict(sorted(by_kind.items())),
        "injected": sum(1 for e in session.events if e.injected is not None),
        "problems": [{"line": p.line, "reason": p.reason} for p in session.problems],
        "compactions": [
            {
                "index": c.index,
                "trigger": c.trigger,
                "status": c.status.value,
                "tokens_before": c.tokens_before,
                "tokens_after": c.tokens_after,
                "shadowed": len(c.shadowed_seqs),
                "summary_chars": len(c.summary) if c.summary is not None else None,
            }
            for c in session.compactions
        ],
    }
