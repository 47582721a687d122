"""The compactor: keep what matters, not what is newest (docs/compactor.md).

``compact`` segments, protects, scores, fits to the budget and summarises (the steps of
:mod:`~ctxkeep.compactor.core`; a model's summary, with ``summarizer=``, is audited and
repaired first); ``replay`` re-runs the selection from a receipt. Both return a
:class:`CompactionResult` and never raise.
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
