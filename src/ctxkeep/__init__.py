"""ctxkeep: make context compaction of LLM agent sessions trustworthy.

The public API is re-exported here; everything else is private to its module. Names are
imported on first use (PEP 562), so ``import ctxkeep`` and the command line stay fast: a
``ctxkeep show`` does not pay for the compactor, the guard or the auditor.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from ctxkeep._version import __version__

if TYPE_CHECKING:
    from ctxkeep.compactor import CompactionResult, Decision, compact, replay
    from ctxkeep.engine import AuditResult, audit
    from ctxkeep.findings import Finding, Severity
    from ctxkeep.log import (
        Compaction,
        CompactionStatus,
        Event,
        EventKind,
        ParseProblem,
        Prune,
        ReadOptions,
        Session,
        read_session,
    )
    from ctxkeep.scorers import Scorer
    from ctxkeep.tokens import count_tokens, estimate_tokens
    from ctxkeep.verify import GuardedResult, StatsStore, guard, split_points

_EXPORTS: dict[str, str] = {
    "AuditResult": "ctxkeep.engine",
    "Compaction": "ctxkeep.log",
    "CompactionResult": "ctxkeep.compactor",
    "CompactionStatus": "ctxkeep.log",
    "Decision": "ctxkeep.compactor",
    "Event": "ctxkeep.log",
    "EventKind": "ctxkeep.log",
    "Finding": "ctxkeep.findings",
    "GuardedResult": "ctxkeep.verify",
    "ParseProblem": "ctxkeep.log",
    "Prune": "ctxkeep.log",
    "ReadOptions": "ctxkeep.log",
    "Scorer": "ctxkeep.scorers",
    "Session": "ctxkeep.log",
    "Severity": "ctxkeep.findings",
    "StatsStore": "ctxkeep.verify",
    "audit": "ctxkeep.engine",
    "compact": "ctxkeep.compactor",
    "count_tokens": "ctxkeep.tokens",
    "estimate_tokens": "ctxkeep.tokens",
    "guard": "ctxkeep.verify",
    "read_session": "ctxkeep.log",
    "replay": "ctxkeep.compactor",
    "split_points": "ctxkeep.verify",
}

__all__ = [
    "AuditResult",
    "Compaction",
    "CompactionResult",
    "CompactionStatus",
    "Decision",
    "Event",
    "EventKind",
    "Finding",
    "GuardedResult",
    "ParseProblem",
    "Prune",
    "ReadOptions",
    "Scorer",
    "Session",
    "Severity",
    "StatsStore",
    "__version__",
    "audit",
    "compact",
    "count_tokens",
    "estimate_tokens",
    "guard",
    "read_session",
    "replay",
    "split_points",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'ctxkeep' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
