"""``ctxkeep bench``: measure compaction quality and audit / compaction speed."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import click

from ctxkeep.cli.main import Lazy, LazyGroup

__all__ = ["bench", "progress"]


@contextmanager
def progress(length: int, label: str) -> Iterator[Callable[..., None]]:
    """A progress bar on stderr when it is a terminal; otherwise a no-op."""
    if not sys.stderr.isatty():
        yield lambda *_: None
        return
    with click.progressbar(length=length, label=label, file=sys.stderr, show_pos=True) as bar:
        yield lambda *_: bar.update(1)


@click.group(
    "bench",
    cls=LazyGroup,
    lazy_commands={
        "quality": Lazy(
            "ctxkeep.cli.bench_commands",
            "quality_command",
            "Compare compactors at budgets of 50%, 25% and 10% of each session's tokens.",
        ),
        "speed": Lazy(
            "ctxkeep.cli.bench_commands",
            "speed_command",
            "Audit and compaction speed, each as a ratio against a baseline of the same run.",
        ),
        "facts": Lazy(
            "ctxkeep.cli.bench_commands",
            "facts_command",
            "Which compaction keeps the facts of a long chat at a tight budget.",
        ),
    },
)
def bench() -> None:
    """Benchmark compactors and the auditor on generated agent sessions.

    Sessions are generated from fixed seeds (English and Chinese, 50 to 2,000 messages,
    standing constraints stated early, identifiers introduced by tool output), so every
    run measures the same corpus. `bench facts` measures which compaction keeps the facts
    of long chats at tight budgets. See benchmarks/RESULTS.md for the published figures.
    """
