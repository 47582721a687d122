"""ctxkeep: make context compaction of LLM agent sessions trustworthy.

The public API is re-exported here; everything else is private to its module.
"""

from ctxkeep._version import __version__
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
