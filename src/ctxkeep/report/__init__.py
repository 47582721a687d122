"""Report formats, in one registry that ``--format`` choices are built from.

Each report turns an :class:`~ctxkeep.engine.AuditResult` into a string; the CLI writes
it. Slot for ``html``: report/html.py defines ``REPORT`` and is added to :data:`REPORTS`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ctxkeep.report import html, json, sarif, text

if TYPE_CHECKING:
    from ctxkeep.engine import AuditResult

__all__ = ["REPORTS", "Report", "render", "report_named", "report_names"]


@dataclass(frozen=True, slots=True)
class Report:
    """A named output format; ``machine`` ones turn progress bars off."""

    name: str
    render: Callable[[AuditResult], str]
    machine: bool


REPORTS: tuple[Report, ...] = (
    Report("text", text.render, machine=False),
    Report("json", json.render, machine=True),
    Report("sarif", sarif.render, machine=True),
    Report("html", html.render, machine=True),
)


def report_names() -> tuple[str, ...]:
    """The names ``--format`` accepts, in registry order."""
    return tuple(r.name for r in REPORTS)


def report_named(name: str) -> Report:
    """The report called ``name``; raises ``KeyError`` naming the known ones."""
    for report in REPORTS:
        if report.name == name:
            return report
    raise KeyError(f"unknown report format {name!r}; known: {', '.join(report_names())}")


def render(name: str, result: AuditResult, *, show_secrets: bool = False) -> str:
    """``result`` in the format called ``name``, its secrets masked unless
    ``show_secrets`` (:mod:`ctxkeep.secrets`: the finished text of every format is masked,
    so nothing a format adds can carry a key out)."""
    text = report_named(name).render(result)
    if show_secrets:
        return text
    from ctxkeep.secrets import mask_secrets

    return mask_secrets(text)[0]
