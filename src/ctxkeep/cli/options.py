"""Options shared by several commands (one definition each)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import click

from ctxkeep.log.adapters import format_names

F = TypeVar("F", bound=Callable[..., Any])


def log_format_option(func: F) -> F:
    """``--log-format``: override format sniffing."""
    return click.option(
        "--log-format",
        "log_format",
        type=click.Choice(format_names()),
        default=None,
        help="Read every PATH as this log format instead of sniffing it.",
    )(func)


def summary_index_option(func: F) -> F:
    """``--summary-index``: mark a compaction summary in a plain message array."""
    return click.option(
        "--summary-index",
        type=click.IntRange(min=0),
        default=None,
        help="Plain message arrays: 0-based index of the message that is a compaction "
        "summary, when no known opening line marks it.",
    )(func)


def text_or_json_option(func: F) -> F:
    """``--format text|json``: a person's text (default) or the same as JSON data."""
    return click.option(
        "--format",
        "output",
        type=click.Choice(["text", "json"]),
        default="text",
        show_default=True,
        help="Output format: text for a person, json for scripts.",
    )(func)
