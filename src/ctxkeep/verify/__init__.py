"""The guard: compaction whose success is measured, not declared (docs/design.md, "The guard").

``guard(compactor)`` wraps any compactor with measurement, API validity checks, rollback,
fallbacks and a circuit breaker; ``split_points`` finds the safe cuts of a message list;
``EventLog`` appends guarded compactions as a ctxkeep event log for ``ctxkeep audit``;
``StatsStore`` keeps the features of recent compactions apart from test runs.
"""

from ctxkeep.verify.eventlog import EventLog, message_events
from ctxkeep.verify.guard import DEFAULT_FALLBACKS, Guard, guard
from ctxkeep.verify.measure import MessageDiff, Size, compare_messages, measure
from ctxkeep.verify.result import Attempt, GuardedResult, Outcome, Settlement, settle
from ctxkeep.verify.split import split_points
from ctxkeep.verify.stats import (
    CompactionRecord,
    Provenance,
    Recommendation,
    StatsStore,
    StoredRecord,
    compaction_record,
    constraint_coverage,
    resolve_provenance,
)
from ctxkeep.verify.strategies import (
    TRUNCATION_NOTICE,
    Compactor,
    CtxkeepCompaction,
    RoundGroupTruncation,
    output_messages,
    strategy_name,
)
from ctxkeep.verify.validity import (
    Api,
    SequenceProblem,
    detect_api,
    new_problems,
    sequence_problems,
)

__all__ = [
    "DEFAULT_FALLBACKS",
    "TRUNCATION_NOTICE",
    "Api",
    "Attempt",
    "CompactionRecord",
    "Compactor",
    "CtxkeepCompaction",
    "EventLog",
    "Guard",
    "GuardedResult",
    "MessageDiff",
    "Outcome",
    "Provenance",
    "Recommendation",
    "RoundGroupTruncation",
    "SequenceProblem",
    "Settlement",
    "Size",
    "StatsStore",
    "StoredRecord",
    "compaction_record",
    "compare_messages",
    "constraint_coverage",
    "detect_api",
    "guard",
    "measure",
    "message_events",
    "new_problems",
    "output_messages",
    "resolve_provenance",
    "sequence_problems",
    "settle",
    "split_points",
    "strategy_name",
]
