"""Timing helpers shared by ``ctxkeep bench`` and the scripts in benchmarks/."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

__all__ = ["best_of", "mb_per_s"]

T = TypeVar("T")


def best_of(runs: int, func: Callable[[], T]) -> tuple[float, T]:
    """The fastest wall time of ``runs`` calls (seconds) and the last result."""
    best = float("inf")
    result: T | None = None
    for _ in range(runs):
        start = time.perf_counter()
        result = func()
        best = min(best, time.perf_counter() - start)
    assert result is not None
    return best, result


def mb_per_s(size_bytes: int, seconds: float) -> float:
    """Megabytes (10^6 bytes) a second; infinite for a zero time."""
    return size_bytes / 1e6 / seconds if seconds > 0 else float("inf")
