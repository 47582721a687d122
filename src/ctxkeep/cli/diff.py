"""``ctxkeep diff``: one compaction in detail."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from ctxkeep.cli import exit_codes
from ctxkeep.cli.audit import read_ledger_option, usage_error
from ctxkeep.cli.options import (
    ledger_options,
    log_format_option,
    masked_output,
    show_secrets_option,
    summary_index_option,
    text_or_json_option,
)

__all__ = ["diff_command"]


@click.command("diff")
@click.argument("path", type=click.Path(path_type=str))
@click.option(
    "--compaction",
    "-c",
    "index",
    type=click.IntRange(min=1),
    required=True,
    help="Which compaction of the session (1-based, as audit numbers them).",
)
@text_or_json_option
@log_format_option
@summary_index_option
@show_secrets_option
@ledger_options
def diff_command(
    path: str,
    index: int,
    output: str,
    log_format: str | None,
    summary_index: int | None,
    show_secrets: bool,
    ledger: Path | None,
    no_ledger: bool,
) -> None:
    """Show one compaction of the session log at PATH in detail: what the summary
    replaced (counts by kind), every constraint kept / reworded / lost beside the line
    it came from, every invented item, every ghost reference. With the restore ledger
    (read as for audit: --ledger, --no-ledger), the instructions ctxkeep's hooks
    restored or asked to keep are marked, and what they did around the compaction is
    shown.

    Exit 0, or 2 when the log or the compaction cannot be found.
    """
    from ctxkeep.engine import NoSuchCompactionError, diff
    from ctxkeep.log.adapters.base import ReadOptions
    from ctxkeep.report.diff import render_diff_json, render_diff_text

    book = read_ledger_option(ledger, no_ledger)
    try:
        result = diff(
            path, index, log_format=log_format, options=ReadOptions(summary_index), ledger=book
        )
    except NoSuchCompactionError as exc:
        usage_error(str(exc))
    render = render_diff_json if output == "json" else render_diff_text
    sys.stdout.write(masked_output(render(result), show_secrets))
    sys.exit(exit_codes.OK)
