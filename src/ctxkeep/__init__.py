"""ctxkeep: make context compaction of LLM agent sessions trustworthy.

The public API is the list of re-exports in the ``TYPE_CHECKING`` block below, written
once: type checkers read it there, and at run time each name is imported on its first
use (``ctxkeep._lazy``), so ``import ctxkeep`` and the command line stay fast: a
``ctxkeep show`` does not pay for the compactor, the guard or the auditor. ``__all__`` is
those names plus what this module defines itself (``own``), sorted.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ctxkeep._lazy import attach
from ctxkeep._version import __version__ as __version__

if TYPE_CHECKING:
    from ctxkeep.base.findings import Finding as Finding
    from ctxkeep.base.findings import Severity as Severity
    from ctxkeep.base.tokens import count_tokens as count_tokens
    from ctxkeep.base.tokens import estimate_tokens as estimate_tokens
    from ctxkeep.compactor import CompactionResult as CompactionResult
    from ctxkeep.compactor import Decision as Decision
    from ctxkeep.compactor import OpenAIChatSummarizer as OpenAIChatSummarizer
    from ctxkeep.compactor import SummaryRepair as SummaryRepair
    from ctxkeep.compactor import SummaryRequest as SummaryRequest
    from ctxkeep.compactor import compact as compact
    from ctxkeep.compactor import replay as replay
    from ctxkeep.engine import AuditResult as AuditResult
    from ctxkeep.engine import audit as audit
    from ctxkeep.log import Compaction as Compaction
    from ctxkeep.log import CompactionStatus as CompactionStatus
    from ctxkeep.log import Event as Event
    from ctxkeep.log import EventKind as EventKind
    from ctxkeep.log import ParseProblem as ParseProblem
    from ctxkeep.log import Prune as Prune
    from ctxkeep.log import ReadOptions as ReadOptions
    from ctxkeep.log import Session as Session
    from ctxkeep.log import read_session as read_session
    from ctxkeep.scorers import Score as Score
    from ctxkeep.scorers import Scorer as Scorer
    from ctxkeep.scorers import ScoreRequest as ScoreRequest
    from ctxkeep.scorers import ScorerError as ScorerError
    from ctxkeep.verify import GuardedResult as GuardedResult
    from ctxkeep.verify import StatsStore as StatsStore
    from ctxkeep.verify import guard as guard
    from ctxkeep.verify import split_points as split_points

__getattr__, __dir__ = attach(__name__, __file__, own=("__version__",))
