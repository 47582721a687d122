"""The benchmark reports as tables: plain text for the terminal, Markdown for RESULTS.md.

Library code: these functions return strings; the CLI and ``benchmarks/run_all.py`` print
or write them.
"""

from __future__ import annotations

from collections.abc import Sequence

from ctxkeep.bench.quality import QualityReport
from ctxkeep.bench.speed import SpeedReport
from ctxkeep.bench.survival import FactReport

__all__ = ["fact_table", "fact_zone_table", "quality_table", "speed_tables", "table"]


def table(header: Sequence[str], rows: Sequence[Sequence[str]], *, markdown: bool) -> str:
    """A table: Markdown pipes, or columns padded to width (numbers right-aligned)."""
    if markdown:
        lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
        lines += ["| " + " | ".join(r) + " |" for r in rows]
        return "\n".join(lines)
    widths = [max(len(str(c)) for c in col) for col in zip(header, *rows, strict=True)]

    def fmt(row: Sequence[str]) -> str:
        cells = []
        for i, (cell, w) in enumerate(zip(row, widths, strict=True)):
            cells.append(cell.ljust(w) if i == 0 else cell.rjust(w))
        return "  ".join(cells).rstrip()

    return "\n".join([fmt(header), fmt(["-" * w for w in widths]), *(fmt(r) for r in rows)])


def _pct(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:.1f}%"


def quality_table(report: QualityReport, *, markdown: bool = False) -> str:
    """One row per compactor and budget."""
    header = [
        "compactor",
        "budget",
        "constraints kept",
        "auditor: constraints kept",
        "identifiers kept",
        "invented",
        "valid sequence",
        "bytes saved",
        "tokens saved",
        "over budget",
    ]
    rows: list[list[str]] = []
    for r in report.rows:
        if r.unavailable is not None:
            rows.append([r.compactor, f"{100 * r.budget:.0f}%", r.unavailable, *[""] * 7])
            continue
        errors = f" ({r.errors} errors)" if r.errors else ""
        rows.append(
            [
                r.compactor + errors,
                f"{100 * r.budget:.0f}%",
                _pct(r.constraint_survival),
                _pct(r.auditor_constraint_survival),
                _pct(r.identifier_survival),
                str(r.invented),
                _pct(r.valid_rate),
                _pct(r.bytes_saved),
                _pct(r.tokens_saved),
                f"{r.over_budget}/{r.runs}",
            ]
        )
    return table(header, rows, markdown=markdown)


def _mb(kb: int) -> str:
    return f"{kb / 1024:,.0f} MB"


def _throughput_table(report: SpeedReport, markdown: bool) -> str | None:
    tp = report.throughput
    if tp is None:
        return None
    peer = (
        "not installed"
        if tp.compact_audit_seconds is None
        else f"{tp.compact_audit_seconds:.2f} s ({tp.speedup_vs_compact_audit:.1f}x slower "
        "than ctxkeep)"
    )
    return table(
        ["measure", "value"],
        [
            ["log (claude-code)", f"{tp.log_bytes / 1e6:.1f} MB, {tp.compactions} compactions"],
            ["JSON decode (msgspec)", f"{tp.decode_seconds:.2f} s = {tp.decode_mb_s:.0f} MB/s"],
            ["ctxkeep audit", f"{tp.audit_seconds:.2f} s = {tp.audit_mb_s:.1f} MB/s"],
            ["audit / decode speed", f"{tp.audit_vs_decode:.2f}"],
            ["compact-audit, same transcripts + summaries", peer],
        ],
        markdown=markdown,
    )


def _growth_table(report: SpeedReport, markdown: bool) -> str | None:
    if not report.growth:
        return None
    rows = [
        [
            f"{g.target_mb:,} MB",
            f"{g.log_bytes / 1e6:,.1f} MB",
            f"{g.events:,}",
            str(g.compactions),
            f"{g.audit_seconds:.2f} s",
            f"{g.audit_mb_s:.1f}",
            f"{g.decode_seconds / g.audit_seconds:.2f}",
            _mb(g.audit_max_rss_kb),
            _mb(g.decode_max_rss_kb),
        ]
        for g in report.growth
    ]
    header = [
        "log size",
        "bytes",
        "events",
        "compactions",
        "audit time",
        "audit MB/s",
        "audit / decode speed",
        "audit peak RSS",
        "decode peak RSS",
    ]
    idle = f"Idle interpreter with the auditor imported: {_mb(report.idle_max_rss_kb)} peak RSS."
    return table(header, rows, markdown=markdown) + "\n\n" + idle


def _sweep_table(report: SpeedReport, markdown: bool) -> str | None:
    if not report.sweep:
        return None
    base = report.sweep[0].seconds
    rows = [
        [
            str(s.jobs),
            str(s.files),
            f"{s.total_bytes / 1e6:.1f}",
            f"{s.seconds:.2f} s",
            f"{s.mb_s:.1f}",
            f"{base / s.seconds:.2f}x",
        ]
        for s in report.sweep
    ]
    header = ["sweep processes", "files", "MB", "time", "MB/s", "speed-up"]
    return table(header, rows, markdown=markdown)


def _compaction_table(report: SpeedReport, markdown: bool) -> str | None:
    if not report.compaction:
        return None
    rows = [
        [
            f"{c.messages:,}",
            f"{c.tokens:,}",
            f"{c.ctxkeep_seconds:.3f} s",
            f"{c.truncation_seconds:.3f} s",
            f"{c.ratio:.1f}x",
        ]
        for c in report.compaction
    ]
    header = ["messages", "tokens", "ctxkeep compact", "recency truncation", "ratio"]
    return table(header, rows, markdown=markdown)


def speed_tables(report: SpeedReport, *, markdown: bool = False) -> str:
    """The speed report: throughput ratios, growth with memory, sweep, compaction."""
    parts = (
        _throughput_table(report, markdown),
        _growth_table(report, markdown),
        _sweep_table(report, markdown),
        _compaction_table(report, markdown),
    )
    return "\n\n".join(part for part in parts if part is not None)


def fact_table(report: FactReport, *, markdown: bool = False) -> str:
    """One row per method and budget share of the zone (every chat and zone)."""
    header = [
        "method",
        "budget",
        "facts kept",
        "changed: newer kept",
        "stale only",
        "instructions kept",
        "within target",
        "worst out / target",
        "fits=False",
    ]
    rows: list[list[str]] = []
    for r in report.rows:
        budget = f"{100 * r.budget:g}%"
        if r.unavailable is not None:
            rows.append([r.method, budget, r.unavailable, *[""] * 6])
            continue
        errors = f" ({r.errors} errors)" if r.errors else ""
        worst = "–" if r.worst_ratio is None else f"{r.worst_ratio:.2f}"
        rows.append(
            [
                r.method + errors,
                budget,
                _pct(r.fact_survival),
                _pct(r.changed_survival),
                str(r.stale),
                _pct(r.instruction_survival),
                f"{r.within_target}/{r.runs - r.errors}",
                worst,
                str(r.not_fits),
            ]
        )
    return table(header, rows, markdown=markdown)


def fact_zone_table(report: FactReport, budget: float, *, markdown: bool = False) -> str:
    """Facts kept at one budget share, by zone: one row per method that ran."""
    header = ["method", *(f"zone {100 * z:g}%" for z in report.zones)]
    rows: list[list[str]] = []
    for row in report.rows:
        if row.budget != budget or row.unavailable is not None:
            continue
        cells = [row.method]
        for zone in report.zones:
            runs = [
                r
                for r in report.runs
                if r.method == row.method
                and r.budget == budget
                and r.zone == zone
                and r.error is None
            ]
            total = sum(r.facts_total for r in runs)
            cells.append(_pct(sum(r.facts_kept for r in runs) / total if total else None))
        rows.append(cells)
    return table(header, rows, markdown=markdown)
