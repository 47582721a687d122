"""Shared helpers for the benchmarks: timing (from ctxkeep.bench.timing), machine facts.

Benchmarks compare against a baseline *in the same run*, because these machines are
shared and noisy: the ratio is the figure to read, the absolute numbers are context.
"""

from __future__ import annotations

import os
import platform
import sys

from ctxkeep.bench.timing import best_of, mb_per_s

__all__ = ["best_of", "machine", "mb_per_s"]


def machine() -> str:
    """One line naming the machine and the interpreter."""
    return (
        f"{platform.system()} {platform.machine()}, {os.cpu_count()} cores, "
        f"Python {sys.version.split()[0]}"
    )
