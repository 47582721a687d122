"""``ctxkeep replay``: re-run a recorded compaction at another budget, no scorer call."""

from __future__ import annotations

import sys

import click

from ctxkeep.cli import exit_codes
from ctxkeep.cli.compact import (
    fail,
    read_messages,
    repair_line,
    report_problems,
    stats_line,
    write_messages,
)


@click.command("replay")
@click.argument("file", type=str)
@click.option(
    "--scores",
    "receipts",
    required=True,
    type=str,
    help="The receipts file of an earlier `ctxkeep compact --receipt`.",
)
@click.option(
    "--target-bytes",
    type=click.IntRange(min=0),
    default=None,
    help="Budget in UTF-8 bytes [default: the recorded run's].",
)
@click.option(
    "--target-tokens",
    type=click.IntRange(min=0),
    default=None,
    help="Budget in o200k tokens [default: the recorded run's].",
)
@click.option(
    "--min-confidence",
    type=click.FloatRange(0, 1),
    default=None,
    help="Threshold [default: the recorded run's].",
)
@click.option(
    "--keep-recent",
    type=click.IntRange(min=0),
    default=None,
    help="Always keep the last N [default: the recorded run's].",
)
@click.option("--run-id", default=None, help="Which recorded run [default: the last trusted].")
def replay_command(
    file: str,
    receipts: str,
    target_bytes: int | None,
    target_tokens: int | None,
    min_confidence: float | None,
    keep_recent: int | None,
    run_id: str | None,
) -> None:
    """Compact FILE again with the scores recorded in --scores, at another budget or
    threshold: no scorer is called. Messages are matched to the receipt by content hash,
    so FILE may have changed since; messages the receipt does not know are scored by
    recency. A summary a model wrote (compact --summarizer) is taken from the receipt
    and repaired again, never asked for: when the replay drops other messages than the
    recorded run, the extractive summary stands in. JSONL on stdout, stats on stderr.
    """
    from ctxkeep.compactor import read_receipts, replay
    from ctxkeep.log.model import located

    file_receipts = read_receipts(receipts)
    for line, reason in file_receipts.problems:
        click.echo(f"ctxkeep: warning: {located(str(receipts), line)}: {reason}", err=True)
    if file_receipts.run(run_id) is None:
        wanted = f"run {run_id}" if run_id else "trusted run"
        fail(f"{receipts}: no {wanted} to replay")
    loaded = read_messages(file)
    report_problems(loaded.problems)
    result = replay(
        loaded.messages,
        file_receipts,
        target_bytes=target_bytes,
        target_tokens=target_tokens,
        min_confidence=min_confidence,
        keep_recent=keep_recent,
        run_id=run_id,
    )
    write_messages(result.messages)
    for problem in result.problems:
        if not problem.startswith(receipts + ":"):
            click.echo(f"ctxkeep: warning: {problem}", err=True)
    click.echo(stats_line(result), err=True)
    repaired = repair_line(result)
    if repaired:
        click.echo(repaired, err=True)
    if loaded.problems:
        sys.exit(exit_codes.USAGE)
