"""The compactor: keep what matters, not what is newest (DESIGN.md "The compactor").

``compact`` segments, protects, scores, gates, selects and summarises (a model's summary,
with ``summarizer=``, audited and repaired first); ``replay`` re-runs the selection from a
receipt. Both return a :class:`CompactionResult` and never raise.
"""

from __future__ import annotations

from ctxkeep.compactor.abstractive import OpenAIChatSummarizer
from ctxkeep.compactor.core import compact, replay
from ctxkeep.compactor.receipts import ReceiptFile, ReceiptRun, read_receipts
from ctxkeep.compactor.result import (
    CompactionResult,
    CompactionStats,
    Decision,
    RemovedItem,
    SummaryRepair,
)
from ctxkeep.compactor.summary import Summarizer, SummaryRequest

__all__ = [
    "CompactionResult",
    "CompactionStats",
    "Decision",
    "OpenAIChatSummarizer",
    "ReceiptFile",
    "ReceiptRun",
    "RemovedItem",
    "Summarizer",
    "SummaryRepair",
    "SummaryRequest",
    "compact",
    "read_receipts",
    "replay",
]
