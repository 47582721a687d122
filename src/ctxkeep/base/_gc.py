"""Pausing Python's cyclic garbage collector around allocation-heavy work."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["cyclic_gc_paused"]


@contextmanager
def cyclic_gc_paused() -> Iterator[None]:
    """Pause the cyclic collector for the block, if it is running.

    Reading a log and compacting a conversation allocate many acyclic records; each full
    collection they trigger walks the whole heap, which grows with them: a 100,000-message
    compaction ran ~45% slower and a 300 MB log (484k events) read 20% slower with it on.
    Reference counting still frees everything; the collector is resumed on the way out,
    and left alone if the caller had paused it.
    """
    was_enabled = gc.isenabled()
    if was_enabled:
        gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
