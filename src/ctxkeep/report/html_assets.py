"""The inline CSS and JavaScript of the HTML report (no external asset, no network).

They live beside this module as ``assets/report.css`` and ``assets/report.js`` and are
written into every page. The script renders a compaction's detail only when its
``<details>`` is opened, from the JSON embedded beside it, and pages the replaced history
(``PAGE_SIZE`` events at a time, read from the body's ``data-page-size``), so a
20,000-event session opens at once. It builds every node with ``textContent``: the logs
are untrusted, and nothing from them is ever parsed as HTML.
"""

from __future__ import annotations

from functools import cache
from importlib.resources import files

__all__ = ["PAGE_SIZE", "css", "script"]

PAGE_SIZE = 100
"""Replaced-history events shown per page of a compaction's detail."""


def _asset(name: str) -> str:
    return (files("ctxkeep.report") / "assets" / name).read_text(encoding="utf-8")


@cache
def css() -> str:
    """The page's style sheet."""
    return _asset("report.css")


@cache
def script() -> str:
    """The page's script; it must never contain ``</script``."""
    text = _asset("report.js")
    if "</script" in text.lower():
        raise ValueError("report.js must not contain '</script'")
    return text
