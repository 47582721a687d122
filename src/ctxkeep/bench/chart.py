"""The quality chart: survival against budget, one line per compactor (PNG).

matplotlib is in the ``bench`` extra and imported here only, when a chart is asked for.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any

from ctxkeep.bench.quality import QualityReport

__all__ = ["ChartUnavailable", "write_chart"]


class ChartUnavailable(RuntimeError):
    """matplotlib is not installed (``pip install 'ctxkeep[bench]'``)."""


def write_chart(report: QualityReport, path: Path) -> None:
    """Two panels (constraints, identifiers kept) against budget, one line per compactor."""
    try:
        matplotlib: Any = importlib.import_module("matplotlib")
    except ImportError:
        raise ChartUnavailable("the chart needs matplotlib: pip install 'ctxkeep[bench]'") from None
    # Typed as Any: matplotlib is an optional extra, not part of ctxkeep's type check.
    matplotlib.use("Agg")  # no display: write a file
    plt: Any = importlib.import_module("matplotlib.pyplot")
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
