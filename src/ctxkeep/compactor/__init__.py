"""The compactor: keep what matters, not what is newest (docs/compactor.md).

``compact`` segments, protects, scores, fits to the budget and summarises (the steps of
:mod:`~ctxkeep.compactor.core`); ``replay`` re-runs the selection from a receipt. Both
return a :class:`CompactionResult` and never raise.
"""

from __future__ import annotations

from ctxkeep.compactor.core import compact, replay
from ctxkeep.compactor.receipts import ReceiptFile, ReceiptRun, read_receipts
from ctxkeep.compactor.result import CompactionResult, CompactionStats, Decision

__all__ = [
    "CompactionResult",
    "CompactionStats",
    "Decision",
    "ReceiptFile",
    "ReceiptRun",
    "compact",
    "read_receipts",
    "replay",
]
