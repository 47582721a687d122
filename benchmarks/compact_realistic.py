"""Compaction at a realistic size: 10,000 messages of 200-2,000 characters of REAL text.

    .venv/bin/python benchmarks/compact_realistic.py [--logs benchmarks/real-logs]
                                                   [--messages 10000] [--runs 3]

benchmarks/compact_speed.py times the growth curve on short synthetic messages (a few
dozen words each). Agent sessions carry longer ones, so this script builds its messages
from the text of the real logs (``*.jsonl`` or ``*.jsonl.gz``; the repo carries trimmed
copies in benchmarks/real-logs/, see its SOURCES.md): every event text of every log,
joined and cut into pieces of 200 to 2,000 characters (lengths drawn from a fixed seed),
given alternately to the user and the assistant; the task is the first real user
message. It prints the time of ``ctxkeep.compact`` (lexical scorer, byte budget a
quarter of the text; exact o200k token budget in a second row) against recency
truncation (keep the newest messages that fit) in the same run. Wall and CPU time, best
of ``--runs``.
"""

from __future__ import annotations

import argparse
import functools
import random
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import best_of, machine
from audit_real import plain_logs
from compact_speed import truncate_by_recency
from ctxkeep.compactor import compact
from ctxkeep.log import read_session

HERE = Path(__file__).resolve().parent


def _texts(folder: Path) -> tuple[list[str], str]:
    """Every event text of every log in ``folder``, and the first real user message."""
    texts: list[str] = []
    task = ""
    with tempfile.TemporaryDirectory() as work:
        for log in plain_logs(folder, Path(work)):
            for e in read_session(log).events:
                if e.text:
                    texts.append(e.text)
                    if not task and e.role == "user" and e.injected is None:
                        task = e.text[:500]
    return texts, task


def conversation(texts: list[str], n: int, seed: int = 11) -> list[dict[str, Any]]:
    """``n`` messages of 200-2,000 characters cut from ``texts`` (cycled)."""
    rng = random.Random(seed)
    whole = "\n".join(texts)
    messages: list[dict[str, Any]] = []
    at = 0
    while len(messages) < n:
        size = rng.randint(200, 2_000)
        if at + size > len(whole):
            at = 0
        role = "user" if len(messages) % 2 == 0 else "assistant"
        messages.append({"role": role, "content": whole[at : at + size]})
        at += size
    return messages


def cpu_best(runs: int, func: Callable[[], object]) -> float:
    best = float("inf")
    for _ in range(runs):
        start = time.process_time()
        func()
        best = min(best, time.process_time() - start)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--logs", type=Path, default=HERE / "real-logs")
    parser.add_argument("--messages", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    if not args.logs.is_dir():
        raise SystemExit(f"{args.logs}: no such folder of real logs (give one with --logs)")
    texts, task = _texts(args.logs)
    messages = conversation(texts, args.messages)
    size = sum(len(m["content"].encode()) for m in messages)
    budget = size // 4
    print(
        f"{machine()}; {len(messages):,} messages of 200-2,000 characters cut from the real "
        f"logs in {args.logs} ({size / 1e6:.1f} MB); budget a quarter; best of {args.runs}"
    )
    t_trunc, _ = best_of(args.runs, functools.partial(truncate_by_recency, messages, budget))
    rows = {
        "ctxkeep compact, byte budget": functools.partial(
            compact, messages, task, target_bytes=budget
        ),
        "ctxkeep compact, o200k token budget": functools.partial(
            compact, messages, task, target_tokens=size // 16
        ),
    }
    print(f"  {'recency truncation (baseline)':38s} {t_trunc * 1000:8.1f} ms wall")
    for name, run in rows.items():
        wall, result = best_of(args.runs, run)
        cpu = cpu_best(args.runs, run)
        kept = sum(1 for d in result.decisions if d.kept)
        print(
            f"  {name:38s} {wall * 1000:8.1f} ms wall {cpu * 1000:8.1f} ms CPU  "
            f"{wall / t_trunc:6.1f}x truncation; kept {kept:,} of {len(messages):,}"
        )


if __name__ == "__main__":
    main()
