"""Report formats, in one registry that ``--format`` choices are built from.

Each format is a module of this package whose ``render(result)`` turns an
:class:`~ctxkeep.engine.AuditResult` into a string; the CLI writes it. A format is pure,
as bandit's formatters are: everything it shows is in the result (a format that shows
each compaction taken apart says so with ``detail``, and the caller audits with
``detail=True``); no format reads a file or calls the engine. A format's module is
imported when it renders, so listing the names (``--format``'s choices, ``ctxkeep
--help``) imports none of them.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ctxkeep.engine import AuditResult

__all__ = ["REPORTS", "Report", "render", "report_named", "report_names"]


@dataclass(frozen=True, slots=True)
class Report:
    """A named output format, written by ``ctxkeep.report.<module>.render``; ``machine``
    ones turn progress bars off; ``detail`` ones show each compaction taken apart, so the
    audit they render must hold its detail (``audit(..., detail=True)``)."""

    name: str
    module: str
    machine: bool
    detail: bool = False

    def render(self, result: AuditResult) -> str:
        """``result`` in this format."""
        rendered: str = importlib.import_module(f"{__name__}.{self.module}").render(result)
        return rendered


REPORTS: tuple[Report, ...] = (
    Report("text", "text", machine=False),
    Report("json", "json", machine=True),
    Report("sarif", "sarif", machine=True),
    Report("html", "html", machine=True, detail=True),
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
    ``show_secrets`` (:mod:`ctxkeep.base.secrets`: the finished text of every format is masked,
    so nothing a format adds can carry a key out)."""
    text = report_named(name).render(result)
    if show_secrets:
        return text
    from ctxkeep.base.secrets import mask_secrets

    return mask_secrets(text)[0]
