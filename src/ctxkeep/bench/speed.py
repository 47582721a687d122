"""The speed benchmark: every figure is a ratio against a baseline measured in the same run.

- **throughput**: ``ctxkeep.audit`` on a generated Claude Code log against plain JSON
  decoding of the same log (msgspec, line by line: the physical limit of reading it) and
  against compact-audit (PyPI, the nearest peer) on the same transcripts and summaries;
- **growth**: audit time and peak memory at log sizes of 1, 10, 100 (and on request
  1,000) MB, each size in a fresh subprocess that reports its own peak RSS
  (``resource.getrusage``), next to the decode baseline and an idle interpreter;
- **sweep**: ``ctxkeep.engine.sweep`` over a folder of logs on 1 and 2 processes;
- **compaction**: ``ctxkeep.compact`` (lexical scorer, pinning on) at 1k / 10k / 100k
  messages against recency truncation, both at a 25% token budget.

The machines are shared and noisy: read the ratios, take the absolute numbers as context.
"""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgspec

from ctxkeep.bench.compactors import message_tokens, recency_truncation
from ctxkeep.bench.corpus import SessionSpec, generate_session, harness_summary
from ctxkeep.bench.logs import log_sessions, transcript_lines, write_log
from ctxkeep.bench.timing import best_of, mb_per_s

__all__ = [
    "DEFAULT_SIZES_MB",
    "CompactionPoint",
    "GrowthPoint",
    "SpeedReport",
    "SweepPoint",
    "Throughput",
    "compaction_times",
    "growth",
    "run_speed",
    "sweep_scaling",
    "throughput",
    "to_json",
]

DEFAULT_SIZES_MB: tuple[int, ...] = (1, 10, 100, 1000)
MB = 1_000_000
_encode = msgspec.json.Encoder(order="sorted").encode


@dataclass(frozen=True, slots=True)
class Throughput:
    """Audit against decoding and against compact-audit, on one log."""

    log_bytes: int
    compactions: int
    decode_seconds: float
    audit_seconds: float
    compact_audit_seconds: float | None
    compact_audit: str

    @property
    def decode_mb_s(self) -> float:
        return mb_per_s(self.log_bytes, self.decode_seconds)

    @property
    def audit_mb_s(self) -> float:
        return mb_per_s(self.log_bytes, self.audit_seconds)

    @property
    def audit_vs_decode(self) -> float:
        """Audit speed as a share of decoding speed (1.0 = as fast as reading the JSON)."""
        return self.decode_seconds / self.audit_seconds

    @property
    def speedup_vs_compact_audit(self) -> float | None:
        if self.compact_audit_seconds is None:
            return None
        return self.compact_audit_seconds / self.audit_seconds


@dataclass(frozen=True, slots=True)
class GrowthPoint:
    """One log size: audit and decode, each in its own process, with peak memory."""

    target_mb: int
    log_bytes: int
    events: int
    compactions: int
    audit_seconds: float
    audit_max_rss_kb: int
    decode_seconds: float
    decode_max_rss_kb: int

    @property
    def audit_mb_s(self) -> float:
        return mb_per_s(self.log_bytes, self.audit_seconds)


@dataclass(frozen=True, slots=True)
class SweepPoint:
    """``sweep`` over the same folder with ``jobs`` processes."""

    jobs: int
    files: int
    total_bytes: int
    seconds: float

    @property
    def mb_s(self) -> float:
        return mb_per_s(self.total_bytes, self.seconds)


@dataclass(frozen=True, slots=True)
class CompactionPoint:
    """Compaction of one message list: ctxkeep against recency truncation."""

    messages: int
    tokens: int
    ctxkeep_seconds: float
    truncation_seconds: float

    @property
    def ratio(self) -> float:
        """How many times longer ctxkeep takes than truncation."""
        return self.ctxkeep_seconds / self.truncation_seconds


@dataclass(frozen=True, slots=True)
class SpeedReport:
    """Every part of one speed run (parts not run are empty)."""

    log_format: str
    idle_max_rss_kb: int
    throughput: Throughput | None
    growth: tuple[GrowthPoint, ...]
    sweep: tuple[SweepPoint, ...]
    compaction: tuple[CompactionPoint, ...]


def _decode_file(path: Path) -> int:
    decode = msgspec.json.Decoder().decode
    n = 0
    with path.open("rb") as fh:
        for line in fh:
            if line.strip():
                decode(line)
                n += 1
    return n


def _audit_file(path: Path) -> Any:
    from ctxkeep.engine import audit

    return audit(path)


def _compact_audit() -> tuple[Any, Any, Any] | None:
    """compact-audit's read, extract and audit functions, or None when not installed.

    Typed as Any: it is not a dependency of ctxkeep (installed by ``make bench`` only).
    """
    try:
        extract: Any = importlib.import_module("compact_audit.extract")
        audit: Any = importlib.import_module("compact_audit.audit")
    except ImportError:
        return None
    return extract.read_transcript, extract.extract, audit.audit


def throughput(workdir: Path, size_mb: float = 20, *, runs: int = 3) -> Throughput:
    """Audit vs decode vs compact-audit on one Claude Code log of about ``size_mb``."""
    log = workdir / "throughput.jsonl"
    nbytes, count = write_log(log, int(size_mb * MB))
    decode_s, _ = best_of(runs, lambda: _decode_file(log))
    audit_s, result = best_of(runs, lambda: _audit_file(log))
    compactions = result.sessions[0].compactions.started if result.sessions else 0
    peer = _compact_audit()
    peer_s: float | None = None
    peer_state = "not installed"
    if peer is not None:
        read_transcript, extract, peer_audit = peer
        pairs: list[tuple[Path, Path]] = []
        for n, session in zip(range(count), log_sessions(), strict=False):
            transcript = workdir / f"transcript-{n}.jsonl"
            summary = workdir / f"summary-{n}.txt"
            transcript.write_bytes(b"".join(_encode(r) + b"\n" for r in transcript_lines(session)))
            summary.write_text(harness_summary(session), encoding="utf-8")
            pairs.append((transcript, summary))

        def run_peer() -> int:
            dropped = 0
            for transcript, summary in pairs:
                lines, errors = read_transcript(transcript)
                report = peer_audit(
                    extract(lines, errors), summary.read_text(encoding="utf-8"), "high"
                )
                dropped += int(report["dropped_count"])
            return dropped

        peer_s, _ = best_of(runs, run_peer)
        peer_state = "installed"
    return Throughput(nbytes, compactions, decode_s, audit_s, peer_s, peer_state)


def _probe(mode: str, log: Path, workdir: Path) -> dict[str, Any]:
    out = workdir / f"probe-{mode}.json"
    subprocess.run(
        [sys.executable, "-m", "ctxkeep.bench._probe", mode, str(log), str(out)],
        check=True,
        timeout=3600,
    )
    facts: dict[str, Any] = msgspec.json.decode(out.read_bytes())
    out.unlink()
    return facts


def idle_rss_kb(workdir: Path) -> int:
    """Peak memory of a process that only imports ctxkeep's auditor: the floor."""
    return int(_probe("idle", workdir, workdir)["max_rss_kb"])


def growth(
    workdir: Path, sizes_mb: Sequence[int], *, on_step: Callable[[], None] | None = None
) -> tuple[GrowthPoint, ...]:
    """Audit time and peak memory at each log size, each size in fresh processes.

    Each log is deleted once measured, so the disk holds one log at a time.
    """
    points: list[GrowthPoint] = []
    for size in sizes_mb:
        log = workdir / f"growth-{size}mb.jsonl"
        nbytes, _ = write_log(log, size * MB)
        try:
            decoded = _probe("decode", log, workdir)
            audited = _probe("audit", log, workdir)
        finally:
            log.unlink()
        points.append(
            GrowthPoint(
                target_mb=size,
                log_bytes=nbytes,
                events=int(audited["events"]),
                compactions=int(audited["compactions"]),
                audit_seconds=float(audited["seconds"]),
                audit_max_rss_kb=int(audited["max_rss_kb"]),
                decode_seconds=float(decoded["seconds"]),
                decode_max_rss_kb=int(decoded["max_rss_kb"]),
            )
        )
        if on_step is not None:
            on_step()
    return tuple(points)


def sweep_scaling(
    workdir: Path, *, files: int = 8, file_mb: float = 4, jobs: Sequence[int] = (1, 2)
) -> tuple[SweepPoint, ...]:
    """``sweep`` of one folder of ``files`` logs with each process count in ``jobs``."""
    from ctxkeep.engine import sweep

    folder = workdir / "sweep"
    folder.mkdir(exist_ok=True)
    total = 0
    for n in range(files):
        nbytes, _ = write_log(folder / f"session-{n:02d}.jsonl", int(file_mb * MB), seed=100 + n)
        total += nbytes
    points = []
    for j in jobs:
        seconds, _ = best_of(1, lambda j=j: sweep([folder], jobs=j))  # type: ignore[misc]
        points.append(SweepPoint(j, files, total, seconds))
    return tuple(points)


def compaction_times(
    counts: Sequence[int] = (1_000, 10_000, 100_000), *, budget: float = 0.25
) -> tuple[CompactionPoint, ...]:
    """ctxkeep compact (lexical, pinned) vs recency truncation at a 25% token budget."""
    from ctxkeep.compactor import compact

    points = []
    for n in counts:
        session = generate_session(SessionSpec(7, "en", n))
        points.append(_time_compaction(compact, list(session.messages), session.task, budget))
    return tuple(points)


def _time_compaction(
    compact: Callable[..., Any], messages: list[Any], task: str, budget: float
) -> CompactionPoint:
    tokens = sum(message_tokens(m) for m in messages)
    target = int(tokens * budget)
    runs = 3 if len(messages) <= 10_000 else 1
    trunc_s, _ = best_of(runs, lambda: recency_truncation(messages, task, target))
    ours_s, _ = best_of(
        runs, lambda: compact(messages, task, target_tokens=target, scorer="lexical")
    )
    return CompactionPoint(len(messages), tokens, ours_s, trunc_s)


def run_speed(
    *,
    max_mb: int = 100,
    throughput_mb: float = 20,
    compaction_counts: Sequence[int] = (1_000, 10_000, 100_000),
    sweep_files: int = 8,
    sweep_file_mb: float = 4,
    workdir: Path | None = None,
    on_step: Callable[[str], None] | None = None,
) -> SpeedReport:
    """The whole speed benchmark. ``max_mb`` caps the growth sizes (1,000 to include the
    gigabyte point). Logs go to ``workdir`` (default: a temporary folder, removed after).
    ``on_step(name)`` is called as each part finishes, for a progress bar."""
    sizes = tuple(s for s in DEFAULT_SIZES_MB if s <= max_mb)

    def step(name: str) -> None:
        if on_step is not None:
            on_step(name)

    with tempfile.TemporaryDirectory(prefix="ctxkeep-bench-", dir=workdir) as tmp:
        work = Path(tmp)
        idle = idle_rss_kb(work)
        tp = throughput(work, throughput_mb)
        step("throughput")
        points = growth(work, sizes, on_step=lambda: step("growth"))
        sweeps = sweep_scaling(work, files=sweep_files, file_mb=sweep_file_mb)
        step("sweep")
    comp = compaction_times(compaction_counts)
    step("compaction")
    return SpeedReport("claude-code", idle, tp, points, sweeps, comp)


def steps(max_mb: int = 100) -> int:
    """How many times :func:`run_speed` calls ``on_step``."""
    return 3 + sum(1 for s in DEFAULT_SIZES_MB if s <= max_mb)


def to_json(report: SpeedReport) -> bytes:
    """The report as sorted-key JSON, derived figures (MB/s, ratios) included."""
    tp = report.throughput
    data: dict[str, Any] = {
        "log_format": report.log_format,
        "idle_max_rss_kb": report.idle_max_rss_kb,
        "cpu_count": os.cpu_count(),
        "throughput": None
        if tp is None
        else {
            **msgspec.to_builtins(tp),
            "decode_mb_s": tp.decode_mb_s,
            "audit_mb_s": tp.audit_mb_s,
            "audit_vs_decode": tp.audit_vs_decode,
            "speedup_vs_compact_audit": tp.speedup_vs_compact_audit,
        },
        "growth": [{**msgspec.to_builtins(g), "audit_mb_s": g.audit_mb_s} for g in report.growth],
        "sweep": [{**msgspec.to_builtins(s), "mb_s": s.mb_s} for s in report.sweep],
        "compaction": [{**msgspec.to_builtins(c), "ratio": c.ratio} for c in report.compaction],
    }
    return msgspec.json.format(_encode(data), indent=2) + b"\n"
