"""Audit speed on REAL session logs, against compact-audit on the same text in the same run.

    .venv/bin/python benchmarks/audit_real.py [--logs benchmarks/real-logs] [--runs 5]

Input: real Claude Code and Codex logs (``*.jsonl`` or ``*.jsonl.gz``; the repo carries
trimmed copies in benchmarks/real-logs/, see its SOURCES.md), not generated ones. For
each log it prints:

- ctxkeep: ``read_session`` + every rule, in CPU seconds (``time.process_time``, best of
  ``--runs``), and the log's MB per CPU-second;
- compact-audit (PyPI, installed only for benchmarks: benchmarks/requirements.txt) given
  what its README asks for, for every compaction with a readable summary: the transcript
  up to that compaction (each event's text as its ``{"content": ...}`` JSONL) and the
  summary; its CPU time for all of them, and ctxkeep's speed as a ratio of it.

Codex 0.136+ encrypts its summaries: there compact-audit has nothing to compare and only
ctxkeep's figure is printed. The ratio is the figure to read (same run, same machine);
the absolute times are context.
"""

from __future__ import annotations

import argparse
import functools
import gzip
import importlib
import json
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import machine, mb_per_s  # benchmarks/ is not a package
from ctxkeep.engine import audit_session
from ctxkeep.log import Session, read_session

HERE = Path(__file__).resolve().parent


def cpu_best(runs: int, func: Callable[[], object]) -> float:
    """The least CPU time (seconds) of ``runs`` calls."""
    best = float("inf")
    for _ in range(runs):
        start = time.process_time()
        func()
        best = min(best, time.process_time() - start)
    return best


def plain_logs(folder: Path, work: Path) -> list[Path]:
    """The logs of ``folder``, decompressed into ``work`` when gzipped."""
    logs: list[Path] = []
    for path in sorted(folder.iterdir()):
        if path.name.endswith(".jsonl.gz"):
            target = work / path.name.removesuffix(".gz")
            with gzip.open(path, "rb") as src, target.open("wb") as dst:
                shutil.copyfileobj(src, dst)
            logs.append(target)
        elif path.suffix == ".jsonl":
            logs.append(path)
    return logs


def _audit(log: Path) -> object:
    return audit_session(read_session(log))


def _compact_audit() -> tuple[Any, Any, Any] | None:
    """compact-audit's read, extract and audit, or None (typed Any: not a dependency)."""
    try:
        extract: Any = importlib.import_module("compact_audit.extract")
        audit: Any = importlib.import_module("compact_audit.audit")
    except ImportError:
        return None
    return extract.read_transcript, extract.extract, audit.audit


def _peer_inputs(session: Session, work: Path) -> list[tuple[Path, str]]:
    """For each compaction with a summary: the transcript before it, and the summary."""
    pairs: list[tuple[Path, str]] = []
    for c in session.compactions:
        if not c.summary:
            continue
        transcript = work / f"{Path(session.path).stem}-{c.index}.jsonl"
        with transcript.open("w", encoding="utf-8") as fh:
            for e in session.events:
                if e.seq >= c.start_seq:
                    break
                if e.text:
                    fh.write(json.dumps({"content": e.text}, ensure_ascii=False) + "\n")
        pairs.append((transcript, c.summary))
    return pairs


def _run_peer(peer: tuple[Any, Any, Any], pairs: list[tuple[Path, str]]) -> None:
    read_transcript, extract, peer_audit = peer
    for transcript, summary in pairs:
        lines, errors = read_transcript(transcript)
        peer_audit(extract(lines, errors), summary, "high")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--logs", type=Path, default=HERE / "real-logs")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    if not args.logs.is_dir():
        raise SystemExit(f"{args.logs}: no such folder of real logs (give one with --logs)")
    peer = _compact_audit()
    print(f"{machine()}; real logs from {args.logs}; CPU seconds, best of {args.runs}")
    if peer is None:
        print("compact-audit not installed: pip install -r benchmarks/requirements.txt")
    header = f"{'log':38s} {'MB':>5s} {'events':>6s} {'comp':>4s} {'ctxkeep':>9s} {'MB/CPU-s':>8s}"
    print(header + f" {'compact-audit':>13s} {'ratio':>6s}")
    total_bytes = total_cpu = paired_ours = paired_peer = 0.0
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        for log in plain_logs(args.logs, work):
            size = log.stat().st_size
            session = read_session(log)
            ours = cpu_best(args.runs, functools.partial(_audit, log))
            total_bytes += size
            total_cpu += ours
            line = (
                f"{log.name[:38]:38s} {size / 1e6:5.2f} {len(session.events):6d} "
                f"{len(session.compactions):4d} {ours * 1000:7.1f}ms {mb_per_s(size, ours):8.0f}"
            )
            pairs = _peer_inputs(session, work) if peer is not None else []
            if peer is not None and pairs:
                theirs = cpu_best(args.runs, functools.partial(_run_peer, peer, pairs))
                paired_ours += ours
                paired_peer += theirs
                line += f" {theirs * 1000:11.1f}ms {theirs / ours:5.1f}x"
            else:
                line += f" {'(no readable summary)' if peer is not None else '':>20s}"
            print(line)
    print(
        f"all logs: {total_bytes / 1e6:.1f} MB in {total_cpu:.3f} CPU-s = "
        f"{mb_per_s(int(total_bytes), total_cpu):.0f} MB per CPU-second"
    )
    if paired_ours:
        print(
            f"logs with a readable summary: ctxkeep {paired_peer / paired_ours:.1f}x "
            "compact-audit's speed on the same text"
        )


if __name__ == "__main__":
    main()
