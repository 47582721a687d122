"""The quality chart: survival against budget, one line per compactor (PNG).

matplotlib is in the ``bench`` extra and imported here only, when a chart is asked for.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any

from ctxkeep.bench.quality import QualityReport
from ctxkeep.bench.survival import FactReport

__all__ = ["ChartUnavailable", "write_chart", "write_fact_chart"]


class ChartUnavailable(RuntimeError):
    """matplotlib is not installed (``pip install 'ctxkeep[bench]'``)."""


def _pyplot() -> Any:
    """matplotlib's pyplot, drawing to files (typed as Any: matplotlib is an optional
    extra, not part of ctxkeep's type check)."""
    try:
        matplotlib: Any = importlib.import_module("matplotlib")
    except ImportError:
        raise ChartUnavailable("the chart needs matplotlib: pip install 'ctxkeep[bench]'") from None
    matplotlib.use("Agg")  # no display: write a file
    return importlib.import_module("matplotlib.pyplot")


def write_chart(report: QualityReport, path: Path) -> None:
    """Two panels (constraints, identifiers kept) against budget, one line per compactor."""
    plt = _pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(12, 6), sharey=True)
    names = list(dict.fromkeys(r.compactor for r in report.rows if r.unavailable is None))
    panels = (
        ("constraints kept", "constraint_survival"),
        ("identifiers kept", "identifier_survival"),
    )
    markers = "osD^vP*Xh"
    for ax, (title, field) in zip(axes, panels, strict=True):
        # Rows often coincide (every truncation keeps 0% of early constraints): earlier
        # lines are drawn wider, so coinciding lines show as nested bands, not one line.
        for rank, name in enumerate(names):
            rows = sorted((r for r in report.rows if r.compactor == name), key=lambda r: -r.budget)
            xs = [100 * r.budget for r in rows if getattr(r, field) is not None]
            ys = [100 * getattr(r, field) for r in rows if getattr(r, field) is not None]
            style = "--" if not name.startswith("ctxkeep") else "-"
            ax.plot(
                xs,
                ys,
                style,
                marker=markers[rank % len(markers)],
                linewidth=1.2 + 0.7 * (len(names) - 1 - rank),
                markersize=4 + 0.8 * (len(names) - 1 - rank),
                alpha=0.8,
                label=name,
            )
        ax.set_title(title)
        ax.set_xlabel("budget (% of original tokens)")
        ax.invert_xaxis()
        ax.set_xticks([100 * b for b in report.budgets])
        ax.set_ylim(-4, 106)
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("% kept")
    fig.legend(*axes[0].get_legend_handles_labels(), loc="lower center", ncol=4, fontsize=8)
    fig.suptitle(f"ctxkeep bench quality — corpus {report.corpus}, {len(report.sessions)} sessions")
    fig.tight_layout(rect=(0, 0.1, 1, 1))
    fig.savefig(path, dpi=110)
    plt.close(fig)


def write_fact_chart(report: FactReport, path: Path) -> None:
    """Two panels (facts, instructions kept) against the budget's share of the zone (log
    scale), one line per method that ran."""
    plt = _pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(12, 5.5), sharey=True)
    names = list(dict.fromkeys(r.method for r in report.rows if r.unavailable is None))
    panels = (("facts kept", "fact_survival"), ("instructions kept", "instruction_survival"))
    markers = "osD^vP"
    for ax, (title, field) in zip(axes, panels, strict=True):
        for rank, name in enumerate(names):
            rows = sorted((r for r in report.rows if r.method == name), key=lambda r: r.budget)
            points = [(100 * r.budget, getattr(r, field)) for r in rows]
            xs = [x for x, y in points if y is not None]
            ys = [100 * y for _, y in points if y is not None]
            # Coinciding lines (truncations that keep nothing) show as nested bands.
            ax.plot(
                xs,
                ys,
                "-" if name.startswith("ctxkeep") else "--",
                marker=markers[rank % len(markers)],
                linewidth=1.2 + 0.9 * (len(names) - 1 - rank),
                markersize=4 + 0.9 * (len(names) - 1 - rank),
                alpha=0.8,
                label=name,
            )
        ax.set_title(title)
        ax.set_xscale("log")
        ax.minorticks_off()
        ax.set_xlabel("budget (% of the replaced zone's bytes)")
        ax.set_xticks([100 * b for b in report.budgets])
        ax.set_xticklabels([f"{100 * b:g}%" for b in report.budgets])
        ax.set_ylim(-4, 104)
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("% of what was planted in the zone")
    fig.legend(*axes[0].get_legend_handles_labels(), loc="lower center", ncol=5, fontsize=8)
    fig.suptitle(
        f"ctxkeep bench facts — corpus {report.corpus}, {len(report.chats)} chats, "
        f"zones {', '.join(f'{100 * z:g}%' for z in report.zones)}"
    )
    fig.tight_layout(rect=(0, 0.08, 1, 1))
    fig.savefig(path, dpi=110)
    plt.close(fig)
