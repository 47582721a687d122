"""The benchmark reports as tables: plain text for the terminal, Markdown for RESULTS.md.

Library code: these functions return strings; the CLI and ``benchmarks/run_all.py`` print
or write them.
"""

from __future__ import annotations

from collections.abc import Sequence

from ctxkeep.bench.quality import QualityReport
from ctxkeep.bench.speed import SpeedReport

__all__ = ["quality_table", "speed_tables", "table"]


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


def speed_tables(report: SpeedReport, *, markdown: bool = False) -> str:
    """The speed report: throughput ratios, growth with memory, sweep, compaction."""
    parts: list[str] = []
    tp = report.throughput
    if tp is not None:
        peer = (
            "not installed"
            if tp.compact_audit_seconds is None
            else f"{tp.compact_audit_seconds:.2f} s ({tp.speedup_vs_compact_audit:.1f}x slower "
            "than ctxkeep)"
        )
        parts.append(
            table(
                ["measure", "value"],
                [
                    [
                        "log (claude-code)",
                        f"{tp.log_bytes / 1e6:.1f} MB, {tp.compactions} compactions",
                    ],
                    [
                        "JSON decode (msgspec)",
                        f"{tp.decode_seconds:.2f} s = {tp.decode_mb_s:.0f} MB/s",
                    ],
                    ["ctxkeep audit", f"{tp.audit_seconds:.2f} s = {tp.audit_mb_s:.1f} MB/s"],
                    ["audit / decode speed", f"{tp.audit_vs_decode:.2f}"],
                    ["compact-audit, same transcripts + summaries", peer],
                ],
                markdown=markdown,
            )
        )
    if report.growth:
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
        parts.append(
            table(
                [
                    "log size",
                    "bytes",
                    "events",
                    "compactions",
                    "audit time",
                    "audit MB/s",
                    "audit / decode speed",
                    "audit peak RSS",
                    "decode peak RSS",
                ],
                rows,
                markdown=markdown,
            )
            + "\n\nIdle interpreter with the auditor imported: "
            + f"{_mb(report.idle_max_rss_kb)} peak RSS."
        )
    if report.sweep:
        base = report.sweep[0].seconds
        parts.append(
            table(
                ["sweep processes", "files", "MB", "time", "MB/s", "speed-up"],
                [
                    [
                        str(s.jobs),
                        str(s.files),
                        f"{s.total_bytes / 1e6:.1f}",
                        f"{s.seconds:.2f} s",
                        f"{s.mb_s:.1f}",
                        f"{base / s.seconds:.2f}x",
                    ]
                    for s in report.sweep
                ],
                markdown=markdown,
            )
        )
    if report.compaction:
        parts.append(
            table(
                ["messages", "tokens", "ctxkeep compact", "recency truncation", "ratio"],
                [
                    [
                        f"{c.messages:,}",
                        f"{c.tokens:,}",
                        f"{c.ctxkeep_seconds:.3f} s",
                        f"{c.truncation_seconds:.3f} s",
                        f"{c.ratio:.1f}x",
                    ]
                    for c in report.compaction
                ],
                markdown=markdown,
            )
        )
    return "\n\n".join(parts)
