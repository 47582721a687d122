"""``ctxkeep score``: the value the compactor sees in each message, as a table."""

from __future__ import annotations

import json
import sys

import click

from ctxkeep.cli import exit_codes
from ctxkeep.cli.compact import (
    default_task,
    make_cli_scorer,
    read_messages,
    report_problems,
    scorer_options,
)
from ctxkeep.cli.options import text_or_json_option

_PREVIEW = 60


@click.command("score")
@click.argument("file", type=str)
@scorer_options
@text_or_json_option
def score_command(
    file: str,
    scorer: str,
    url: str | None,
    model: str | None,
    timeout: float | None,
    task: str | None,
    keep_recent: int,
    pins: tuple[str, ...],
    no_pins: bool,
    pin_flags: str,
    batch_size: int,
    output: str,
) -> None:
    """Score every message in FILE against --task and show why each would be kept.

    Protected messages (system, the last --keep-recent, pinned) show their reason and no
    score, because the compactor never scores them. Nothing is written anywhere.
    """
    from ctxkeep.base.messages import message_text
    from ctxkeep.compactor import compact

    loaded = read_messages(file)
    report_problems(loaded.problems)
    # A zero budget makes the compactor score every unprotected message; its decisions
    # are the table (the compacted list itself is not used).
    result = compact(
        loaded.messages,
        task if task is not None else default_task(loaded.messages),
        target_bytes=0,
        keep_recent=keep_recent,
        batch_size=batch_size,
        min_confidence=0.0,
        pin_patterns=pins,
        enable_pinning=not no_pins,
        pin_flags=pin_flags,
        scorer=make_cli_scorer(scorer, url, model, timeout),
    )
    for problem in result.problems:
        click.echo(f"ctxkeep: warning: {problem}", err=True)
    rows = []
    for d in result.decisions:
        status = d.reason if d.score is None else "scored"
        if d.reason == "orphan":
            status = "orphan"
        rows.append(
            {
                "index": d.index,
                "role": d.role,
                "bytes": d.bytes,
                "score": d.score,
                "confidence": d.confidence,
                "status": status,
                "hash": d.hash,
            }
        )
    if output == "json":
        sys.stdout.write(
            json.dumps(
                {
                    "scorer": result.stats.scorer,
                    "degraded": result.stats.degraded_reason,
                    "messages": rows,
                },
                indent=2,
                sort_keys=True,
            )
            + "\n"
        )
    else:
        click.echo(
            f"{'#':>5} {'role':<9} {'bytes':>7} {'score':>6} {'conf':>5}  {'status':<18} text"
        )
        for row, message in zip(rows, loaded.messages, strict=False):
            score = "" if row["score"] is None else f"{row['score']:.3f}"
            conf = "" if row["confidence"] is None else f"{row['confidence']:.2f}"
            preview = " ".join(message_text(message).split())[:_PREVIEW]
            click.echo(
                f"{row['index']:>5} {row['role'] or '-'!s:<9} {row['bytes']:>7} "
                f"{score:>6} {conf:>5}  {row['status']:<18} {preview}"
            )
        click.echo(
            f"scorer: {result.stats.scorer}"
            + (f" (DEGRADED: {result.stats.degraded_reason})" if result.stats.degraded else ""),
            err=True,
        )
    if loaded.problems:
        sys.exit(exit_codes.USAGE)
