"""Shared helpers for the benchmarks: timing, machine facts, and printing ratios.

Benchmarks compare against a baseline *in the same run*, because these machines are
shared and noisy: the ratio is the figure to read, the absolute numbers are context.
"""

from __future__ import annotations

import os
import platform
import sys
import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def machine() -> str:
    """One line naming the machine and the interpreter."""
    return (
        f"{platform.system()} {platform.machine()}, {os.cpu_count()} cores, "
        f"Python {sys.version.split()[0]}"
    )


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
    return size_bytes / 1e6 / seconds if seconds > 0 else float("inf")
