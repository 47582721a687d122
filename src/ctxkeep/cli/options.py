"""Options shared by several commands (one definition each)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
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


def ledger_options(func: F) -> F:
    """``--ledger PATH`` / ``--no-ledger``: the restore ledger ctxkeep's hooks write."""
    func = click.option(
        "--no-ledger",
        is_flag=True,
        help="Do not read ctxkeep's restore ledger (judge the logs alone).",
    )(func)
    return click.option(
        "--ledger",
        type=click.Path(dir_okay=False, path_type=Path),
        default=None,
        help="Read this restore ledger: what ctxkeep's hooks restored after each "
        "compaction and asked the summariser to keep before it (docs/hooks.md). A later "
        "summary that repeats a restored instruction is then grounded, a restored "
        "instruction is judged at the next compaction, and the report marks it "
        "'restored by ctxkeep'. [default: CTXKEEP_HOME/restores.jsonl when it exists]",
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


show_secrets_option = click.option(
    "--show-secrets",
    is_flag=True,
    help="Do not mask secrets (API keys, tokens, passwords, private keys) found in the "
    "logs; by default each is written as REDACTED:<kind> (docs/reliability.md).",
)


def masked_output(text: str, show_secrets: bool) -> str:
    """``text`` with its secrets masked unless ``show_secrets``; says on stderr how many."""
    if show_secrets:
        return text
    from ctxkeep.base.secrets import mask_secrets

    masked, count = mask_secrets(text)
    if count:
        click.echo(
            f"ctxkeep: note: {count} secret{'s' if count != 1 else ''} masked in the report "
            "(--show-secrets shows them)",
            err=True,
        )
    return masked
