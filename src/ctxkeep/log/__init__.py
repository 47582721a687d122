"""The session model and the readers of real harness logs."""

from ctxkeep.log.adapters import ReadOptions, format_names
from ctxkeep.log.model import (
    Compaction,
    CompactionStatus,
    Event,
    EventKind,
    ParseProblem,
    Prune,
    Session,
)
from ctxkeep.log.reader import discover, read_session, sniff

__all__ = [
    "Compaction",
    "CompactionStatus",
    "Event",
    "EventKind",
    "ParseProblem",
    "Prune",
    "ReadOptions",
    "Session",
    "discover",
    "format_names",
    "read_session",
    "sniff",
]
